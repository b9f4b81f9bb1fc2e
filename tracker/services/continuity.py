"""What a campaign's scenarios keep of each ship: a scenario's ships as they stand or as they
ended it, each ship's state at each scenario's start and end and its damage since the last
battle, and the check that each start is the last end plus the repairs between (RULES.md §SMR2)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

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
from tracker.services.common import get_row
from tracker.services.repairs import repaired_since
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
    """A scenario with its sides' correction factors and the ships taking part."""
    with session_scope(factory) as session:
        scenario = get_row(session, Scenario, scenario_id)
        sides = session.exec(
            select(Side).where(Side.campaign_id == scenario.campaign_id).order_by(col(Side.id))
        ).all()
        factors = {
            row.side_id: row.correction_factor
            for row in session.exec(
                select(ScenarioSide).where(ScenarioSide.scenario_id == scenario_id)
            )
        }
        side_names = {side.id: side.name for side in sides}
        rows = session.exec(select(Squadron).where(col(Squadron.side_id).in_(list(side_names))))
        squadrons = {squadron.id: squadron for squadron in rows}
        lost = {key for key, squadron in squadrons.items() if squadron.commander_id
                and commander_lost(session.get(Commander, squadron.commander_id))}  # fmt: skip
        # A closed scenario shows each ship as it ended the battle, not as it is now.
        ended = {
            snap.ship_id: snap
            for snap in session.exec(
                select(ShipSnapshot).where(
                    ShipSnapshot.scenario_id == scenario_id, ShipSnapshot.phase == SnapshotPhase.END
                )
            )
        } if scenario.status == ScenarioStatus.CLOSED else {}  # fmt: skip
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

    @property
    def outstanding(self) -> tuple[int, int]:
        """Structure and Flotation still to repair."""
        return self.structure_max - self.structure, self.flotation_max - self.flotation


@dataclass(frozen=True)
class HistoryPoint:
    """A ship in one scenario it took part in: Structure and Flotation at start and end."""

    scenario: str
    scenario_id: int
    position: int
    start: tuple[int, int] | None
    end: tuple[int, int] | None


def _last_closed(session: Session, ship_id: int) -> Scenario | None:
    return session.exec(
        select(Scenario)
        .join(Participation, col(Participation.scenario_id) == col(Scenario.id))
        .where(Participation.ship_id == ship_id, Scenario.status == ScenarioStatus.CLOSED)
        .order_by(col(Scenario.position).desc())
    ).first()


def _since(session: Session, ship: Ship, side_name: str) -> SinceLastBattle:
    last = _last_closed(session, ship.id or 0)
    end = None
    if last is not None:
        end = session.exec(
            select(ShipSnapshot).where(
                ShipSnapshot.scenario_id == last.id, ShipSnapshot.ship_id == ship.id,
                ShipSnapshot.phase == SnapshotPhase.END,
            )
        ).first()  # fmt: skip
    done_s, done_f = repaired_since(session, ship.id or 0, last)
    criticals = session.exec(
        select(func.count())
        .select_from(Critical)
        .where(Critical.ship_id == ship.id, Critical.status == CriticalStatus.ACTIVE)
    ).one()
    return SinceLastBattle(
        ship_id=ship.id or 0, name=ship.name, side=side_name,
        last_scenario=last.title if last else "",
        end_structure=end.structure if end else None, end_flotation=end.flotation if end else None,
        repaired_structure=done_s, repaired_flotation=done_f, structure=ship.structure_now,
        flotation=ship.flotation_now, structure_max=ship.structure_max,
        flotation_max=ship.flotation_max, criticals=criticals, sunk=ship.sunk,
    )  # fmt: skip


def since_last_battle(factory: SessionFactory, *, campaign_id: int) -> list[SinceLastBattle]:
    """Every ship of the campaign: carried damage, repairs done, repairs outstanding."""
    with session_scope(factory) as session:
        rows = session.exec(
            select(Ship, Side.name)
            .join(Side, col(Ship.side_id) == col(Side.id))
            .where(Side.campaign_id == campaign_id, col(Ship.retired).is_(False))
            .order_by(col(Side.id), col(Ship.id))
        ).all()
        return [_since(session, ship, side_name) for ship, side_name in rows]


def check_continuity(factory: SessionFactory, *, campaign_id: int) -> list[str]:
    """Each ship's start of scenario N+1 must equal its end of N plus the repairs between."""
    problems: list[str] = []
    with session_scope(factory) as session:
        ships = session.exec(
            select(Ship)
            .join(Side, col(Ship.side_id) == col(Side.id))
            .where(Side.campaign_id == campaign_id)
        ).all()
        for ship in ships:
            points = _history(session, ship.id or 0)
            for earlier, later in itertools.pairwise(points):
                if earlier.end is None or later.start is None:
                    continue
                done_s, done_f = repaired_since(
                    session,
                    ship.id or 0,
                    get_row(session, Scenario, earlier.scenario_id),
                    before=later.position,
                )
                expected = (earlier.end[0] + done_s, earlier.end[1] + done_f)
                if later.start != expected:
                    problems.append(
                        f"{ship.name}: {later.scenario} began at S{later.start[0]} "
                        f"F{later.start[1]}, but {earlier.scenario} ended at S{earlier.end[0]} "
                        f"F{earlier.end[1]} and repairs added S{done_s} F{done_f}"
                    )
    return problems


def _history(session: Session, ship_id: int) -> list[HistoryPoint]:
    rows = session.exec(
        select(Scenario, ShipSnapshot)
        .join(ShipSnapshot, col(ShipSnapshot.scenario_id) == col(Scenario.id))
        .where(ShipSnapshot.ship_id == ship_id)
        .order_by(col(Scenario.position))
    ).all()
    points: dict[int, dict[str, Any]] = {}
    for scenario, snapshot in rows:
        point = points.setdefault(
            scenario.position, {"scenario": scenario.title, "scenario_id": scenario.id or 0}
        )
        point[snapshot.phase] = (snapshot.structure, snapshot.flotation)
    return [
        HistoryPoint(scenario=p["scenario"], scenario_id=p["scenario_id"], position=position,
                     start=p.get("start"), end=p.get("end"))
        for position, p in sorted(points.items())
    ]  # fmt: skip


def ship_history(factory: SessionFactory, *, ship_id: int) -> list[HistoryPoint]:
    """Structure and Flotation at the start and end of each scenario the ship took part in."""
    with session_scope(factory) as session:
        get_row(session, Ship, ship_id)
        return _history(session, ship_id)
