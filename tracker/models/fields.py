"""One declaration per field: its type, bounds, label and help, and the player's messages.

A model family (`XBase` / `X(table=True)` / `XCreate` / `XUpdate` / `XRead`, as SQLModel's
documentation teaches) declares each field once, on the Base, with `field(...)`: the bounds as
pydantic's `ge`/`le`/`max_length`, the label and help for forms and prints in
`json_schema_extra`. The form, the service, the CSV columns and the JSON import all read them
from there, so a bound cannot differ between them.

Table models do not validate on construction; a service validates what the player typed with
`validate(XCreate, values)`, which raises InvalidInput with one message per field, saying what
is wrong and what to type.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from types import NoneType, UnionType
from typing import Any, Literal, Protocol, TypeVar, Union, cast, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from sqlmodel import Field

from tracker import compat
from tracker.errors import InvalidInput, quoted

M = TypeVar("M", bound=BaseModel)


def field(
    default: Any = ...,
    *,
    label: str,
    help: str = "",
    blank: str = "",
    options: Sequence[tuple[str, Any]] = (),
    printed: str = "",
    **bounds: Any,
) -> Any:
    """A field declared once: `bounds` are Field's (ge, le, max_length, foreign_key, ...);
    `label` and `help` are what a form shows; `printed` the shorter label of a printed sheet,
    if it has one (else the label); `blank` says what a blank means in a form (the field may
    then be left blank); `options` are a select's (shown, value) pairs."""
    listed = [list(option) for option in options]
    given = dict(label=label, help=help, printed=printed, blank=blank, options=listed)
    extra = {key: value for key, value in given.items() if value}
    return Field(default, schema_extra={"json_schema_extra": extra}, **bounds)


@dataclass(frozen=True)
class _OneOf:
    """The check of one_of, keeping its words where `words_of` finds them."""

    words: tuple[str, ...]
    said: str

    def __call__(self, value: str) -> str:
        if value not in self.words:
            raise ValueError(self.said or f"must be one of {', '.join(self.words)}")
        return value


def one_of(words: Iterable[str], *, said: str = "") -> AfterValidator:
    """A text field that holds one of a few words (stored as text: the column stays a string);
    `said` is what the player is told otherwise (else the words are listed)."""
    return AfterValidator(_OneOf(tuple(words), said))


def words_of(info: FieldInfo) -> tuple[str, ...] | None:
    """The words a field may hold, as its declaration says (its enum, its Literal or its
    one_of); None for a field that holds any text, or no text."""
    for check in info.metadata:
        if isinstance(check, AfterValidator) and isinstance(check.func, _OneOf):
            return tuple(map(str, check.func.words))
    annotation = info.annotation
    if get_origin(annotation) is Literal:
        return tuple(map(str, get_args(annotation)))
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return tuple(map(str, annotation))
    return None


@dataclass(frozen=True)
class FieldRule:
    """A field as a form or a column sees it: plain values, read from the model's declaration."""

    key: str
    label: str
    kind: str  # text | int | bool | select
    help: str = ""
    low: int | None = None
    high: int | None = None
    max_length: int | None = None
    optional: bool = False  # may be left blank (None), `blank` says what that means
    blank: str = ""
    required: bool = False  # no default: the player must give it
    options: tuple[tuple[str, Any], ...] = ()


def _bound(info: FieldInfo, name: str) -> Any:
    return next((getattr(m, name) for m in info.metadata if hasattr(m, name)), None)


def _extra(info: FieldInfo) -> dict[str, Any]:
    extra = info.json_schema_extra
    return extra if isinstance(extra, dict) else {}


def _kind(annotation: Any) -> tuple[str, bool, tuple[tuple[str, Any], ...]]:
    """(kind, may be None, options) of an annotation."""
    optional = False
    if get_origin(annotation) in (Union, UnionType):
        args = [arg for arg in get_args(annotation) if arg is not NoneType]
        optional = len(args) < len(get_args(annotation))
        annotation = args[0] if len(args) == 1 else annotation
    if get_origin(annotation) is Literal:
        return "select", optional, tuple((str(word), word) for word in get_args(annotation))
    if annotation is bool:
        return "bool", optional, ()
    if annotation is int:
        return "int", optional, ()
    return "text", optional, ()


@cache  # a declaration never changes once its model is built; a hit checks five of them
def rule_of(key: str, info: FieldInfo) -> FieldRule:
    extra = _extra(info)
    kind, optional, options = _kind(info.annotation)
    if extra.get("options"):
        kind = "select"
        options = tuple((str(shown), value) for shown, value in extra["options"])
    return FieldRule(
        key=key,
        label=str(extra.get("label", key.replace("_", " ").capitalize())),
        kind=kind,
        help=str(extra.get("help", "")),
        low=_bound(info, "ge"),
        high=_bound(info, "le"),
        max_length=_bound(info, "max_length"),
        optional=optional or bool(extra.get("blank")),
        blank=str(extra.get("blank", "")),
        required=info.is_required(),
        options=options,
    )


def rules(model: type[BaseModel], keys: Iterable[str] | None = None) -> tuple[FieldRule, ...]:
    fields = model.model_fields
    return tuple(rule_of(key, fields[key]) for key in (keys or fields))


class Bounded(Protocol):
    """Anything with a number's bounds: a model's FieldRule, a form's field."""

    @property
    def low(self) -> int | None: ...

    @property
    def high(self) -> int | None: ...


def allowed(rule: Bounded) -> str:
    """The bounds as a player reads them: `1..20`, `0 or more`, `20 or less`."""
    if rule.low is not None and rule.high is not None:
        return f"{rule.low}..{rule.high}"
    if rule.low is not None:
        return f"{rule.low} or more"
    return f"{rule.high} or less" if rule.high is not None else ""


def _message(model: type[BaseModel], key: str, error: Any) -> str:
    """pydantic's error as the player's message: what is wrong and what to type."""
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    info = model.model_fields.get(key)
    rule = rule_of(key, info) if info is not None else None
    if kind in ("greater_than_equal", "less_than_equal") and rule is not None:
        return f"must be {allowed(rule)}, got {quoted(value)}"
    if kind == "string_too_long":
        length = len(value) if isinstance(value, str) else "more"
        return f"must be at most {ctx.get('max_length')} characters, got {length}"
    if kind == "string_too_short":
        return "must not be blank"
    if kind in ("int_parsing", "int_type", "int_from_float", "int_parsing_size", "finite_number"):
        hint = f" ({allowed(rule)})" if rule is not None and allowed(rule) else ""
        return f"type a whole number{hint}, not {quoted(value)}"
    if kind == "bool_parsing" or kind == "bool_type":
        return f"must be yes or no, not {quoted(value)}"
    if kind == "string_type":
        return f"must be text, not {quoted(value)}"
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected')}"
    if kind == "missing":
        return "required: type a value"
    if kind == "extra_forbidden":
        return "is not a field of this form: leave it out"
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])
    return f"is not valid here ({str(error.get('msg', '')).lower()}): retype it"


def errors_of(model: type[BaseModel], exc: ValidationError) -> dict[str, str]:
    """Each field's first problem, as the player's message ({field: message})."""
    found: dict[str, str] = {}
    for error in exc.errors():
        key = str(error["loc"][0]) if error["loc"] else "form"
        found.setdefault(key, _message(model, key, error))
    return found


def validate(model: type[M], values: Mapping[str, Any] | BaseModel) -> M:
    """The values checked against the model's declarations, or InvalidInput naming each field
    that is wrong; nothing is written by a caller that lets it propagate."""
    data = values.model_dump() if isinstance(values, BaseModel) else dict(values)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(errors_of(model, exc)) from exc


def same_as(model: type[BaseModel], key: str, *, label: str = "") -> Any:
    """The field `key` of another model (its bounds, default, blank, options and column), under
    another label if given: a value one model copies from another is bounded once."""
    info: FieldInfo = model.model_fields[key]
    rule = rule_of(key, info)
    sa_type = _bound(info, "sa_type")
    bounds: dict[str, Any] = {
        name: value
        for name, value in (
            ("ge", rule.low), ("le", rule.high), ("max_length", rule.max_length),
            ("min_length", _bound(info, "min_length")),
            ("sa_type", None if sa_type is PydanticUndefined else sa_type),
        )
        if value is not None
    }  # fmt: skip
    default = ... if info.is_required() else info.default
    return field(default, label=label or rule.label, help=rule.help, blank=rule.blank,
                 options=_extra(info).get("options", ()), **bounds)  # fmt: skip


def printed_label(model: type[BaseModel], key: str) -> str:
    """The label a printed sheet gives the field: its own short one, else its form's."""
    extra = _extra(model.model_fields[key])
    return str(extra.get("printed") or rule_of(key, model.model_fields[key]).label)


@cache
def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    """A read model's defaults, each computed once (a default factory's value is never shared
    mutable state here: read models are frozen)."""
    return {
        key: info.get_default(call_default_factory=True)
        for key, info in model.model_fields.items()
        if not info.is_required()
    }


@cache
def _stored(model: type[BaseModel], table: type) -> tuple[str, ...]:
    return tuple(key for key in model.model_fields if hasattr(table, key))


def read(model: type[M], row: Any, **derived: Any) -> M:
    """A stored row as its read model, never refused: a value out of today's bounds (an older
    file) is shown as stored, not rejected. `derived` gives what the row does not hold as it is
    shown (a rating's name, a value the viewer may not see); a field given by neither takes
    its default.

    Built as model_construct builds it (no validation: the row was validated on its way in),
    reading the row's loaded values directly: a record sheet or a roster reads thousands, and
    model_construct with an attribute read per field cost four times as much (measured).
    """
    loaded, table = row.__dict__, cast(type, type(row))
    given = {
        key: loaded[key] if key in loaded else getattr(row, key)
        for key in _stored(model, table)
        if key not in derived
    }
    given.update(derived)
    shown: M = compat.construct_unchecked(model, {**_defaults(model), **given}, given)
    return shown
