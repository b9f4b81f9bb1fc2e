"""The campaign's story on screen: the campaign report (a on the campaign screen) or a closed
scenario's after-action report (a on the scenario screen), scrolled with the arrow keys.

It is the report for everyone: only what is revealed (docs/RULES.md §Secrets), so the umpire's
view shows it too. Every piece of player text is a `Text`, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from tracker.rules.words import plural
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.services import campaign_story, reports
from tracker.services.campaign_story import CampaignReport
from tracker.services.reports import AfterActionReport


def _table(title: str, header: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    """A table of plain cells: each a Text, so `[b]` in a name shows as typed."""
    table = Table(title=Text(title, style="bold"), title_justify="left", expand=True,
                  show_edge=False, pad_edge=False, box=None, header_style="bold")  # fmt: skip
    for label in header:
        table.add_column(Text(label), overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def _heading(*lines: str) -> Text:
    return Text("\n".join(lines), style="bold")


def _tracks(start: tuple[int, int], end: tuple[int, int], maximum: tuple[int, int]) -> list[str]:
    return [f"{start[i]}→{end[i]}/{maximum[i]}" for i in (0, 1)]


def after_action_parts(report: AfterActionReport) -> list[RenderableType]:
    sides = " · ".join(
        f"{name}: correction factor {factor or '-'}" for name, factor in report.sides
    )
    parts: list[RenderableType] = [
        _heading(
            f"After-action report: {report.position}. {report.title}",
            f"{report.date or 'no date'} · {plural(report.turns, 'turn')} · for {report.viewer}",
            sides,
            f"Outcome: {report.outcome or '-'}",
        ),
    ]
    if report.notes:
        parts.append(Text(report.notes))
    parts.append(_table(
        "Ships taking part", ["Ship", "Side", "S", "F", "Criticals", "Fire", "Mines", "Fate"],
        ([s.name, s.side, *_tracks(s.start, s.end, (s.structure_max, s.flotation_max)),
          "; ".join(c.text for c in s.criticals) or "-", str(s.fire_markers),
          f"{s.mines_struck}, fuel -{s.fuel_lost}" if s.mines_struck else "-",
          "SUNK" if s.sunk else s.fate] for s in report.ships),
    ))  # fmt: skip
    losses = [f"{s.name} ({s.side}): {'sunk' if s.sunk else s.fate}" for s in report.ships
              if s.lost]  # fmt: skip
    losses += [f"Commander {c.name or '(unnamed)'} of {c.squadron} ({c.side}) lost"
               + (f" with {c.ship}" if c.ship else "") for c in report.commanders_lost]  # fmt: skip
    losses += [f"{m.ship} ({m.side}) struck a mine, turn {m.turn}: {m.dice}, {m.effects}"
               for m in report.mines]  # fmt: skip
    parts.append(_heading("Losses", *(losses or ["None."])))
    parts.append(_table(
        "Turn by turn", ["#", "Turn", "Ship", "What happened", "Dice"],
        ([str(x.entry_id), str(x.turn) if x.turn is not None else "close", x.ship, x.summary,
          x.dice] for x in report.journal),
    ))  # fmt: skip
    return parts


def campaign_parts(report: CampaignReport) -> list[RenderableType]:
    """The campaign report as text and tables; its plots are on paper, and under h."""
    parts: list[RenderableType] = [
        _heading(f"{report.campaign}: the campaign's story", f"for {report.viewer}"),
        _table("Scenarios", ["#", "Scenario", "Date", "Status", "Outcome"],
               ([str(s.position), s.title, s.date, s.status.replace("_", " "), s.outcome]
                for s in report.scenarios)),
    ]  # fmt: skip
    for tally in report.sides:
        parts.append(_table(
            f"{tally.side}: {plural(tally.ships_lost, 'ship')} and "
            f"{tally.points_lost} points lost, "
            f"repaired S {tally.repaired[0]} F {tally.repaired[1]}",
            ["Scenario", "Ships lost", "Points", "Carried out", "Repaired after"],
            ([f"{r.position}. {r.scenario}", r.losses, str(r.points_lost),
              f"S {r.carried[0]} F {r.carried[1]}", f"S {r.repaired[0]} F {r.repaired[1]}"]
             for r in tally.scenarios),
        ))  # fmt: skip
    parts.append(_table(
        "Service records", ["Ship", "Side", "Points", "Scenario", "Start", "End", "Crits", "Fate"],
        ([record.name if i == 0 else "", record.side if i == 0 else "",
          f"{record.points}" if i == 0 else "", f"{x.position}. {x.scenario}",
          f"S{x.start[0]} F{x.start[1]}", f"S{x.end[0]} F{x.end[1]}" if x.end else "-",
          str(x.criticals), x.fate] for record in report.records
         for i, x in enumerate(record.lines)),
    ))  # fmt: skip
    return parts


class ReportScreen(TrackerScreen):
    BINDINGS = [Binding("escape", "back", "Back", tooltip="Back")]

    def __init__(self, campaign_id: int, scenario_id: int | None = None) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.scenario_id = scenario_id
        self.shown: list[RenderableType] = []  # what the body shows, part by part

    def body(self) -> ComposeResult:
        with VerticalScroll(id="report-scroll"):
            yield Static("", id="report-body")

    def on_mount(self) -> None:
        self.title = "Campaign report" if self.scenario_id is None else "After-action report"
        self.query_one("#report-scroll").focus()

    def reload(self) -> None:
        if self.scenario_id is None:
            call = Call(campaign_story.campaign_report, self.factory, campaign_id=self.campaign_id)
            self.load(call, lambda report: self._show(campaign_parts(report)))
        else:
            aar = Call(reports.after_action_report, self.factory, scenario_id=self.scenario_id)
            self.load(aar, lambda report: self._show(after_action_parts(report)))

    def _show(self, parts: list[RenderableType]) -> None:
        self.shown = [piece for part in parts for piece in (part, Text(""))]
        self.query_one("#report-body", Static).update(Group(*self.shown))
