"""What the player typed, checked against the one declaration of each field (models.fields).

A service validates its input here: the bounds, types and lengths its model family declares,
and, for every text, the characters no text (and no name) may hold. Screens read the same
declarations through `rules` to build their forms, so a form and its service cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from tracker.models.fields import FieldRule, allowed, rule_of, rules, validate
from tracker.services.errors import InvalidInput, require_plain

__all__ = ["FieldRule", "allowed", "checked", "filled_when_blank", "require_declared", "rules"]

M = TypeVar("M", bound=BaseModel)


def edited(
    model: type[M], row: Any, given: Mapping[str, Any], *, names: Iterable[str] = ("name",)
) -> M:
    """An edit of a stored row, checked: `given` over the row's values, so that a field the
    edit leaves out keeps the row's value, never the model's default."""
    kept = {key: getattr(row, key) for key in model.model_fields if key != "version"
            and hasattr(row, key)}  # fmt: skip
    return checked(model, {**kept, **given}, names=names)


def checked(model: type[M], values: Mapping[str, Any], *, names: Iterable[str] = ("name",)) -> M:
    """The values as the model, or InvalidInput naming every field that is wrong: out of its
    bounds, of the wrong type, or holding a character no text (for `names`, no name) may hold."""
    errors: dict[str, str] = {}
    try:
        result: M | None = validate(model, values)
    except InvalidInput as exc:
        errors, result = dict(exc.errors), None
    name_keys = set(names)
    for key, value in values.items():
        if isinstance(value, str):
            require_plain(errors, key, value.strip(), name=key in name_keys)
    if errors or result is None:
        raise InvalidInput(errors)
    return result


def filled_when_blank(model: type[BaseModel]) -> dict[str, Any]:
    """The fields a blank gives a value the player did not type, with that value: the declared
    default, not itself blank, of a field whose declaration says nothing of a blank (a vital
    armor left blank is 1). An import says so for each it fills."""
    filled: dict[str, Any] = {}
    for key, info in model.model_fields.items():
        rule = rule_of(key, info)
        default = None if rule.required else info.get_default(call_default_factory=True)
        if not rule.blank and default is not None and default not in ("", [], {}):
            filled[key] = default
    return filled


def require_declared(
    errors: dict[str, str], model: type[BaseModel], /, *, field: str = "", **values: int | str
) -> None:
    """Record an error (under `field`, else its key) for each value outside what the model
    declares for its key (a text: its length, and the characters no text may hold)."""
    for key, value in values.items():
        rule, where = rule_of(key, model.model_fields[key]), field or key
        if isinstance(value, str):
            if rule.max_length is not None and len(value) > rule.max_length:
                errors[where] = f"must be at most {rule.max_length} characters, got {len(value)}"
            require_plain(errors, where, value)
        elif (rule.low is not None and value < rule.low) or (
            rule.high is not None and value > rule.high
        ):
            errors[where] = f"must be {allowed(rule)}, got {value}"
