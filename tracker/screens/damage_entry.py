"""Damage entry: one shorthand line per hit, a live preview, Enter records it (SMR2)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tracker import compat
from tracker.rules.shorthand import (
    CriticalInput,
    DamageLine,
    ShorthandError,
    best_matches,
    items_of,
    line_for,
    parse_line,
)
from tracker.screens import calls
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.critical_tables import CriticalTablesScreen
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec, FormScreen
from tracker.screens.next_turn import begin_next_turn, show_turn
from tracker.screens.zero_outcome import ask_zero_outcome
from tracker.services import damage, damage_lines, rule_tables
from tracker.services.damage import (
    CriticalRequest,
    DamageResult,
    HitAmounts,
    HitRequest,
    ShipPick,
)
from tracker.services.damage_entry import CRITICAL_KINDS, Opening, read_opening
from tracker.services.errors import (
    ChangedElsewhere,
    DatabaseUnavailable,
    InvalidInput,
    bad_name_character,
    character_problem,
)
from tracker.services.scenarios import TurnView
from tracker.widgets.ship_list import ShipList
from tracker.widgets.steady_text import SteadyText
from tracker.widgets.tones import ALERT, ERROR, GOOD, NOTICE, toned
from tracker.widgets.track_bar import track_bar

T = TypeVar("T")

PLACEHOLDER = 'exeter s3 f1 fm+1 crit "B turret out"'
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


def error_text(line: str, error: ShorthandError) -> Text:
    """The line with the offending word underlined, and the message under it."""
    text = Text(line + "\n")
    if error.end > error.start:
        text.stylize(ALERT, error.start, error.end)
        text.stylize("underline", error.start, error.end)
        text.append(" " * error.start + "^" * (error.end - error.start) + "\n", style=ALERT)
    text.append(error.message, style=ERROR)
    return text


def preview_text(result: DamageResult, rolled_later: int) -> Text:
    """The hit as it would be recorded: bars before and after, criticals, consequences."""
    text = Text()
    text.append(result.ship_name, style="bold")
    text.append("\n")
    for track in (result.structure, result.flotation):
        text.append(f"{track.name:<10}")
        text.append_text(
            track_bar(track.before, track.maximum, flagged=track.before * 3 <= track.maximum)
        )
        text.append("  →  ")
        text.append_text(
            track_bar(track.after, track.maximum, flagged=track.after * 3 <= track.maximum)
        )
        text.append("\n")
    if result.fire_before != result.fire_after:
        text.append(f"Fire markers {result.fire_before} → {result.fire_after}\n")
    if result.speed[0] != result.speed[1]:
        text.append(f"Speed {result.speed[0]} → {result.speed[1]} kn\n", style=NOTICE)
    for critical in result.criticals:
        text.append(f"+ {critical}\n", style=NOTICE)
    for _ in range(rolled_later):
        text.append("+ critical rolled on the campaign's table when you press Enter\n", NOTICE)
    for effect in result.fixed:
        text.append(f"repaired: {effect}\n", style=GOOD)
    for note in result.consequences:
        text.append(f"! {note}\n", style=ALERT)
    if result.set_up:
        text.append(f"{result.set_up} (no scenario has begun yet)\n")
    text.append("Enter records it.", style="dim")
    return text


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
        self.listed: list[ShipPick] | None = []  # the ships the finder lists (None: others)
        self.coming_from: Screen[Any] | None = None  # opened again from it, its read on its way
        self._begin(ship_id, sheet)

    def _begin(self, ship_id: int | None, sheet: tuple[ShipPick, ...]) -> None:
        """What one opening of damage entry starts from (a new screen, or one opened again)."""
        self.default_ship_id = ship_id
        self.sheet = sheet  # the record sheet's ships afloat, in its order (ctrl+down, ctrl+up)
        self.picks: list[ShipPick] = []
        self.picks_for: str | None = None  # the ship words self.picks were found for
        self.pending: tuple[HitRequest, DamageLine] | None = None
        # Ships the typed name matches equally well (docs: README "The damage shorthand"):
        # Enter asks which of them rather than record on the first.
        self.ambiguous: list[ShipPick] = []
        self.asking = False
        self.chosen: tuple[str, int] | None = None  # (name, ship id) picked from the finder
        self.lines: list[str] = []  # the campaign's recorded lines, oldest first (Up, Down)
        self.recall_at: int | None = None  # the line Up or Down shows, None: the player's own
        self.draft = ""  # what the player had typed before pressing Up
        # The preview reads the database through the path, off the keys: each edit of the line
        # counts one; a preview that comes back for an older count is dropped, and the line is
        # previewed again as it is now. One preview is on its way at a time.
        self.edits = 0
        self.previewing = False
        self.enter_for: str | None = None  # the line Enter was pressed on while previewing it
        self.recording = False  # a hit is being recorded: a second enter would record it twice
        self.table_dice: dict[str, int | None] = {}  # each critical table's die (None: no table)
        self.opening = False  # the opening's read is on its way
        self.named: int | None = None  # the ship the typed name picks, for the form (ctrl+f)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="damage-body"):
            yield SteadyText(NO_RESULT, id="last-hit", classes="-empty", markup=False)
            yield Label("Hit (ship, then what it took)", classes="caption")
            yield Input(placeholder=PLACEHOLDER, id="shorthand")
            yield Static(GRAMMAR, id="grammar", markup=False)
            with Horizontal(id="damage-panels"):
                with Vertical(id="finder"):
                    yield Label("Ships", classes="caption")
                    yield ShipList(id="ship-candidates")
                yield SteadyText("", id="damage-preview", markup=False)
                with Vertical(id="dice-panel"):
                    yield Label("Dice", classes="caption")
                    yield SteadyText("", id="dice-log", markup=False)
        yield Footer(compact=True)

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
        self.query_one("#shorthand", Input).focus()
        self.opening = True  # the first showing's reload leaves its reads to this one
        read = Call(read_opening, self.factory, campaign_id=self.campaign_id,
                    lines=not self.read_only, first=self.default_ship_id)  # fmt: skip
        if caller is None:
            self.call(read, then=self._read, refused=self._unread, expected=(DatabaseUnavailable,))
            return
        self.coming_from = caller

        def shown(handle: Callable[[Any], None]) -> Callable[[Any], None]:
            def show(outcome: Any) -> None:
                self.coming_from = None
                if self.app.screen is not caller:
                    return  # the player went on to another screen meanwhile
                handle(outcome)
                self.app.push_screen(self)

            return show

        calls.run(caller, read, then=shown(self._read), refused=shown(self._unread),
                  expected=(DatabaseUnavailable,))  # fmt: skip

    def _read(self, opening: Opening) -> None:
        if opening.lines is not None:
            self._recalled(opening.lines)
        self._turn_shown(opening.turn)
        self.table_dice.update(opening.dice)
        self._list_picks("", opening.ships)
        if not self.previewing:  # else a line typed meanwhile is previewed by its own read
            self._preview()

    def _unread(self, error: Exception) -> None:
        if isinstance(error, DatabaseUnavailable) and not isinstance(error, ChangedElsewhere):
            calls.unavailable(self.app, error)
        self._show_error(toned(calls.message(error), ERROR))

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
        field = self.query_one("#shorthand", Input)
        with field.prevent(Input.Changed):  # nothing typed: the showing previews the line
            field.value = ""
        last = self.query_one("#last-hit", Static)
        last.update(NO_RESULT)
        last.set_class(True, "-empty")
        preview = self.query_one("#damage-preview", Static)
        preview.update("")
        preview.set_class(False, "-error")
        options = self.query_one("#ship-candidates", OptionList)
        # The finder keeps its ships until they are found again (most often the same ones,
        # left as they are), as a new one is empty until then.
        options.highlighted = None
        options.scroll_y = 0
        # Rolled elsewhere meanwhile (a mine check), the dice are drawn with the rest, not
        # once more after it; the showing's reload finds them shown.
        self._show_dice()
        self._opened(caller)

    def _recalled(self, lines: list[str]) -> None:
        self.lines = lines + [line for line in self.lines if line not in lines]

    def _read_tables(self) -> None:
        """Each critical table's die, for `crit ?`: read before the previews queued after it."""
        self.call(Call(rule_tables.table_dice, self.factory, campaign_id=self.campaign_id,
                       kinds=CRITICAL_KINDS), then=self.table_dice.update)  # fmt: skip

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
        self.refresh_preview()

    def _show_dice(self) -> None:
        log = self.dice.log
        text = "\n".join(str(roll) for roll in log) if log else "No dice rolled yet."
        shown = self.query_one("#dice-log", Static)
        if text != str(shown.content):  # the same rolls: not drawn again
            shown.update(text)

    def _find(self, words: str) -> Call[list[ShipPick]]:
        # An empty line offers the ship damage entry is on first, however far down it is.
        return Call(damage.find_ships, self.factory, campaign_id=self.campaign_id, query=words,
                    first=None if words.strip() else self.default_ship_id)  # fmt: skip

    def _list_picks(self, words: str, picks: list[ShipPick]) -> None:
        """The finder shows the ships the words match."""
        self.picks, self.picks_for = picks, words
        options = self.query_one("#ship-candidates", OptionList)
        if picks == self.listed:
            # The same ships (typing the damage after a name, a line after a hit): the list is
            # left as it is, not filled and drawn again, as clearing it would have left it.
            options.highlighted = None
            options.scroll_y = 0
            return
        options.clear_options()
        options.add_options(
            Option(Text(f"{p.name}{'  (sunk)' if p.sunk else ''}  ·  {p.squadron}"), id=str(p.id))
            for p in self.picks
        )
        self.listed = picks

    def _resolve_ship(self, words: str) -> ShipPick | None:
        """The ship the words name, among the picks found for them (self.picks)."""
        if self.chosen is not None and self.chosen[0] == words:
            chosen = next((p for p in self.picks if p.id == self.chosen[1]), None)
            if chosen is not None:
                return chosen
        if words.strip():
            return self.picks[0] if self.picks else None
        if self.default_ship_id is not None:
            return next((p for p in self.picks if p.id == self.default_ship_id), None)
        return None

    def _request(self, line: DamageLine, ship: ShipPick, *, rolled: bool) -> HitRequest:
        criticals = []
        for critical in line.criticals:
            if critical.auto and not rolled:
                continue
            criticals.append(self._critical(critical))
        return HitRequest(
            ship_id=ship.id, structure=line.structure, flotation=line.flotation,
            repair_structure=line.repair_structure, repair_flotation=line.repair_flotation,
            fire_delta=line.fire_delta, criticals=tuple(criticals), fixes=line.fixes,
        )  # fmt: skip

    def _critical(self, critical: CriticalInput) -> CriticalRequest:
        if critical.auto:
            die = self.table_dice.get(critical.kind)
            if die is None:
                raise InvalidInput(
                    {"criticals": f"no {critical.kind} critical table to roll on: type the "
                     "effect in quotes, or enter the table (ctrl+t)"}
                )  # fmt: skip
            roll = self.dice.roll(die, f"{critical.kind} critical")
            return CriticalRequest(kind=critical.kind, roll=roll)
        return CriticalRequest(kind=critical.kind, effect=critical.text, roll=critical.roll)

    @on(Input.Changed, "#shorthand")
    def refresh_preview(self, event: Input.Changed | None = None) -> None:
        """Parse the line and show what it would do; nothing is written.

        Called other than for an edit of the line (event None), the ships may have changed too:
        their picks are found again.
        """
        if event is None:
            self.picks_for = None
        self._edited()

    def _edited(self) -> None:
        """The line changed: its preview, one on its way at a time."""
        self.edits += 1
        self.pending = None
        self.ambiguous = []
        if not self.previewing:  # else the preview on its way asks again once it is back
            self._preview()

    def _ask(self, call: Call[T], then: Callable[[T], None]) -> None:
        """A read of the preview's, through the path: its answer is shown only if the line has
        not changed since; else the line is previewed again as it is now."""
        asked = self.edits
        self.previewing = True

        def back(result: T) -> None:
            self.previewing = False
            if asked != self.edits:
                self._preview()
                return
            then(result)
            self._previewed()

        def refused(error: Exception) -> None:
            self.previewing = False
            if isinstance(error, DatabaseUnavailable) and not isinstance(error, ChangedElsewhere):
                calls.unavailable(self.app, error)
            if asked != self.edits:
                self._preview()
                return
            self._show_error(toned(calls.message(error), ERROR))
            self._previewed()

        self.call(call, then=back, refused=refused, expected=(DatabaseUnavailable,))

    def _previewed(self) -> None:
        """The line's preview is all shown: an Enter pressed while it was on its way records
        it now, if the line is still the one Enter was pressed on."""
        if self.previewing or self.enter_for is None:
            return
        line, self.enter_for = self.enter_for, None
        if line == self.query_one("#shorthand", Input).value:
            self.record()

    def _show_error(self, text: Text) -> None:
        preview = self.query_one("#damage-preview", Static)
        preview.update(text)
        preview.set_class(True, "-error")

    def _preview(self) -> None:
        line_text = self.query_one("#shorthand", Input).value
        self.named = None
        try:
            line = parse_line(line_text)
        except ShorthandError as error:
            self._show_error(error_text(line_text, error))
            return
        char = bad_name_character(line.ship)
        if char is not None:  # no ship's name holds one: say so, not "no ship matches"
            start = line_text.find(char)
            self._show_error(error_text(line_text, ShorthandError(
                f"the ship's name holds {character_problem(char)}: retype it without it",
                word=char, start=start, end=start + 1)))  # fmt: skip
            return
        if line.ship == self.picks_for:
            # Typing the damage after the name: the same ships, without searching them all again.
            self.query_one("#ship-candidates", OptionList).highlighted = None
            self._named(line_text, line)
            return

        def found(picks: list[ShipPick]) -> None:
            self._list_picks(line.ship, picks)
            self._named(line_text, line)

        self._ask(self._find(line.ship), found)

    def _named(self, line_text: str, line: DamageLine) -> None:
        """The line's name looked up: the ship it names, or why none."""
        ship = self._resolve_ship(line.ship)
        if ship is None and line.ship:
            self._cut(line_text, line, len(line.ship.split()) - 1)
            return
        self._preview_ship(line, ship)

    def _cut(self, line_text: str, line: DamageLine, cut: int) -> None:
        """ "exeter s-3": the name matched up to a word that is no shorthand: point at it (the
        words are tried from the longest start of the name down, one read each)."""
        words = line.ship.split()
        if cut < 1:
            self._preview_ship(line, None)
            return
        start_words = " ".join(words[:cut])

        def found(picks: list[ShipPick]) -> None:
            if not picks:
                self._cut(line_text, line, cut - 1)
                return
            bad = words[cut]
            start = line_text.find(bad, line_text.find(words[cut - 1]) + 1)
            self._show_error(error_text(line_text, ShorthandError(
                f"{bad!r} is not a shorthand word: use sN, fN, rsN, rfN, fm+N, fm-N, "
                "crit, ucrit or fix (the line under the input lists them)",
                word=bad, start=start, end=start + len(bad))))  # fmt: skip
            self._list_picks(start_words, picks)

        self._ask(self._find(start_words), found)

    def _preview_ship(self, line: DamageLine, ship: ShipPick | None) -> None:
        preview = self.query_one("#damage-preview", Static)
        preview.set_class(False, "-error")
        if ship is None:
            preview.update(
                toned(f"No ship matches {line.ship!r}: check the name." if line.ship else
                      "Type the ship's name (a few letters do), then the damage.", NOTICE)
            )  # fmt: skip
            return
        self.named = ship.id
        tied = best_matches(line.ship, [pick.name for pick in self.picks])
        if len(tied) == 1:
            ship = self.picks[tied[0]]
            self.named = ship.id
        elif len(tied) > 1 and ship.name != (self.chosen or ("", 0))[0]:
            self.ambiguous = [self.picks[index] for index in tied]
            names = ", ".join(pick.name for pick in self.ambiguous)
            preview.update(toned(f"{line.ship!r} matches {names} alike: Enter asks which ship, "
                                 "or type more of the name.", NOTICE))  # fmt: skip
            return
        if line.is_empty:
            preview.update(Text(f"{ship.name}: now type what it took, e.g. s3 f1", style="dim"))
            return
        missing = [c.kind for c in line.criticals if c.auto and self.table_dice.get(c.kind) is None]
        if missing:
            self._show_error(toned(f"no {missing[0]} critical table to roll on: type the effect "
                                   "in quotes, or enter the table (ctrl+t)", ERROR))  # fmt: skip
            return
        request = self._request(line, ship, rolled=False)
        if request.criticals or _has_change(request):
            self._ask(Call(damage.preview_hit, self.factory, request=request),
                      partial(self._show_preview, line, ship, request))  # fmt: skip
        else:
            self._show_preview(line, ship, request, None)

    def _show_preview(
        self, line: DamageLine, ship: ShipPick, request: HitRequest, result: DamageResult | None
    ) -> None:
        auto = sum(1 for critical in line.criticals if critical.auto)
        body = (
            Text(f"{ship.name}: {auto} critical(s) rolled when you press Enter")
            if result is None
            else preview_text(result, auto)
        )
        others = [p.name for p in self.picks if p.id != ship.id][:3] if line.ship else []
        if others and ship.name.lower() != line.ship.lower():
            body.append(f"\n(also matches {', '.join(others)}: type more of the name, or pick "
                        "from the list with down and enter)", style=NOTICE)  # fmt: skip
        self.query_one("#damage-preview", Static).update(body)
        self.pending = (request, line)

    @on(Input.Submitted, "#shorthand")
    def record(self) -> None:
        """Record the previewed hit (rolling any `crit ?` now), then announce what follows."""
        if self.refuse_if_read_only():
            return
        if self.previewing:
            # The line's preview is on its way: Enter records it once it is shown.
            self.enter_for = self.query_one("#shorthand", Input).value
            return
        if self.ambiguous:
            self._ask_which()
            return
        if self.pending is None:  # the preview says why, or could not read the database
            self.missing("Nothing to record: the preview shows what is missing.")
            return
        if self.recording:
            # A second enter before the first hit is back would record that hit twice.
            self.notify("Still recording the last hit.", severity="warning")
            return
        request, line = self.pending
        ship = next(p for p in self.picks if p.id == request.ship_id)
        try:
            request = self._request(line, ship, rolled=True)
        except InvalidInput as exc:
            self._refused(exc)
            return
        self.recording = True
        self.call(Call(damage.record_hit, self.factory, request=request), then=self._recorded,
                  refused=self._refused, expected=(DatabaseUnavailable,))  # fmt: skip

    def _refused(self, exc: Exception) -> None:
        self.recording = False
        if isinstance(exc, DatabaseUnavailable) and not isinstance(exc, ChangedElsewhere):
            calls.unavailable(self.app, exc)  # said once, and the change watch told
        else:
            self.notify(calls.message(exc), severity="error")
        self._show_dice()

    def _recorded(self, result: DamageResult) -> None:
        self.recording = False
        # The ships found stay as they were: a hit changes no ship's name, side, squadron or
        # afloat (a ship sinks by the outcome asked at zero, which finds them again), so the
        # empty line after it is previewed at once, without reading them all again.
        field = self.query_one("#shorthand", Input)
        kept = line_for(result.ship_name, items_of(field.value))
        self._keep_line(kept)
        self.lines = [old for old in self.lines if old != kept] + [kept]
        self.recall_at, self.draft = None, ""
        with field.prevent(Input.Changed):  # previewed below, drawn with the result at once
            field.value = ""
        field.focus()
        self.default_ship_id = result.ship_id
        self._show_result(result)
        self._announce(result)
        self._show_dice()
        self._edited()
        # The screen shows what the database holds after the hit: the change watch, seeing the
        # hit, need not read everything again (it did, a moment later, after every hit).
        watch = getattr(self.app, "change_watch", None)
        if watch is not None:
            watch.screen_reloaded()

    def _show_result(self, result: DamageResult) -> None:
        """Above the line: what was recorded, and the ship a line without a name now hits."""
        text = Text(f"#{result.entry_id} {damage.describe(result)}", style="bold")
        for note in result.consequences:
            text.append(f"\n! {note}", style=ALERT)
        text.append(f"\nNext line: a name, or none for {result.ship_name}.", style="dim")
        last = self.query_one("#last-hit", Static)
        last.update(text)
        last.set_class(False, "-empty")

    def _ask_which(self) -> None:
        """An ambiguous name: the finder lists only the ships it matches alike, to pick one."""
        options = self.query_one("#ship-candidates", OptionList)
        options.clear_options()
        options.add_options(
            Option(Text(f"{p.name}  ·  {p.squadron}"), id=str(p.id)) for p in self.ambiguous
        )
        self.listed = None
        self.picks_for = None  # the list no longer shows every match
        self.asking = True
        options.highlighted = 0
        options.focus()
        preview = self.query_one("#damage-preview", Static)
        preview.update(Text("Which ship? up and down, then enter records on it; escape goes "
                            "back to the line.", style="bold yellow"))  # fmt: skip

    def _announce(self, result: DamageResult) -> None:
        message = damage.describe(result)
        if result.consequences:
            message += "\n" + "\n".join(result.consequences)
        if result.set_up:
            message += "\n" + result.set_up
        self.notify(message, title=f"Recorded #{result.entry_id}",
                    severity="warning" if result.consequences else "information")  # fmt: skip
        if result.zero_reached:
            self._ask_condition(result.ship_id, result.ship_name)

    def _ask_condition(self, ship_id: int, name: str) -> None:
        def done(notes: list[str] | None) -> None:
            if notes:
                self.notify("\n".join(notes), severity="warning")
            self.refresh_preview()

        ask_zero_outcome(self, ship_id, name, done)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        pick = next((p for p in self.picks if str(p.id) == event.option.id), None)
        if pick is None:
            return
        field = self.query_one("#shorthand", Input)
        try:
            rest = parse_line(field.value)
            items = field.value[len(rest.ship) :].strip() if rest.ship else field.value.strip()
        except ShorthandError:
            items = ""
        self.chosen = (pick.name, pick.id)
        field.value = f'"{pick.name}" {items}'.strip() + " "
        field.focus()
        field.cursor_position = len(field.value)
        if self.asking:  # Enter asked which ship: the pick answers it and records the line
            self.asking = False
            self.refresh_preview()
            self.record()

    def action_focus_ships(self) -> None:
        self.query_one("#ship-candidates", OptionList).focus()

    def action_older_line(self) -> None:
        """Up: the campaign's previous recorded line (kept across restarts)."""
        if not self.lines:
            self.missing("No line recorded in this campaign yet.")
            return
        if self.recall_at is None:
            self.draft = self.query_one("#shorthand", Input).value
            self.recall_at = len(self.lines) - 1
        else:
            self.recall_at = max(0, self.recall_at - 1)
        self._put_line(self.lines[self.recall_at])

    def action_newer_line(self) -> None:
        """Down: a later line while recalling, back to what was typed; else the ship finder."""
        if self.recall_at is None:
            self.action_focus_ships()
            return
        self.recall_at += 1
        if self.recall_at >= len(self.lines):
            self.recall_at = None
            self._put_line(self.draft)
        else:
            self._put_line(self.lines[self.recall_at])

    def _put_line(self, line: str, cursor: int | None = None) -> None:
        field = self.query_one("#shorthand", Input)
        field.value = line
        field.cursor_position = len(line) if cursor is None else cursor

    def action_repeat_line(self) -> None:
        """The last line's damage without its ship: type a few letters of the next ship's name
        (or none, for the ship the sheet had highlighted) and Enter."""
        items = items_of(self.lines[-1]) if self.lines else ""
        if not items:
            self.missing("No line recorded in this campaign yet to repeat.")
            return
        self.recall_at = None
        self._put_line(" " + items, cursor=0)

    def action_step_ship(self, step: int) -> None:
        """The line typed (what the ship took), for the next or previous ship of the sheet."""
        if not self.sheet:
            self.notify("Open damage entry from a record sheet (d) to step through its ships.",
                        severity="warning")  # fmt: skip
            return
        now = self.pending[0].ship_id if self.pending else self.default_ship_id
        ids = [pick.id for pick in self.sheet]
        at = ids.index(now) + step if now in ids else (0 if step > 0 else -1)
        pick = self.sheet[at % len(self.sheet)]
        try:
            items = items_of(self.query_one("#shorthand", Input).value)
        except ShorthandError:
            items = ""
        self.chosen = (pick.name, pick.id)  # the ship meant, even beside one of the same name
        self.recall_at = None
        self._put_line(line_for(pick.name, items) + ("" if items else " "))

    def action_next_turn(self) -> None:
        begin_next_turn(self, self.campaign_id, self._show_turn)

    def action_back(self) -> None:
        if self.asking or self.focused is self.query_one("#ship-candidates", OptionList):
            # Escape in the finder goes back to the line, which keeps what was typed.
            self.asking = False
            self.query_one("#shorthand", Input).focus()
            self.refresh_preview()
            return
        line = self.query_one("#shorthand", Input).value.strip()
        if not line:
            self.dismiss()
            return

        def done(leave: bool | None) -> None:
            if leave:
                self.dismiss()

        # An unrecorded hit is never dropped silently.
        self.app.push_screen(
            ConfirmScreen(f"Leave damage entry without recording {line!r}?", yes="Leave (y)"),
            done,
        )

    def action_tables(self) -> None:
        self.app.push_screen(CriticalTablesScreen(self.campaign_id))

    def action_form(self) -> None:
        self.call(Call(damage.find_ships, self.factory, campaign_id=self.campaign_id, query="",
                       limit=500, first=self.default_ship_id), then=self._form)  # fmt: skip

    def _form(self, picks: list[ShipPick]) -> None:
        """The hit in a form, on the ship the line names (else the last ship hit)."""
        afloat = [(f"{p.name} ({p.squadron})", p.id) for p in picks if not p.sunk]
        if not afloat:
            self.notify("No ship afloat in this campaign.", severity="warning")
            return
        ids = {i for _, i in afloat}
        typed = self.named if self.query_one("#shorthand", Input).value.strip() else None
        first = next((i for i in (typed, self.default_ship_id) if i in ids), None)
        fields = hit_fields(afloat, first)

        def submit(values: dict[str, Any]) -> Call[DamageResult]:
            effect = values.pop("effect").strip()
            kind = values.pop("kind")
            criticals = (CriticalRequest(kind=kind, effect=effect),) if effect else ()
            request = HitRequest(**values, criticals=criticals)
            return Call(damage.record_hit, self.factory, request=request)

        def done(result: DamageResult | None) -> None:
            if result is not None:
                self.default_ship_id = result.ship_id
                self._announce(result)
                self.refresh_preview()

        self.app.push_screen(FormScreen("Record a hit", fields, submit), done)


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


def hit_fields(afloat: list[tuple[str, int]], first: int | None) -> list[FieldSpec]:
    """The hit's form: the ship (`afloat` as (shown, id), `first` chosen), the numbers as the
    model declares them, and one critical."""
    return [
        FieldSpec("ship_id", "Ship", kind="select", value=first or afloat[0][1], options=afloat),
        *specs_from(HitAmounts),
        FieldSpec("kind", "Critical", kind="select", value=CRITICAL_KINDS[0],
                  options=[(kind, kind) for kind in CRITICAL_KINDS]),
        FieldSpec("effect", "Critical effect (blank: none)"),
    ]  # fmt: skip


def _has_change(request: HitRequest) -> bool:
    return bool(
        request.structure or request.flotation or request.repair_structure
        or request.repair_flotation or request.fire_delta or request.fixes
    )  # fmt: skip
