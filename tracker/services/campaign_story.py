"""The campaign report: the scenarios and their outcomes, what each side lost and repaired, each
ship's service record, the plots' figures, and every closed scenario's after-action report
(services.reports), each read as services.reports reads them.

The plots' figures are Structure and Flotation at each scenario's start and end, as the history
plot (h) has them, with the 1/3 line of each track (docs/RULES.md §SMR2: a ship at or below 1/3
of a track owes a morale test). A side's plot sums the same ships all along, so a line moves only
when a ship took damage, was repaired, sank or first joined the side's battles: a ship sunk
counts 0 from the end of the scenario it sank in; a ship sitting a scenario out counts as it
stood (its last end, plus the repairs made since). Its 1/3 lines are a third of those ships'
full Structure and Flotation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, Scenario
from tracker.models.kinds import ScenarioStatus
from tracker.services import reports
from tracker.services.as_of import Timeline
from tracker.services.common import get_row, rows_where
from tracker.services.repairs import done_repairs
from tracker.services.reports import AfterActionReport, ShipInAction

SIDE_NOTE = (
    "Its ships from their first scenario on: a ship sunk counts 0, one sitting a scenario out "
    "counts as it stood (its last end plus repairs)."
)


@dataclass(frozen=True)
class ServiceLine:
    """A ship's line in its service record: one scenario it fought, and the repairs after it."""

    position: int
    scenario: str
    start: tuple[int, int]
    end: tuple[int, int] | None
    full: tuple[int, int]  # its Structure and Flotation maxima then
    criticals: int  # taken in it
    fate: str
    repaired: tuple[int, int]


@dataclass(frozen=True)
class ServiceRecord:
    ship_id: int
    name: str
    side: str
    type_abbrev: str
    structure_max: int
    flotation_max: int
    points: int  # SMR2 points with the crew percentage (§3.2)
    crew_percent: int
    sunk: bool
    lines: tuple[ServiceLine, ...]


@dataclass(frozen=True)
class SideInScenario:
    """What a side paid in one scenario, and the repairs it made before the next."""

    position: int
    scenario: str
    ships_lost: tuple[str, ...]
    points_lost: int
    carried: tuple[int, int]  # Structure and Flotation its ships afloat carried out of it
    repaired: tuple[int, int]  # Structure and Flotation repaired after it
    # Its commanders lost, each with the ship he was lost with: (commander, ship), as then named.
    commanders_lost: tuple[tuple[str, str], ...] = ()

    @property
    def losses(self) -> str:
        """The ships lost, each with the commander lost aboard her, in the player's words:
        `Admiral Hipper (commander Adm Luetjens lost with her)`; "-" for none."""
        aboard = {ship: name for name, ship in self.commanders_lost}
        said = [f"{ship} (commander {aboard[ship]} lost with her)" if ship in aboard else ship
                for ship in self.ships_lost]  # fmt: skip
        said += [f"commander {name} lost" for name, ship in self.commanders_lost
                 if ship not in self.ships_lost]  # fmt: skip
        return ", ".join(said) or "-"


@dataclass(frozen=True)
class SideTally:
    side: str
    scenarios: tuple[SideInScenario, ...]

    @property
    def ships_lost(self) -> int:
        return sum(len(row.ships_lost) for row in self.scenarios)

    @property
    def points_lost(self) -> int:
        return sum(row.points_lost for row in self.scenarios)

    @property
    def repaired(self) -> tuple[int, int]:
        return (sum(r.repaired[0] for r in self.scenarios),
                sum(r.repaired[1] for r in self.scenarios))  # fmt: skip


@dataclass(frozen=True)
class ScenarioLine:
    id: int
    position: int
    title: str
    date: str
    status: str
    outcome: str


@dataclass(frozen=True)
class Series:
    """Structure and Flotation over the scenarios, each scenario's start then its end ("2s",
    "2e"), and at each point the full Structure and Flotation its 1/3 lines are a third of."""

    name: str
    labels: tuple[str, ...]
    structure: tuple[int, ...]
    flotation: tuple[int, ...]
    structure_full: tuple[int, ...]
    flotation_full: tuple[int, ...]
    note: str = ""  # what the figures count, or what became of the ship

    @property
    def thirds(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The 1/3 lines: a third of the full Structure, then of the full Flotation."""
        return (tuple(full / 3 for full in self.structure_full),
                tuple(full / 3 for full in self.flotation_full))  # fmt: skip


@dataclass(frozen=True)
class CampaignReport:
    campaign: str
    notes: str
    scenarios: tuple[ScenarioLine, ...]
    sides: tuple[SideTally, ...]
    records: tuple[ServiceRecord, ...]
    side_series: tuple[Series, ...]
    ship_series: tuple[Series, ...]
    after_actions: tuple[AfterActionReport, ...]
    viewer: str


# --- the plots' figures ---------------------------------------------------------------------------


Point = tuple[str, int, int, int, int]  # label, Structure, Flotation and their full values


def _series(name: str, points: Sequence[Point], note: str = "") -> Series:
    columns = tuple(zip(*points, strict=True)) if points else ((),) * 5
    labels, structure, flotation, s_full, f_full = columns
    return Series(name, tuple(labels), tuple(structure), tuple(flotation), tuple(s_full),
                  tuple(f_full), note)  # fmt: skip


def _ship_series(records: Iterable[ServiceRecord]) -> tuple[Series, ...]:
    """Each ship's tracks at the start and end of each scenario it fought."""
    found = []
    for record in records:
        points: list[Point] = []
        note = ""
        for line in record.lines:
            points.append((f"{line.position}s", *line.start, *line.full))
            if line.end is not None:
                points.append((f"{line.position}e", *line.end, *line.full))
            if line.fate == "sunk":
                note = f"Sunk in scenario {line.position}: it counts 0 in its side's plot."
        found.append(_series(record.name, points, note))
    return tuple(found)


def _side_series(
    stories: Sequence[AfterActionReport], sides: Mapping[int, str],
    repairs: Mapping[tuple[int, int | None], tuple[int, int]],
) -> tuple[Series, ...]:  # fmt: skip
    """Each side's sums over its ships at each scenario's start and end (see the module's
    docstring); `repairs` is Structure and Flotation repaired by (ship, the scenario after)."""
    found = []
    for side_id, name in sides.items():
        seen: dict[int, tuple[int, ShipInAction]] = {}  # ship -> (report index, its showing)
        points: list[Point] = []
        for index, report in enumerate(stories):
            here = {s.ship_id: s for s in report.ships if s.side_id == side_id}
            for phase in ("start", "end"):
                values = [
                    _value(here[ship_id], phase) if ship_id in here
                    else _carried(*seen[ship_id], stories[:index], repairs)
                    for ship_id in {**seen, **here}
                ]  # fmt: skip
                if values:
                    sums = [sum(value[i] for value in values) for i in range(4)]
                    points.append((f"{report.position}{phase[0]}", *sums))  # type: ignore[arg-type]
            seen.update({ship_id: (index, ship) for ship_id, ship in here.items()})
        if points:
            found.append(_series(name, points, SIDE_NOTE))
    return tuple(found)


def _value(ship: ShipInAction, phase: str) -> tuple[int, int, int, int]:
    structure, flotation = (0, 0) if phase == "end" and ship.sunk else getattr(ship, phase)
    return structure, flotation, ship.structure_max, ship.flotation_max


def _carried(
    index: int, ship: ShipInAction, before: Sequence[AfterActionReport],
    repairs: Mapping[tuple[int, int | None], tuple[int, int]],
) -> tuple[int, int, int, int]:  # fmt: skip
    """A ship sitting a scenario out: 0 once sunk, else its last end and the repairs since."""
    if ship.sunk:
        return 0, 0, ship.structure_max, ship.flotation_max
    done = [repairs.get((ship.ship_id, report.scenario_id), (0, 0)) for report in before[index:]]
    return (min(ship.structure_max, ship.end[0] + sum(d[0] for d in done)),
            min(ship.flotation_max, ship.end[1] + sum(d[1] for d in done)),
            ship.structure_max, ship.flotation_max)  # fmt: skip


# --- the campaign report --------------------------------------------------------------------------


def _repairs(
    session: Session, ship_ids: Iterable[int]
) -> dict[tuple[int, int | None], tuple[int, int]]:
    """Structure and Flotation repaired, by (ship, the scenario the repair came after)."""
    done: dict[tuple[int, int | None], tuple[int, int]] = defaultdict(lambda: (0, 0))
    for ship_id, rows in done_repairs(session, list(ship_ids)).items():
        for after_id, structure, flotation in rows:
            s, f = done[(ship_id, after_id)]
            done[(ship_id, after_id)] = (s + structure, f + flotation)
    return done


def campaign_report(
    factory: SessionFactory, *, campaign_id: int, side_id: int | None = None,
    passphrase: str | None = None,
) -> CampaignReport:  # fmt: skip
    """The campaign's story: its scenarios and outcomes, what each side lost and repaired, each
    ship's service record, the history plots, and every closed scenario's after-action report."""
    with session_scope(factory) as session:
        campaign = get_row(session, Campaign, campaign_id)
        reader = reports.reader_for(session, campaign_id, side_id, passphrase)
        scenarios = rows_where(
            session, Scenario, Scenario.campaign_id == campaign_id, order=Scenario.position
        )
        closed = [s for s in scenarios if s.status == ScenarioStatus.CLOSED]
        timeline = Timeline(session, campaign_id)
        stories = [
            reports.read_after_action(session, scenario, reader, timeline) for scenario in closed
        ]
        sides, ships = reports.campaign_rows(session, campaign_id)
        repairs = _repairs(session, ships)
        today = timeline.at(None)
        points = {
            ship_id: today.points(ship_id, ship.squadron_id) for ship_id, ship in ships.items()
        }
        played: dict[int, list[tuple[Scenario, ShipInAction]]] = defaultdict(list)
        for scenario, report in zip(closed, stories, strict=True):
            for taking_part in report.ships:
                played[taking_part.ship_id].append((scenario, taking_part))
        lines: dict[int, list[ServiceLine]] = defaultdict(list)
        for ship_id, fought in played.items():
            for index, (scenario, taking_part) in enumerate(fought):
                # Repairs after it and before the ship's next battle (it may sit some out).
                until = fought[index + 1][0].position if index + 1 < len(fought) else None
                periods = [
                    s.id
                    for s in closed
                    if s.position >= scenario.position and (until is None or s.position < until)
                ]
                done = [repairs[(ship_id, period)] for period in periods]
                lines[ship_id].append(
                    ServiceLine(
                        position=scenario.position, scenario=scenario.title,
                        start=taking_part.start, end=taking_part.end,
                        full=(taking_part.structure_max, taking_part.flotation_max),
                        criticals=taking_part.taken,
                        fate="sunk" if taking_part.sunk else taking_part.fate,
                        repaired=(sum(d[0] for d in done), sum(d[1] for d in done)),
                    )
                )  # fmt: skip
        records = tuple(
            ServiceRecord(
                ship_id=ship_id, name=ship.name, side=sides.get(ship.side_id, ""),
                type_abbrev=ship.type_abbrev, structure_max=ship.structure_max,
                flotation_max=ship.flotation_max, points=points[ship_id][0],
                crew_percent=points[ship_id][1], sunk=ship.sunk, lines=tuple(lines[ship_id]),
            )
            for ship_id, ship in sorted(ships.items(), key=lambda item: (item[1].side_id, item[0]))
            if lines[ship_id] or not ship.retired
        )  # fmt: skip
        tallies = []
        for side_id_, side_name in sides.items():
            rows = []
            for scenario, report in zip(closed, stories, strict=True):
                mine = [s for s in report.ships if s.side_id == side_id_]
                # The side as the scenario's report names it (its name then), for the losses of
                # its commanders, which the report names as they were.
                then = dict(zip(sides, (name for name, _ in report.sides), strict=True))
                commanders = tuple((c.name or "(unnamed)", c.ship) for c in report.commanders_lost
                                   if c.side == then[side_id_])  # fmt: skip
                sunk = [s for s in mine if s.sunk]
                afloat = [s for s in mine if not s.sunk]
                repaired = [
                    repairs[(ship_id, scenario.id)]
                    for ship_id, ship in ships.items()
                    if ship.side_id == side_id_
                ]
                rows.append(
                    SideInScenario(
                        position=scenario.position, scenario=scenario.title,
                        ships_lost=tuple(s.name for s in sunk), commanders_lost=commanders,
                        points_lost=sum(s.points for s in sunk),
                        carried=(sum(s.structure_max - s.end[0] for s in afloat),
                                 sum(s.flotation_max - s.end[1] for s in afloat)),
                        repaired=(sum(r[0] for r in repaired), sum(r[1] for r in repaired)),
                    )
                )  # fmt: skip
            tallies.append(SideTally(side=side_name, scenarios=tuple(rows)))
        return CampaignReport(
            campaign=campaign.name, notes=campaign.notes,
            scenarios=tuple(
                ScenarioLine(id=s.id or 0, position=s.position, title=s.title, date=s.date,
                             status=s.status, outcome=s.outcome)
                for s in scenarios
            ),
            sides=tuple(tallies), records=records,
            side_series=_side_series(stories, sides, repairs),
            ship_series=_ship_series(records),
            after_actions=tuple(stories), viewer=reader.name,
        )  # fmt: skip
