"""A modal form: labelled fields, inline errors, Save refused until the service accepts."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from tracker.rules.dice import Dice
from tracker.safe_output import ExistingFile
from tracker.screens import calls
from tracker.screens.calls import Call
from tracker.screens.confirm import ConfirmScreen, confirm
from tracker.services.errors import DatabaseUnavailable, InvalidInput, NotFound
from tracker.services.fields import allowed
from tracker.widgets.plain import plain_options
from tracker.widgets.tick_box import TickBox

T = TypeVar("T")


@dataclass(frozen=True)
class FieldSpec:
    """One field of a form: key (the service's argument name), label, kind and starting value."""

    key: str
    label: str
    kind: str = "text"  # text | int | bool | select
    value: Any = ""
    options: Sequence[tuple[str, Any]] = field(default=())
    placeholder: str = ""
    low: int | None = None
    high: int | None = None
    suggestions: Sequence[str] = field(default=())  # a text field's pick list; any text allowed
    optional: bool = False  # an int field that may be left blank (None)
    password: bool = False  # typed characters are hidden
    # A select whose choices follow another select's value (a minelayer from the owner's own
    # ships): `options_for[that value]`; `options` are the choices for its first value.
    depends_on: str = ""
    options_for: Mapping[Any, Sequence[tuple[str, Any]]] = field(default_factory=dict)


def parse_int(text: str, spec: FieldSpec) -> tuple[int | None, str | None]:
    """A whole number within the field's bounds, or the message that says what to type."""
    text = text.strip()
    bounds = allowed(spec)
    if not text and spec.optional:
        return None, None
    try:
        value = int(text)
    except ValueError:
        hint = f" ({bounds})" if bounds else ""
        return None, f"type a whole number{hint}, not {text!r}" if text else f"required{hint}"
    if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
        return None, f"must be {bounds}, got {value}"
    return value, None


def typed_dice(values: dict[str, Any], key: str, wrong: str) -> list[int]:
    """The dice the player typed in field `key` (`5 2`, or `5, 2`; none when blank), taken out
    of the values; refused with `wrong` beside the field when a word is not a number."""
    words = (values.pop(key) or "").replace(",", " ").split()
    if not all(word.isdigit() for word in words):
        raise InvalidInput({key: wrong})
    return [int(word) for word in words]


class ConfirmFirst(Exception):
    """Raised by a form's submit to ask the player first (replace a file that exists?): on yes
    the form saves `then()`'s result; on no it stays open with `declined` beside `field`."""

    def __init__(
        self, question: str, then: Callable[[], Any], *, yes: str, field: str, declined: str
    ) -> None:
        super().__init__(question)
        self.question = question
        self.then = then
        self.yes = yes
        self.field = field
        self.declined = declined


class FormScreen(ModalScreen[Any]):
    """Calls `submit(values)`; an InvalidInput it raises is shown beside the fields it names.

    `preview(values)` gives the words under the fields, or a Call whose result gives them
    (a preview the database answers, such as the mine table's row): the newest field's answer
    is shown, one asked before it is dropped. A `title` given as a function of the values
    follows them as the preview does. Escape on a form the player has typed in asks before it
    discards what was typed; an untouched form closes at once.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+r", "roll", "Roll the die for me"),
    ]

    def __init__(
        self,
        title: str | Callable[[dict[str, Any]], str],
        fields: Sequence[FieldSpec],
        submit: Callable[[dict[str, Any]], Any],
        *,
        note: str = "",
        preview: Callable[[dict[str, Any]], str | Call[str]] | None = None,
        dice_field: str | None = None,
        dice_sides: int = 10,
        read_only_ok: bool = False,
        secret_die: bool = False,
    ) -> None:
        super().__init__()
        self.fields = list(fields)
        self.title_for = None if isinstance(title, str) else title
        opening = {spec.key: spec.value for spec in self.fields}
        self.form_title = title if isinstance(title, str) else title(opening)
        self.submit = submit
        self.note = note
        self.preview = preview
        self.dice_field = dice_field
        self.dice_sides = dice_sides
        self.rolled: int | None = None  # the last d10 the app rolled into the roll field
        # A form whose submit neither writes to the database nor shows a secret (printing a
        # sheet to a file): the only kind the umpire's read-only view may save.
        self.read_only_ok = read_only_ok
        # A die that decides a secret (a sub's mine roll, a secret minefield's drift) stays out
        # of the app's dice log, which any screen may show to the player across the table.
        self.secret_die = secret_die
        self.saving = False  # a save is running: one key, one save
        self.previews = 0  # the previews asked of the database: only the newest is shown
        self.untouched: dict[str, Any] = {}  # each field's value as the form opened

    def compose(self) -> ComposeResult:
        with Vertical(id="form-dialog"):
            yield Label(self.form_title, id="form-title", markup=False)
            if self.note:
                yield Static(self.note, id="form-note", markup=False)
            with VerticalScroll(id="form-fields"):
                for spec in self.fields:
                    with Horizontal(classes="form-row"):
                        yield Label(spec.label, classes="form-label", markup=False)
                        yield self._widget_for(spec)
                    yield Label(
                        "", id=f"error-{spec.key}", classes="form-error -hidden", markup=False
                    )
            if self.preview is not None:
                yield Static("", id="form-preview", markup=False)
            yield Label("", id="error-form", classes="form-error -hidden", markup=False)
            with Horizontal(id="form-buttons"):
                yield Button("Save (ctrl+s)", variant="primary", action="screen.save")
                if self.dice_field:
                    yield Button(f"Roll d{self.dice_sides} (ctrl+r)", action="screen.roll")
                yield Button("Cancel (esc)", action="screen.cancel")

    def _widget_for(self, spec: FieldSpec) -> Input | Checkbox | Select[Any]:
        widget_id = f"field-{spec.key}"
        if spec.kind == "bool":
            return TickBox("", value=bool(spec.value), id=widget_id, compact=True)
        if spec.kind == "select":
            return Select(
                plain_options(spec.options), value=spec.value, allow_blank=False, id=widget_id,
                compact=True,
            )  # fmt: skip
        suggester = (
            SuggestFromList(spec.suggestions, case_sensitive=False) if spec.suggestions else None
        )
        return Input(
            str(spec.value), placeholder=spec.placeholder, id=widget_id, compact=True,
            suggester=suggester, password=spec.password,
        )  # fmt: skip

    def _collect(self) -> tuple[dict[str, Any], dict[str, str]]:
        values, errors = self._typed(), {}
        for spec in self.fields:
            if spec.kind == "int":
                values[spec.key], error = parse_int(values[spec.key], spec)
                if error:
                    errors[spec.key] = error
        return values, errors

    def show_errors(self, errors: dict[str, str]) -> None:
        """Put each message beside its field (unknown fields go under the form); clear the rest."""
        keys = {spec.key for spec in self.fields}
        for spec in self.fields:
            self._mark(spec.key, errors.get(spec.key))
        general = [message for key, message in errors.items() if key not in keys]
        form_error = self.query_one("#error-form", Label)
        form_error.update("\n".join(general))
        form_error.set_class(not general, "-hidden")
        if first := next((spec.key for spec in self.fields if spec.key in errors), None):
            self.query_one(f"#field-{first}").focus()

    def action_save(self) -> None:
        if getattr(self.app, "read_only", False) and not self.read_only_ok:
            # No screen of the umpire's view opens such a form; should one, it is refused here.
            self.show_errors({"form": "read-only umpire view: nothing can be changed here"})
            return
        values, errors = self._collect()
        if errors:
            self.show_errors(errors)
            return
        self._finish(values, lambda: self.submit(values))

    def _finish(self, values: dict[str, Any], submit: Callable[[], Any]) -> None:
        """Save through the one path (screens.calls) when submit gives a Call; its value at
        once when it computed one itself."""
        if self.saving:
            return  # the save asked before is still running: one key, one save
        try:
            asked = submit()
        except (InvalidInput, NotFound, ConfirmFirst) as error:
            self._refused(values, error)
            return
        except DatabaseUnavailable as exc:
            # A submit that read the database itself (no Call): said in the form, the player's
            # typing kept for a retry.
            self.show_errors(exc.errors)
            return
        if isinstance(asked, Call):
            self.saving = True
            calls.run(
                self,
                asked,
                # A service that returns nothing still tells the caller the form was saved
                # (True), not cancelled (None).
                then=lambda result: self._saved(values, True if result is None else result),
                refused=lambda error: self._refused(values, error),
                # Back to _refused too, so the form knows its save has ended.
                expected=(ConfirmFirst, DatabaseUnavailable),
            )
        else:
            self._saved(values, asked)

    def _saved(self, values: dict[str, Any], result: Any) -> None:
        self.saving = False
        self._log_typed_roll(values)
        self.dismiss(result)

    def _refused(self, values: dict[str, Any], error: Exception) -> None:
        self.saving = False
        if isinstance(error, ConfirmFirst):
            self._ask(values, error)
        elif isinstance(error, InvalidInput):
            self.show_errors(error.errors)
        # A database that did not answer is said as the path says it; the typing is kept.
        elif not calls.tell_unavailable(self.app, error):
            self.show_errors({"form": f"{error}: close this form and look again"})

    def _ask(self, values: dict[str, Any], ask: ConfirmFirst) -> None:
        """Put the question over the form; nothing happens until the player answers yes."""

        def answered(yes: bool | None) -> None:
            if yes:
                self._finish(values, ask.then)
            else:
                self.show_errors({ask.field: ask.declined})

        self.app.push_screen(ConfirmScreen(ask.question, yes=ask.yes), answered)

    def _log_typed_roll(self, values: dict[str, Any]) -> None:
        """A die the player rolled at the table and typed goes into the dice log too."""
        typed = values.get(self.dice_field) if self.dice_field else None
        if isinstance(typed, int) and typed != self.rolled and (dice := self._logged_dice()):
            dice.record(self.dice_sides, typed, self.form_title)

    def _logged_dice(self) -> Dice | None:
        """The app's dice, whose log any screen may show: none for a die that decides a secret."""
        dice = getattr(self.app, "dice", None)
        return dice if isinstance(dice, Dice) and not self.secret_die else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "roll" or self.dice_field is not None

    def on_mount(self) -> None:
        # The scroller only scrolls; tab should go from field to field.
        self.query_one("#form-fields").can_focus = False
        if self.fields:
            self.query_one(f"#field-{self.fields[0].key}").focus()
        self.untouched = self._typed()
        self.refresh_preview()

    def _typed(self) -> dict[str, Any]:
        """Each field's value as its widget holds it (the text typed, unparsed)."""
        return {spec.key: getattr(self.query_one(f"#field-{spec.key}"), "value", None)
                for spec in self.fields}  # fmt: skip

    def refresh_preview(self) -> None:
        """Recompute the live preview, and a title that follows the values, from whatever the
        fields hold now."""
        values, _ = self._collect()  # a number typed wrong reads as None
        if self.title_for is not None:
            self.form_title = self.title_for(values)
            self.query_one("#form-title", Label).update(self.form_title)
        if self.preview is None:
            return
        self.previews += 1
        said = self.preview(values)
        if not isinstance(said, Call):
            self._show_preview(said)
            return
        asked = self.previews

        def show(text: object) -> None:
            if asked == self.previews:  # a later edit's preview is on its way: this one is old
                self._show_preview(str(text))

        calls.run(self, said, then=show, refused=lambda error: show(calls.message(error)))

    def _show_preview(self, text: str) -> None:
        self.query_one("#form-preview", Static).update(text)

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _changed(self, event: Input.Changed | Select.Changed | Checkbox.Changed) -> None:
        self._check_field(event.control.id or "")
        if isinstance(event, Select.Changed):
            self._follow(event.control.id or "", event.value)
        self.refresh_preview()

    def _follow(self, widget_id: str, value: Any) -> None:
        for spec in self.fields:
            if spec.depends_on and widget_id == f"field-{spec.depends_on}":
                options = spec.options_for.get(value, ())
                select = self.query_one(f"#field-{spec.key}", Select)
                if not options:
                    continue
                kept = select.value
                select.set_options(plain_options(options))
                values = [choice for _, choice in options]
                select.value = kept if kept in values else values[0]

    def _check_field(self, widget_id: str) -> None:
        """Say at once what is wrong with a number as it is typed; clear the message once right."""
        spec = next((f for f in self.fields if f"field-{f.key}" == widget_id), None)
        if spec is None:
            return
        error = None
        widget = self.query_one(f"#{widget_id}")
        if spec.kind == "int" and isinstance(widget, Input) and widget.value.strip():
            _, error = parse_int(widget.value, spec)
        self._mark(spec.key, error)

    def _mark(self, key: str, error: str | None) -> None:
        """The field's message under it, and the field marked invalid; none, both cleared."""
        label = self.query_one(f"#error-{key}", Label)
        label.update(f"↑ {error}" if error else "")
        label.set_class(not error, "-hidden")
        self.query_one(f"#field-{key}").set_class(bool(error), "-invalid")

    def action_roll(self) -> None:
        """Roll the form's die with the app's dice into the roll field, once per form; the
        player may still type the value they rolled at the table."""
        if self.dice_field is None:
            return
        if self.rolled is not None:
            # One roll per form: rolling again until the die suits would be no roll at all.
            self.notify(f"Already rolled: {self.rolled}. Type another value only if you rolled "
                        "at the table.", severity="warning")  # fmt: skip
            return
        rng = getattr(self.app, "rng", None) or random.Random()  # the app's, which a test seeds
        dice = self._logged_dice()
        roll = (
            dice.roll(self.dice_sides, self.form_title) if dice else rng.randint(1, self.dice_sides)
        )
        self.rolled = roll
        self.query_one(f"#field-{self.dice_field}", Input).value = str(roll)
        self.notify(f"Rolled d{self.dice_sides}: {roll}", timeout=3)

    def action_cancel(self) -> None:
        """Close without saving; what the player typed is dropped only once they say so."""
        if self.saving or self._typed() == self.untouched:
            self.dismiss(None)
            return

        confirm(
            self,
            f"{self.form_title}: discard what you typed?",
            lambda: self.dismiss(None),
            yes="Discard (y)",
        )

    @on(Input.Submitted)
    def _enter_pressed(self) -> None:
        self.action_save()


def writing(what: str, write: Callable[[bool], Call[T]]) -> Call[T]:
    """A form's call that writes the file its field `path` names: `write(False)`, which leaves
    a file that exists as it is; the form then asks whether to replace it with `what`, and calls
    `write(True)` once the player says yes."""

    def ask(exc: ExistingFile) -> ConfirmFirst:
        return ConfirmFirst(
            f"{exc.path} already exists. Replace it with {what}?",
            lambda: write(True),
            yes="Yes, replace it (y)",
            field="path",
            declined=f"{exc.path} was left as it was: choose another file name, or save again",
        )

    return write(False).turning(ExistingFile, ask)
