"""Linked scenarios: taking part, turns, closing with snapshots, repairs between (RULES.md §SMR2).

SMR2 12.1 (correction factor) and 12.2 (repairs in linked scenarios) are not in our sources: the
correction factor is the player's text, and repairs follow the group's own allowance, if any.
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    Commander,
    Critical,
    Participation,
    Repair,
    Scenario,
    ScenarioSide,
    Ship,
    ShipSnapshot,
    Side,
    Squadron,
    WasUnit,
)
from tracker.models.damage import RepairAmounts as RepairAmounts  # re-exported: its form
from tracker.models.fields import read
from tracker.models.kinds import (
    CriticalStatus,
    JournalKind,
    RepairStatus,
    ScenarioStatus,
    SnapshotPhase,
)
from tracker.rules import damage as rules
from tracker.services import backups, journal
from tracker.services.common import get_row
from tracker.services.errors import (
    DatabaseUnavailable,
    InvalidInput,
    check,
    require_plain,
)
from tracker.services.fields import require_declared
from tracker.services.sheet import at_half_strength, crew_of, morale_marks
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


@dataclass(frozen=True)
class ScenarioDetail:
    id: int
    campaign_id: int
    title: str
    position: int
    date: str
    status: str
    turn: int
    outcome: str
    notes: str
    sides: tuple[tuple[int, str, str], ...]  # (side id, name, correction factor)
    participants: tuple[ParticipantView, ...]
    # (squadron, original, afloat, half strength) by the campaign's reading (SMR2 §3.4)
    strengths: tuple[tuple[str, int, int, bool], ...] = ()


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


def _scenario(session: Session, scenario_id: int) -> Scenario:
    return get_row(session, Scenario, scenario_id)


def _in_play(session: Session, campaign_id: int) -> Scenario | None:
    return session.exec(
        select(Scenario).where(
            Scenario.campaign_id == campaign_id, Scenario.status == ScenarioStatus.IN_PLAY
        )
    ).first()


def _participants(session: Session, scenario_id: int) -> list[Ship]:
    return list(
        session.exec(
            select(Ship)
            .join(Participation, col(Participation.ship_id) == col(Ship.id))
            .where(Participation.scenario_id == scenario_id)
            .order_by(col(Ship.side_id), col(Ship.id))
        ).all()
    )


def _campaign_ship(session: Session, campaign_id: int, ship_id: int) -> Ship:
    ship = get_row(session, Ship, ship_id)
    if get_row(session, Side, ship.side_id).campaign_id != campaign_id:
        raise InvalidInput({"ships": f"{ship.name} belongs to another campaign"})
    return ship


def scenario_detail(factory: SessionFactory, *, scenario_id: int) -> ScenarioDetail:
    """A scenario with its sides' correction factors and the ships taking part."""
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
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
        squadrons = {
            squadron.id: squadron.name
            for squadron in session.exec(
                select(Squadron).where(col(Squadron.side_id).in_(list(side_names)))
            )
        }
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
        strengths = [(name, *counted[key], key in half) for key, name in squadrons.items()
                     if key in counted]  # fmt: skip
        participants = []
        for ship in _participants(session, scenario_id):
            end = ended.get(ship.id or 0)
            now = (ship.structure_now, ship.flotation_now, ship.sunk, ship.condition)
            then = (end.structure, end.flotation, end.sunk, end.condition) if end else now
            structure, flotation, sunk, fate = then
            participants.append(ParticipantView(
                ship_id=ship.id or 0, name=ship.name, side=side_names.get(ship.side_id, ""),
                squadron=squadrons.get(ship.squadron_id, ""), sunk=sunk, fate=fate,
                structure=f"{structure}/{ship.structure_max}",
                flotation=f"{flotation}/{ship.flotation_max}",
                morale=morale_marks((structure, ship.structure_max),
                                    (flotation, ship.flotation_max),
                                    half_strength=ship.squadron_id in half, sunk=sunk),
            ))  # fmt: skip
        return ScenarioDetail(
            id=scenario_id, campaign_id=scenario.campaign_id, title=scenario.title,
            position=scenario.position, date=scenario.date, status=scenario.status,
            turn=scenario.turn, outcome=scenario.outcome, notes=scenario.notes,
            sides=tuple((side.id or 0, side.name, factors.get(side.id or 0, "")) for side in sides),
            participants=tuple(participants), strengths=tuple(strengths),
        )  # fmt: skip


def set_participants(factory: SessionFactory, *, scenario_id: int, ship_ids: Sequence[int]) -> None:
    """Choose the ships taking part in a planned scenario; sunk ships never take part again."""
    if len(set(ship_ids)) != len(ship_ids):
        raise InvalidInput({"ships": "a ship is chosen twice: tick each ship once"})
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        if scenario.status != ScenarioStatus.PLANNED:
            raise InvalidInput(
                {"ships": f"{scenario.title} is {scenario.status.replace('_', ' ')}: ships are "
                 "chosen before it starts"}
            )  # fmt: skip
        ships = [_campaign_ship(session, scenario.campaign_id, ship_id) for ship_id in ship_ids]
        retired = [ship.name for ship in ships if ship.retired]
        if retired:
            raise InvalidInput({"ships": f"retired ships take part no more: {', '.join(retired)}"})
        sunk = [ship.name for ship in ships if ship.sunk]
        if sunk:
            raise InvalidInput({"ships": f"sunk ships never take part again: {', '.join(sunk)}"})
        for row in session.exec(
            select(Participation).where(Participation.scenario_id == scenario_id)
        ).all():
            session.delete(row)
        session.flush()
        for ship in ships:
            session.add(Participation(scenario_id=scenario_id, ship_id=ship.id or 0))
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.SCENARIO,
            summary=f"{scenario.title}: {len(ships)} ships taking part",
            after={"ships": sorted(ship.name for ship in ships)},
        )  # fmt: skip


def set_correction_factor(
    factory: SessionFactory, *, scenario_id: int, side_id: int, value: str
) -> None:
    """A side's correction factor for a scenario, as the player's rules give it."""
    value = value.strip()
    errors: dict[str, str] = {}
    if len(value) > 60:
        errors["value"] = "must be at most 60 characters"
    require_plain(errors, "value", value)
    check(errors)
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        side = get_row(session, Side, side_id)
        if side.campaign_id != scenario.campaign_id:
            raise InvalidInput({"side_id": "that side belongs to another campaign"})
        row = session.exec(
            select(ScenarioSide).where(
                ScenarioSide.scenario_id == scenario_id, ScenarioSide.side_id == side_id
            )
        ).first() or ScenarioSide(scenario_id=scenario_id, side_id=side_id)
        before = row.correction_factor
        row.correction_factor = value
        session.add(row)
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.SCENARIO, side_id=side_id,
            summary=f"{scenario.title}: {side.name} correction factor {value or '(none)'}",
            before={"correction_factor": before}, after={"correction_factor": value},
        )  # fmt: skip


# The Second World War at Sea counter state a snapshot keeps beside Structure and Flotation.
COUNTER_STATE = ("fuel_full", "fuel_empty", "fuel_lost", "speed_lost", "gunnery_lost",
                 "hull_damage", "crippled")  # fmt: skip


def _snapshot(
    session: Session, scenario: Scenario, ship: Ship, phase: SnapshotPhase
) -> ShipSnapshot:
    squadron = get_row(session, Squadron, ship.squadron_id)
    commander = session.get(Commander, squadron.commander_id) if squadron.commander_id else None
    crew = crew_of(session, ship)
    criticals = session.exec(
        select(Critical)
        .where(Critical.ship_id == ship.id, Critical.status == CriticalStatus.ACTIVE)
        .order_by(col(Critical.id))
    ).all()
    return ShipSnapshot(
        scenario_id=scenario.id or 0, ship_id=ship.id or 0, phase=phase,
        squadron_id=ship.squadron_id,
        structure=ship.structure_now, flotation=ship.flotation_now,
        fire_markers=ship.fire_markers, speed_kn=ship.speed_kn, sunk=ship.sunk,
        condition=ship.condition,
        criticals=json.dumps([{"id": c.id, "kind": c.kind, "effect": c.effect} for c in criticals]),
        commander_modifier=commander.modifier_now if commander else None,
        commander_radius_cm=commander.radius_now_cm if commander else None,
        crew_modifier=crew.modifier_now if crew else None,
        counter=json.dumps({key: getattr(ship, key) for key in COUNTER_STATE}),
    )  # fmt: skip


def _has_was_units(session: Session, campaign_id: int) -> bool:
    query = select(WasUnit.id).join(Side, col(WasUnit.side_id) == Side.id)
    return session.exec(query.where(Side.campaign_id == campaign_id).limit(1)).first() is not None


def start_scenario(factory: SessionFactory, *, scenario_id: int) -> None:
    """Put a planned scenario in play at turn 1; each ship's start state is recorded."""
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        if scenario.status != ScenarioStatus.PLANNED:
            raise InvalidInput(
                {"scenario": f"{scenario.title} is {scenario.status.replace('_', ' ')}, "
                 "not planned"}
            )  # fmt: skip
        playing = _in_play(session, scenario.campaign_id)
        if playing is not None:
            # A ship cannot be in two scenarios at once: one scenario in play at a time.
            raise InvalidInput({"scenario": f"{playing.title} is still in play: close it first"})
        ships = _participants(session, scenario_id)
        # A War at Sea game has unit cards, not record-sheet ships: its scenario counts the turns
        # of the hunt (RULES.md §Subs) with no ship taking part.
        if not ships and not _has_was_units(session, scenario.campaign_id):
            raise InvalidInput({"scenario": "choose the ships taking part first (p), or, for a War "
                                "at Sea game, add units to a side's roster (f)"})  # fmt: skip
        sunk = [ship.name for ship in ships if ship.sunk]
        if sunk:
            raise InvalidInput({"scenario": f"sunk ships cannot take part: {', '.join(sunk)}"})
        for ship in ships:
            session.add(_snapshot(session, scenario, ship, SnapshotPhase.START))
        scenario.status, scenario.turn = ScenarioStatus.IN_PLAY, 1
        session.flush()
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.BEGIN,
            summary=f"{scenario.title} begins: "
            + (f"{len(ships)} ships, turn 1" if ships else "War at Sea units, turn 1"),
        )  # fmt: skip


def advance_turn(factory: SessionFactory, *, scenario_id: int) -> int:
    """Next game turn (6 minutes in SMR2); fire markers come off if the campaign says so."""
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        if scenario.status != ScenarioStatus.IN_PLAY:
            raise InvalidInput({"scenario": f"{scenario.title} is not in play"})
        campaign = get_row(session, Campaign, scenario.campaign_id)
        changes = [journal.RowChange("scenario", scenario_id, {"turn": scenario.turn},
                                     {"turn": scenario.turn + 1})]  # fmt: skip
        scenario.turn += 1
        cleared = []
        if campaign.clear_fire_each_turn:
            for ship in _participants(session, scenario_id):
                if ship.fire_markers:
                    changes.append(journal.RowChange("ship", ship.id or 0,
                                                     {"fire_markers": ship.fire_markers},
                                                     {"fire_markers": 0}))  # fmt: skip
                    cleared.append(ship.name)
                    ship.fire_markers = 0
        session.flush()
        summary = f"{scenario.title}: turn {scenario.turn}"
        if cleared:
            summary += f"; fire markers off {', '.join(cleared)}"
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.TURN, summary=summary,
            changes=tuple(changes),
        )  # fmt: skip
        return scenario.turn


@dataclass(frozen=True)
class ClosedScenario:
    """A scenario just closed: how many ships' end states were kept, and the backup taken
    after it, or why none could be written (backup_failure, also in the journal)."""

    ships: int
    backup: Path | None
    backup_failure: str | None


def close_scenario(
    factory: SessionFactory, *, scenario_id: int, outcome: str = "", notes: str = ""
) -> ClosedScenario:
    """End a scenario in play: every ship's end state is recorded, then the file is backed up;
    a backup that cannot be written is said in the result and in the journal."""
    errors: dict[str, str] = {}
    if len(outcome.strip()) > 200:
        errors["outcome"] = "must be at most 200 characters"
    if len(notes) > 4000:
        errors["notes"] = "must be at most 4000 characters"
    require_plain(errors, "outcome", outcome)
    require_plain(errors, "notes", notes)
    check(errors)
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        if scenario.status != ScenarioStatus.IN_PLAY:
            raise InvalidInput({"outcome": f"{scenario.title} is not in play"})
        reason = backup_reason(
            get_row(session, Campaign, scenario.campaign_id).name, scenario.position
        )
        ships = _participants(session, scenario_id)
        for ship in ships:
            session.add(_snapshot(session, scenario, ship, SnapshotPhase.END))
        changes = []
        if get_row(session, Campaign, scenario.campaign_id).clear_fire_each_turn:
            # This battle's fire markers do not follow the ships into the next one.
            for ship in ships:
                if ship.fire_markers:
                    changes.append(journal.RowChange("ship", ship.id or 0,
                                                     {"fire_markers": ship.fire_markers},
                                                     {"fire_markers": 0}))  # fmt: skip
                ship.fire_markers = 0
        scenario.status = ScenarioStatus.CLOSED
        scenario.outcome, scenario.notes = outcome.strip(), notes
        session.flush()
        # The cleared fire markers are in the entry, so the journal replays to the ships; a
        # close is taken back by reopening the scenario, not by undo.
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.CLOSE,
            summary=f"{scenario.title} closed: {outcome.strip() or 'no outcome given'}",
            after={"outcome": scenario.outcome}, changes=tuple(changes), undoable=False,
        )  # fmt: skip
    # After the commit: the copy holds the closed scenario, a point worth going back to.
    taken = backups.back_up(factory, reason=reason)
    if taken.failure is not None:
        _journal_backup_failure(factory, scenario_id=scenario_id, failure=taken.failure)
    return ClosedScenario(len(ships), taken.path, taken.failure)


def backup_reason(campaign: str, position: int) -> str:
    """What a closed scenario's backup is named for, in the player's words: the campaign's name
    and the scenario's number as the campaign screen shows them (`norway-1940-closed-scenario-3`).

    Letters are folded to plain ASCII (accents and fullwidth forms dropped to their base), so the
    name is the same on every file system."""
    folded = unicodedata.normalize("NFKD", campaign).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:40].strip("-")
    return f"{slug}-closed-scenario-{position}" if slug else f"closed-scenario-{position}"


def _journal_backup_failure(factory: SessionFactory, *, scenario_id: int, failure: str) -> None:
    """A journal line for a backup that could not be written, so the record shows there is
    none; on a full disk this line may not be written either, and the result still says it."""
    with suppress(DatabaseUnavailable), session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.BACKUP,
            summary=f"No backup after closing {scenario.title}: {failure}",
            after={"backup": None}, undoable=False, scenario=scenario,
        )  # fmt: skip


def reopen_scenario(factory: SessionFactory, *, scenario_id: int, reason: str) -> None:
    """Put a closed scenario back in play, as an explicit journaled correction."""
    reason = reason.strip()
    if not reason:
        raise InvalidInput({"reason": "say why it is reopened: the journal keeps the reason"})
    errors: dict[str, str] = {}
    require_plain(errors, "reason", reason)
    check(errors)
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        if scenario.status != ScenarioStatus.CLOSED:
            raise InvalidInput({"reason": f"{scenario.title} is not closed"})
        playing = _in_play(session, scenario.campaign_id)
        if playing is not None:
            raise InvalidInput({"reason": f"{playing.title} is in play: close it first"})
        later = session.exec(
            select(Scenario).where(
                Scenario.campaign_id == scenario.campaign_id,
                col(Scenario.position) > scenario.position,
                col(Scenario.status).in_((ScenarioStatus.IN_PLAY, ScenarioStatus.CLOSED)),
            )
        ).first()
        if later is not None:
            raise InvalidInput({"reason": f"{later.title} was played after it: it stays closed"})
        repairs = session.exec(
            select(func.count())
            .select_from(Repair)
            .where(Repair.after_scenario_id == scenario_id, Repair.status == RepairStatus.DONE)
        ).one()
        if repairs:
            raise InvalidInput({"reason": f"{repairs} repairs were made after it: undo them first"})
        for snapshot in session.exec(
            select(ShipSnapshot).where(
                ShipSnapshot.scenario_id == scenario_id, ShipSnapshot.phase == SnapshotPhase.END
            )
        ).all():
            session.delete(snapshot)
        scenario.status = ScenarioStatus.IN_PLAY
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.CORRECTION,
            summary=f"{scenario.title} reopened: {reason}",
        )  # fmt: skip


def archive_scenario(factory: SessionFactory, *, scenario_id: int) -> None:
    """Set aside a planned scenario that will not be played; its journal entries stay."""
    with session_scope(factory) as session:
        scenario = _scenario(session, scenario_id)
        if scenario.status != ScenarioStatus.PLANNED:
            raise InvalidInput({"scenario": "only a planned scenario can be archived"})
        scenario.status = ScenarioStatus.ARCHIVED
        journal.append(
            session, campaign_id=scenario.campaign_id, kind=JournalKind.SCENARIO,
            summary=f"{scenario.title} archived",
        )  # fmt: skip


def _last_closed(session: Session, ship_id: int) -> Scenario | None:
    return session.exec(
        select(Scenario)
        .join(Participation, col(Participation.scenario_id) == col(Scenario.id))
        .where(Participation.ship_id == ship_id, Scenario.status == ScenarioStatus.CLOSED)
        .order_by(col(Scenario.position).desc())
    ).first()


def _latest_closed(session: Session, campaign_id: int) -> Scenario | None:
    """The campaign's last closed scenario: repairs made now belong to the period after it."""
    return session.exec(
        select(Scenario)
        .where(Scenario.campaign_id == campaign_id, Scenario.status == ScenarioStatus.CLOSED)
        .order_by(col(Scenario.position).desc())
    ).first()


def _repaired_since(
    session: Session, ship_id: int, after: Scenario | None, before: int | None = None
) -> tuple[int, int]:
    """Repairs to a ship made after scenario `after` closed (None: before any) and before the
    scenario at position `before` began; a ship that sat a scenario out gathers both periods."""
    query = select(Repair).where(Repair.ship_id == ship_id, Repair.status == RepairStatus.DONE)
    if after is None:
        query = query.where(col(Repair.after_scenario_id).is_(None))
    else:
        periods = select(Scenario.id).where(
            Scenario.campaign_id == after.campaign_id, col(Scenario.position) >= after.position
        )
        if before is not None:
            periods = periods.where(col(Scenario.position) < before)
        query = query.where(col(Repair.after_scenario_id).in_(periods))
    rows = session.exec(query).all()
    return sum(r.structure for r in rows), sum(r.flotation for r in rows)


def _allowance(
    session: Session, campaign: Campaign, ship_id: int
) -> tuple[tuple[int, int | None], tuple[int, int | None]]:
    """(repaired so far, the campaign's limit or None) for Structure, then Flotation.

    The allowance is per period between two scenarios of the campaign (12.2 "per scenario").
    """
    period = _latest_closed(session, campaign.id or 0)
    done_s, done_f = _repaired_since(session, ship_id, period)
    return (
        (done_s, campaign.repair_limit_structure),
        (done_f, campaign.repair_limit_flotation),
    )


def repairs_left(factory: SessionFactory, *, ship_id: int) -> tuple[int, int]:
    """How much Structure and Flotation a repair may still give the ship now: what it is missing,
    within what the campaign's allowance leaves (RULES.md §SMR2)."""
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        campaign = get_row(session, Campaign, get_row(session, Side, ship.side_id).campaign_id)
        missing = (ship.structure_max - ship.structure_now, ship.flotation_max - ship.flotation_now)
        return tuple(  # type: ignore[return-value]
            max(0, min(gap, limit - done) if limit is not None else gap)
            for gap, (done, limit) in zip(
                missing, _allowance(session, campaign, ship_id), strict=True
            )
        )


def restore_stat(ship: Ship, critical: Critical) -> None:
    """Put back what a cleared critical changed: speed_kn -4 gives the 4 knots back.

    Only the speed: Structure and Flotation are repaired as such (within the campaign's
    allowance), and fire markers come off with the turn.
    """
    if critical.stat == "speed_kn" and critical.amount:
        ship.speed_kn = max(0, ship.speed_kn - critical.amount)


def repair_ship(
    factory: SessionFactory,
    *,
    ship_id: int,
    structure: int = 0,
    flotation: int = 0,
    clear_criticals: Sequence[int] = (),
    in_port: bool = True,
    notes: str = "",
    fuel: bool = False,
) -> str:
    """Repairs between scenarios: never above maximum, within the campaign's allowance (12.2).

    `fuel`: fuel factors lost to mines turn empty again, which only a friendly port does
    (Second World War at Sea variant, RULES.md §Mines).
    """
    errors: dict[str, str] = {}
    require_declared(errors, RepairAmounts, "structure", structure)
    require_declared(errors, RepairAmounts, "flotation", flotation)
    if len(notes) > 400:
        errors["notes"] = "must be at most 400 characters"
    require_plain(errors, "notes", notes)
    check(errors)
    if fuel and not in_port:
        errors["fuel"] = "fuel lost to mines is repaired only in a friendly port"
    check(errors)
    if not (structure or flotation or clear_criticals or fuel):
        raise InvalidInput(
            {"structure": "nothing to repair: give Structure, Flotation, criticals or lost fuel"}
        )
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        side = get_row(session, Side, ship.side_id)
        campaign = get_row(session, Campaign, side.campaign_id)
        if ship.sunk:
            raise InvalidInput({"structure": f"{ship.name} is sunk: it cannot be repaired"})
        playing = _in_play(session, campaign.id or 0)
        if (
            playing is not None
            and session.exec(
                select(Participation).where(
                    Participation.scenario_id == playing.id, Participation.ship_id == ship_id
                )
            ).first()
        ):
            raise InvalidInput(
                {"structure": f"{ship.name} is in {playing.title}, in play: repairs between "
                 "scenarios come after it closes (damage entry takes rsN/rfN during a game)"}
            )  # fmt: skip
        period = _latest_closed(session, campaign.id or 0)
        for (key, amount), (done, limit) in zip(
            (("structure", structure), ("flotation", flotation)),
            _allowance(session, campaign, ship_id),
            strict=True,
        ):
            if limit is not None and amount and done + amount > limit:
                errors[key] = (
                    f"the campaign allows {limit} {key.capitalize()} between scenarios; "
                    f"{done} already repaired, so at most {max(0, limit - done)}"
                )
        before = journal.row_state(ship)
        for key, amount, now, maximum in (
            ("structure", structure, ship.structure_now, ship.structure_max),
            ("flotation", flotation, ship.flotation_now, ship.flotation_max),
        ):
            try:
                rules.apply_repair(now, maximum, amount)
            except ValueError as exc:
                errors.setdefault(key, f"{ship.name}: {exc}")
        restored = ship.fuel_lost if fuel else 0
        if fuel and not restored:
            errors["fuel"] = f"{ship.name} has no fuel factors lost to mines"
        check(errors)
        ship.structure_now += structure
        ship.flotation_now += flotation
        ship.fuel_empty += restored
        ship.fuel_lost -= restored
        if ship.structure_now and ship.flotation_now:
            ship.condition = ""  # back above zero: what happened there is in the journal
        changes: list[journal.RowChange] = []
        cleared = []
        for critical_id in clear_criticals:
            critical = get_row(session, Critical, critical_id)
            if critical.ship_id != ship_id or critical.status != CriticalStatus.ACTIVE:
                raise InvalidInput({"criticals": "that critical is not in force on this ship"})
            critical.status = CriticalStatus.REPAIRED
            restore_stat(ship, critical)
            cleared.append(critical.effect)
            changes.append(journal.RowChange("critical", critical_id,
                                             {"status": CriticalStatus.ACTIVE},
                                             {"status": CriticalStatus.REPAIRED}))  # fmt: skip
        repair = Repair(
            ship_id=ship_id, after_scenario_id=period.id if period else None, structure=structure,
            flotation=flotation, criticals_cleared=len(cleared), in_port=in_port,
            notes=notes.strip(), fuel_restored=restored,
        )  # fmt: skip
        session.add(repair)
        session.flush()
        changes.insert(0, journal.row_change("ship", ship_id, before, journal.row_state(ship)))
        changes.append(journal.RowChange("repair", repair.id or 0, {"status": RepairStatus.VOID},
                                         {"status": RepairStatus.DONE}))  # fmt: skip
        where = "in port" if in_port else "at sea"
        parts = [f"S +{structure}" if structure else "", f"F +{flotation}" if flotation else ""]
        parts += [f"cleared: {effect}" for effect in cleared]
        parts.append(f"fuel {restored} lost → empty" if restored else "")
        summary = f"{ship.name} repaired {where}: " + ", ".join(p for p in parts if p)
        journal.append(
            session, campaign_id=campaign.id or 0, kind=JournalKind.REPAIR, ship_id=ship_id,
            side_id=ship.side_id, summary=summary, changes=tuple(changes),
        )  # fmt: skip
        return summary


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
    done_s, done_f = _repaired_since(session, ship.id or 0, last)
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
                done_s, done_f = _repaired_since(
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


# Asked on every hit: a statement built once, answered by the row's id alone.
_TAKING_PART = (
    select(col(Participation.id))
    .where(
        Participation.scenario_id == bindparam("scenario_id"),
        Participation.ship_id == bindparam("ship_id"),
    )
    .limit(1)
)


def is_taking_part(
    session: Session, campaign_id: int, ship_id: int,
    playing: Scenario | EllipsisType | None = ...,
) -> tuple[bool, str]:  # fmt: skip
    """Whether a ship may be hit now: True when no scenario is in play or it takes part in it.

    `playing` is the scenario in play (None: none) when the caller already looked it up.
    """
    if isinstance(playing, EllipsisType):
        playing = _in_play(session, campaign_id)
    if playing is None:
        return True, ""
    taking_part = (
        session.connection()
        .execute(_TAKING_PART, {"scenario_id": playing.id, "ship_id": ship_id})
        .first()
    )
    return taking_part is not None, playing.title


def between_scenarios(
    session: Session, campaign_id: int, playing: Scenario | EllipsisType | None = ...
) -> bool:
    """True once a scenario was played and none is in play: the campaign is between battles.

    `playing` is the scenario in play (None: none) when the caller already looked it up.
    """
    if isinstance(playing, EllipsisType):
        playing = _in_play(session, campaign_id)
    if playing is not None:
        return False
    return (
        session.exec(
            select(Scenario).where(
                Scenario.campaign_id == campaign_id, Scenario.status == ScenarioStatus.CLOSED
            )
        ).first()
        is not None
    )


class TurnView(ScenarioView):
    """The campaign's current scenario as a scenario is read, for the key that begins the next
    turn: its title, status and turn, and how they read together."""

    @property
    def label(self) -> str:
        """`Skagerrak, turn 3` in play; else the scenario and what it is waiting for."""
        if self.status == ScenarioStatus.IN_PLAY:
            return f"{self.title}, turn {self.turn}"
        return f"{self.title} ({self.status.replace('_', ' ')})"


def current_turn(factory: SessionFactory, *, campaign_id: int) -> TurnView | None:
    """The scenario in play (else the next planned, else the last closed) and its turn."""
    with session_scope(factory) as session:
        scenario = journal.current_scenario(session, campaign_id)
        if scenario is None:
            return None
        return read(TurnView, scenario)
