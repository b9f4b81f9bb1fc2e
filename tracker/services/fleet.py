"""Squadrons and their ships: create, edit, copy, delete or retire, transfer; batteries and fire
markers (RULES.md §SMR2). Their commanders and crews are services.command's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session, col, select

from tracker.db import SessionFactory
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
from tracker.models.fleet import (
    BatteryUpdate,
    ShipBase,
    ShipCreate,
    ShipUpdate,
    SquadronCreate,
    SquadronUpdate,
)
from tracker.models.identity import OWN, new_uid
from tracker.models.kinds import JournalKind, ScenarioStatus
from tracker.rules import smr
from tracker.services import command, journal, losses
from tracker.services.common import (
    Act,
    Rows,
    act,
    edit_row,
    flush_named,
    get_row,
    insert_named,
    name_refused,
    require_version,
    rows_in_one_act,
    rows_where,
    scope_names,
)
from tracker.services.errors import InvalidInput, RowsRefused, check
from tracker.services.fields import checked, edited, require_declared

# What the player typed for a ship, field by field, not yet checked: ShipCreate checks it.
ShipFields = dict[str, Any]


_TAKEN = "this side already has a ship named"
SHIPS = Rows(Ship, JournalKind.SHIP, "Edited {name}", taken=_TAKEN, said_after=True)
SQUADRONS = Rows(
    Squadron,
    JournalKind.SQUADRON,
    "Edited squadron {name}",
    taken="{side} already has a squadron named",
)


def create_squadron(factory: SessionFactory, *, side_id: int, **fields: Any) -> int:
    """Add a squadron (or air group) to a side (SquadronCreate's fields); returns its id."""
    typed = checked(SquadronCreate, fields)
    with act(factory, Side, side_id) as a:
        squadron = Squadron(side_id=side_id, **typed.model_dump())
        a.session.add(squadron)
        flush_named(a.session, SQUADRONS, squadron)
        a.log(JournalKind.SQUADRON, f"Added squadron {typed.name} to {a.row.name}")
        return squadron.id or 0


def update_squadron(factory: SessionFactory, *, squadron_id: int, **fields: Any) -> None:
    """Rename a squadron, switch ships/air group, or change its notes (SquadronUpdate's fields):
    a switch re-reads the commander's radius from the other column (SMR2 §3.1, §3.5)."""
    with act(factory, Squadron, squadron_id) as a:
        squadron, session = a.row, a.session
        typed = edited(SquadronUpdate, squadron, fields)
        require_version(squadron, typed.version, squadron.name)
        air = typed.air
        changes: tuple[journal.RowChange, ...] = ()
        if squadron.commander_id is not None:
            commander = get_row(session, Commander, squadron.commander_id)
            was = commander.model_dump(include={"radius_now_cm", "air"})
            commander.radius_now_cm = smr.rerated_radius_cm(
                commander.radius_now_cm,
                was=(commander.grade, commander.air),
                now=(commander.grade, air),
            )
            commander.air = air
            now = commander.model_dump(include=set(was))
            rerated = journal.row_change("commander", commander.id, was, now)
            changes = (rerated,) if rerated.after else ()
        values = {"name": typed.name, "air": air, "notes": typed.notes}
        edit_row(a, SQUADRONS, values, side_id=squadron.side_id, changes=changes)


def delete_squadron(factory: SessionFactory, *, squadron_id: int, check_only: bool = False) -> None:
    """Delete a squadron with its ships (remove_squadrons); `check_only`: whether it is refused,
    asked before the player is (act's check_only)."""
    with act(factory, Squadron, squadron_id, check_only=check_only) as a:
        remove_squadrons(a.session, [a.row], f"Squadron {a.row.name}")
        a.log(JournalKind.SQUADRON, f"Deleted squadron {a.row.name}")


def remove_squadrons(session: Session, squadrons: Sequence[Squadron], what: str) -> None:
    """Delete squadrons with their ships, commanders and crews; a ship they lent out takes her
    new squadron as origin. Refused while any of those ships has a history to keep
    (`refuse_losing_history`: `what` is deleted)."""
    ids = [squadron.id for squadron in squadrons]
    ships = rows_where(session, Ship, col(Ship.squadron_id).in_(ids))
    lent = rows_where(
        session, Ship, col(Ship.original_squadron_id).in_(ids), col(Ship.squadron_id).not_in(ids)
    )
    refuse_losing_history(session, [*ships, *lent], what)
    for ship in lent:
        ship.original_squadron_id = ship.squadron_id
    for ship in ships:
        session.delete(ship)
    session.flush()
    commanders = [squadron.commander_id for squadron in squadrons]
    crews = [squadron.crew_id for squadron in squadrons]
    ratings = [
        *rows_where(session, Commander, col(Commander.id).in_(commanders)),
        *rows_where(session, Crew, col(Crew.id).in_(crews)),
    ]
    for squadron in squadrons:
        session.delete(squadron)
    session.flush()
    for rating in ratings:
        session.delete(rating)


def create_ship(factory: SessionFactory, *, squadron_id: int, fields: Mapping[str, Any]) -> int:
    """Add a ship to a squadron (create_ships, of one)."""
    return create_ships(factory, squadron_id=squadron_id, rows=[fields])[0]


def create_ships(
    factory: SessionFactory, *, squadron_id: int, rows: Sequence[Mapping[str, Any]]
) -> list[int]:
    """Add ships to a squadron in one act, each an original member (SMR2 §3.4) journaled with its
    whole state: a form's one ship, a CSV file's many. Each row is checked as a form's is, and any
    refused refuses all (RowsRefused says each); their ids, in order."""
    return rows_in_one_act(
        factory, Squadron, squadron_id, rows,
        lambda fields: checked(ShipCreate, fields).model_dump(),
        lambda a, values, refused: _add_ships(a, squadron_id, values, refused),
    )  # fmt: skip


def _add_ships(
    a: Act[Squadron],
    squadron_id: int,
    values: dict[int, dict[str, Any]],
    refused: dict[int, dict[str, str]],
) -> list[int]:
    """The checked rows (`values`, by number) added to the act's squadron, unless a row was
    refused (`refused`, by number) or takes a name its side or an earlier row has."""
    squadron, session = a.row, a.session
    names, added = scope_names(session, Ship, side_id=squadron.side_id), set()
    for number, row in values.items():
        if (folded := row["name"].casefold()) in names or folded in added:
            refused[number] = name_refused(_TAKEN, row["name"])
        else:
            added.add(folded)
    if refused:
        raise RowsRefused(dict(sorted(refused.items())))
    # Every column a new ship does not take from its row: a Ship's defaults.
    made = Ship(side_id=squadron.side_id, squadron_id=squadron_id,
                original_squadron_id=squadron_id, **next(iter(values.values())))  # fmt: skip
    # Each ship her own identity, as each Ship made alone gets one (models.identity).
    states = [{**journal.row_state(made), "uid": new_uid(), **row} for row in values.values()]
    ids = insert_named(session, Ship, states, taken=_TAKEN)
    names |= added
    scenario = journal.current_scenario(session, a.campaign_id)
    journal.insert_entries(session, [
        journal.Entry(campaign_id=a.campaign_id, kind=JournalKind.SHIP, ship_id=ship_id,
                      summary=f"Added {state['name']} to {squadron.name}", after=state,
                      scenario=scenario)
        for ship_id, state in zip(ids, states, strict=True)
    ])  # fmt: skip
    return ids


def update_ship(
    factory: SessionFactory,
    *,
    ship_id: int,
    fields: Mapping[str, Any],
    expected_version: int | None = None,
) -> None:
    """Change a ship's data or present state (Structure or Flotation above max refused); a field
    `fields` leaves out keeps its value. The version its form showed: fields or expected_version."""
    with act(factory, Ship, ship_id) as a:
        ship = a.row
        update = edited(ShipUpdate, ship, {"version": expected_version, **fields})
        require_version(ship, update.version, ship.name)
        values = update.model_dump(exclude={"version"})
        edit_row(a, SHIPS, values, ship_id=ship_id, side_id=ship.side_id)


def copy_ship(factory: SessionFactory, *, ship_id: int, name: str) -> int:
    """A sister ship: same data and batteries, fresh (undamaged) state, a new name."""
    name = checked(ShipCreate, {"name": name}).name
    with act(factory, Ship, ship_id) as a:
        source, session = a.row, a.session
        data = source.model_dump(
            exclude=OWN | {"name", "structure_now", "flotation_now", "fire_markers", "sunk",
                           "transferred_turn", "transferred_scenario_id", "original_squadron_id"}
        )  # fmt: skip
        ship = Ship(
            **data,
            name=name,
            structure_now=source.structure_max,
            flotation_now=source.flotation_max,
            original_squadron_id=source.squadron_id,
        )
        session.add(ship)
        flush_named(session, SHIPS, ship)
        summary = f"Copied {source.name} as {name}"
        a.log(JournalKind.SHIP, summary, ship_id=ship.id, after=journal.row_state(ship))
        copy_id = ship.id or 0
        for battery in rows_where(session, Battery, Battery.ship_id == ship_id):
            session.add(Battery(**battery.model_dump(exclude=OWN | {"ship_id"}), ship_id=copy_id))
        return copy_id


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
    with act(factory, Ship, ship_id) as a:
        ship, session = a.row, a.session
        if ship.retired:
            raise InvalidInput({"ship": f"{ship.name} is already retired"})
        unplayed = select(Scenario.id).where(Scenario.status == ScenarioStatus.PLANNED)
        in_one = Participation.ship_id == ship_id, col(Participation.scenario_id).in_(unplayed)
        planned = rows_where(session, Participation, *in_one)
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
            batteries = rows_where(session, Battery, Battery.ship_id == ship_id)
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
        changes = (*changes, *settled.changes)
        a.log(JournalKind.SHIP, summary, ship_id=ship_id, side_id=ship.side_id, changes=changes)
        return summary


def transfer_ship(factory: SessionFactory, *, ship_id: int, to_squadron_id: int) -> str:
    """Move a ship to another squadron of its side, with its own crew (SMR2 §3.2); during a battle
    it is Out of Command until the end of the current game turn (SMR2 §3.4)."""
    with act(factory, Ship, ship_id) as a:
        ship, session = a.row, a.session
        target = get_row(session, Squadron, to_squadron_id)
        if target.side_id != ship.side_id:
            raise InvalidInput({"squadron": "a ship can only join a squadron of its own side"})
        if target.id == ship.squadron_id:
            raise InvalidInput({"squadron": f"{ship.name} is already in {target.name}"})
        if ship.sunk:
            raise InvalidInput({"squadron": f"{ship.name} is sunk and cannot change squadron"})
        # Only a transfer in play is Out of Command: before a battle or between battles the
        # ship simply starts the next one in its new squadron (docs/RULES.md §SMR2).
        playing = journal.scenario_in_play(session, a.campaign_id)
        old_squadron = get_row(session, Squadron, ship.squadron_id)
        settled = losses.leave_squadron(session, ship, how=f"transferred to {target.name}")
        before = journal.row_state(ship)
        command.own_crew(session, ship, old_squadron)
        ship.squadron_id = to_squadron_id
        ship.transferred_scenario_id = playing.id if playing else None
        ship.transferred_turn = playing.turn if playing else None
        summary = f"{ship.name} transferred from {old_squadron.name} to {target.name}"
        if playing is not None:
            summary += f": Out of Command until the end of turn {playing.turn}"
        summary = "; ".join([summary, *settled.notes])
        a.log(
            JournalKind.TRANSFER,
            summary,
            ship_id=ship_id,
            side_id=ship.side_id,
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
    with act(factory, Ship, ship_id) as a:
        ship = a.row
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
            require_declared(errors, ShipBase, fire_markers=count)
        check(errors)
        ship.fire_markers = count
        summary = f"{ship.name}: fire markers {before} -> {count}"
        was, side_id = {"fire_markers": before}, ship.side_id
        a.log_edit(was, JournalKind.FIRE, summary, ship_id=ship_id, side_id=side_id)


def save_battery(
    factory: SessionFactory, *, ship_id: int, battery_id: int | None = None, **fields: Any
) -> int:
    """Add a battery (weapon mount) to a ship, or change one (battery_id given): `fields` are
    BatteryUpdate's: a new one's declared default, an edited one's value, when not given."""
    with act(factory, Ship, ship_id) as a:
        ship = a.row
        battery = (
            get_row(a.session, Battery, battery_id) if battery_id else Battery(ship_id=ship_id)
        )
        if battery.ship_id != ship_id:
            raise InvalidInput({"mount": f"that battery belongs to another ship, not {ship.name}"})
        if battery_id:
            typed = edited(BatteryUpdate, battery, fields, names=())
            require_version(battery, typed.version, f"{ship.name}'s {battery.mount}")
        else:
            typed = checked(BatteryUpdate, fields, names=())
        for key, value in typed.model_dump(exclude={"version"}).items():
            setattr(battery, key, value)
        a.session.add(battery)
        a.session.flush()
        done = "edited" if battery_id else "added"
        said = f"{typed.guns} x {typed.calibre} {typed.mount}"
        a.log(JournalKind.BATTERY, f"{ship.name}: {done} {said}", ship_id=ship_id)
        return battery.id or 0


def delete_battery(factory: SessionFactory, *, battery_id: int) -> None:
    with act(factory, Battery, battery_id) as a:
        battery = a.row
        ship = get_row(a.session, Ship, battery.ship_id)
        removed = f"removed {battery.guns} x {battery.calibre} {battery.mount}"
        a.log(JournalKind.BATTERY, f"{ship.name}: {removed}", ship_id=ship.id)
        a.session.delete(battery)
