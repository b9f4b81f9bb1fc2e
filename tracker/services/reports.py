"""The campaign's story: an after-action report per closed scenario and the campaign report.

Plain data, read from what was stored: each ship's start and end snapshots, the journal entries
still in force (an undone change is no part of the story), the criticals they made, the repairs
between scenarios. Nothing is worked out again from the rules. Secrets follow the viewer rules
(docs/RULES.md §Secrets): a report for a side opens that side's sealed journal entries (with its
passphrase, when it has one); a report for everyone shows what is revealed and nothing more.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    Commander,
    Critical,
    JournalEntry,
    Repair,
    Scenario,
    ScenarioSide,
    Ship,
    ShipSnapshot,
    Side,
    Squadron,
)
from tracker.models.kinds import JournalKind, RepairStatus, ScenarioStatus, SnapshotPhase
from tracker.rules import smr
from tracker.rules.damage import critical_text
from tracker.services import history, secrets, visibility
from tracker.services.common import get_row
from tracker.services.errors import InvalidInput
from tracker.services.roster import side_key
from tracker.services.sheet import crew_of

PLAYED = (ScenarioStatus.IN_PLAY, ScenarioStatus.CLOSED)


@dataclass(frozen=True)
class ShipInAction:
    """A ship in one scenario: its tracks at start and end, what it took and how it ended."""

    ship_id: int
    name: str
    side: str
    squadron: str
    type_abbrev: str
    structure_max: int
    flotation_max: int
    start: tuple[int, int]
    end: tuple[int, int]
    criticals: tuple[str, ...]
    fire_markers: int  # placed on it during the scenario
    mines_struck: int
    fuel_lost: int
    sunk: bool  # sunk in this scenario
    fate: str  # its condition at the end, as the player recorded it ("" when none)

    @property
    def lost(self) -> bool:
        """Sunk, or left at zero in another condition the player named (dead in the water)."""
        return self.sunk or bool(self.fate)


@dataclass(frozen=True)
class CommanderLost:
    squadron: str
    side: str
    name: str
    ship: str  # the ship he was lost with ("" when the journal does not name one)
    turn: int | None


@dataclass(frozen=True)
class MineStruck:
    """One ship drawn in a mine check that struck a mine: its roll and what the mine did."""

    ship: str
    side: str
    turn: int | None
    dice: str
    effects: str
    fuel_lost: int


@dataclass(frozen=True)
class StoryLine:
    """One journal entry of the scenario as the report's viewer may read it."""

    entry_id: int
    turn: int | None
    side: str
    ship: str
    kind: str
    summary: str
    dice: str


@dataclass(frozen=True)
class AfterActionReport:
    campaign: str
    scenario_id: int
    position: int
    title: str
    date: str
    turns: int
    outcome: str
    notes: str
    sides: tuple[tuple[str, str], ...]  # (side, correction factor)
    ships: tuple[ShipInAction, ...]
    commanders_lost: tuple[CommanderLost, ...]
    mines: tuple[MineStruck, ...]
    journal: tuple[StoryLine, ...]
    viewer: str  # the side the report is for, or "everyone"


@dataclass(frozen=True)
class ServiceLine:
    """A ship's line in its service record: one scenario it fought, and the repairs after it."""

    position: int
    scenario: str
    start: tuple[int, int]
    end: tuple[int, int] | None
    criticals: int
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
    """Structure and Flotation over the scenarios, as the history plot (h) draws them: each
    scenario's start, then its end ("2s", "2e")."""

    name: str
    labels: tuple[str, ...]
    structure: tuple[int, ...]
    flotation: tuple[int, ...]


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


# --- the viewer ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Reader:
    """Who the report is for: a side (and its key, when it has a passphrase), or everyone."""

    side_id: int | None
    name: str
    key: bytes | None

    def line(self, entry: JournalEntry) -> tuple[str, str]:
        """The entry's summary and dice as this reader may read them (docs/RULES.md §Secrets)."""
        own = self.side_id is not None and entry.side_id == self.side_id
        viewer = visibility.Viewer.OWNER if own else visibility.Viewer.OPPONENT
        detail = json.loads(visibility.entry_as_seen(entry.detail, viewer=viewer, own=own))
        if own and detail.get("sealed"):
            # The side's own secret change: its full wording and dice, opened with its key.
            opened = secrets.open_note(detail["sealed"], self.key)
            summary = str(opened.get("summary") or entry.summary)
            return summary, history.dice_text({"dice": opened.get("dice")})
        return entry.summary, history.dice_text(detail)


def _reader(
    session: Session, campaign_id: int, side_id: int | None, passphrase: str | None
) -> _Reader:
    if side_id is None:
        return _Reader(None, "everyone", None)
    side = get_row(session, Side, side_id)
    if side.campaign_id != campaign_id:
        raise InvalidInput({"side": f"{side.name} is a side of another campaign"})
    return _Reader(side_id, side.name, side_key(session, side_id, passphrase))


# --- reading the journal ------------------------------------------------------------------------


def _in_force(session: Session, scenario: Scenario) -> list[JournalEntry]:
    """The scenario's entries, oldest first, less undone ones and the undos themselves: from its
    beginning to its (last) close, before the next scenario began.

    By the window, not by the entries' scenario: a close is journaled once the scenario is no
    longer in play, under the campaign's current scenario (the next one planned).
    """
    campaign = JournalEntry.campaign_id == scenario.campaign_id
    began = session.exec(
        select(func.min(JournalEntry.id)).where(
            campaign, JournalEntry.kind == JournalKind.BEGIN,
            JournalEntry.scenario_id == scenario.id,
        )
    ).one()  # fmt: skip
    if began is None:
        return []
    after = col(JournalEntry.id) > began
    following = session.exec(
        select(func.min(JournalEntry.id)).where(campaign, after,
                                                JournalEntry.kind == JournalKind.BEGIN)
    ).one()  # fmt: skip
    window = [after] if following is None else [after, col(JournalEntry.id) < following]
    closed = session.exec(
        select(func.max(JournalEntry.id)).where(campaign, *window,
                                                JournalEntry.kind == JournalKind.CLOSE)
    ).one()  # fmt: skip
    last = [col(JournalEntry.id) <= closed] if closed is not None else window[1:]
    return list(
        session.exec(
            select(JournalEntry)
            .where(
                campaign, col(JournalEntry.id) >= began, *last,
                JournalEntry.kind != JournalKind.UNDO,
                col(JournalEntry.reverted_by_id).is_(None),
            )
            .order_by(col(JournalEntry.id))
        ).all()
    )  # fmt: skip


def _changes(entry: JournalEntry, table: str) -> Iterable[dict[str, Any]]:
    for change in json.loads(entry.detail).get("changes") or []:
        if change.get("table") == table:
            yield change


def _rose(change: dict[str, Any], column: str) -> int:
    """How much a change raised a number (0 when it lowered it or left it alone)."""
    before, after = change.get("before") or {}, change.get("after") or {}
    if column not in after:
        return 0
    return max(0, int(after[column] or 0) - int(before.get(column) or 0))


def _critical_words(critical: Critical) -> str:
    return critical_text(critical.kind, critical.effect, critical.roll, critical.turn)


@dataclass
class _Tally:
    criticals: list[int]
    fire: int = 0
    mines: int = 0
    fuel: int = 0


def _tallies(entries: Sequence[JournalEntry]) -> dict[int, _Tally]:
    """Per ship: the criticals its entries made, fire markers placed, mines struck, fuel lost."""
    tallies: dict[int, _Tally] = defaultdict(lambda: _Tally([]))
    for entry in entries:
        for change in _changes(entry, "ship"):
            tally = tallies[change["id"]]
            tally.fire += _rose(change, "fire_markers")
            tally.fuel += _rose(change, "fuel_lost")
        if entry.ship_id is None:
            continue
        for change in _changes(entry, "critical"):
            if (change.get("after") or {}).get("status") == "active" and (
                change.get("before") or {}
            ).get("status") == "void":
                tallies[entry.ship_id].criticals.append(change["id"])
        for change in _changes(entry, "minecheckship"):
            if (change.get("after") or {}).get("struck"):
                tallies[entry.ship_id].mines += 1
    return tallies


# --- the after-action report --------------------------------------------------------------------


def _snapshots(session: Session, scenario_id: int) -> dict[tuple[int, str], ShipSnapshot]:
    rows = session.exec(select(ShipSnapshot).where(ShipSnapshot.scenario_id == scenario_id)).all()
    return {(row.ship_id, row.phase): row for row in rows}


def _names(
    session: Session, campaign_id: int
) -> tuple[dict[int, str], dict[int, Ship], dict[int, str]]:
    """Side names, ships and squadron names of a campaign, by id."""
    sides = {
        side.id or 0: side.name
        for side in session.exec(select(Side).where(Side.campaign_id == campaign_id))
    }
    ships = {
        ship.id or 0: ship
        for ship in session.exec(select(Ship).where(col(Ship.side_id).in_(list(sides))))
    }
    squadrons = {
        squadron.id or 0: squadron.name
        for squadron in session.exec(select(Squadron).where(col(Squadron.side_id).in_(list(sides))))
    }
    return sides, ships, squadrons


def _after_action(session: Session, scenario: Scenario, reader: _Reader) -> AfterActionReport:
    campaign = get_row(session, Campaign, scenario.campaign_id)
    sides, ships, squadrons = _names(session, campaign.id or 0)
    snaps = _snapshots(session, scenario.id or 0)
    entries = _in_force(session, scenario)
    tallies = _tallies(entries)
    criticals = {
        c.id: c
        for c in session.exec(
            select(Critical).where(
                col(Critical.id).in_([i for t in tallies.values() for i in t.criticals])
            )
        )
    }
    in_action = []
    for (ship_id, phase), start in sorted(snaps.items(), key=lambda item: item[0]):
        if phase != SnapshotPhase.START:
            continue
        end = snaps.get((ship_id, SnapshotPhase.END), start)
        ship = ships[ship_id]
        tally = tallies.get(ship_id, _Tally([]))
        in_action.append(
            ShipInAction(
                ship_id=ship_id, name=ship.name, side=sides.get(ship.side_id, ""),
                squadron=squadrons.get(start.squadron_id or ship.squadron_id, ""),
                type_abbrev=ship.type_abbrev, structure_max=ship.structure_max,
                flotation_max=ship.flotation_max, start=(start.structure, start.flotation),
                end=(end.structure, end.flotation),
                criticals=tuple(_critical_words(criticals[i]) for i in tally.criticals
                                if i in criticals),
                fire_markers=tally.fire, mines_struck=tally.mines, fuel_lost=tally.fuel,
                sunk=end.sunk and not start.sunk, fate=end.condition,
            )
        )  # fmt: skip
    order = {name: index for index, name in enumerate(sides.values())}
    in_action.sort(key=lambda s: (order.get(s.side, 0), s.squadron, s.ship_id))
    factors = {
        row.side_id: row.correction_factor
        for row in session.exec(select(ScenarioSide).where(ScenarioSide.scenario_id == scenario.id))
    }
    return AfterActionReport(
        campaign=campaign.name, scenario_id=scenario.id or 0, position=scenario.position,
        title=scenario.title, date=scenario.date, turns=scenario.turn, outcome=scenario.outcome,
        notes=scenario.notes,
        sides=tuple((name, factors.get(side_id, "")) for side_id, name in sides.items()),
        ships=tuple(in_action),
        commanders_lost=_commanders_lost(session, entries, sides, ships, squadrons),
        mines=_mines(session, entries, sides, ships),
        journal=tuple(_story_line(entry, scenario, reader, sides, ships) for entry in entries),
        viewer=reader.name,
    )  # fmt: skip


def _story_line(
    entry: JournalEntry, scenario: Scenario, reader: _Reader, sides: dict[int, str],
    ships: dict[int, Ship],
) -> StoryLine:  # fmt: skip
    summary, dice = reader.line(entry)
    ship = ships.get(entry.ship_id or 0)
    # The close is journaled under the next scenario planned, at its turn: no turn of this one.
    turn = entry.turn if entry.scenario_id == scenario.id else None
    return StoryLine(
        entry_id=entry.id or 0, turn=turn, side=sides.get(entry.side_id or 0, ""),
        ship=ship.name if ship else "", kind=entry.kind, summary=summary, dice=dice,
    )  # fmt: skip


def _commanders_lost(
    session: Session, entries: Sequence[JournalEntry], sides: dict[int, str],
    ships: dict[int, Ship], squadrons: dict[int, str],
) -> tuple[CommanderLost, ...]:  # fmt: skip
    lost = []
    for entry in entries:
        for change in _changes(entry, "commander"):
            if (change.get("after") or {}).get("status") != "lost":
                continue
            commander = session.get(Commander, change["id"])
            squadron = session.exec(
                select(Squadron).where(Squadron.commander_id == change["id"])
            ).first()
            ship = ships.get(entry.ship_id or 0)
            lost.append(
                CommanderLost(
                    squadron=squadrons.get(squadron.id or 0, "") if squadron else "",
                    side=sides.get(squadron.side_id, "") if squadron else "",
                    name=commander.name if commander else "",
                    ship=ship.name if ship else "", turn=entry.turn,
                )
            )  # fmt: skip
    return tuple(lost)


def _mines(
    session: Session, entries: Sequence[JournalEntry], sides: dict[int, str],
    ships: dict[int, Ship],
) -> tuple[MineStruck, ...]:  # fmt: skip
    struck = []
    for entry in entries:
        if entry.kind != JournalKind.MINE or entry.ship_id not in ships:
            continue
        items = [
            c for c in _changes(entry, "minecheckship") if (c.get("after") or {}).get("struck")
        ]
        if not items:
            continue
        ship = ships[entry.ship_id or 0]
        fuel = sum(_rose(c, "fuel_lost") for c in _changes(entry, "ship"))
        struck.append(
            MineStruck(
                ship=ship.name, side=sides.get(ship.side_id, ""), turn=entry.turn,
                dice=history.dice_text(json.loads(entry.detail)),
                effects=str(items[0]["after"].get("effects", "")), fuel_lost=fuel,
            )
        )  # fmt: skip
    return tuple(struck)


def after_action_report(
    factory: SessionFactory, *, scenario_id: int, side_id: int | None = None,
    passphrase: str | None = None,
) -> AfterActionReport:  # fmt: skip
    """The after-action report of a closed scenario, for a side (its own secrets opened) or for
    everyone (side_id None: only what is revealed), docs/RULES.md §Secrets."""
    with session_scope(factory) as session:
        scenario = get_row(session, Scenario, scenario_id)
        if scenario.status != ScenarioStatus.CLOSED:
            raise InvalidInput(
                {"scenario": f"{scenario.title} is {scenario.status.replace('_', ' ')}: its "
                 "after-action report is written once it is closed (c on the scenario screen)"}
            )  # fmt: skip
        reader = _reader(session, scenario.campaign_id, side_id, passphrase)
        return _after_action(session, scenario, reader)


# --- the campaign report ------------------------------------------------------------------------


def _repairs(
    session: Session, ship_ids: Iterable[int]
) -> dict[tuple[int, int | None], tuple[int, int]]:
    """Structure and Flotation repaired, by (ship, the scenario the repair came after)."""
    done: dict[tuple[int, int | None], tuple[int, int]] = defaultdict(lambda: (0, 0))
    rows = session.exec(
        select(Repair).where(col(Repair.ship_id).in_(list(ship_ids)),
                             Repair.status == RepairStatus.DONE)
    ).all()  # fmt: skip
    for row in rows:
        s, f = done[(row.ship_id, row.after_scenario_id)]
        done[(row.ship_id, row.after_scenario_id)] = (s + row.structure, f + row.flotation)
    return done


def _points(session: Session, ship: Ship) -> tuple[int, int]:
    """A ship's SMR2 points with its crew percentage (§3.2), and the percentage."""
    crew = crew_of(session, ship)
    percent = smr.crew_cost_percent(crew.training) if crew else 0
    return smr.points_with_crew(ship.points_base, percent), percent


def _series(name: str, points: Sequence[tuple[str, int, int]]) -> Series:
    labels, structure, flotation = zip(*points, strict=True) if points else ((), (), ())
    return Series(name=name, labels=tuple(labels), structure=tuple(structure),
                  flotation=tuple(flotation))  # fmt: skip


def _plots(
    reports: Sequence[AfterActionReport], records: Sequence[ServiceRecord], sides: Iterable[str]
) -> tuple[tuple[Series, ...], tuple[Series, ...]]:
    """Each side's summed Structure and Flotation at each scenario's start and end (its ships
    taking part), and each ship's, as the history plot (h) has them."""
    side_points: dict[str, list[tuple[str, int, int]]] = {name: [] for name in sides}
    for report in reports:
        for phase in ("start", "end"):
            for side in side_points:
                taking_part = [s for s in report.ships if s.side == side]
                if taking_part:
                    values = [getattr(s, phase) for s in taking_part]
                    side_points[side].append((f"{report.position}{phase[0]}",
                                              sum(v[0] for v in values),
                                              sum(v[1] for v in values)))  # fmt: skip
    ship_series = []
    for record in records:
        points: list[tuple[str, int, int]] = []
        for line in record.lines:
            points.append((f"{line.position}s", *line.start))
            if line.end is not None:
                points.append((f"{line.position}e", *line.end))
        ship_series.append(_series(record.name, points))
    return (tuple(_series(side, points) for side, points in side_points.items() if points),
            tuple(ship_series))  # fmt: skip


def campaign_report(
    factory: SessionFactory, *, campaign_id: int, side_id: int | None = None,
    passphrase: str | None = None,
) -> CampaignReport:  # fmt: skip
    """The campaign's story: its scenarios and outcomes, what each side lost and repaired, each
    ship's service record, the history plots, and every closed scenario's after-action report."""
    with session_scope(factory) as session:
        campaign = get_row(session, Campaign, campaign_id)
        reader = _reader(session, campaign_id, side_id, passphrase)
        scenarios = session.exec(
            select(Scenario).where(Scenario.campaign_id == campaign_id)
            .order_by(col(Scenario.position))
        ).all()  # fmt: skip
        closed = [s for s in scenarios if s.status == ScenarioStatus.CLOSED]
        reports = [_after_action(session, scenario, reader) for scenario in closed]
        sides, ships, _ = _names(session, campaign_id)
        repairs = _repairs(session, ships)
        points = {ship_id: _points(session, ship) for ship_id, ship in ships.items()}
        played: dict[int, list[tuple[Scenario, ShipInAction]]] = defaultdict(list)
        for scenario, report in zip(closed, reports, strict=True):
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
                        criticals=len(taking_part.criticals),
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
            for scenario, report in zip(closed, reports, strict=True):
                mine = [s for s in report.ships if ships[s.ship_id].side_id == side_id_]
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
                        ships_lost=tuple(s.name for s in sunk),
                        points_lost=sum(points[s.ship_id][0] for s in sunk),
                        carried=(sum(s.structure_max - s.end[0] for s in afloat),
                                 sum(s.flotation_max - s.end[1] for s in afloat)),
                        repaired=(sum(r[0] for r in repaired), sum(r[1] for r in repaired)),
                    )
                )  # fmt: skip
            tallies.append(SideTally(side=side_name, scenarios=tuple(rows)))
        side_series, ship_series = _plots(reports, records, sides.values())
        return CampaignReport(
            campaign=campaign.name, notes=campaign.notes,
            scenarios=tuple(
                ScenarioLine(id=s.id or 0, position=s.position, title=s.title, date=s.date,
                             status=s.status, outcome=s.outcome)
                for s in scenarios
            ),
            sides=tuple(tallies), records=records, side_series=side_series,
            ship_series=ship_series, after_actions=tuple(reports), viewer=reader.name,
        )  # fmt: skip
