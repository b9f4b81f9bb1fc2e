"""The minefield ledger: sea boundaries, minefields sown, dropped, drifting and revealed.

Second World War at Sea mine-warfare variant (RULES.md §Mines) and the War at Sea
secured and drifting minefields (RULES.md §Subs ¶12-13). A secret minefield keeps its place and
notes in a sealed note, under the side's passphrase like a submarine marker's.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    JournalEntry,
    Minefield,
    SeaBoundary,
    Ship,
    Side,
    WasUnit,
)
from tracker.models.fields import read
from tracker.models.kinds import (
    AircraftMission,
    JournalKind,
    Layer,
    MinefieldStatus,
    ScenarioStatus,
)
from tracker.models.mines import AirDrop as AirDrop  # re-exported: the drop's form
from tracker.models.mines import MinefieldCreate, MinefieldTurn, SeaBoundaryBase
from tracker.models.mines import MinefieldRead as MinefieldView
from tracker.models.mines import SeaBoundaryRead as BoundaryView
from tracker.rules import swwas
from tracker.services import acts, journal, secrets, visibility
from tracker.services.common import beyond_ids, get_row, require_version
from tracker.services.errors import (
    InvalidInput,
    check,
    require_text,
)
from tracker.services.fields import checked, require_declared, rules
from tracker.services.mines.counters import (
    CounterView,
    _counter_view,
    _laid_by_ships,
)
from tracker.services.roster import side_key

LIVE = (MinefieldStatus.SOWING, MinefieldStatus.ACTIVE)  # minefields that are on the map
MAX_AREA = rules(SeaBoundaryBase, ("area_a",))[0].max_length or 0  # a sea area's name
MAX_TURN = rules(MinefieldTurn, ("turn",))[0].high  # as the ledger's forms take a turn


@dataclass(frozen=True)
class Ledger:
    campaign_id: int
    owner_side_id: int | None
    minefields: tuple[MinefieldView, ...]
    boundaries: tuple[BoundaryView, ...]
    counters: tuple[CounterView, ...]
    turn: int | None
    owner_idle_seconds: int = 60  # the campaign's option: the owner view hides after this idle


# --- boundaries --------------------------------------------------------------------------


def add_boundary(factory: SessionFactory, *, campaign_id: int, area_a: str, area_b: str) -> int:
    """A boundary between two areas of the campaign's map; A|B and B|A are the same one."""
    errors: dict[str, str] = {}
    first = require_text(errors, "area_a", area_a, MAX_AREA)
    second = require_text(errors, "area_b", area_b, MAX_AREA)
    if not errors and first.lower() == second.lower():
        errors["area_b"] = "a boundary lies between two different areas"
    check(errors)
    low, high = sorted((first, second), key=str.lower)
    with session_scope(factory) as session:
        get_row(session, Campaign, campaign_id)
        for row in session.exec(select(SeaBoundary).where(
                SeaBoundary.campaign_id == campaign_id)).all():  # fmt: skip
            if (row.area_a.lower(), row.area_b.lower()) == (low.lower(), high.lower()):
                raise InvalidInput({"area_b": f"the boundary {low} | {high} is already there"})
        row = SeaBoundary(campaign_id=campaign_id, area_a=low, area_b=high)
        session.add(row)
        session.flush()
        journal.append(session, campaign_id=campaign_id, kind=JournalKind.LEDGER,
                       summary=f"boundary {low} | {high} added")  # fmt: skip
        return row.id or 0


def _boundary_rows(session: Session, campaign_id: int) -> Sequence[SeaBoundary]:
    return session.exec(
        select(SeaBoundary)
        .where(SeaBoundary.campaign_id == campaign_id)
        .order_by(col(SeaBoundary.area_a), col(SeaBoundary.area_b))
    ).all()


def _boundary_views(
    session: Session, campaign_id: int, rows: Sequence[SeaBoundary] | None = None
) -> tuple[BoundaryView, ...]:
    """`rows` are the campaign's boundaries in order, when the caller loaded them already."""
    rows = _boundary_rows(session, campaign_id) if rows is None else rows
    return tuple(read(BoundaryView, row) for row in rows)


# --- minefields --------------------------------------------------------------------------


def _place_label(
    session: Session, boundary_id: int | None, sector: str,
    boundaries: dict[int, SeaBoundary] | None = None,
) -> str:  # fmt: skip
    """`boundaries` holds the campaign's boundaries by id, when the caller loaded them once."""
    if boundary_id is not None:
        boundary = (boundaries or {}).get(boundary_id) or session.get(SeaBoundary, boundary_id)
        return f"{boundary.area_a} | {boundary.area_b}" if boundary else "?"
    return f"sector {sector}" if sector else "?"


def _place(session: Session, field: Minefield, key: bytes | None) -> dict[str, Any]:
    """A minefield's place, notes and path, opened from the sealed note when it is secret.

    A sealed note names its boundary by its two areas, not by a row id, so it stays right in a
    campaign exported and imported again (the seal cannot be rewritten without the passphrase).
    """
    if not field.secret:
        return {"boundary_id": field.boundary_id, "sector": field.sector, "notes": field.notes,
                "path": json.loads(field.path), "layer_name": field.layer_name}  # fmt: skip
    place = secrets.open_note(field.sealed, key)
    areas = place.pop("boundary", None)
    place.setdefault("boundary_id", None)
    if areas:
        boundary = session.exec(select(SeaBoundary).where(
            SeaBoundary.campaign_id == field.campaign_id, SeaBoundary.area_a == areas[0],
            SeaBoundary.area_b == areas[1])).first()  # fmt: skip
        place["boundary_id"] = boundary.id if boundary else None
    return place


def _store_place(
    session: Session, field: Minefield, place: dict[str, Any], key: bytes | None
) -> None:
    if field.secret:
        sealed = {key_: value for key_, value in place.items() if key_ != "boundary_id"}
        boundary = session.get(SeaBoundary, place["boundary_id"]) if place["boundary_id"] else None
        sealed["boundary"] = [boundary.area_a, boundary.area_b] if boundary else None
        field.sealed = secrets.seal_note(sealed, key)
        field.boundary_id, field.sector, field.notes, field.path = None, "", "", "[]"
        field.layer_name = ""
    else:
        field.sealed = ""
        field.boundary_id, field.sector = place["boundary_id"], place["sector"]
        field.notes, field.path = place["notes"], json.dumps(place["path"])
        field.layer_name = place.get("layer_name", "")


def _validate_place(
    session: Session, campaign_id: int, boundary_id: int | None, sector: str,
    errors: dict[str, str],
) -> str:  # fmt: skip
    sector = sector.strip()
    if (boundary_id is None) == (not sector):
        errors["boundary"] = "give a boundary (Second World War at Sea) or a sector (War at " \
            "Sea), not both"  # fmt: skip
    elif boundary_id is not None:
        boundary = None if beyond_ids(boundary_id) else session.get(SeaBoundary, boundary_id)
        if boundary is None or boundary.campaign_id != campaign_id:
            errors["boundary"] = "that boundary is not on this campaign's map: add it first"
    try:
        checked(MinefieldCreate, {"sector": sector}, names=("sector",))
    except InvalidInput as exc:
        errors.update(exc.errors)
    return sector


def _turn(session: Session, campaign_id: int, turn: int | None) -> tuple[int | None, int | None]:
    """The scenario in play and the turn: the one given (not beyond the current turn of a
    scenario in play), else the current one; None between scenarios when none is given."""
    checked(MinefieldTurn, {"turn": turn})
    scenario = journal.current_scenario(session, campaign_id)
    playing = scenario if scenario and scenario.status == ScenarioStatus.IN_PLAY else None
    if playing is not None and turn is not None and turn > playing.turn:
        raise InvalidInput({"turn": f"{playing.title} is at turn {playing.turn}: a turn from 1 "
                            f"to {playing.turn}, or blank for this one"})  # fmt: skip
    return (playing.id if playing else None), (turn if turn is not None else
                                               (playing.turn if playing else None))  # fmt: skip


def _count_here(session: Session, field: Minefield) -> int:
    """The active public minefields across the same boundary or in the same sector, at least 1:
    secret ones and ones still being sown are left out (RULES.md §Mines, a task force)."""
    if field.boundary_id is None and not field.sector:
        return 1
    query = select(Minefield).where(
        Minefield.campaign_id == field.campaign_id, Minefield.status == MinefieldStatus.ACTIVE,
        col(Minefield.secret).is_(False),
    )  # fmt: skip
    if field.boundary_id is not None:
        query = query.where(Minefield.boundary_id == field.boundary_id)
    else:
        query = query.where(Minefield.sector == field.sector)
    return max(1, len(session.exec(query).all()))


def _new_field_change(field: Minefield) -> journal.RowChange:
    return journal.RowChange("minefield", field.id or 0, {"status": MinefieldStatus.VOID},
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
    """Start sowing a minefield (or enter one already complete) on a boundary or in a sector.

    A submarine lays the minefields it loaded in place of torpedo factors, one at a time; it
    makes no torpedo attack until the one it is sowing is complete (RULES.md §Mines). The
    minelayer is one of the owner's own ships, or a War at Sea submarine of its roster
    (`layer_unit_id`: named, its torpedo factors not counted, as War at Sea keeps none).
    """
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
        sector = _validate_place(session, campaign_id, boundary_id, sector, errors)
        layer = _layer(session, side, layer_ship_id, layer_unit_id, errors)
        if layer is not None and "layer" not in errors:
            for key_, why in acts.sowing_refusal(session, layer, typed.laid_by).items():
                errors.setdefault(key_, why)
        if typed.laid_by == Layer.SUBMARINE and layer is None and "layer" not in errors:
            errors["layer"] = "choose the submarine that lays it"
        check(errors)
        key = side_key(session, side_id, passphrase) if secret else None
        scenario_id, turn = _turn(session, campaign_id, turn)
        field = Minefield(
            campaign_id=campaign_id, side_id=side_id,
            status=MinefieldStatus.ACTIVE if complete else MinefieldStatus.SOWING,
            laid_by=typed.laid_by, layer_ship_id=layer_ship_id, layer_unit_id=layer_unit_id,
            scenario_id=scenario_id,
            turn_started=turn, turn_completed=turn if complete else None, drifting=drifting,
            secret=secret,
        )  # fmt: skip
        name = layer.name if layer else typed.layer_name
        place: dict[str, Any] = {"boundary_id": boundary_id, "sector": sector, "layer_name": name,
                 "notes": typed.notes, "path": []}  # fmt: skip
        _store_place(session, field, place, key)
        session.add(field)
        session.flush()
        verb = "laid" if complete else "began sowing"
        summary = (f"{side.name}: {name or 'a ' + laid_by + ' minelayer'} {verb} minefield "
                   f"#{field.id} ({_place_label(session, boundary_id, sector)})")  # fmt: skip
        journal.append(
            session, campaign_id=campaign_id, kind=JournalKind.MINEFIELD, side_id=side_id,
            summary=_secret_summary(side, field, summary) if secret else summary,
            changes=(_new_field_change(field),),
            sealed=visibility.sealed_detail(key, summary=summary) if secret else None,
        )  # fmt: skip
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


def _secret_summary(side: Side, field: Minefield, summary: str) -> str:
    """What the journal says in clear of a secret minefield's change: its number, no more
    (its place, minelayer, way of laying, drift and dice are sealed: docs/RULES.md §Secrets)."""
    return f"{side.name}: secret minefield #{field.id} ({field.status})"


def _field_and_side(
    session: Session, minefield_id: int, version: int | None = None
) -> tuple[Minefield, Side]:
    """The minefield and its owner; `version`, the one the player's form showed, refuses a
    form another player's change has made stale."""
    field = get_row(session, Minefield, minefield_id)
    if field.status == MinefieldStatus.VOID:
        raise InvalidInput({"minefield": f"minefield #{minefield_id} was undone"})
    require_version(field, version, f"Minefield #{minefield_id}")
    return field, get_row(session, Side, field.side_id)


def _field_change(
    session: Session, field: Minefield, side: Side, before: dict[str, Any], summary: str,
    dice: dict[str, Any] | None = None,
) -> None:  # fmt: skip
    change = journal.row_change("minefield", field.id, before, journal.row_state(field))
    journal.append(
        session, campaign_id=field.campaign_id, kind=JournalKind.MINEFIELD, side_id=side.id,
        summary=summary, dice=dice, changes=(change,),
    )  # fmt: skip


def complete_minefield(
    factory: SessionFactory, *, minefield_id: int, turn: int | None = None,
    version: int | None = None,
) -> str:  # fmt: skip
    """A minefield being sown is complete: it is active, and its layer may use torpedoes.
    `version`, the one the player's form showed, refuses a form another change made stale."""
    typed = checked(MinefieldTurn, {"turn": turn, "version": version})
    with session_scope(factory) as session:
        field, side = _field_and_side(session, minefield_id, typed.version)
        if field.status != MinefieldStatus.SOWING:
            raise InvalidInput({"minefield": f"minefield #{field.id} is {field.status}, "
                                "not being sown"})  # fmt: skip
        _, turn = _turn(session, field.campaign_id, turn)
        if turn is not None and field.turn_started is not None and turn < field.turn_started:
            raise InvalidInput({"turn": f"it was begun on turn {field.turn_started}: complete it "
                                "on that turn or later"})  # fmt: skip
        before = journal.row_state(field)
        field.status, field.turn_completed = MinefieldStatus.ACTIVE, turn
        summary = f"{side.name}: minefield #{field.id} complete"
        _field_change(session, field, side, before, summary)
        return summary


def set_status(
    factory: SessionFactory, *, minefield_id: int, status: str, version: int | None = None
) -> str:
    """Mark a minefield swept or expended (or active again, as a correction); `version`, the
    one the player's form showed, refuses a form another player's change has made stale."""
    if status not in (MinefieldStatus.ACTIVE, MinefieldStatus.SWEPT, MinefieldStatus.EXPENDED):
        raise InvalidInput({"status": "must be active, swept or expended"})
    with session_scope(factory) as session:
        field, side = _field_and_side(session, minefield_id, version)
        if field.status in (MinefieldStatus.SOWING, MinefieldStatus.SCATTERED):
            raise InvalidInput({"status": f"minefield #{field.id} is {field.status}: "
                                "there is nothing to sweep yet"})  # fmt: skip
        if field.status == status:
            raise InvalidInput({"status": f"minefield #{field.id} is already {status}"})
        before = journal.row_state(field)
        field.status = MinefieldStatus(status)
        summary = f"{side.name}: minefield #{field.id} {status}"
        _field_change(session, field, side, before, summary)
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
    require_declared(errors, AirDrop, "naval_attack", naval_attack)
    require_declared(errors, AirDrop, "land_attack", land_attack)
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
        sector = _validate_place(session, side.campaign_id, boundary_id, sector, errors)
        check(errors)
        key = side_key(session, side_id, passphrase) if secret else None
        scenario_id, turn = _turn(session, side.campaign_id, turn)
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
            field = Minefield(
                campaign_id=side.campaign_id, side_id=side_id,
                status=MinefieldStatus.ACTIVE if works else MinefieldStatus.SCATTERED,
                laid_by=Layer.AIRCRAFT,
                scenario_id=scenario_id, turn_started=turn,
                turn_completed=turn, drop_roll=roll, drifting=drifting, secret=secret,
            )  # fmt: skip
            _store_place(session, field, {"boundary_id": boundary_id, "sector": sector, "notes": "",
                                 "path": [], "layer_name": name}, key)  # fmt: skip
            session.add(field)
            session.flush()
            need = "3-6" if circled else "4-6"
            result = (f"minefield #{field.id}: d6 {roll} ({need}) "
                      f"{'effective' if works else 'scattered'}")  # fmt: skip
            results.append(result)
            summary = f"{side.name}: {name} dropped {result}"
            journal.append(
                session, campaign_id=side.campaign_id, kind=JournalKind.MINEFIELD, side_id=side_id,
                summary=_secret_summary(side, field, summary) if secret else summary,
                dice=None if secret else {"d6": roll}, changes=(_new_field_change(field),),
                sealed=visibility.sealed_detail(key, summary=summary, dice={"d6": roll})
                if secret else None,
            )  # fmt: skip
        return results


def _mission_word(session: Session, side: Side) -> str:
    campaign = get_row(session, Campaign, side.campaign_id)
    return "scenario" if campaign.aircraft_mission == AircraftMission.SCENARIO else "turn"


def _dropped_this_mission(
    session: Session, side: Side, aircraft: str, scenario_id: int | None, turn: int | None,
    passphrase: str | None,
) -> int:  # fmt: skip
    """How many minefields (effective or scattered) this aircraft has dropped on its mission.

    Capacity is per aircraft per mission (RULES.md §Mines): a mission is the game turn, or the whole
    scenario when the campaign says so; between scenarios, the drops since the last scenario
    closed with no turn given are one mission (docs/RULES.md §Mines).
    """
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
        if str(_place(session, field, key).get("layer_name", "")).casefold() == wanted
    )


def reveal(factory: SessionFactory, *, minefield_id: int, passphrase: str | None = None) -> str:
    """The owner reveals a secret minefield: its place and notes become public."""
    with session_scope(factory) as session:
        field, side = _field_and_side(session, minefield_id)
        if not field.secret:
            raise InvalidInput({"minefield": f"minefield #{field.id} is already revealed"})
        place = _place(session, field, side_key(session, side.id or 0, passphrase))
        # The before keeps the sealed note as it is: an undo seals the place again under the
        # passphrase (a passphrase changed later re-seals the journal too: roster.set_passphrase).
        before = journal.row_state(field)
        field.secret = False
        _store_place(session, field, place, None)
        where = _place_label(session, field.boundary_id, field.sector)
        summary = f"{side.name}: minefield #{field.id} revealed ({where})"
        _field_change(session, field, side, before, summary)
        return summary


# The ledger line's fields, looked up once: pydantic's model_fields is a costly property.
_LINE_FIELDS = frozenset(MinefieldView.model_fields)


def _field_view(
    session: Session, field: Minefield, side: Side, key: bytes | None, readable: bool,
    boundaries: dict[int, SeaBoundary] | None = None,
) -> MinefieldView:  # fmt: skip
    """The ledger line as the viewer sees it. Every column comes through visibility, none
    straight from the row: a secret one reads its placeholder unless the viewer may see it."""
    hidden = field.secret and not readable
    viewer = visibility.Viewer.OWNER if readable else visibility.Viewer.OPPONENT
    seen = visibility.row_as_seen("minefield", journal.row_state(field), viewer=viewer,
                                  own=readable, revealed=not field.secret)  # fmt: skip
    place = ({"boundary_id": None, "sector": "", "notes": "", "path": [], "layer_name": ""}
             if hidden else _place(session, field, key))  # fmt: skip
    path = tuple(f"turn {step['turn'] or '?'}: {step['from']} → {step['to']}"
                 + (f" (d6 {step['d6']})" if step.get("d6") else "")
                 for step in place["path"])  # fmt: skip
    shown = {key_: value for key_, value in seen.items() if key_ in _LINE_FIELDS}
    shown.update(
        id=field.id or 0, version=field.version, side_name=side.name,
        where="secret" if hidden else _place_label(session, place["boundary_id"],
                                                   place["sector"], boundaries),
        boundary_id=place["boundary_id"], sector=place["sector"], notes=place["notes"],
        layer_name=place.get("layer_name", ""), path=path, hidden=hidden,
    )  # fmt: skip
    return read(MinefieldView, field, **shown)


def _with_counts(views: list[MinefieldView]) -> list[MinefieldView]:
    """Each readable minefield with the count of active ones the viewer can place beside it:
    public ones, and in the owner's view the owner's secret ones too (RULES.md §Mines)."""
    places = Counter(
        (view.boundary_id, view.sector) for view in views
        if not view.hidden and view.status == MinefieldStatus.ACTIVE
    )  # fmt: skip
    return [
        view if view.hidden else view.model_copy(
            update={"count_here": max(1, places[(view.boundary_id, view.sector)])})
        for view in views
    ]  # fmt: skip


def ledger(
    factory: SessionFactory,
    *,
    campaign_id: int,
    owner_side_id: int | None = None,
    passphrase: str | None = None,
) -> Ledger:
    """The campaign's minefields and ships' counters. Secret minefields show only their owner,
    status and turns, except in the owner's view (with the passphrase when the side has one)."""
    with session_scope(factory) as session:
        campaign = get_row(session, Campaign, campaign_id)
        key = side_key(session, owner_side_id, passphrase) if owner_side_id else None
        sides = {side.id: side for side in session.exec(
            select(Side).where(Side.campaign_id == campaign_id)).all()}  # fmt: skip
        fields = session.exec(
            select(Minefield)
            .where(Minefield.campaign_id == campaign_id, Minefield.status != MinefieldStatus.VOID)
            .order_by(col(Minefield.id))
        ).all()
        # Loaded once here rather than one query per minefield and per ship.
        boundaries = {row.id or 0: row for row in _boundary_rows(session, campaign_id)}
        views = [
            _field_view(session, field, sides[field.side_id],
                        key if field.side_id == owner_side_id else None,
                        field.side_id == owner_side_id, boundaries)
            for field in fields
        ]  # fmt: skip
        views = _with_counts(views)
        ships = session.exec(
            select(Ship)
            .where(col(Ship.side_id).in_(list(sides)))
            .where((Ship.counter_size != "") | (Ship.fuel_full + Ship.fuel_empty
                                                + Ship.fuel_lost > 0))
            .order_by(col(Ship.side_id), col(Ship.name))
        ).all()  # fmt: skip
        scenario = journal.current_scenario(session, campaign_id)
        laid_by = _laid_by_ships(session, list(sides))
        return Ledger(
            campaign_id=campaign_id, owner_side_id=owner_side_id, minefields=tuple(views),
            boundaries=_boundary_views(session, campaign_id, list(boundaries.values())),
            counters=tuple(_counter_view(
                session, ship, sides[ship.side_id], laid_by,
                visibility.Viewer.OWNER if ship.side_id == owner_side_id
                else visibility.Viewer.OPPONENT) for ship in ships),
            turn=scenario.turn if scenario and scenario.status == ScenarioStatus.IN_PLAY else None,
            owner_idle_seconds=campaign.owner_idle_seconds,
        )  # fmt: skip
