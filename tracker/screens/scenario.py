"""One scenario of the campaign: the ships taking part, its turn, its close and reopening."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tracker.rules.words import plural
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.damage_entry import open_damage_entry
from tracker.screens.form import FieldSpec
from tracker.screens.next_turn import next_turn_of
from tracker.screens.participants import ParticipantsScreen
from tracker.screens.report import ReportScreen
from tracker.services import continuity, damage, scenarios
from tracker.services.continuity import ScenarioDetail
from tracker.services.damage import ShipPick
from tracker.widgets.search_table import SearchTable, search_keys
from tracker.widgets.sheet_blocks import strength_lines
from tracker.widgets.sheet_table import morale_cell
from tracker.widgets.tables import content_widths, fit_or_scroll
from tracker.widgets.tones import ALERT, toned

# Morale: the tests a ship owes (S⅓, F⅓, ½) and Out of Command, marked as the record sheet
# marks them. Narrower than its rows, the table narrows the squadron, the side and the ship's
# name in turn, down to the width named, each wrapped onto more lines, never cut.
COLUMNS = ("Ship", "Side", "Squadron", "Structure", "Flotation", "Morale", "Fate")
GIVE_WAY = (("Squadron", 10), ("Side", 10), ("Ship", 14), ("Squadron", 8), ("Side", 8),
            ("Ship", 10))  # fmt: skip
SORT_KEY = "S"  # o reopens here


class ScenarioScreen(TrackerScreen):
    """The scenario's sheet: p picks ships, b begins, n next turn, c closes, o reopens."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the campaign"),
        Binding("p", "participants", "Ships", tooltip="Choose the ships taking part"),
        Binding("b", "begin", "Begin", tooltip="Begin the scenario (turn 1)"),
        Binding("n", "next_turn", "Next turn", tooltip="Next game turn"),
        Binding("d", "damage", "Damage", tooltip="Record a hit or a repair (damage entry)"),
        Binding("c", "close", "Close", tooltip="Close the scenario: every ship's end state kept"),
        Binding(
            "o", "reopen", "Reopen", tooltip="Reopen a closed scenario (a journaled correction)"
        ),
        Binding("f", "factor", "Correction", tooltip="A side's correction factor (SMR2 12.1)"),
        Binding("a", "report", "Report", tooltip="The after-action report of a closed scenario"),
    ]
    READ_ONLY_ACTIONS = frozenset({"back", "report"})
    HELP_EXTRA = search_keys(SORT_KEY)
    FOOTER_DROPS = ("sort", "filter")  # the table's keys: in help when the footer is full

    def __init__(self, scenario_id: int) -> None:
        super().__init__()
        self.scenario_id = scenario_id
        self.detail: ScenarioDetail | None = None

    def body(self) -> ComposeResult:
        yield Static("", id="scenario-heading", markup=False)
        yield SearchTable(
            id="participant-table", title="Ships taking part", sort_key=SORT_KEY,
            zebra_stripes=True, wrap_rows=True,
        )  # fmt: skip

    def on_mount(self) -> None:
        table = self.query_one(SearchTable)
        table.add_sized_columns((label, len(label)) for label in COLUMNS)
        table.focus()

    def on_resize(self) -> None:
        if self.detail is not None:
            self._show(self.detail)

    def current_campaign_id(self) -> int | None:
        return self.detail.campaign_id if self.detail else None

    def reload(self) -> None:
        self.load(Call(continuity.scenario_detail, self.factory, scenario_id=self.scenario_id),
                  self._show)  # fmt: skip

    def _show(self, detail: ScenarioDetail) -> None:
        self.detail = detail
        self.title = detail.title
        self.sub_title = "Scenario"
        heading = Text()
        heading.append(f"{detail.position}. {detail.title}", style="bold")
        heading.append(f"   {detail.date}   ")
        heading.append("IN PLAY" if detail.status == "in_play" else detail.status, style="bold")
        if detail.status == "in_play":
            heading.append(f"   turn {detail.turn} ({(detail.turn - 1) * 6} min elapsed)")
        heading.append("\n")
        for _, name, factor in detail.sides:
            heading.append(f"{name}: correction factor {factor or '-'}   ")
        for name, original, afloat, half in detail.strengths:
            heading.append(f"\n{name}: ")
            heading.append(strength_lines(original, afloat, half).replace("\n", " · "),
                           style=ALERT if half else "")  # fmt: skip
        if detail.outcome or detail.notes:
            heading.append(f"\nOutcome: {detail.outcome or '-'}  {detail.notes}")
        self.query_one("#scenario-heading", Static).update(heading)
        table = self.query_one(SearchTable)
        rows = [(str(ship.ship_id), [
            Text(ship.name, style="bold"), Text(ship.side), Text(ship.squadron),
            ship.structure, ship.flotation, morale_cell(ship.morale, ship.out_of_command),
            toned("SUNK" if ship.sunk else ship.fate, ALERT),  # or the player's words at zero
        ]) for ship in detail.participants]  # fmt: skip
        empty = [Text("No ships yet" + self.hint(": press p to choose who takes part") + ".",
                      "dim")]  # fmt: skip
        # Each column fits what it holds (the hint of no ships, one line).
        widths, words = content_widths(COLUMNS, [cells for _, cells in rows] or [empty])
        if rows:
            room = table.scrollable_content_region.width or self.size.width
            widths = fit_or_scroll(widths, COLUMNS, GIVE_WAY, room, grow="Ship", words=words)
        table.set_widths(widths)
        table.show(rows, empty=empty)

    def _status_is(self, *statuses: str) -> bool:
        """Refuse at once (before any form) an action the scenario's status does not allow."""
        if self.detail is None:
            return False
        if self.detail.status in statuses:
            return True
        wanted = " or ".join(s.replace("_", " ") for s in statuses)
        self.notify(f"{self.detail.title} is {self.detail.status.replace('_', ' ')}: that needs "
                    f"it {wanted}", severity="warning")  # fmt: skip
        return False

    def action_report(self) -> None:
        if self.detail is not None and self._status_is("closed"):
            self.app.push_screen(ReportScreen(self.detail.campaign_id, self.scenario_id))

    def action_participants(self) -> None:
        if self.detail is None or not self._status_is("planned"):
            return
        taking_part = {ship.ship_id for ship in self.detail.participants}
        # None chosen yet: every ship afloat is offered ticked, the usual case.
        everyone = not taking_part
        self.call(Call(damage.find_ships, self.factory, campaign_id=self.detail.campaign_id,
                       query="", limit=10_000),
                  then=lambda picks: self._choose(picks, everyone, taking_part))  # fmt: skip

    def _choose(self, picks: list[ShipPick], everyone: bool, taking_part: set[int]) -> None:
        if self.detail is None:
            return
        choices = [
            (f"{p.name}  ·  {p.side} · {p.squadron}", p.id, everyone or p.id in taking_part)
            for p in picks
            if not p.sunk
        ]

        def done(ship_ids: list[int] | None) -> None:
            if ship_ids is not None:
                said = f"{plural(len(ship_ids), 'ship')} taking part"
                chosen = Call(
                    scenarios.set_participants,
                    self.factory,
                    ship_ids=ship_ids,
                    scenario_id=self.scenario_id,
                )
                self.call(chosen, then=lambda _: self.tell(said))

        self.app.push_screen(
            ParticipantsScreen(f"Ships taking part in {self.detail.title}", choices), done
        )

    def action_begin(self) -> None:
        begin = Call(scenarios.start_scenario, self.factory, scenario_id=self.scenario_id)
        self.call(begin, then=lambda _: self.tell("Begun: turn 1. Start states recorded."))

    def action_next_turn(self) -> None:
        if self.detail is not None:
            next_turn_of(self, self.detail.campaign_id, self.detail, self.reload)

    def action_damage(self) -> None:
        if self.detail is not None:
            open_damage_entry(self.app, self.detail.campaign_id)

    def action_close(self) -> None:
        if self.detail is None or not self._status_is("in_play"):
            return
        fields = [
            FieldSpec("outcome", "Outcome", placeholder="e.g. British tactical victory"),
            FieldSpec("notes", "Notes"),
        ]
        self.open_form(
            f"Close {self.detail.title}",
            fields,
            self.calling(scenarios.close_scenario, scenario_id=self.scenario_id),
            done=self._close_done,
            note="Every ship's end state is kept; repairs come next (r on the campaign screen).",
        )

    def _close_done(self, closed: scenarios.ClosedScenario | None) -> None:
        if closed is None:
            return
        self.reload()
        if closed.backup_failure is not None:
            # The player would otherwise believe the close left a backup to go back to.
            self.notify(f"The scenario is closed, but no backup was taken: "
                        f"{closed.backup_failure}. Free some space "
                        "or fix the folder, and copy the campaign file somewhere safe.",
                        title="No backup", severity="error", timeout=30,
                        markup=False)  # fmt: skip

    def action_reopen(self) -> None:
        if self.detail is None or not self._status_is("closed"):
            return
        submit = self.calling(scenarios.reopen_scenario, scenario_id=self.scenario_id)
        self.open_form(
            f"Reopen {self.detail.title}",
            [FieldSpec("reason", "Why")],
            submit,
            note="A correction: the journal keeps it, with your reason.",
        )

    def action_factor(self) -> None:
        if self.detail is None or not self.detail.sides:
            return
        sides = [(name, side_id) for side_id, name, _ in self.detail.sides]
        fields = [
            FieldSpec("side_id", "Side", kind="select", value=sides[0][1], options=sides),
            FieldSpec("value", "Correction factor", placeholder="a number or your rule's words"),
        ]
        self.open_form(
            "Correction factor",
            fields,
            self.calling(scenarios.set_correction_factor, scenario_id=self.scenario_id),
            note="SMR2 §12.1 is not in this tracker: enter what your rulebook gives.",
        )
