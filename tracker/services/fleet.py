"""Squadrons, ships, batteries, and the SMR2 command and crew actions (RULES.md §SMR2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Battery,
    Commander,
    Crew,
    Critical,
    MineCheckShip,
    Minefield,
    Participation,
    Repair,
    Scenario,
    Ship,
    ShipSnapshot,
    Side,
    Squadron,
)
from tracker.models.fleet import MOUNTS as MOUNTS  # re-exported: the battery form
from tracker.models.fleet import (
    BatteryUpdate,
    CommanderUpdate,
    CrewUpdate,
    ShipBase,
    ShipCreate,
    ShipUpdate,
    SquadronCreate,
    SquadronUpdate,
)
from tracker.models.fleet import CommandLoss as CommandLoss  # re-exported: its form
from tracker.models.fleet import TestRoll as TestRoll  # re-exported: the test's form
from tracker.models.kinds import Acquisition, JournalKind, ListStatus, ScenarioStatus
from tracker.rules import smr
from tracker.services import journal, losses
from tracker.services.common import flush_unique, get_row, require_version
from tracker.services.errors import (
    InvalidInput,
    check,
    require_text,
)
from tracker.services.fields import checked, require_declared
from tracker.services.views import TestResult

# RULES.md §SMR2: the 2nd-edition list, offered as an editable default pick-list.
TYPE_ABBREVIATIONS = (
    "BB", "BC", "SD", "BBL", "B", "BCD", "BBH", "CV", "CVL", "CVLM", "CVE", "CVEM", "CVS",
    "AC", "CA", "C", "CL", "CP", "CS", "CT", "CM", "CLAA", "DD", "DDE", "TB", "DDT",
)  # fmt: skip


S = TypeVar("S", bound=ShipCreate)

REDUCED = {
    "modifier": "command modifier",
    "radius_cm": "radius (cm)",
    "crew_modifier": "crew modifier",
}


# What the player typed for a ship, field by field, not yet checked: ShipCreate checks it.
ShipFields = dict[str, Any]


def _side_of_squadron(session: Session, squadron: Squadron) -> Side:
    return get_row(session, Side, squadron.side_id)


def _validate_ship(fields: Mapping[str, Any], model: type[S]) -> S:
    """The ship as typed, checked against its one declaration (models.fleet.ShipBase); a track
    now above its max is refused."""
    ship = checked(model, fields)
    errors: dict[str, str] = {}
    for track in ("structure", "flotation"):
        now, maximum = getattr(ship, f"{track}_now"), getattr(ship, f"{track}_max")
        if now > maximum:
            errors[f"{track}_now"] = f"must not exceed {track} max ({maximum}), got {now}"
    check(errors)
    return ship


def _flush_ship(session: Session, name: str, side_id: int, ship_id: int | None = None) -> None:
    flush_unique(session, Ship, name, taken="this side already has a ship named",
                 exclude_id=ship_id, side_id=side_id)  # fmt: skip


def _flush_squadron(
    session: Session, side: Side, name: str, squadron_id: int | None = None
) -> None:
    flush_unique(session, Squadron, name, taken=f"{side.name} already has a squadron named",
                 exclude_id=squadron_id, side_id=side.id or 0)  # fmt: skip


def create_squadron(
    factory: SessionFactory, *, side_id: int, name: str, air: bool = False, notes: str = ""
) -> int:
    """Add a squadron (or air group) to a side; returns its id."""
    typed = checked(SquadronCreate, {"name": name, "air": air, "notes": notes})
    name = typed.name
    with session_scope(factory) as session:
        side = get_row(session, Side, side_id)
        squadron = Squadron(side_id=side_id, **typed.model_dump())
        session.add(squadron)
        _flush_squadron(session, side, name)
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.SQUADRON,
            summary=f"Added squadron {name} to {side.name}",
        )
        assert squadron.id is not None
        return squadron.id


def update_squadron(
    factory: SessionFactory,
    *,
    squadron_id: int,
    name: str,
    air: bool,
    notes: str,
    version: int | None = None,
) -> None:
    """Rename a squadron, switch ships/air group, or change its notes.

    Switching between ships and air group re-reads the commander's radius from the other column
    of the ratings table (SMR2 §3.1); the combat reduction he bears is taken from that base (§3.5).
    version: the squadron's version the player's form showed; a newer one refuses the edit.
    """
    typed = checked(SquadronUpdate, {"name": name, "air": air, "notes": notes, "version": version})
    name, notes = typed.name, typed.notes
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        require_version(squadron, typed.version, squadron.name)
        side = _side_of_squadron(session, squadron)
        campaign_id = side.campaign_id
        before = {"name": squadron.name, "air": squadron.air, "notes": squadron.notes}
        squadron.name, squadron.air, squadron.notes = name, air, notes
        if squadron.commander_id is not None:
            commander = get_row(session, Commander, squadron.commander_id)
            if commander.air != air:
                cut = smr.command_radius_cm(commander.grade, air=commander.air)
                cut -= commander.radius_now_cm
                commander.air = air
                commander.radius_now_cm = smr.reduced_radius_cm(
                    smr.command_radius_cm(commander.grade, air=air), max(0, cut)
                )
        _flush_squadron(session, side, name, squadron_id)
        old, new = journal.changes(before, {"name": name, "air": air, "notes": notes})
        if not new:
            return  # a form saved unchanged writes nothing
        journal.append(
            session,
            campaign_id=campaign_id,
            kind=JournalKind.SQUADRON,
            side_id=squadron.side_id,
            summary=f"Edited squadron {before['name']}",
            before=old,
            after=new,
        )


def delete_squadron(factory: SessionFactory, *, squadron_id: int) -> None:
    """Remove a squadron and its ships; ships it lent out take their new squadron as origin.
    Refused while any of them has a history to keep (see `refuse_losing_history`)."""
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side = _side_of_squadron(session, squadron)
        ships = session.exec(select(Ship).where(Ship.squadron_id == squadron_id)).all()
        lent = session.exec(
            select(Ship).where(
                Ship.original_squadron_id == squadron_id, Ship.squadron_id != squadron_id
            )
        ).all()
        refuse_losing_history(session, [*ships, *lent], f"Squadron {squadron.name}")
        for ship in ships:
            session.delete(ship)
        for ship in lent:
            ship.original_squadron_id = ship.squadron_id
        session.flush()
        commander = session.get(Commander, squadron.commander_id) if squadron.commander_id else None
        crew = session.get(Crew, squadron.crew_id) if squadron.crew_id else None
        session.delete(squadron)
        for extra in (commander, crew):
            if extra is not None:
                session.delete(extra)
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.SQUADRON,
            summary=f"Deleted squadron {squadron.name}",
        )


def create_ship(factory: SessionFactory, *, squadron_id: int, fields: Mapping[str, Any]) -> int:
    """Add a ship to a squadron; it is an original member of that squadron (SMR2 §3.4)."""
    values = _validate_ship(fields, ShipCreate).model_dump()
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side = _side_of_squadron(session, squadron)
        assert side.id is not None
        ship = Ship(
            side_id=side.id, squadron_id=squadron_id, original_squadron_id=squadron_id, **values
        )
        session.add(ship)
        _flush_ship(session, values["name"], side.id or 0)
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.SHIP,
            ship_id=ship.id,
            summary=f"Added {ship.name} to {squadron.name}",
            after=journal.row_state(ship),
        )
        assert ship.id is not None
        return ship.id


def update_ship(
    factory: SessionFactory,
    *,
    ship_id: int,
    fields: Mapping[str, Any],
    expected_version: int | None = None,
) -> None:
    """Change a ship's data or present state; Structure or Flotation above max is refused.

    fields["version"] (or expected_version): the version the player's form showed; when another
    player has changed the ship since, the edit is refused instead of overwriting their change.
    """
    update = _validate_ship({"version": expected_version, **fields}, ShipUpdate)
    values = update.model_dump(exclude={"version"})
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        require_version(ship, update.version, ship.name)
        side = get_row(session, Side, ship.side_id)
        before = journal.row_state(ship)
        for key, value in values.items():
            setattr(ship, key, value)
        _flush_ship(session, values["name"], ship.side_id, ship_id)
        change = journal.row_change("ship", ship_id, before, journal.row_state(ship))
        if not change.after:
            return  # a form saved unchanged writes nothing
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.SHIP,
            ship_id=ship_id,
            side_id=ship.side_id,
            summary=f"Edited {ship.name}",
            before=change.before,
            after=change.after,
            changes=(change,) if change.after else (),
        )


def copy_ship(factory: SessionFactory, *, ship_id: int, name: str) -> int:
    """A sister ship: same data and batteries, fresh (undamaged) state, a new name."""
    errors: dict[str, str] = {}
    name = require_text(errors, "name", name, 60)
    check(errors)
    with session_scope(factory) as session:
        source = get_row(session, Ship, ship_id)
        side = get_row(session, Side, source.side_id)
        data = source.model_dump(
            exclude={"id", "version", "name", "structure_now", "flotation_now", "fire_markers",
                     "sunk", "transferred_turn", "transferred_scenario_id", "original_squadron_id"}
        )  # fmt: skip
        ship = Ship(
            **data,
            name=name,
            structure_now=source.structure_max,
            flotation_now=source.flotation_max,
            original_squadron_id=source.squadron_id,
        )
        session.add(ship)
        _flush_ship(session, name, source.side_id)
        assert ship.id is not None
        for battery in session.exec(select(Battery).where(Battery.ship_id == ship_id)).all():
            session.add(
                Battery(**battery.model_dump(exclude={"id", "version", "ship_id"}), ship_id=ship.id)
            )
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.SHIP,
            ship_id=ship.id,
            summary=f"Copied {source.name} as {name}",
            after=journal.row_state(ship),
        )
        assert ship.id is not None
        return ship.id


def took_part(session: Session, ship_id: int) -> bool:
    """Whether a ship has a history to keep: it took part in a scenario that began, or has
    criticals, repairs, mine checks or minefields of its own."""
    begun = (
        select(Participation.id)
        .join(Scenario, col(Scenario.id) == col(Participation.scenario_id))
        .where(Participation.ship_id == ship_id, Scenario.status != ScenarioStatus.PLANNED)
    )
    kept = [
        begun,
        select(ShipSnapshot.id).where(ShipSnapshot.ship_id == ship_id),
        select(Critical.id).where(Critical.ship_id == ship_id),
        select(Repair.id).where(Repair.ship_id == ship_id),
        select(MineCheckShip.id).where(MineCheckShip.ship_id == ship_id),
        select(Minefield.id).where(Minefield.layer_ship_id == ship_id),
    ]
    return any(session.exec(query.limit(1)).first() is not None for query in kept)


def refuse_losing_history(session: Session, ships: Sequence[Ship], what: str) -> None:
    """Refuse to delete a squadron or a side whose ships have a history: closed scenarios, their
    participants and a squadron's original strength never change because of a later delete."""
    kept = sorted(s.name for s in ships if s.id is not None and took_part(session, s.id))
    if not kept:
        return
    shown = [*kept[:3], f"{len(kept) - 3} more"] if len(kept) > 4 else kept
    named = " and ".join(filter(None, (", ".join(shown[:-1]), shown[-1])))
    raise InvalidInput(
        {
            "delete": f"{what} cannot be deleted: {named} took part in this campaign and "
            "{verb} kept for that history. Retire each ship instead (x on the record sheet): "
            "it leaves the sheet and stays in the scenarios it fought.".format(
                verb="is" if len(kept) == 1 else "are"
            )
        }
    )


def delete_ship(factory: SessionFactory, *, ship_id: int) -> str:
    """Delete a ship, or retire it when it has a history (it took part in a scenario): kept for
    that history and its squadron's original strength (SMR2 §3.4), gone from the sheet. Either is
    one undoable journal entry; a planned scenario loses the ship. Returns the entry's summary."""
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        if ship.retired:
            raise InvalidInput({"ship": f"{ship.name} is already retired"})
        side = get_row(session, Side, ship.side_id)
        planned = session.exec(
            select(Participation)
            .join(Scenario, col(Scenario.id) == col(Participation.scenario_id))
            .where(Participation.ship_id == ship_id, Scenario.status == ScenarioStatus.PLANNED)
            .order_by(col(Participation.id))
        ).all()
        leaving = tuple(journal.deleted("participation", row) for row in planned)
        retiring = took_part(session, ship_id)
        settled = losses.leave_squadron(session, ship, how="retired" if retiring else "deleted")
        if retiring:
            summary = f"Retired {ship.name} (kept in the scenarios it took part in)"
            changes = (
                journal.RowChange("ship", ship_id, {"retired": False}, {"retired": True}),
                *leaving,
            )
            ship.retired = True
            session.add(ship)
        else:
            batteries = session.exec(
                select(Battery).where(Battery.ship_id == ship_id).order_by(col(Battery.id))
            ).all()
            summary = f"Deleted {ship.name}"
            changes = (
                journal.deleted("ship", ship),
                *(journal.deleted("battery", row) for row in batteries),
                *leaving,
            )
        summary = "; ".join([summary, *settled.notes])
        for row in planned:
            session.delete(row)
        session.flush()
        if not ship.retired:
            session.delete(ship)
        session.flush()
        journal.append(
            session, campaign_id=side.campaign_id, kind=JournalKind.SHIP, ship_id=ship_id,
            side_id=side.id, summary=summary, changes=(*changes, *settled.changes),
        )  # fmt: skip
        return summary


def _own_crew(session: Session, ship: Ship, squadron: Squadron) -> None:
    """Give a ship leaving its squadron a crew row of its own, a copy of the one it served with.

    Crew quality belongs to each ship's crew (SMR2 §3.2): a transferred ship keeps its rating,
    its modifier now and its points, whatever the new squadron's crew is. An undo of the transfer
    gives the ship its squadron's crew back (the copy is left unused).
    """
    if ship.crew_id is not None or squadron.crew_id is None:
        return
    served = get_row(session, Crew, squadron.crew_id)
    crew = Crew(**served.model_dump(exclude={"id", "version"}))
    session.add(crew)
    session.flush()
    ship.crew_id = crew.id


def transfer_ship(factory: SessionFactory, *, ship_id: int, to_squadron_id: int) -> str:
    """Move a ship to another squadron of its side, with its own crew (SMR2 §3.2); during a battle
    it is Out of Command until the end of the current game turn (SMR2 §3.4)."""
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        target = get_row(session, Squadron, to_squadron_id)
        side = get_row(session, Side, ship.side_id)
        if target.side_id != ship.side_id:
            raise InvalidInput({"squadron": "a ship can only join a squadron of its own side"})
        if target.id == ship.squadron_id:
            raise InvalidInput({"squadron": f"{ship.name} is already in {target.name}"})
        if ship.sunk:
            raise InvalidInput({"squadron": f"{ship.name} is sunk and cannot change squadron"})
        scenario = journal.current_scenario(session, side.campaign_id)
        # Only a transfer in play is Out of Command: before a battle or between battles the
        # ship simply starts the next one in its new squadron (docs/RULES.md §SMR2).
        playing = (
            scenario if scenario is not None and scenario.status == ScenarioStatus.IN_PLAY else None
        )
        old_squadron = get_row(session, Squadron, ship.squadron_id)
        settled = losses.leave_squadron(session, ship, how=f"transferred to {target.name}")
        before = journal.row_state(ship)
        _own_crew(session, ship, old_squadron)
        ship.squadron_id = to_squadron_id
        ship.transferred_scenario_id = playing.id if playing else None
        ship.transferred_turn = playing.turn if playing else None
        summary = f"{ship.name} transferred from {old_squadron.name} to {target.name}"
        if playing is not None:
            summary += f": Out of Command until the end of turn {playing.turn}"
        summary = "; ".join([summary, *settled.notes])
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.TRANSFER,
            ship_id=ship_id,
            side_id=ship.side_id,
            summary=summary,
            before={"squadron_id": old_squadron.id},
            after={"squadron_id": to_squadron_id},
            changes=(
                journal.row_change("ship", ship_id, before, journal.row_state(ship)),
                *settled.changes,
            ),
        )
        return summary


def add_fire_markers(factory: SessionFactory, *, ship_id: int, delta: int) -> None:
    """Put fire markers on a ship, or take them off (delta below 0; any marker gives -2 on tests,
    SMR2 §3.6), counted from the ship as it is then: another player's marker is kept."""
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        side = get_row(session, Side, ship.side_id)
        before = ship.fire_markers
        count = before + delta
        errors: dict[str, str] = {}
        if not delta:
            errors["fire_markers"] = "give the number of fire markers to add or take off"
        elif count < 0:
            errors["fire_markers"] = (
                f"{ship.name} has no fire markers to remove." if not before
                else f"{ship.name} has {before} fire markers, not {-delta}"
            )  # fmt: skip
        else:
            require_declared(errors, ShipBase, "fire_markers", count)
        check(errors)
        ship.fire_markers = count
        change = journal.RowChange(
            "ship", ship_id, {"fire_markers": before}, {"fire_markers": count}
        )
        journal.append(
            session, campaign_id=side.campaign_id, kind=JournalKind.FIRE, ship_id=ship_id,
            side_id=ship.side_id, summary=f"{ship.name}: fire markers {before} -> {count}",
            before=change.before, after=change.after, changes=(change,),
        )  # fmt: skip


def save_battery(
    factory: SessionFactory,
    *,
    ship_id: int,
    battery_id: int | None = None,
    mount: str,
    calibre: str = "",
    guns: int = 1,
    ip: str = "",
    range_bands: str = "",
    notes: str = "",
    version: int | None = None,
) -> int:
    """Add a battery (weapon mount) to a ship, or change one (battery_id given); on a change,
    `version` (the one the player's form showed) refuses it when another player changed it."""
    typed = checked(BatteryUpdate, {"mount": mount, "calibre": calibre, "guns": guns, "ip": ip,
                                    "range_bands": range_bands, "notes": notes,
                                    "version": version}, names=())  # fmt: skip
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        side = get_row(session, Side, ship.side_id)
        battery = (
            get_row(session, Battery, battery_id)
            if battery_id
            else Battery(ship_id=ship_id, mount=mount)
        )
        if battery.ship_id != ship_id:
            raise InvalidInput({"mount": f"that battery belongs to another ship, not {ship.name}"})
        if battery_id:
            require_version(battery, typed.version, f"{ship.name}'s {battery.mount}")
        for key, value in typed.model_dump(exclude={"version"}).items():
            setattr(battery, key, value)
        session.add(battery)
        session.flush()
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.BATTERY,
            ship_id=ship_id,
            summary=f"{ship.name}: {'edited' if battery_id else 'added'} "
            f"{guns} x {calibre} {mount}",
        )
        assert battery.id is not None
        return battery.id


def delete_battery(factory: SessionFactory, *, battery_id: int) -> None:
    """Remove one battery from its ship."""
    with session_scope(factory) as session:
        battery = get_row(session, Battery, battery_id)
        ship = get_row(session, Ship, battery.ship_id)
        side = get_row(session, Side, ship.side_id)
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.BATTERY,
            ship_id=ship.id,
            summary=f"{ship.name}: removed {battery.guns} x {battery.calibre} {battery.mount}",
        )
        session.delete(battery)


def _grade_for(rating: CrewUpdate, errors: dict[str, str]) -> int:
    """The grade a rating gives: the level bought, or the d10 read at the level paid for."""
    if rating.acquisition == Acquisition.DIRECT:
        return rating.training
    if rating.roll is None:
        errors["roll"] = "type the d10 you rolled (1..10), or let the tracker roll"
        return 1
    return smr.grade_from_roll(rating.training, rating.roll)


def set_commander(
    factory: SessionFactory,
    *,
    squadron_id: int,
    name: str,
    training: int,
    acquisition: str,
    roll: int | None = None,
    version: int | None = None,
) -> None:
    """Generate (d10) or buy the squadron's commander; cost by the level paid (SMR2 §3.1).

    version: the commander's version the player's form showed; a newer one refuses the change.
    """
    typed = checked(CommanderUpdate, {"name": name, "training": training, "version": version,
                                      "acquisition": acquisition, "roll": roll})  # fmt: skip
    errors: dict[str, str] = {}
    grade = _grade_for(typed, errors)
    check(errors)
    name = typed.name
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side = _side_of_squadron(session, squadron)
        commander = session.get(Commander, squadron.commander_id) if squadron.commander_id else None
        if commander is not None:
            require_version(commander, typed.version, commander.name or "The commander")
        before = journal.row_state(commander) if commander else None
        if commander is None:
            commander = Commander(campaign_id=side.campaign_id, training=training, grade=grade,
                                  modifier_now=0, radius_now_cm=10)  # fmt: skip
        commander.name = name
        commander.air = squadron.air
        commander.acquisition = Acquisition(acquisition)
        commander.training, commander.grade = training, grade
        commander.roll = roll if acquisition == Acquisition.RANDOM else None
        # Combat reductions stay with the commander, whatever he is re-rolled or re-bought as
        # (SMR2 §3.5): they end only by a restoration the player names (restore_command).
        modifier_cut = radius_cut = 0
        if before is not None and before["status"] == "lost":
            squadron.commander_ship_id = None  # the replacement: the player says where he sails
        elif before is not None:
            modifier_cut = max(0, smr.grade_modifier(before["grade"]) - before["modifier_now"])
            base_cm = smr.command_radius_cm(before["grade"], air=before["air"])
            radius_cut = max(0, base_cm - before["radius_now_cm"])
        commander.modifier_now = smr.reduced_modifier(smr.grade_modifier(grade), modifier_cut)
        commander.radius_now_cm = smr.reduced_radius_cm(
            smr.command_radius_cm(grade, air=squadron.air), radius_cut
        )
        commander.status = ListStatus.ACTIVE
        session.add(commander)
        session.flush()
        squadron.commander_id = commander.id
        rolled = acquisition == Acquisition.RANDOM
        how = f"rolled {roll} at training {smr.training_numeral(training)}" if rolled else "bought"
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.COMMANDER,
            side_id=squadron.side_id,
            summary=f"{squadron.name}: commander {commander.name or '(unnamed)'} {how}: "
            f"{smr.rating_name(grade)} ({smr.grade_modifier(grade):+d})",
            before=before,
            after=journal.row_state(commander),
            dice={"d10": roll, "training": training} if rolled else None,
            # Re-rolling a commander can be undone; the first one is removed by deleting it.
            changes=(journal.row_change("commander", commander.id, before,
                                        journal.row_state(commander)),)
            if before else (),
        )  # fmt: skip


def set_commander_ship(factory: SessionFactory, *, squadron_id: int, ship_id: int) -> str:
    """Put the squadron's commander aboard one of its ships: command is measured from it
    (SMR2 §3.1), and moving him is a transfer (SMR2 §6.7), one undoable journal entry."""
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side = _side_of_squadron(session, squadron)
        ship = get_row(session, Ship, ship_id)
        problem = (
            f"{ship.name} is not in {squadron.name}: the commander sails in one of its own ships"
            if ship.squadron_id != squadron_id or ship.retired
            else f"{ship.name} is sunk: choose a ship afloat" if ship.sunk
            else ""
        )  # fmt: skip
        if problem:
            raise InvalidInput({"ship": problem})
        commander = losses.acting_commander(session, squadron, "ship")
        if squadron.commander_ship_id == ship_id:
            raise InvalidInput({"ship": f"{ship.name} already carries the commander"})
        was = session.get(Ship, squadron.commander_ship_id) if squadron.commander_ship_id else None
        change = journal.RowChange(
            "squadron", squadron_id, {"commander_ship_id": squadron.commander_ship_id},
            {"commander_ship_id": ship_id},
        )  # fmt: skip
        squadron.commander_ship_id = ship_id
        session.add(squadron)
        who = commander.name or "the commander"
        summary = (
            f"{squadron.name}: {who} transferred from {was.name} to {ship.name}"
            if was is not None
            else f"{squadron.name}: {who} aboard {ship.name}"
        )
        journal.append(
            session, campaign_id=side.campaign_id, kind=JournalKind.COMMANDER, ship_id=ship_id,
            side_id=side.id, summary=summary, changes=(change,),
        )  # fmt: skip
        return summary


def set_crew(
    factory: SessionFactory,
    *,
    squadron_id: int,
    training: int,
    acquisition: str,
    roll: int | None = None,
    version: int | None = None,
) -> None:
    """Roll or buy the squadron's crew, optionally plus the commander's modifier.

    version: the crew's version the player's form showed; a newer one refuses the change.
    """
    typed = checked(CrewUpdate, {"training": training, "acquisition": acquisition,
                                 "roll": roll, "version": version})  # fmt: skip
    errors: dict[str, str] = {}
    _grade_for(typed, errors)
    check(errors)
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        if squadron.crew_id is not None:
            require_version(get_row(session, Crew, squadron.crew_id), typed.version,
                            f"{squadron.name}'s crew")  # fmt: skip
        side = _side_of_squadron(session, squadron)
        campaign_id = side.campaign_id
        from tracker.models import Campaign

        campaign = get_row(session, Campaign, campaign_id)
        modified = roll
        commander_modifier = None
        if (
            acquisition == Acquisition.RANDOM
            and campaign.crew_roll_adds_commander
            and roll is not None
        ):
            commander = losses.acting_commander(
                session, squadron, "roll", "this campaign adds the commander's modifier to the "
                "crew roll",
            )  # fmt: skip
            # Crews are generated before play: the commander's rated modifier, not one cut by
            # combat since (SMR2 §3.2 optional rule, docs/RULES.md §SMR2).
            commander_modifier = smr.grade_modifier(commander.grade)
            modified = smr.crew_roll(roll, commander_modifier)
        grade = (
            training
            if acquisition == Acquisition.DIRECT
            else smr.grade_from_roll(training, modified or 1)
        )
        crew = session.get(Crew, squadron.crew_id) if squadron.crew_id else None
        before = journal.row_state(crew) if crew else None
        if crew is None:
            crew = Crew(campaign_id=campaign_id, training=training, grade=grade, modifier_now=0)
        rolled = roll if acquisition == Acquisition.RANDOM else None
        # Combat reductions stay with the crew through a re-roll or re-buy, as a commander's do
        # (SMR2 §3.5): the cut it bears is taken from its new rating.
        cut = max(0, smr.grade_modifier(crew.grade) - crew.modifier_now) if before else 0
        crew.acquisition = Acquisition(acquisition)
        crew.training, crew.grade = training, grade
        crew.roll = rolled
        crew.roll_modified = modified if acquisition == Acquisition.RANDOM else None
        crew.modifier_now = smr.reduced_modifier(smr.grade_modifier(grade), cut)
        session.add(crew)
        session.flush()
        squadron.crew_id = crew.id
        journal.append(
            session,
            campaign_id=campaign_id,
            kind=JournalKind.CREW,
            side_id=squadron.side_id,
            summary=f"{squadron.name}: crew {smr.quality_name(grade)} "
            f"({smr.grade_modifier(grade):+d})",
            before=before,
            after=journal.row_state(crew),
            dice={"d10": roll, "commander_modifier": commander_modifier, "modified": modified}
            if acquisition == Acquisition.RANDOM
            else None,
            changes=(journal.row_change("crew", crew.id, before, journal.row_state(crew)),)
            if before
            else (),
        )


def _tested_crew(session: Session, squadron: Squadron, ship_id: int | None, field: str) -> int:
    """The crew a crew test or reduction is for: the ship's own when it has one, else the
    squadron's (SMR2 §3.2)."""
    if ship_id is not None:
        ship = get_row(session, Ship, ship_id)
        if ship.squadron_id != squadron.id:
            raise InvalidInput({field: f"{ship.name} is not in {squadron.name}"})
        if ship.crew_id is not None:
            return ship.crew_id
    if squadron.crew_id is None:
        raise InvalidInput({field: f"{squadron.name} has no crew rating yet"})
    return squadron.crew_id


def reduce_command(
    factory: SessionFactory,
    *,
    squadron_id: int,
    modifier_by: int = 0,
    radius_by_cm: int = 0,
    crew_by: int = 0,
    ship_id: int | None = None,
) -> None:
    """Apply combat reductions to command modifier, radius and crew (floors -2 and 10 cm).

    ship_id: a ship of the squadron with a crew of its own (SMR2 §3.2): the crew reduction goes
    to that crew, not the squadron's.
    """
    errors: dict[str, str] = {}
    for key, value in (("modifier_by", modifier_by), ("radius_by_cm", radius_by_cm),
                       ("crew_by", crew_by)):  # fmt: skip
        require_declared(errors, CommandLoss, key, value)
    check(errors)
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side = _side_of_squadron(session, squadron)
        before: dict[str, Any] = {}
        after: dict[str, Any] = {}
        rows: list[journal.RowChange] = []
        if modifier_by or radius_by_cm:
            field = "modifier_by" if modifier_by else "radius_by_cm"
            commander = losses.acting_commander(session, squadron, field)
            before.update(modifier=commander.modifier_now, radius_cm=commander.radius_now_cm)
            commander.modifier_now = smr.reduced_modifier(commander.modifier_now, modifier_by)
            commander.radius_now_cm = smr.reduced_radius_cm(commander.radius_now_cm, radius_by_cm)
            after.update(modifier=commander.modifier_now, radius_cm=commander.radius_now_cm)
            rows.append(
                journal.RowChange(
                    "commander",
                    commander.id or 0,
                    {"modifier_now": before["modifier"], "radius_now_cm": before["radius_cm"]},
                    {"modifier_now": after["modifier"], "radius_now_cm": after["radius_cm"]},
                )
            )
        if crew_by:
            crew_id = _tested_crew(session, squadron, ship_id, "crew_by")
            crew = get_row(session, Crew, crew_id)
            before["crew_modifier"] = crew.modifier_now
            crew.modifier_now = smr.reduced_modifier(crew.modifier_now, crew_by)
            after["crew_modifier"] = crew.modifier_now
            rows.append(
                journal.RowChange(
                    "crew",
                    crew_id,
                    {"modifier_now": before["crew_modifier"]},
                    {"modifier_now": after["crew_modifier"]},
                )
            )
        if not after:
            raise InvalidInput({"modifier_by": "enter at least one reduction above 0"})
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.REDUCTION,
            side_id=squadron.side_id,
            summary=f"{squadron.name}: combat reduction: "
            + ", ".join(f"{REDUCED[key]} {before[key]} -> {after[key]}" for key in after),
            before=before,
            after=after,
            changes=tuple(rows),
        )


def restore_command(factory: SessionFactory, *, squadron_id: int, rule: str) -> str:
    """Give the commander back his rated modifier and radius, by a rule the player names.

    Combat reductions stay with a commander (SMR2 §3.5); the seed gives no rule that restores
    them, so the player names the one the group plays (docs/RULES.md §SMR2).
    """
    errors: dict[str, str] = {}
    rule = require_text(errors, "rule", rule, 200)
    check(errors)
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side = _side_of_squadron(session, squadron)
        commander = losses.acting_commander(session, squadron, "rule")
        before = journal.row_state(commander)
        commander.modifier_now = smr.grade_modifier(commander.grade)
        commander.radius_now_cm = smr.command_radius_cm(commander.grade, air=commander.air)
        change = journal.row_change("commander", commander.id, before, journal.row_state(commander))
        if not change.after:
            raise InvalidInput({"rule": f"{squadron.name}'s commander has no combat reductions"})
        summary = (
            f"{squadron.name}: commander restored to {commander.modifier_now:+d}, "
            f"{commander.radius_now_cm} cm ({rule})"
        )
        journal.append(
            session, campaign_id=side.campaign_id, kind=JournalKind.REDUCTION,
            side_id=squadron.side_id, summary=summary, before=change.before,
            after=change.after, changes=(change,),
        )  # fmt: skip
        return summary


def record_test(
    factory: SessionFactory,
    *,
    squadron_id: int,
    subject: str,
    roll: int,
    under_fire: bool = False,
    extra: int = 0,
    ship_id: int | None = None,
) -> TestResult:
    """A command or crew test: d10 + current modifier - 2 under fire + extra, 6+ passes; the
    test and its journal line name the ship tested (SMR2 §3.6): the commander's ship, or the
    ship whose crew tests.

    ship_id: for a crew test, the ship of the squadron whose crew tests: her own crew when she
    has one (SMR2 §3.2), else the squadron's. A lost commander does not test (losses).
    """
    errors: dict[str, str] = {}
    if subject not in ("commander", "crew"):
        errors["subject"] = "must be 'commander' or 'crew'"
    require_declared(errors, TestRoll, "roll", roll)
    require_declared(errors, TestRoll, "extra", extra)
    check(errors)
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side = _side_of_squadron(session, squadron)
        rated: Commander | Crew
        if subject == "commander":
            rated = losses.acting_commander(session, squadron, "subject")
            aboard = squadron.commander_ship_id
            tested = session.get(Ship, aboard) if aboard is not None else None
            who = f"{squadron.name}'s commander" + (f" {rated.name}" if rated.name else "")
            who += f" aboard {tested.name}" if tested is not None else ", aboard no ship"
        else:
            rated = get_row(session, Crew, _tested_crew(session, squadron, ship_id, "subject"))
            tested = get_row(session, Ship, ship_id) if ship_id is not None else None
            who = (
                f"{tested.name}'s {'own ' if tested.crew_id is not None else ''}crew"
                if tested is not None
                else f"{squadron.name}'s crew"
            )
        modifier = rated.modifier_now
        total = smr.test_total(roll, modifier, under_fire=under_fire, extra=extra)
        passed = smr.test_passes(roll, modifier, under_fire=under_fire, extra=extra)
        journal.append(
            session,
            campaign_id=side.campaign_id,
            kind=JournalKind.TEST,
            ship_id=tested.id if tested is not None else None,
            side_id=squadron.side_id,
            summary=f"{'Command' if subject == 'commander' else 'Crew'} test of {who} "
            f"{'passed' if passed else 'failed'} "
            f"(d10 {roll} {modifier:+d}{' -2 under fire' if under_fire else ''}"
            f"{f' {extra:+d}' if extra else ''} = {total})",
            dice={
                "d10": roll,
                "modifier": modifier,
                "under_fire": under_fire,
                "extra": extra,
                "total": total,
            },
        )
        return TestResult(roll=roll, modifier=modifier, under_fire=under_fire, extra=extra,
                          total=total, passed=passed, subject=subject, who=who,
                          ship=tested.name if tested is not None else "")  # fmt: skip
