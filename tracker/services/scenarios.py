"""A linked scenario's course: who takes part, the turns, closing with each ship's end state and
a backup, reopening (RULES.md §SMR2). SMR2 12.1 (the correction factor) is not in our sources:
it is the player's text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Exists, bindparam, exists
from sqlalchemy import select as sql_select
from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    Commander,
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
from tracker.models.fields import read
from tracker.models.kinds import (
    JournalKind,
    RepairStatus,
    ScenarioStatus,
    SnapshotPhase,
)
from tracker.rules.linked import backup_reason
from tracker.services import backups, journal
from tracker.services.common import act, first_where, get_row, rows_where
from tracker.services.errors import DatabaseUnavailable, InvalidInput, check, require_plain
from tracker.services.fields import require_declared
from tracker.services.sheet import active_criticals, crew_of
from tracker.services.views import ScenarioView

# The status each act asks of a scenario, the field refused otherwise, and what it says.
_ASKS = {
    "choose": (ScenarioStatus.PLANNED, "ships", "ships are chosen before it starts"),
    "start": (ScenarioStatus.PLANNED, "scenario", "only a planned scenario begins"),
    "advance": (ScenarioStatus.IN_PLAY, "scenario", "only a scenario in play has turns"),
    "close": (ScenarioStatus.IN_PLAY, "outcome", "only a scenario in play is closed"),
    "reopen": (ScenarioStatus.CLOSED, "reason", "only a closed scenario is reopened"),
    "archive": (ScenarioStatus.PLANNED, "scenario", "only a planned scenario can be archived"),
}


def _asked(scenario: Scenario, act: str) -> Scenario:
    """The scenario, refused unless its status is the one the act asks (_ASKS)."""
    status, field, wanted = _ASKS[act]
    if scenario.status != status:
        status_said = scenario.status.replace("_", " ")
        raise InvalidInput({field: f"{scenario.title} is {status_said}: {wanted}"})
    return scenario


def participants(session: Session, scenario_id: int) -> list[Ship]:
    return list(
        session.exec(
            select(Ship)
            .join(Participation, col(Participation.ship_id) == col(Ship.id))
            .where(Participation.scenario_id == scenario_id)
            .order_by(col(Ship.side_id), col(Ship.id))
        ).all()
    )


def set_participants(factory: SessionFactory, *, scenario_id: int, ship_ids: Sequence[int]) -> None:
    """Choose the ships taking part in a planned scenario; sunk ships never take part again."""
    if len(set(ship_ids)) != len(ship_ids):
        raise InvalidInput({"ships": "a ship is chosen twice: tick each ship once"})
    with act(factory, Scenario, scenario_id) as a:
        scenario, session = _asked(a.row, "choose"), a.session
        ships = [get_row(session, Ship, ship_id) for ship_id in ship_ids]
        for ship in ships:
            if get_row(session, Side, ship.side_id).campaign_id != scenario.campaign_id:
                raise InvalidInput({"ships": f"{ship.name} belongs to another campaign"})
        retired = [ship.name for ship in ships if ship.retired]
        if retired:
            raise InvalidInput({"ships": f"retired ships take part no more: {', '.join(retired)}"})
        sunk = [ship.name for ship in ships if ship.sunk]
        if sunk:
            raise InvalidInput({"ships": f"sunk ships never take part again: {', '.join(sunk)}"})
        for row in rows_where(session, Participation, Participation.scenario_id == scenario_id):
            session.delete(row)
        session.flush()
        for ship in ships:
            session.add(Participation(scenario_id=scenario_id, ship_id=ship.id or 0))
        chosen = {"ships": sorted(ship.name for ship in ships)}
        a.log(
            JournalKind.SCENARIO, f"{scenario.title}: {len(ships)} ships taking part", after=chosen
        )


def set_correction_factor(
    factory: SessionFactory, *, scenario_id: int, side_id: int, value: str
) -> None:
    """A side's correction factor for a scenario, as the player's rules give it."""
    value = value.strip()
    errors: dict[str, str] = {}
    require_declared(errors, ScenarioSide, field="value", correction_factor=value)
    check(errors)
    with act(factory, Scenario, scenario_id) as a:
        scenario, session = a.row, a.session
        side = get_row(session, Side, side_id)
        if side.campaign_id != scenario.campaign_id:
            raise InvalidInput({"side_id": "that side belongs to another campaign"})
        pair = ScenarioSide.scenario_id == scenario_id, ScenarioSide.side_id == side_id
        row = first_where(session, ScenarioSide, *pair) or ScenarioSide(
            scenario_id=scenario_id, side_id=side_id
        )
        before = row.correction_factor
        row.correction_factor = value
        session.add(row)
        a.log(
            JournalKind.SCENARIO,
            f"{scenario.title}: {side.name} correction factor {value or '(none)'}",
            side_id=side_id,
            before={"correction_factor": before},
            after={"correction_factor": value},
        )


# The Second World War at Sea counter state a snapshot keeps beside Structure and Flotation.
COUNTER_STATE = ("fuel_full", "fuel_empty", "fuel_lost", "speed_lost", "gunnery_lost",
                 "hull_damage", "crippled")  # fmt: skip


def _snapshot(
    session: Session, scenario: Scenario, ship: Ship, phase: SnapshotPhase
) -> ShipSnapshot:
    squadron = get_row(session, Squadron, ship.squadron_id)
    commander = session.get(Commander, squadron.commander_id) if squadron.commander_id else None
    crew = crew_of(session, ship)
    criticals = active_criticals(session, ship.id)
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


def start_scenario(factory: SessionFactory, *, scenario_id: int) -> None:
    """Put a planned scenario in play at turn 1; each ship's start state is recorded."""
    with act(factory, Scenario, scenario_id) as a:
        scenario, session = _asked(a.row, "start"), a.session
        playing = journal.scenario_in_play(session, scenario.campaign_id)
        if playing is not None:
            # A ship cannot be in two scenarios at once: one scenario in play at a time.
            raise InvalidInput({"scenario": f"{playing.title} is still in play: close it first"})
        ships = participants(session, scenario_id)
        # A War at Sea game has unit cards, not record-sheet ships: its scenario counts the turns
        # of the hunt (RULES.md §Subs) with no ship taking part.
        units = select(WasUnit.id).join(Side, col(WasUnit.side_id) == Side.id)
        units = units.where(Side.campaign_id == scenario.campaign_id).limit(1)
        if not ships and session.exec(units).first() is None:
            raise InvalidInput({"scenario": "choose the ships taking part first (p), or, for a War "
                                "at Sea game, add units to a side's roster (f)"})  # fmt: skip
        sunk = [ship.name for ship in ships if ship.sunk]
        if sunk:
            raise InvalidInput({"scenario": f"sunk ships cannot take part: {', '.join(sunk)}"})
        for ship in ships:
            session.add(_snapshot(session, scenario, ship, SnapshotPhase.START))
        scenario.status, scenario.turn = ScenarioStatus.IN_PLAY, 1
        session.flush()
        begun = f"{len(ships)} ships" if ships else "War at Sea units"
        a.log(JournalKind.BEGIN, f"{scenario.title} begins: {begun}, turn 1")


def _clear_fire(
    session: Session, scenario: Scenario, ships: Sequence[Ship]
) -> tuple[list[journal.RowChange], list[str]]:
    """Fire markers off the ships, when the campaign says so: the changes, the ships' names."""
    changes, cleared = [], []
    if get_row(session, Campaign, scenario.campaign_id).clear_fire_each_turn:
        for ship in ships:
            if ship.fire_markers:
                changes.append(journal.RowChange("ship", ship.id or 0,
                                                 {"fire_markers": ship.fire_markers},
                                                 {"fire_markers": 0}))  # fmt: skip
                cleared.append(ship.name)
                ship.fire_markers = 0
    return changes, cleared


def advance_turn(factory: SessionFactory, *, scenario_id: int) -> int:
    """Next game turn (6 minutes in SMR2); fire markers come off if the campaign says so."""
    with act(factory, Scenario, scenario_id) as a:
        scenario, session = _asked(a.row, "advance"), a.session
        turn = journal.RowChange(
            "scenario", scenario_id, {"turn": scenario.turn}, {"turn": scenario.turn + 1}
        )
        scenario.turn += 1
        changes, cleared = _clear_fire(session, scenario, participants(session, scenario_id))
        session.flush()
        summary = f"{scenario.title}: turn {scenario.turn}"
        if cleared:
            summary += f"; fire markers off {', '.join(cleared)}"
        a.log(JournalKind.TURN, summary, changes=(turn, *changes))
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
    outcome, errors = outcome.strip(), dict[str, str]()
    require_declared(errors, Scenario, outcome=outcome, notes=notes)
    check(errors)
    with act(factory, Scenario, scenario_id) as a:
        scenario, session = _asked(a.row, "close"), a.session
        reason = backup_reason(
            get_row(session, Campaign, scenario.campaign_id).name, scenario.position
        )
        ships = participants(session, scenario_id)
        for ship in ships:
            session.add(_snapshot(session, scenario, ship, SnapshotPhase.END))
        # This battle's fire markers do not follow the ships into the next one.
        changes, _ = _clear_fire(session, scenario, ships)
        scenario.status = ScenarioStatus.CLOSED
        scenario.outcome, scenario.notes = outcome, notes
        session.flush()
        # The cleared fire markers are in the entry, so the journal replays to the ships; a
        # close is taken back by reopening the scenario, not by undo.
        a.log(
            JournalKind.CLOSE, f"{scenario.title} closed: {outcome or 'no outcome given'}",
            after={"outcome": scenario.outcome}, changes=tuple(changes), undoable=False,
            scenario=scenario,  # the scenario closed, at its last turn, not the next one
        )  # fmt: skip
    # After the commit: the copy holds the closed scenario, a point worth going back to.
    taken = backups.back_up(factory, reason=reason)
    if taken.failure is not None:
        _journal_backup_failure(factory, scenario_id=scenario_id, failure=taken.failure)
    return ClosedScenario(len(ships), taken.path, taken.failure)


def _journal_backup_failure(factory: SessionFactory, *, scenario_id: int, failure: str) -> None:
    """A journal line for a backup that could not be written, so the record shows there is
    none; on a full disk this line may not be written either, and the result still says it."""
    with suppress(DatabaseUnavailable), act(factory, Scenario, scenario_id) as a:
        summary = f"No backup after closing {a.row.title}: {failure}"
        a.log(JournalKind.BACKUP, summary, after={"backup": None}, undoable=False, scenario=a.row)


def reopen_scenario(factory: SessionFactory, *, scenario_id: int, reason: str) -> None:
    """Put a closed scenario back in play, as an explicit journaled correction."""
    reason = reason.strip()
    if not reason:
        raise InvalidInput({"reason": "say why it is reopened: the journal keeps the reason"})
    errors: dict[str, str] = {}
    require_plain(errors, "reason", reason)
    check(errors)
    with act(factory, Scenario, scenario_id) as a:
        scenario, session = _asked(a.row, "reopen"), a.session
        playing = journal.scenario_in_play(session, scenario.campaign_id)
        if playing is not None:
            raise InvalidInput({"reason": f"{playing.title} is in play: close it first"})
        played = col(Scenario.status).in_((ScenarioStatus.IN_PLAY, ScenarioStatus.CLOSED))
        after = col(Scenario.position) > scenario.position
        later = first_where(
            session, Scenario, Scenario.campaign_id == scenario.campaign_id, after, played
        )
        if later is not None:
            raise InvalidInput({"reason": f"{later.title} was played after it: it stays closed"})
        repairs = session.exec(
            select(func.count())
            .select_from(Repair)
            .where(Repair.after_scenario_id == scenario_id, Repair.status == RepairStatus.DONE)
        ).one()
        if repairs:
            raise InvalidInput({"reason": f"{repairs} repairs were made after it: undo them first"})
        ends = ShipSnapshot.scenario_id == scenario_id, ShipSnapshot.phase == SnapshotPhase.END
        for snapshot in rows_where(session, ShipSnapshot, *ends):
            session.delete(snapshot)
        scenario.status = ScenarioStatus.IN_PLAY
        a.log(JournalKind.CORRECTION, f"{scenario.title} reopened: {reason}")


def archive_scenario(factory: SessionFactory, *, scenario_id: int) -> None:
    """Set aside a planned scenario that will not be played; its journal entries stay."""
    with act(factory, Scenario, scenario_id) as a:
        scenario = _asked(a.row, "archive")
        scenario.status = ScenarioStatus.ARCHIVED
        a.log(JournalKind.SCENARIO, f"{scenario.title} archived")


def taking_part(scenario_id: Any, ship_id: Any) -> Exists:
    """Whether a ship takes part in a scenario, as part of a statement (columns or values)."""
    return exists().where(
        col(Participation.scenario_id) == scenario_id, col(Participation.ship_id) == ship_id
    )


def closed_one(campaign_id: Any) -> Exists:
    """Whether one of the campaign's scenarios was played and closed, as part of a statement."""
    return exists().where(
        col(Scenario.campaign_id) == campaign_id, col(Scenario.status) == ScenarioStatus.CLOSED
    )


# Asked on every repair: a statement built once.
_TAKING_PART = sql_select(taking_part(bindparam("scenario_id"), bindparam("ship_id")))


def is_taking_part(session: Session, ship_id: int, scenario: Scenario) -> bool:
    taking = {"scenario_id": scenario.id, "ship_id": ship_id}
    return bool(session.connection().execute(_TAKING_PART, taking).scalar())


class TurnView(ScenarioView):
    """The campaign's current scenario, for the key that begins the next turn."""

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
