"""What a campaign's scenarios keep of each ship: a scenario's ships as they stand or as they
ended it, each ship's state at each scenario's start and end and its damage since the last
battle, and the check that each start is the last end plus the repairs between (RULES.md §SMR2)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select as sql_select
from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    Commander,
    Critical,
    Participation,
    Scenario,
    ScenarioSide,
    Ship,
    ShipSnapshot,
    Side,
    Squadron,
)
from tracker.models.fields import read
from tracker.models.kinds import CriticalStatus, ScenarioStatus, SnapshotPhase
from tracker.rules import swwas
from tracker.services.common import get_row, rows_where
from tracker.services.repairs import done_repairs, repaired_in, scenario_positions
from tracker.services.scenarios import participants
from tracker.services.sheet import at_half_strength, commander_lost, morale_marks, out_of_command
from tracker.services.sheet import strengths as sheet_strengths
from tracker.services.views import ScenarioView


@dataclass(frozen=True)
class ParticipantView:
    ship_id: int
    name: str
    side: str
    squadron: str
    structure: str
    flotation: str
    sunk: bool
    fate: str = ""  # what the player recorded at zero ("Dead in the water"), sunk or not
    morale: tuple[str, ...] = ()  # the morale tests she owes (sheet.morale_marks)
    out_of_command: bool = False  # as the record sheet reads it (sheet.out_of_command)


class ScenarioDetail(ScenarioView):
    """A scenario as its own screen shows it: its sides and the ships taking part."""

    campaign_id: int
    sides: tuple[tuple[int, str, str], ...]  # (side id, name, correction factor)
    participants: tuple[ParticipantView, ...]
    # (squadron, original, afloat, half strength) by the campaign's reading (SMR2 §3.4)
    strengths: tuple[tuple[str, int, int, bool], ...] = ()


def scenario_detail(factory: SessionFactory, *, scenario_id: int) -> ScenarioDetail:
    with session_scope(factory) as session:
        scenario = get_row(session, Scenario, scenario_id)
        sides = rows_where(session, Side, Side.campaign_id == scenario.campaign_id)
        fought = rows_where(session, ScenarioSide, ScenarioSide.scenario_id == scenario_id)
        factors = {row.side_id: row.correction_factor for row in fought}
        side_names = {side.id: side.name for side in sides}
        rows = rows_where(
            session,
            Squadron,
            col(Squadron.side_id).in_(list(side_names)),
            order=(col(Squadron.side_id), col(Squadron.id)),
        )  # side by side
        squadrons = {squadron.id: squadron for squadron in rows}
        rated = col(Commander.id).in_([squadron.commander_id for squadron in squadrons.values()])
        commanders = {row.id: row for row in rows_where(session, Commander, rated)}
        lost = {key for key, squadron in squadrons.items()
                if commander_lost(commanders.get(squadron.commander_id))}  # fmt: skip
        # A closed scenario shows each ship as it ended the battle, not as it is now.
        ends = ShipSnapshot.scenario_id == scenario_id, ShipSnapshot.phase == SnapshotPhase.END
        closed = scenario.status == ScenarioStatus.CLOSED
        ended = {s.ship_id: s for s in rows_where(session, ShipSnapshot, *ends)} if closed else {}
        campaign = get_row(session, Campaign, scenario.campaign_id)
        counted = sheet_strengths(session, campaign, scenario)
        half = {key for key, counts in counted.items() if at_half_strength(*counts)}
        strengths = [(squadron.name, *counted[key], key in half)
                     for key, squadron in squadrons.items() if key in counted]  # fmt: skip
        shown = []
        for ship in participants(session, scenario_id):
            end = ended.get(ship.id or 0)
            now = (ship.structure_now, ship.flotation_now, ship.sunk, ship.condition)
            then = (end.structure, end.flotation, end.sunk, end.condition) if end else now
            structure, flotation, sunk, fate = then
            shown.append(ParticipantView(
                ship_id=ship.id or 0, name=ship.name, side=side_names.get(ship.side_id, ""),
                squadron=getattr(squadrons.get(ship.squadron_id), "name", ""), sunk=sunk,
                fate=fate,
                structure=f"{structure}/{ship.structure_max}",
                flotation=f"{flotation}/{ship.flotation_max}",
                morale=morale_marks((structure, ship.structure_max),
                                    (flotation, ship.flotation_max),
                                    half_strength=ship.squadron_id in half, sunk=sunk),
                out_of_command=end is None and not sunk and out_of_command(
                    ship, scenario, commander_lost=ship.squadron_id in lost),
            ))  # fmt: skip
        return read(
            ScenarioDetail, scenario, campaign_id=scenario.campaign_id,
            sides=tuple((side.id or 0, side.name, factors.get(side.id or 0, "")) for side in sides),
            participants=tuple(shown), strengths=tuple(strengths),
        )  # fmt: skip


@dataclass(frozen=True)
class SinceLastBattle:
    """A ship's carried damage: end of its last scenario, repairs since, now, and what is left."""

    ship_id: int
    name: str
    side: str
    last_scenario: str
    end_structure: int | None
    end_flotation: int | None
    repaired_structure: int
    repaired_flotation: int
    structure: int
    flotation: int
    structure_max: int
    flotation_max: int
    criticals: int
    sunk: bool
    fuel: swwas.Fuel  # Second World War at Sea fuel factors (RULES.md §Mines)

    @property
    def outstanding(self) -> tuple[int, int]:
        return self.structure_max - self.structure, self.flotation_max - self.flotation


@dataclass(frozen=True)
class HistoryPoint:
    scenario: str
    scenario_id: int
    position: int
    start: tuple[int, int] | None = None
    end: tuple[int, int] | None = None


def _campaign_ships(campaign_id: int, *columns: Any) -> Any:
    """The campaign's ships' `columns` (their ids when none is named), as a statement."""
    return (
        select(*(columns or (Ship.id,)))
        .join(Side, col(Ship.side_id) == col(Side.id))
        .where(Side.campaign_id == campaign_id)
    )


def since_last_battle(factory: SessionFactory, *, campaign_id: int) -> list[SinceLastBattle]:
    """Every ship of the campaign: carried damage, repairs done, repairs outstanding. Read a
    table at a time for the whole campaign (a read per ship took seconds on a large one)."""
    with session_scope(factory) as session:
        # The columns shown, not the ships as objects (most of the read's time, a thousand).
        rows = session.execute(
            sql_select(*map(col, (Ship.id, Ship.name, Side.name, Ship.structure_now,
                                  Ship.flotation_now, Ship.structure_max, Ship.flotation_max,
                                  Ship.sunk, Ship.fuel_full, Ship.fuel_empty, Ship.fuel_lost)))
            .join(Side, col(Ship.side_id) == col(Side.id))
            .where(col(Side.campaign_id) == campaign_id, col(Ship.retired).is_(False))
            .order_by(col(Side.id), col(Ship.id))
        ).all()  # fmt: skip
        ships = _campaign_ships(campaign_id)
        # Each ship's last closed scenario: the first of its scenarios, latest first.
        last: dict[int, tuple[int, int, str]] = {}
        for ship_id, scenario_id, position, title in session.exec(
            select(Participation.ship_id, Scenario.id, Scenario.position, Scenario.title)
            .join(Scenario, col(Participation.scenario_id) == col(Scenario.id))
            .where(col(Participation.ship_id).in_(ships), Scenario.status == ScenarioStatus.CLOSED)
            .order_by(col(Scenario.position).desc())
        ):
            last.setdefault(ship_id, (scenario_id or 0, position, title))
        ends: dict[tuple[int, int], tuple[int, int]] = {}
        for ship_id, scenario_id, structure, flotation in session.exec(
            select(ShipSnapshot.ship_id, ShipSnapshot.scenario_id, ShipSnapshot.structure,
                   ShipSnapshot.flotation)
            .where(col(ShipSnapshot.ship_id).in_(ships), ShipSnapshot.phase == SnapshotPhase.END)
            .order_by(col(ShipSnapshot.id))
        ):  # fmt: skip
            ends.setdefault((ship_id, scenario_id), (structure, flotation))
        criticals = dict(
            session.exec(
                select(Critical.ship_id, func.count())
                .where(col(Critical.ship_id).in_(ships), Critical.status == CriticalStatus.ACTIVE)
                .group_by(col(Critical.ship_id))
            ).all()
        )
        done = done_repairs(session, ships)
        positions = scenario_positions(session, campaign_id)
        shown = []
        for row in rows:
            ship_id, name, side, structure, flotation, structure_max, flotation_max = row[:7]
            sunk, fuel = row[7], swwas.Fuel(*row[8:])
            last_one = last.get(ship_id)
            end = ends.get((ship_id, last_one[0])) if last_one else None
            done_s, done_f = repaired_in(
                done.get(ship_id, []), positions, last_one[1] if last_one else None, None
            )
            shown.append(SinceLastBattle(
                ship_id=ship_id, name=name, side=side, last_scenario=last_one[2] if last_one
                else "", end_structure=end[0] if end else None,
                end_flotation=end[1] if end else None, repaired_structure=done_s,
                repaired_flotation=done_f, structure=structure, flotation=flotation,
                structure_max=structure_max, flotation_max=flotation_max,
                criticals=criticals.get(ship_id, 0), sunk=sunk, fuel=fuel,
            ))  # fmt: skip
        return shown


def check_continuity(factory: SessionFactory, *, campaign_id: int) -> list[str]:
    """Each ship's start of scenario N+1 must equal its end of N plus the repairs between."""
    problems: list[str] = []
    with session_scope(factory) as session:
        named = _campaign_ships(campaign_id, Ship.id, Ship.name)
        ships = session.exec(named.order_by(col(Side.id), col(Ship.id))).all()
        histories = _histories(session, _campaign_ships(campaign_id))
        done = done_repairs(session, _campaign_ships(campaign_id))
        positions = scenario_positions(session, campaign_id)
        for ship_id, name in ships:
            points = histories.get(ship_id or 0, [])
            for earlier, later in itertools.pairwise(points):
                if earlier.end is None or later.start is None:
                    continue
                done_s, done_f = repaired_in(
                    done.get(ship_id or 0, []), positions, earlier.position, later.position
                )
                expected = (earlier.end[0] + done_s, earlier.end[1] + done_f)
                if later.start != expected:
                    problems.append(
                        f"{name}: {later.scenario} began at S{later.start[0]} "
                        f"F{later.start[1]}, but {earlier.scenario} ended at S{earlier.end[0]} "
                        f"F{earlier.end[1]} and repairs added S{done_s} F{done_f}"
                    )
    return problems


def _histories(session: Session, ships: Any) -> dict[int, list[HistoryPoint]]:
    """Each of `ships` (ids, or a select): its start and end of each scenario it took part in."""
    rows = session.execute(
        sql_select(*map(col, (ShipSnapshot.ship_id, Scenario.id, Scenario.title, Scenario.position,
                              ShipSnapshot.phase, ShipSnapshot.structure, ShipSnapshot.flotation)))
        .join(Scenario, col(ShipSnapshot.scenario_id) == col(Scenario.id))
        .where(col(ShipSnapshot.ship_id).in_(ships))
        .order_by(col(Scenario.position), col(ShipSnapshot.id))
    )  # fmt: skip
    by_ship: dict[int, dict[int, dict[str, Any]]] = {}
    for ship_id, scenario_id, title, position, phase, structure, flotation in rows:
        point = by_ship.setdefault(ship_id, {}).setdefault(
            position, {"scenario": title, "scenario_id": scenario_id or 0, "position": position}
        )
        point[phase] = (structure, flotation)  # its start or its end (SnapshotPhase)
    return {
        ship_id: [HistoryPoint(**point) for _, point in sorted(points.items())]
        for ship_id, points in by_ship.items()
    }


def ship_history(factory: SessionFactory, *, ship_id: int) -> list[HistoryPoint]:
    """Structure and Flotation at the start and end of each scenario the ship took part in."""
    with session_scope(factory) as session:
        get_row(session, Ship, ship_id)
        return _histories(session, [ship_id]).get(ship_id, [])
