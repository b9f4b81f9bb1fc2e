"""Damage entry: one shorthand line per hit, a live preview, Enter records it (SMR2)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Label, OptionList, Static

from tracker import compat
from tracker.rules.damage import AT_ZERO
from tracker.rules.shorthand import items_of, line_for
from tracker.screens import calls
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.confirm import confirm
from tracker.screens.critical_tables import CriticalTablesScreen
from tracker.screens.hit_form import hit_form
from tracker.screens.line_preview import LinePreview
from tracker.screens.next_turn import begin_next_turn, show_turn
from tracker.screens.zero_outcome import ask_zero_outcome
from tracker.services import damage, damage_lines, rule_tables
from tracker.services.damage import DamageResult, ShipPick
from tracker.services.damage_entry import CRITICAL_KINDS, Opening, read_opening
from tracker.services.errors import DatabaseUnavailable, InvalidInput
from tracker.services.history import HistoryResult
from tracker.services.scenarios import TurnView
from tracker.widgets.dice_panel import DicePanel
from tracker.widgets.hit_preview import HitPreview
from tracker.widgets.ship_list import ShipList
from tracker.widgets.shorthand_line import ShorthandLine
from tracker.widgets.steady_text import SteadyText
from tracker.widgets.tones import ALERT

GRAMMAR = (
    "sN Structure lost · fN Flotation lost · fm+N / fm-N fire markers · "
    'crit "effect" | crit N (table) | crit ? (app rolls) · ucrit: underwater · '
    "rsN / rfN repaired · fix N clears critical N"
)
# Above the line until a hit is recorded: the two lines a result takes, so the first result
# moves nothing on the screen (a result that appeared laid out every widget under it again).
NO_RESULT = (
    "Nothing recorded yet: type a hit on the line below and press Enter.\n"
    "The result shows here, and the line stays open for the next hit."
)


# Kept between showings (about 30 ms of restyling on every d): its own classes (-error,
# -narrow) restyle their widgets when they change.
@compat.keeps_styles_on_resume
class DamageEntryScreen(TrackerScreen):
    """Type a hit; see what it does; Enter records it, with the consequences announced."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to where you came from"),
        Binding("ctrl+f", "form", "Form", tooltip="Enter the hit in a form instead"),
        Binding("ctrl+t", "tables", "Crit tables", tooltip="The campaign's critical-hit tables"),
        Binding("ctrl+r", "repeat_line", "Repeat",
                tooltip="The last line again, for another ship: type a few letters of its name"),
        Binding("ctrl+n", "next_turn", "Next turn", tooltip="Begin the scenario's next turn"),
        Binding("ctrl+down", "step_ship(1)", "Next ship", show=False,
                tooltip="The line typed, for the next ship of the record sheet"),
        Binding("ctrl+up", "step_ship(-1)", "Previous ship", show=False,
                tooltip="The line typed, for the previous ship of the record sheet"),
        Binding("up", "older_line", "Earlier line", show=False,
                tooltip="Recall an earlier line of this campaign"),
        Binding("down", "newer_line", "Ships", show=False,
                tooltip="A later line while recalling; else pick a ship from the finder"),
    ]  # fmt: skip
    # Damage entry only records, and the umpire's view opens no way to it; should it be
    # reached, it records nothing.
    # Down reaches the ship finder there (no line is recalled in that view).
    READ_ONLY_ACTIONS = frozenset({"back", "tables", "newer_line"})
    HELP_EXTRA = [("enter", "Record the line; on an ambiguous name, ask which ship")]

    def __init__(
        self, campaign_id: int, ship_id: int | None = None, sheet: tuple[ShipPick, ...] = ()
    ) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.coming_from: Screen[Any] | None = None  # opened again from it, its read on its way
        self.preview = LinePreview(self)
        self._begin(ship_id, sheet)

    def _begin(self, ship_id: int | None, sheet: tuple[ShipPick, ...]) -> None:
        """What one opening of damage entry starts from (a new screen, or one opened again)."""
        self.default_ship_id = ship_id
        self.shown: DamageResult | None = None  # the hit above the line, until it is undone
        self.sheet = sheet  # the record sheet's ships afloat, in its order (ctrl+down, ctrl+up)
        self.preview.begin()
        self.asking = False  # the finder asks which of the ships a name matches alike
        self.recording = False  # a hit is being recorded: a second enter would record it twice
        self.opening = False  # the opening's read is on its way

    def body(self) -> ComposeResult:
        with Vertical(id="damage-body"):
            yield SteadyText(NO_RESULT, id="last-hit", classes="-empty", markup=False)
            yield Label("Hit (ship, then what it took)", classes="caption")
            yield ShorthandLine(id="shorthand")
            yield Static(GRAMMAR, id="grammar", markup=False)
            with Horizontal(id="damage-panels"):
                with Vertical(id="finder"):
                    yield Label("Ships", classes="caption")
                    yield ShipList(id="ship-candidates")
                yield HitPreview("", id="damage-preview", markup=False)
                yield DicePanel(id="dice-panel")

    @property
    def line(self) -> ShorthandLine:
        return self.query_one(ShorthandLine)

    def on_mount(self) -> None:
        self.title = "Damage entry"
        self._opened()
        # The tables' dice and the first preview are read by reload, which the screen's first
        # showing runs (on_screen_resume) as every later one does: read here too, they were
        # read twice on every opening.

    def _opened(self, caller: Screen[Any] | None = None) -> None:
        """The line focused, and everything an opening shows read in one call: the lines, the
        turn, the tables' dice and the ships the empty line offers (read one after another,
        each waited for the screen to be drawn before the next began).

        Opened again from `caller` (the kept screen), it is read first, through the caller's
        calls, and shown once it is back: drawn once, with what it shows. Shown first, it was
        drawn a second time when the read came back (the finder, the turn, the preview).
        """
        self.line.focus()
        self.opening = True  # the first showing's reload leaves its reads to this one
        read = Call(read_opening, self.factory, campaign_id=self.campaign_id,
                    lines=not self.read_only, first=self.default_ship_id)  # fmt: skip
        if caller is None:
            self.call(read, then=self._read, refused=self._unread, expected=(DatabaseUnavailable,))
            return
        self.coming_from = caller

        def shown(handle: Callable[[Any], None], outcome: Any) -> None:
            self.coming_from = None
            if self.app.screen is not caller:
                return  # the player went on to another screen meanwhile
            handle(outcome)
            self.app.push_screen(self)

        then, refused = partial(shown, self._read), partial(shown, self._unread)
        calls.run(caller, read, then=then, refused=refused, expected=(DatabaseUnavailable,))

    def _read(self, opening: Opening) -> None:
        if opening.lines is not None:
            self.line.recalled(opening.lines)
        self._turn_shown(opening.turn)
        self.preview.table_dice.update(opening.dice)
        self.preview.show_picks("", opening.ships)
        if not self.preview.previewing:  # else a line typed meanwhile is previewed by its read
            self.preview.show_line()

    def _unread(self, error: Exception) -> None:
        calls.tell_unavailable(self.app, error)
        self.preview.show_error(error)

    def open_again(
        self, caller: Screen[Any], ship_id: int | None, sheet: tuple[ShipPick, ...]
    ) -> None:
        """This screen, left earlier, opened anew from `caller` as a new one opens: an empty
        line on the given ship, no result, no preview, the line history read again; only the
        widgets are kept (composing and styling them took most of the wait after d). It is
        shown once the opening's read is back."""
        self._begin(ship_id, sheet)
        # The header keeps the turn it showed until the turn is read again: a title set anew
        # repaints the whole screen, a second time on every opening.
        self.line.begin()
        self.line.empty()  # nothing typed: the showing previews the line
        last = self.query_one("#last-hit", Static)
        last.update(NO_RESULT)
        last.set_class(True, "-empty")
        self.query_one(HitPreview).show("")
        # The finder keeps its ships until they are found again (most often the same ones,
        # left as they are), as a new one is empty until then.
        self.query_one(ShipList).rewind()
        # Rolled elsewhere meanwhile (a mine check), the dice are drawn with the rest, not
        # once more after it; the showing's reload finds them shown.
        self._show_dice()
        self._opened(caller)

    def _read_tables(self) -> None:
        """Each critical table's die, for `crit ?`: read before the previews queued after it."""
        self.call(Call(rule_tables.table_dice, self.factory, campaign_id=self.campaign_id,
                       kinds=CRITICAL_KINDS), then=self.preview.table_dice.update)  # fmt: skip

    def _keep_line(self, line: str) -> None:
        def kept(warning: str | None) -> None:
            if warning:
                self.notify(warning, severity="warning")

        self.call(Call(damage_lines.keep_line, self.factory, campaign_id=self.campaign_id,
                       line=line), then=kept)  # fmt: skip

    def _show_turn(self) -> None:
        show_turn(self, self.campaign_id, self._turn_shown)

    def _turn_shown(self, now: TurnView | None) -> None:
        self.sub_title = now.label if now else "no scenario yet"

    def reload(self) -> None:
        self._show_dice()
        if self.opening:  # the opening's read, on its way, brings the tables and the ships
            self.opening = False
            return
        self._read_tables()  # changed on the tables' screen (ctrl+t), or by another player
        self.preview.refresh()

    def _show_dice(self) -> None:
        self.query_one(DicePanel).show(self.dice.log)

    @on(Input.Changed, "#shorthand")
    def _line_changed(self) -> None:
        self.preview.edited()

    @on(Input.Submitted, "#shorthand")
    def record(self) -> None:
        """Record the previewed hit (rolling any `crit ?` now), then announce what follows."""
        if self.refuse_if_read_only():
            return
        preview = self.preview
        if preview.previewing:
            # The line's preview is on its way: Enter records it once it is shown.
            preview.enter_for = self.line.value
            return
        if preview.ambiguous:
            self.asking = True
            preview.ask_which()
            return
        if preview.pending is None:  # the preview says why, or could not read the database
            self.missing("Nothing to record: the preview shows what is missing.")
            return
        if self.recording:
            # A second enter before the first hit is back would record that hit twice.
            self.notify("Still recording the last hit.", severity="warning")
            return
        request, line = preview.pending
        ship = next(p for p in preview.picks if p.id == request.ship_id)
        try:
            request = preview.request(line, ship, rolled=True)
        except InvalidInput as exc:
            self._refused(exc)
            return
        self.recording = True
        self.call(Call(damage.record_hit, self.factory, request=request), then=self._recorded,
                  refused=self._refused, expected=(DatabaseUnavailable,))  # fmt: skip

    def _refused(self, exc: Exception) -> None:
        self.recording = False
        if not calls.tell_unavailable(self.app, exc):  # else said once, the change watch told
            self.notify(calls.message(exc), severity="error")
        self._show_dice()

    def _recorded(self, result: DamageResult) -> None:
        self.recording = False
        # The ships found stay as they were: a hit changes no ship's name, side, squadron or
        # afloat (a ship sinks by the outcome asked at zero, which finds them again), so the
        # empty line after it is previewed at once, without reading them all again.
        kept = line_for(result.ship_name, items_of(self.line.value))
        self._keep_line(kept)
        self.line.recorded(kept)  # emptied: previewed below, drawn with the result at once
        self.default_ship_id = result.ship_id
        self._show_result(result)
        self._announce(result)
        self._show_dice()
        self.preview.edited()
        # The change watch, seeing the hit, read everything again a moment after every hit.
        self.up_to_date()

    def history_changed(self, result: HistoryResult) -> None:
        """The hit shown above the line undone: it says so, struck through, with what undo
        did, so the screen never shows a hit the campaign no longer holds."""
        shown = self.shown
        if shown is not None and result.reverted_id == shown.entry_id:
            text = Text(f"#{shown.entry_id} {damage.describe(shown)}", style="strike dim")
            text.append(f"\nUndone: {result.summary}", style="bold")
            self.query_one("#last-hit", Static).update(text)
            self.shown = None
            self.line.undone = self.line.lines[-1] if self.line.lines else None
        self.reload()

    def _show_result(self, result: DamageResult, settled: Sequence[str] = ()) -> None:
        """Above the line: what was recorded, and the ship a line without a name now hits;
        `settled`, the notes of the outcome the player gave a track at zero, in place of the
        question."""
        self.shown = result
        text = Text(f"#{result.entry_id} {damage.describe(result)}", style="bold")
        notes = [note for note in result.consequences if not (settled and note.endswith(AT_ZERO))]
        for note in [*notes, *settled]:
            text.append(f"\n! {note}", style=ALERT)
        text.append(f"\nNext line: a name, or none for {result.ship_name}.", style="dim")
        last = self.query_one("#last-hit", Static)
        last.update(text)
        last.set_class(False, "-empty")

    def _announce(self, result: DamageResult) -> None:
        message = damage.describe(result)
        if result.consequences:
            message += "\n" + "\n".join(result.consequences)
        if result.set_up:
            message += "\n" + result.set_up
        self.notify(message, title=f"Recorded #{result.entry_id}",
                    severity="warning" if result.consequences else "information")  # fmt: skip
        if result.zero_reached:
            self._ask_condition(result)

    def _ask_condition(self, result: DamageResult) -> None:
        def done(notes: list[str] | None) -> None:
            if notes:
                self.notify("\n".join(notes), severity="warning")
                self._show_result(result, settled=notes)
            self.preview.refresh()

        ask_zero_outcome(self, result.ship_id, result.ship_name, done)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        pick = next((p for p in self.preview.picks if str(p.id) == event.option.id), None)
        if pick is None:
            return
        self.preview.chosen = (pick.name, pick.id)
        self.line.pick_ship(pick.name)
        if self.asking:  # Enter asked which ship: the pick answers it and records the line
            self.asking = False
            self.preview.refresh()
            self.record()

    def action_older_line(self) -> None:
        """Up: the campaign's previous recorded line (kept across restarts)."""
        if not self.line.older():
            self.missing("No line recorded in this campaign yet.")

    def action_newer_line(self) -> None:
        """Down: a later line while recalling, back to what was typed; else the ship finder."""
        if not self.line.newer():
            self.query_one(ShipList).focus()

    def action_repeat_line(self) -> None:
        """The last line's damage without its ship: type a few letters of the next ship's name
        (or none, for the ship the sheet had highlighted) and Enter."""
        if not self.line.repeat():
            self.missing("No hit to repeat: no line recorded yet, or its hit was undone.")

    def action_step_ship(self, step: int) -> None:
        """The line typed (what the ship took), for the next or previous ship of the sheet."""
        if not self.sheet:
            self.notify("Open damage entry from a record sheet (d) to step through its ships.",
                        severity="warning")  # fmt: skip
            return
        pending = self.preview.pending
        now = pending[0].ship_id if pending else self.default_ship_id
        ids = [pick.id for pick in self.sheet]
        at = ids.index(now) + step if now in ids else (0 if step > 0 else -1)
        pick = self.sheet[at % len(self.sheet)]
        self.preview.chosen = (pick.name, pick.id)  # the ship meant, even beside a namesake
        self.line.name_ship(pick.name)

    def action_next_turn(self) -> None:
        begin_next_turn(self, self.campaign_id, self._show_turn)

    def action_back(self) -> None:
        if self.asking or self.focused is self.query_one(ShipList):
            # Escape in the finder goes back to the line, which keeps what was typed.
            self.asking = False
            self.line.focus()
            self.preview.refresh()
            return
        line = self.line.value.strip()
        if not line:
            self.dismiss()
            return
        # An unrecorded hit is never dropped silently.
        confirm(
            self, f"Leave damage entry without recording {line!r}?", self.dismiss, yes="Leave (y)"
        )

    def action_tables(self) -> None:
        self.app.push_screen(CriticalTablesScreen(self.campaign_id))

    def action_form(self) -> None:
        self.call(Call(damage.find_ships, self.factory, campaign_id=self.campaign_id, query="",
                       limit=500, first=self.default_ship_id), then=self._form)  # fmt: skip

    def _form(self, picks: list[ShipPick]) -> None:
        """The hit in a form, on the ship the line names (else the last ship hit)."""
        typed = self.preview.named if self.line.value.strip() else None
        form = hit_form(self.factory, picks, (typed, self.default_ship_id))
        if form is None:
            self.notify("No ship afloat in this campaign.", severity="warning")
            return

        def done(result: DamageResult | None) -> None:
            if result is not None:
                self.default_ship_id = result.ship_id
                self._announce(result)
                self.preview.refresh()

        self.app.push_screen(form, done)


def open_damage_entry(
    app: App[Any], campaign_id: int, ship_id: int | None = None, sheet: tuple[ShipPick, ...] = ()
) -> None:
    """Damage entry for the campaign, on the ship given (`sheet`: the record sheet's ships
    afloat, for ctrl+down and ctrl+up): the campaign's screen composed the first time and kept,
    then opened again as new; a screen of its own while the kept one is showing, or still
    waits for a read of its last opening (whose answer would land in the new one)."""
    name = f"damage-entry-{campaign_id}"
    kept = app.get_screen(name) if app.is_screen_installed(name) else None
    if isinstance(kept, DamageEntryScreen) and kept.is_running and not _in_use(app, kept):
        kept.open_again(app.screen, ship_id, sheet)  # shown once its read is back
        return
    screen = DamageEntryScreen(campaign_id, ship_id, sheet)
    if kept is None:
        app.install_screen(screen, name)
    app.push_screen(screen)  # else removed when closed, as every screen not kept is


def _in_use(app: App[Any], screen: DamageEntryScreen) -> bool:
    """Showing, or under another screen (the app has one stack: no modes), or still waiting,
    or about to be shown (its opening's read on its way, from a screen still open)."""
    coming = screen.coming_from is not None and screen.coming_from in app.screen_stack
    return screen in app.screen_stack or calls.busy(screen) or coming
