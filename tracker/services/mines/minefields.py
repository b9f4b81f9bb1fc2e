"""The minefield ledger's changes: sea boundaries added, minefields sown, dropped from the air,
completed, swept and revealed (RULES.md §Mines; the War at Sea secured and drifting minefields:
RULES.md §Subs ¶12-13). Their drifts are in mines.drifts, the ledger's reading in mines.reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, JournalEntry, Minefield, SeaBoundary, Ship, Side, WasUnit
from tracker.models.kinds import AircraftMission, JournalKind, Layer, MinefieldStatus
from tracker.models.mines import AirDrop as AirDrop  # re-exported: the drop's form
from tracker.models.mines import MinefieldCreate, MinefieldTurn, SeaBoundaryBase
from tracker.rules import swwas
from tracker.rules.dice import roll_text
from tracker.services import acts, journal
from tracker.services.common import act, get_row, rows_where
from tracker.services.errors import InvalidInput, check, require_text
from tracker.services.fields import checked, require_declared, rules
from tracker.services.mines import places
from tracker.services.sealing import side_key

MAX_AREA = rules(SeaBoundaryBase, ("area_a",))[0].max_length or 0  # a sea area's name


def add_boundary(factory: SessionFactory, *, campaign_id: int, area_a: str, area_b: str) -> int:
    """A boundary between two areas of the campaign's map; A|B and B|A are the same one."""
    errors: dict[str, str] = {}
    first = require_text(errors, "area_a", area_a, MAX_AREA)
    second = require_text(errors, "area_b", area_b, MAX_AREA)
    if not errors and first.lower() == second.lower():
        errors["area_b"] = "a boundary lies between two different areas"
    check(errors)
    low, high = sorted((first, second), key=str.lower)
    with act(factory, Campaign, campaign_id) as a:
        for row in rows_where(a.session, SeaBoundary, SeaBoundary.campaign_id == campaign_id):
            if (row.area_a.lower(), row.area_b.lower()) == (low.lower(), high.lower()):
                raise InvalidInput({"area_b": f"the boundary {low} | {high} is already there"})
        row = SeaBoundary(campaign_id=campaign_id, area_a=low, area_b=high)
        a.session.add(row)
        a.session.flush()
        a.log(JournalKind.LEDGER, f"boundary {low} | {high} added")
        return row.id or 0


def _lay(
    session: Session, side: Side, place: dict[str, Any], key: bytes | None, **values: Any
) -> tuple[Minefield, journal.RowChange]:
    """A new minefield of the side on the ledger, its place sealed when it is secret, with the
    change an undo voids: what a sowing and an aerial drop alike put down."""
    field = Minefield(campaign_id=side.campaign_id, side_id=side.id or 0, **values)
    places.store(session, field, {"notes": "", "path": [], **place}, key)
    session.add(field)
    session.flush()
    return field, journal.RowChange("minefield", field.id or 0, {"status": MinefieldStatus.VOID},
                                    {"status": field.status})  # fmt: skip


def sow_minefield(
    factory: SessionFactory,
    *,
    side_id: int,
    laid_by: str,
    boundary_id: int | None = None,
    sector: str = "",
    layer_ship_id: int | None = None,
    layer_unit_id: int | None = None,
    layer_name: str = "",
    turn: int | None = None,
    complete: bool = False,
    drifting: bool = False,
    secret: bool = False,
    notes: str = "",
    passphrase: str | None = None,
) -> int:
    """Start sowing a minefield (or enter one complete) on a boundary or in a sector, by one of the
    side's ships or a War at Sea submarine of its roster (`layer_unit_id`); a submarine sows the
    minefields it loaded one at a time, and no torpedoes meanwhile (RULES.md §Mines)."""
    typed = checked(MinefieldCreate, {
        "laid_by": laid_by, "layer_name": layer_name, "turn": turn, "complete": complete,
        "drifting": drifting, "secret": secret, "notes": notes,
    }, names=("layer_name",))  # fmt: skip
    errors: dict[str, str] = {}
    if typed.laid_by == Layer.AIRCRAFT:
        errors["laid_by"] = "aircraft drop minefields with a roll each: use the aerial drop"
    with session_scope(factory) as session:
        side = get_row(session, Side, side_id)
        campaign_id = side.campaign_id
        sector = places.validated(session, campaign_id, boundary_id, sector, errors)
        layer = _layer(session, side, layer_ship_id, layer_unit_id, errors)
        if layer is not None and "layer" not in errors:
            for key_, why in acts.sowing_refusal(session, layer, typed.laid_by).items():
                errors.setdefault(key_, why)
        if typed.laid_by == Layer.SUBMARINE and layer is None and "layer" not in errors:
            errors["layer"] = "choose the submarine that lays it"
        check(errors)
        key = side_key(session, side_id, passphrase) if secret else None
        scenario_id, turn = places.turn_of(session, campaign_id, turn)
        name = layer.name if layer else typed.layer_name
        place = {"boundary_id": boundary_id, "sector": sector, "layer_name": name,
                 "notes": typed.notes}  # fmt: skip
        field, change = _lay(
            session, side, place, key,
            status=MinefieldStatus.ACTIVE if complete else MinefieldStatus.SOWING,
            laid_by=typed.laid_by, layer_ship_id=layer_ship_id, layer_unit_id=layer_unit_id,
            scenario_id=scenario_id, turn_started=turn, turn_completed=turn if complete else None,
            drifting=drifting, secret=secret,
        )  # fmt: skip
        verb = "laid" if complete else "began sowing"
        summary = (f"{side.name}: {name or 'a ' + laid_by + ' minelayer'} {verb} minefield "
                   f"#{field.id} ({places.label(session, boundary_id, sector)})")  # fmt: skip
        places.journal_laid(session, side, field, summary, key, changes=(change,))
        return field.id or 0


def _layer(
    session: Session, side: Side, ship_id: int | None, unit_id: int | None,
    errors: dict[str, str],
) -> acts.Actor | None:  # fmt: skip
    """The minelayer named: one of the side's own ships, or a unit of its roster."""
    if ship_id is not None and unit_id is not None:
        errors["layer"] = "one minelayer: a ship, or a War at Sea submarine"
        return None
    row: Ship | WasUnit | None = None
    if ship_id is not None:
        row = get_row(session, Ship, ship_id)
        if row.side_id != side.id:
            errors["layer"] = f"{row.name} is not {side.name}'s ship"
    elif unit_id is not None:
        row = get_row(session, WasUnit, unit_id)
        if row.side_id != side.id:
            errors["layer"] = f"{row.name} is not on {side.name}'s roster"
    return acts.actor(row) if row is not None else None


def complete_minefield(
    factory: SessionFactory, *, minefield_id: int, turn: int | None = None,
    version: int | None = None,
) -> str:  # fmt: skip
    """A minefield being sown is complete: it is active, and its layer may use torpedoes."""
    typed = checked(MinefieldTurn, {"turn": turn, "version": version})
    with session_scope(factory) as session:
        field, side = places.field_and_side(session, minefield_id, typed.version)
        if field.status != MinefieldStatus.SOWING:
            raise InvalidInput({"minefield": f"minefield #{field.id} is {field.status}, "
                                "not being sown"})  # fmt: skip
        _, turn = places.turn_of(session, field.campaign_id, turn)
        if turn is not None and field.turn_started is not None and turn < field.turn_started:
            raise InvalidInput({"turn": f"it was begun on turn {field.turn_started}: complete it "
                                "on that turn or later"})  # fmt: skip
        before = journal.row_state(field)
        field.status, field.turn_completed = MinefieldStatus.ACTIVE, turn
        summary = f"{side.name}: minefield #{field.id} complete"
        places.field_change(session, field, side, before, summary)
        return summary


def set_status(
    factory: SessionFactory, *, minefield_id: int, status: str, version: int | None = None
) -> str:
    """Mark a minefield swept or expended (or active again, as a correction)."""
    if status not in (MinefieldStatus.ACTIVE, MinefieldStatus.SWEPT, MinefieldStatus.EXPENDED):
        raise InvalidInput({"status": "must be active, swept or expended"})
    with session_scope(factory) as session:
        field, side = places.field_and_side(session, minefield_id, version)
        if field.status in (MinefieldStatus.SOWING, MinefieldStatus.SCATTERED):
            raise InvalidInput({"status": f"minefield #{field.id} is {field.status}: "
                                "there is nothing to sweep yet"})  # fmt: skip
        if field.status == status:
            raise InvalidInput({"status": f"minefield #{field.id} is already {status}"})
        before = journal.row_state(field)
        field.status = MinefieldStatus(status)
        summary = f"{side.name}: minefield #{field.id} {status}"
        places.field_change(session, field, side, before, summary)
        return summary


def aerial_drop(
    factory: SessionFactory,
    *,
    side_id: int,
    aircraft: str,
    naval_attack: int,
    land_attack: int,
    circled: bool,
    rolls: Sequence[int],
    boundary_id: int | None = None,
    sector: str = "",
    turn: int | None = None,
    drifting: bool = False,
    secret: bool = False,
    passphrase: str | None = None,
) -> list[str]:
    """Aircraft drop minefields, each rolled: 3-6 (circled Naval Attack) or 4-6 takes effect;
    a failed drop is recorded as scattered (RULES.md §Mines, augmenting 19.32)."""
    errors: dict[str, str] = {}
    name = require_text(errors, "aircraft", aircraft, 60)
    require_declared(errors, AirDrop, naval_attack=naval_attack, land_attack=land_attack)
    capacity = 0
    if "naval_attack" not in errors and "land_attack" not in errors:
        capacity = swwas.aircraft_mine_capacity(naval_attack, land_attack)
        if not rolls:
            errors["rolls"] = "roll a d6 for each minefield dropped"
        elif len(rolls) > capacity:
            errors["rolls"] = (f"{name or 'the aircraft'} carries {capacity} minefields (the "
                               f"greater attack factor): at most {capacity} drops")  # fmt: skip
        elif any(not 1 <= roll <= 6 for roll in rolls):
            errors["rolls"] = "a d6 shows 1..6"
    with session_scope(factory) as session:
        side = get_row(session, Side, side_id)
        sector = places.validated(session, side.campaign_id, boundary_id, sector, errors)
        check(errors)
        key = side_key(session, side_id, passphrase) if secret else None
        scenario_id, turn = places.turn_of(session, side.campaign_id, turn)
        dropped = _dropped_this_mission(session, side, name, scenario_id, turn, passphrase)
        if dropped + len(rolls) > capacity:
            left = max(0, capacity - dropped)
            raise InvalidInput({"rolls": f"{name} carries {capacity} minefields a mission (the "
                                f"greater attack factor) and has dropped {dropped} this "
                                f"{_mission_word(session, side)}: "
                                + (f"at most {left} more" if left else "none left")})  # fmt: skip
        results = []
        for roll in rolls:
            works = swwas.aerial_minefield_effective(roll, circled=circled)
            field, change = _lay(
                session, side, {"boundary_id": boundary_id, "sector": sector, "layer_name": name},
                key, status=MinefieldStatus.ACTIVE if works else MinefieldStatus.SCATTERED,
                laid_by=Layer.AIRCRAFT, scenario_id=scenario_id, turn_started=turn,
                turn_completed=turn, drop_roll=roll, drifting=drifting, secret=secret,
            )  # fmt: skip
            need = "3-6" if circled else "4-6"
            result = (f"minefield #{field.id}: {roll_text(roll)} ({need}) "
                      f"{'effective' if works else 'scattered'}")  # fmt: skip
            results.append(result)
            summary = f"{side.name}: {name} dropped {result}"
            places.journal_laid(session, side, field, summary, key, dice={"d6": roll},
                                changes=(change,))  # fmt: skip
        return results


def _mission_word(session: Session, side: Side) -> str:
    campaign = get_row(session, Campaign, side.campaign_id)
    return "scenario" if campaign.aircraft_mission == AircraftMission.SCENARIO else "turn"


def _dropped_this_mission(
    session: Session, side: Side, aircraft: str, scenario_id: int | None, turn: int | None,
    passphrase: str | None,
) -> int:  # fmt: skip
    """How many minefields (effective or scattered) this aircraft dropped on its mission: the
    turn, or the scenario when the campaign says so; between scenarios, the drops with no turn
    since the last close (RULES.md §Mines)."""
    query = select(Minefield).where(
        Minefield.side_id == side.id, Minefield.laid_by == Layer.AIRCRAFT,
        Minefield.status != MinefieldStatus.VOID, Minefield.scenario_id == scenario_id,
    )  # fmt: skip
    if scenario_id is None or _mission_word(session, side) == "turn":
        query = query.where(
            col(Minefield.turn_started).is_(None) if turn is None
            else Minefield.turn_started == turn
        )  # fmt: skip
    if scenario_id is None and turn is None:
        closed = session.exec(
            select(func.max(JournalEntry.at)).where(
                JournalEntry.campaign_id == side.campaign_id,
                JournalEntry.kind == JournalKind.CLOSE)
        ).one()  # fmt: skip
        if closed is not None:
            query = query.where(Minefield.at > closed)
    fields = session.exec(query).all()
    key = None
    if any(field.secret for field in fields):
        key = side_key(session, side.id or 0, passphrase)
    wanted = aircraft.casefold()
    return sum(
        1
        for field in fields
        if str(places.opened(session, field, key).get("layer_name", "")).casefold() == wanted
    )


def reveal(factory: SessionFactory, *, minefield_id: int, passphrase: str | None = None) -> str:
    """The owner reveals a secret minefield: its place and notes become public."""
    with session_scope(factory) as session:
        field, side = places.field_and_side(session, minefield_id)
        if not field.secret:
            raise InvalidInput({"minefield": f"minefield #{field.id} is already revealed"})
        place = places.opened(session, field, side_key(session, side.id or 0, passphrase))
        # The before keeps the sealed note as it is: an undo seals the place again under the
        # passphrase (a passphrase changed later re-seals the journal too: sealing.set_passphrase).
        before = journal.row_state(field)
        field.secret = False
        places.store(session, field, place, None)
        where = places.label(session, field.boundary_id, field.sector)
        summary = f"{side.name}: minefield #{field.id} revealed ({where})"
        places.field_change(session, field, side, before, summary)
        return summary
