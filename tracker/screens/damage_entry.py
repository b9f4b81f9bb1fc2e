"""Damage entry: one shorthand line per hit, a live preview, Enter records it (SMR2)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tracker.rules.shorthand import CriticalInput, DamageLine, ShorthandError, parse_line
from tracker.screens import calls
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.critical_tables import CriticalTablesScreen
from tracker.screens.form import FieldSpec, FormScreen
from tracker.screens.zero_outcome import zero_outcome_form
from tracker.services import damage
from tracker.services.damage import CriticalRequest, DamageResult, HitRequest, ShipPick
from tracker.services.errors import InvalidInput, bad_name_character, character_problem
from tracker.widgets.track_bar import track_bar

PLACEHOLDER = 'exeter s3 f1 fm+1 crit "B turret out"'
GRAMMAR = (
    "sN Structure lost · fN Flotation lost · fm+N / fm-N fire markers · "
    'crit "effect" | crit N (table) | crit ? (app rolls) · ucrit: underwater · '
    "rsN / rfN repaired · fix N clears critical N"
)


def error_text(line: str, error: ShorthandError) -> Text:
    """The line with the offending word underlined, and the message under it."""
    text = Text(line + "\n")
    if error.end > error.start:
        text.stylize("bold red underline", error.start, error.end)
        text.append(" " * error.start + "^" * (error.end - error.start) + "\n", style="bold red")
    text.append(error.message, style="red")
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
        text.append(f"Speed {result.speed[0]} → {result.speed[1]} kn\n", style="yellow")
    for critical in result.criticals:
        text.append(f"+ {critical}\n", style="yellow")
    for _ in range(rolled_later):
        text.append("+ critical rolled on the campaign's table when you press Enter\n", "yellow")
    for effect in result.fixed:
        text.append(f"repaired: {effect}\n", style="green")
    for note in result.consequences:
        text.append(f"! {note}\n", style="bold red")
    text.append("Enter records it.", style="dim")
    return text


class DamageEntryScreen(TrackerScreen):
    """Type a hit; see what it does; Enter records it, with the consequences announced."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to where you came from"),
        Binding("ctrl+f", "form", "Form", tooltip="Enter the hit in a form instead"),
        Binding("ctrl+t", "tables", "Crit tables", tooltip="The campaign's critical-hit tables"),
        Binding("down", "focus_ships", "Ships", show=False, tooltip="Pick a ship from the finder"),
    ]
    # Damage entry only records, and the umpire's view opens no way to it; should it be
    # reached, it records nothing.
    READ_ONLY_ACTIONS = frozenset({"back", "tables", "focus_ships"})

    def __init__(self, campaign_id: int, ship_id: int | None = None) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.default_ship_id = ship_id
        self.picks: list[ShipPick] = []
        self.picks_for: str | None = None  # the ship words self.picks were found for
        self.pending: tuple[HitRequest, DamageLine] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="damage-body"):
            yield Label("Hit (ship, then what it took)", classes="caption")
            yield Input(placeholder=PLACEHOLDER, id="shorthand")
            yield Static(GRAMMAR, id="grammar", markup=False)
            with Horizontal(id="damage-panels"):
                with Vertical(id="finder"):
                    yield Label("Ships", classes="caption")
                    yield OptionList(id="ship-candidates")
                yield Static("", id="damage-preview", markup=False)
                with Vertical(id="dice-panel"):
                    yield Label("Dice", classes="caption")
                    yield Static("", id="dice-log", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "Damage entry"
        self.query_one("#shorthand", Input).focus()
        self.refresh_preview()

    def reload(self) -> None:
        self.refresh_preview()
        self._show_dice()

    def _show_dice(self) -> None:
        log = self.dice.log
        self.query_one("#dice-log", Static).update(
            "\n".join(str(roll) for roll in log) if log else "No dice rolled yet."
        )

    def _resolve_ship(self, words: str) -> ShipPick | None:
        options = self.query_one("#ship-candidates", OptionList)
        if words == self.picks_for:
            # Typing the damage after the name: the same ships, without searching them all again.
            options.highlighted = None  # as clearing the list does
        else:
            self.picks = damage.find_ships(self.factory, campaign_id=self.campaign_id, query=words)
            self.picks_for = words
            options.clear_options()
            options.add_options(
                Option(Text(f"{p.name}{'  (sunk)' if p.sunk else ''}  ·  {p.squadron}"),
                       id=str(p.id))
                for p in self.picks
            )  # fmt: skip
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
            die = damage.table_die(self.factory, campaign_id=self.campaign_id, kind=critical.kind)
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
        line_text = self.query_one("#shorthand", Input).value
        preview = self.query_one("#damage-preview", Static)
        self.pending = None
        try:
            line = parse_line(line_text)
        except ShorthandError as error:
            preview.update(error_text(line_text, error))
            preview.set_class(True, "-error")
            return
        char = bad_name_character(line.ship)
        if char is not None:  # no ship's name holds one: say so, not "no ship matches"
            start = line_text.find(char)
            preview.update(error_text(line_text, ShorthandError(
                f"the ship's name holds {character_problem(char)}: retype it without it",
                word=char, start=start, end=start + 1)))  # fmt: skip
            preview.set_class(True, "-error")
            return
        ship = self._resolve_ship(line.ship)
        if ship is None and line.ship:
            # "exeter s-3": the name matched up to a word that is no shorthand: point at it.
            words = line.ship.split()
            for cut in range(len(words) - 1, 0, -1):
                if damage.find_ships(self.factory, campaign_id=self.campaign_id,
                                     query=" ".join(words[:cut])):  # fmt: skip
                    bad = words[cut]
                    start = line_text.find(bad, line_text.find(words[cut - 1]) + 1)
                    preview.update(error_text(line_text, ShorthandError(
                        f"{bad!r} is not a shorthand word: use sN, fN, rsN, rfN, fm+N, fm-N, "
                        "crit, ucrit or fix (the line under the input lists them)",
                        word=bad, start=start, end=start + len(bad))))  # fmt: skip
                    preview.set_class(True, "-error")
                    self._resolve_ship(" ".join(words[:cut]))
                    return
        preview.set_class(False, "-error")
        if ship is None:
            preview.update(
                Text(f"No ship matches {line.ship!r}: check the name." if line.ship else
                     "Type the ship's name (a few letters do), then the damage.", style="yellow")
            )  # fmt: skip
            return
        if line.is_empty:
            preview.update(Text(f"{ship.name}: now type what it took, e.g. s3 f1", style="dim"))
            return
        request = self._request(line, ship, rolled=False)
        auto = sum(1 for critical in line.criticals if critical.auto)
        try:
            result = (
                damage.preview_hit(self.factory, request=request)
                if request.criticals or _has_change(request)
                else None
            )
        except InvalidInput as exc:
            preview.update(Text("\n".join(exc.errors.values()), style="red"))
            preview.set_class(True, "-error")
            return
        missing = [
            c.kind for c in line.criticals
            if c.auto and damage.table_die(self.factory, campaign_id=self.campaign_id,
                                           kind=c.kind) is None
        ]  # fmt: skip
        if missing:
            preview.update(Text(f"no {missing[0]} critical table to roll on: type the effect in "
                                "quotes, or enter the table (ctrl+t)", style="red"))  # fmt: skip
            preview.set_class(True, "-error")
            return
        body = (
            Text(f"{ship.name}: {auto} critical(s) rolled when you press Enter")
            if result is None
            else preview_text(result, auto)
        )
        others = [p.name for p in self.picks[1:4]] if line.ship else []
        if others and ship.name.lower() != line.ship.lower():
            body.append(f"\n(also matches {', '.join(others)}: type more of the name, or pick "
                        "from the list with down and enter)", style="yellow")  # fmt: skip
        preview.update(body)
        self.pending = (request, line)

    @on(Input.Submitted, "#shorthand")
    def record(self) -> None:
        """Record the previewed hit (rolling any `crit ?` now), then announce what follows."""
        if self.refuse_if_read_only():
            return
        if self.pending is None:
            self.notify("Nothing to record: the preview shows what is missing.", severity="warning")
            return
        if calls.busy(self):
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
        self.call(Call(damage.record_hit, self.factory, request=request), then=self._recorded,
                  refused=self._refused)  # fmt: skip

    def _refused(self, exc: Exception) -> None:
        self.notify(calls.message(exc), severity="error")
        self._show_dice()

    def _recorded(self, result: DamageResult) -> None:
        self.picks_for = None  # the hit may have sunk a ship the picks show
        self.query_one("#shorthand", Input).value = ""
        self.default_ship_id = result.ship_id
        self._announce(result)
        self._show_dice()

    def _announce(self, result: DamageResult) -> None:
        message = damage.describe(result)
        if result.consequences:
            message += "\n" + "\n".join(result.consequences)
        self.notify(message, title=f"Recorded #{result.entry_id}",
                    severity="warning" if result.consequences else "information")  # fmt: skip
        if result.zero_reached:
            self._ask_condition(result.ship_id, result.ship_name)

    def _ask_condition(self, ship_id: int, name: str) -> None:
        def done(notes: list[str] | None) -> None:
            if notes:
                self.notify("\n".join(notes), severity="warning")
            self.refresh_preview()

        self.app.push_screen(zero_outcome_form(self.factory, ship_id, name), done)

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
        field.value = f'"{pick.name}" {items}'.strip() + " "
        field.focus()
        field.cursor_position = len(field.value)

    def action_focus_ships(self) -> None:
        self.query_one("#ship-candidates", OptionList).focus()

    def action_back(self) -> None:
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
        picks = damage.find_ships(self.factory, campaign_id=self.campaign_id, query="", limit=500)
        afloat = [(f"{p.name} ({p.squadron})", p.id) for p in picks if not p.sunk]
        if not afloat:
            self.notify("No ship afloat in this campaign.", severity="warning")
            return
        first = self.default_ship_id if self.default_ship_id in {i for _, i in afloat} else None
        fields = [
            FieldSpec("ship_id", "Ship", kind="select", value=first or afloat[0][1],
                      options=afloat),
            FieldSpec("structure", "Structure lost", kind="int", value=0, low=0, high=999),
            FieldSpec("flotation", "Flotation lost", kind="int", value=0, low=0, high=999),
            FieldSpec("fire_delta", "Fire markers + / -", kind="int", value=0, low=-99, high=99),
            FieldSpec("repair_structure", "Structure repaired", kind="int", value=0, low=0,
                      high=999),
            FieldSpec("repair_flotation", "Flotation repaired", kind="int", value=0, low=0,
                      high=999),
            FieldSpec("kind", "Critical", kind="select", value="structural",
                      options=[("structural", "structural"), ("underwater", "underwater")]),
            FieldSpec("effect", "Critical effect (blank: none)"),
        ]  # fmt: skip

        def submit(values: dict[str, Any]) -> DamageResult:
            effect = values.pop("effect").strip()
            kind = values.pop("kind")
            criticals = (CriticalRequest(kind=kind, effect=effect),) if effect else ()
            return damage.record_hit(
                self.factory, request=HitRequest(**values, criticals=criticals)
            )

        def done(result: DamageResult | None) -> None:
            if result is not None:
                self.default_ship_id = result.ship_id
                self._announce(result)
                self.refresh_preview()

        self.app.push_screen(FormScreen("Record a hit", fields, submit), done)


def _has_change(request: HitRequest) -> bool:
    return bool(
        request.structure or request.flotation or request.repair_structure
        or request.repair_flotation or request.fire_delta or request.fixes
    )  # fmt: skip
