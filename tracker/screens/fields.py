"""A form's fields derived from the model that declares them (models.fields): label, kind,
bounds and options are read, never restated, so the form asks for what the service accepts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from tracker.screens.form import FieldSpec
from tracker.services.fields import FieldRule, rules

# What only the model declares: a form adds a pick list or a starting value, never these.
DECLARED = frozenset({"kind", "low", "high", "optional", "options"})


def _value(rule: FieldRule, shown: Any, model: type[BaseModel]) -> Any:
    """What the field starts with: the row's value, else the declared default; a field whose
    blank means something, or that has no default, starts blank on a new row."""
    if shown is not None:
        value = shown.get(rule.key) if isinstance(shown, Mapping) else getattr(shown, rule.key)
    elif rule.optional or rule.required:
        value = None
    else:
        value = model.model_fields[rule.key].get_default(call_default_factory=True)
    if value is None and rule.kind != "select":
        return ""
    return value


def specs_from(
    model: type[BaseModel],
    shown: Any = None,
    *,
    keys: Iterable[str] | None = None,
    **extra: Mapping[str, Any],
) -> list[FieldSpec]:
    """The form's fields for `model` (those in `keys`, in that order; else all but the row's
    version), starting from `shown` (a read view or a mapping; None: a new row). `extra[key]`
    adds what a model does not declare (suggestions, a value, a password): never a bound."""
    specs = []
    for rule in rules(model, keys):
        if rule.key == "version":
            continue  # the version the form was opened with is sent by the screen, never typed
        # A label that already says what a blank means keeps its own words.
        says = rule.blank and "blank" not in rule.label
        label = f"{rule.label} (blank: {rule.blank})" if says else rule.label
        added = dict(extra.get(rule.key, {}))
        assert not added.keys() & DECLARED, f"{rule.key}: a bound is the model's to declare"
        spec = FieldSpec(
            rule.key, label, kind=rule.kind, options=rule.options, low=rule.low, high=rule.high,
            optional=rule.optional, value=added.pop("value", _value(rule, shown, model)), **added,
        )  # fmt: skip
        specs.append(spec)
    return specs
