"""The minefield ledger, ships' counters and fuel, and a task force entering a minefield.

Second World War at Sea mine-warfare variant (RULES.md §Mines) and the War at Sea
secured and drifting minefields (RULES.md §Subs ¶12-13). A secret minefield keeps its place and
notes in a sealed note, under the side's passphrase like a submarine marker's.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    JournalEntry,
    MineCheck,
    MineCheckShip,
    Minefield,
    MineTableRow,
    SeaBoundary,
    Ship,
    Side,
)
from tracker.models.mines import APPLIES_TO, COUNTER_SIZES, LAYERS, MINEFIELD_STATUSES
from tracker.rules import mine_check, swwas
from tracker.services import journal, secrets, visibility
from tracker.services.common import beyond_ids, get_row
from tracker.services.errors import (
    MAX_INT,
    InvalidInput,
    check,
    require_plain,
    require_range,
    require_text,
)
from tracker.services.roster import side_key

__all__ = [
    "APPLIES_TO",
    "COUNTER_SIZES",
    "LAYERS",
    "MINEFIELD_STATUSES",
]

LIVE = ("sowing", "active")  # minefields that are on the map
MAX_AREA = 40
MAX_TURN = 999  # as the ledger's forms take a turn


# --- views -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CounterView:
    """A ship's Second World War at Sea counter values and what mines have done to it."""

    ship_id: int
    name: str
    side_id: int
    side_name: str
    counter_size: str
    speed_rating: int
    speed_lost: int
    torpedo_factors: int
    mines_loaded: int
    mines_laid: int
    sowing_id: int | None
    gunnery_lost: int
    hull_boxes: int
    hull_damage: int
    crippled: bool
    sunk: bool
    fuel: swwas.Fuel
    # The opponent's and the umpire's view of a ship with torpedo factors: how many it gave
    # over to mines is its side's secret (mines, laid, sowing and torpedoes left read 0).
    mines_hidden: bool = False

    @property
    def torpedoes_left(self) -> int:
        """Torpedo factors not given over to mines (RULES.md §Mines: one per minefield loaded)."""
        return swwas.sub_torpedo_factors_left(self.torpedo_factors, self.mines_loaded)

    @property
    def mines_aboard(self) -> int:
        return max(0, self.mines_loaded - self.mines_laid)


@dataclass(frozen=True)
class BoundaryView:
    id: int
    area_a: str
    area_b: str

    @property
    def label(self) -> str:
        return f"{self.area_a} | {self.area_b}"


@dataclass(frozen=True)
class MinefieldView:
    """One ledger line; `hidden` when it is secret and the viewer may not read its place."""

    id: int
    side_id: int
    side_name: str
    where: str
    boundary_id: int | None
    sector: str
    count_here: int
    status: str
    laid_by: str
    layer: str
    turn_started: int | None
    turn_completed: int | None
    drop_roll: int | None
    drifting: bool
    secret: bool
    hidden: bool
    notes: str
    path: tuple[str, ...]


@dataclass(frozen=True)
class Ledger:
    campaign_id: int
    owner_side_id: int | None
    minefields: tuple[MinefieldView, ...]
    boundaries: tuple[BoundaryView, ...]
    counters: tuple[CounterView, ...]
    turn: int | None
    owner_idle_seconds: int = 60  # the campaign's option: the owner view hides after this idle


@dataclass(frozen=True)
class MineRowView:
    id: int
    low: int
    high: int
    applies_to: str
    effects: str
    note: str


@dataclass(frozen=True)
class MineTable:
    rows: tuple[MineRowView, ...]
    gaps: tuple[str, ...]


@dataclass(frozen=True)
class DrawView:
    ship_id: int
    name: str
    cup: str
    draw_no: int
    drawn: bool
    roll: int | None
    drm: int
    effects: str
    struck: bool
    fuel: swwas.Fuel  # the ship's fuel now, so the check shows what the mines took

    @property
    def modified(self) -> int | None:
        return None if self.roll is None else self.roll + self.drm


@dataclass(frozen=True)
class CheckView:
    """A task force's mine check as it stands: the cups, the draws so far, the next ship."""

    id: int
    minefield: str
    minefield_id: int
    minefields: int
    speed: int
    leaving_board: bool
    drm: int
    first_cup: str
    rule: str
    status: str
    size: int
    halt_at: int
    draws: tuple[DrawView, ...]
    left: dict[str, int]
    next: DrawView | None
    message: str

    @property
    def struck(self) -> int:
        return sum(1 for draw in self.draws if draw.drawn and draw.struck)

    @property
    def drawn(self) -> int:
        return sum(1 for draw in self.draws if draw.drawn)


# --- counters and fuel -------------------------------------------------------------------


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _fuel(ship: Ship) -> swwas.Fuel:
    return swwas.Fuel(full=ship.fuel_full, empty=ship.fuel_empty, lost=ship.fuel_lost)


def _set_fuel(ship: Ship, fuel: swwas.Fuel) -> None:
    ship.fuel_full, ship.fuel_empty, ship.fuel_lost = fuel.full, fuel.empty, fuel.lost


def _laid_by(session: Session, ship_id: int) -> list[Minefield]:
    """The minefields a ship laid (not undone): all a counter needs of it."""
    return list(
        session.exec(
            select(Minefield)
            .where(Minefield.layer_ship_id == ship_id, Minefield.status != "void")
            .order_by(col(Minefield.id))
        ).all()
    )


def _laid_by_ships(session: Session, side_ids: Sequence[int | None]) -> dict[int, list[Minefield]]:
    """What _laid_by gives, for every ship of these sides at once (a ledger has many ships)."""
    laid: dict[int, list[Minefield]] = {}
    for field in session.exec(
        select(Minefield)
        .join(Ship, col(Ship.id) == col(Minefield.layer_ship_id))
        .where(col(Ship.side_id).in_(side_ids), Minefield.status != "void")
        .order_by(col(Minefield.id))
    ).all():  # fmt: skip
        laid.setdefault(field.layer_ship_id or 0, []).append(field)
    return laid


def _counter_view(
    session: Session, ship: Ship, side: Side, laid_by: dict[int, list[Minefield]] | None = None,
    viewer: visibility.Viewer = visibility.Viewer.OWNER,
) -> CounterView:  # fmt: skip
    """`laid_by` holds what _laid_by_ships found, when the caller loaded it for many ships;
    `viewer` is who looks: the opponent and the umpire see no minelayer's secret."""
    laid = _laid_by(session, ship.id or 0) if laid_by is None else laid_by.get(ship.id or 0, [])

    # Only a submarine's sowing stops its torpedo attacks; a surface minelayer sowing may still
    # make them (RULES.md §Mines).
    def sub_sowing(fields: list[Minefield]) -> int | None:
        return next((field.id for field in fields if field.status == "sowing"
                     and field.laid_by == "submarine"), None)  # fmt: skip

    if viewer is not visibility.Viewer.OWNER and ship.torpedo_factors:
        # Only public minefields count; the mines aboard read as the placeholder.
        laid = [field for field in laid if not field.secret]
        shown = visibility.shown("ship", "mines_loaded", ship.mines_loaded, viewer=viewer,
                                 own=False, revealed=False)  # fmt: skip
        if shown is None:
            return replace(_counter_view(session, ship, side, {ship.id or 0: []}), mines_loaded=0,
                           sowing_id=sub_sowing(laid), mines_hidden=True)  # fmt: skip
    sowing = sub_sowing(laid)
    return CounterView(
        ship_id=ship.id or 0, name=ship.name, side_id=side.id or 0, side_name=side.name,
        counter_size=ship.counter_size, speed_rating=ship.speed_rating,
        speed_lost=ship.speed_lost, torpedo_factors=ship.torpedo_factors,
        mines_loaded=ship.mines_loaded,
        mines_laid=sum(1 for field in laid if field.laid_by == "submarine"),
        sowing_id=sowing, gunnery_lost=ship.gunnery_lost, hull_boxes=ship.hull_boxes,
        hull_damage=ship.hull_damage, crippled=ship.crippled, sunk=ship.sunk, fuel=_fuel(ship),
    )  # fmt: skip


def counter(
    factory: SessionFactory, *, ship_id: int, viewer: visibility.Viewer = visibility.Viewer.OWNER
) -> CounterView:
    """A ship's counter as `viewer` sees it (docs/RULES.md §Secrets)."""
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        return _counter_view(session, ship, get_row(session, Side, ship.side_id), viewer=viewer)


def _ship_and_campaign(session: Session, ship_id: int) -> tuple[Ship, Side, Campaign]:
    ship = get_row(session, Ship, ship_id)
    side = get_row(session, Side, ship.side_id)
    return ship, side, get_row(session, Campaign, side.campaign_id)


def _journal_ship(
    session: Session, ship: Ship, side: Side, before: dict[str, Any], kind: str, summary: str,
    dice: dict[str, Any] | None = None, extra: tuple[journal.RowChange, ...] = (),
) -> None:  # fmt: skip
    change = journal.row_change("ship", ship.id, before, journal.row_state(ship))
    journal.append(
        session, campaign_id=side.campaign_id, kind=kind, ship_id=ship.id, side_id=side.id,
        summary=summary, dice=dice, changes=(change, *extra),
    )  # fmt: skip


def save_counter(
    factory: SessionFactory,
    *,
    ship_id: int,
    counter_size: str,
    speed_rating: int,
    torpedo_factors: int = 0,
    mines_loaded: int = 0,
    hull_boxes: int = 0,
    fuel_full: int = 0,
    fuel_empty: int = 0,
    speed_lost: int | None = None,
    gunnery_lost: int | None = None,
    hull_damage: int | None = None,
    crippled: bool | None = None,
) -> str:
    """Enter a ship's counter values; the size is the player's, never derived (RULES.md §Mines).

    The damage mines did (speed and gunnery lost, hull boxes hit, crippled) is kept unless given:
    giving it is how a repair or a correction is entered (the repair rules are the group's).
    """
    errors: dict[str, str] = {}
    for field, amount, high in (("speed_lost", speed_lost, speed_rating),
                                ("gunnery_lost", gunnery_lost, 99),
                                ("hull_damage", hull_damage, hull_boxes or 99)):  # fmt: skip
        if amount is not None:
            require_range(errors, field, amount, 0, high)
    if counter_size not in ("", *COUNTER_SIZES):
        errors["counter_size"] = "must be long or small (as printed on the counter)"
    for field, value, high in (
        ("speed_rating", speed_rating, 20), ("torpedo_factors", torpedo_factors, 99),
        ("mines_loaded", mines_loaded, 99), ("hull_boxes", hull_boxes, 99),
        ("fuel_full", fuel_full, 99), ("fuel_empty", fuel_empty, 99),
    ):  # fmt: skip
        require_range(errors, field, value, 0, high)
    if "mines_loaded" not in errors and mines_loaded > torpedo_factors:
        errors["mines_loaded"] = (
            f"each minefield takes the place of a torpedo factor: at most {torpedo_factors}"
        )
    check(errors)
    with session_scope(factory) as session:
        ship, side, _ = _ship_and_campaign(session, ship_id)
        laid = sum(1 for field in _laid_by(session, ship_id) if field.laid_by == "submarine")
        if mines_loaded < laid:
            raise InvalidInput(
                {"mines_loaded": f"{ship.name} has already laid {laid}: at least {laid}"}
            )
        before = journal.row_state(ship)
        ship.counter_size, ship.speed_rating = counter_size, speed_rating
        ship.torpedo_factors, ship.mines_loaded = torpedo_factors, mines_loaded
        ship.hull_boxes, ship.fuel_full, ship.fuel_empty = hull_boxes, fuel_full, fuel_empty
        ship.speed_lost = min(ship.speed_lost if speed_lost is None else speed_lost, speed_rating)
        ship.gunnery_lost = ship.gunnery_lost if gunnery_lost is None else gunnery_lost
        hits = ship.hull_damage if hull_damage is None else hull_damage
        ship.hull_damage = min(hits, hull_boxes) if hull_boxes else hits
        ship.crippled = ship.crippled if crippled is None else crippled
        summary = f"{ship.name}: counter {counter_size or '(no size)'}, speed {speed_rating}, " \
            f"fuel {fuel_full} full {fuel_empty} empty"  # fmt: skip
        kind = "counter"
        if ship.fuel_lost and fuel_full > before["fuel_full"]:
            # Lost factors refuel only in a friendly port (RULES.md §Mines): more full fuel beside
            # them is a correction the player may make, said and journaled as one.
            kind = "correction"
            summary += (f"; correction: full fuel {before['fuel_full']} -> {fuel_full} while "
                        f"{_n(ship.fuel_lost, 'factor')} lost to mines stay lost, bypassing "
                        "'refuel lost factors only in a friendly port'")  # fmt: skip
        _journal_ship(session, ship, side, before, kind, summary)
        return summary


def _afloat(session: Session, ship_id: int, field: str) -> tuple[Ship, Side]:
    """The ship and its side; a sunk ship burns no fuel and fires no torpedoes."""
    ship, side, _ = _ship_and_campaign(session, ship_id)
    if ship.sunk:
        raise InvalidInput({field: f"{ship.name} is sunk"})
    return ship, side


def use_fuel(factory: SessionFactory, *, ship_id: int, factors: int) -> str:
    """Ordinary fuel use, entered by the player: full factors become empty."""
    with session_scope(factory) as session:
        ship, side = _afloat(session, ship_id, "factors")
        if not 1 <= factors <= ship.fuel_full:
            raise InvalidInput(
                {"factors": f"{ship.name} has {ship.fuel_full} full fuel factors: use 1.."
                 f"{ship.fuel_full}" if ship.fuel_full else f"{ship.name} has no full fuel"}
            )  # fmt: skip
        before = journal.row_state(ship)
        ship.fuel_full -= factors
        ship.fuel_empty += factors
        summary = f"{ship.name} used {factors} fuel ({ship.fuel_full} full left)"
        _journal_ship(session, ship, side, before, "fuel", summary)
        return summary


def refuel_ship(factory: SessionFactory, *, ship_id: int, factors: int | None = None) -> str:
    """Refuel empty factors (None: all); factors lost to mines wait for a port repair."""
    if factors is not None and factors < 1:
        raise InvalidInput({"factors": "refuel 1 or more factors, or leave it blank for all"})
    with session_scope(factory) as session:
        ship, side = _afloat(session, ship_id, "factors")
        fuel = _fuel(ship)
        if fuel.empty == 0 or (factors is not None and factors > fuel.empty):
            lost = (f"; {fuel.lost} lost to mines {'needs' if fuel.lost == 1 else 'need'} a repair "
                    "in a friendly port") if fuel.lost else ""  # fmt: skip
            raise InvalidInput(
                {
                    "factors": f"{ship.name} has {_n(fuel.empty, 'empty fuel factor')} to "
                    f"refuel{lost}"
                }
            )
        try:
            after = swwas.refuel(fuel, factors)
        except ValueError as exc:
            raise InvalidInput({"factors": str(exc)}) from exc
        before = journal.row_state(ship)
        _set_fuel(ship, after)
        summary = f"{ship.name} refuelled {after.full - fuel.full} ({after.full} full)"
        _journal_ship(session, ship, side, before, "fuel", summary)
        return summary


def torpedo_attack(factory: SessionFactory, *, ship_id: int, factors: int, target: str = "") -> str:
    """Record a torpedo attack; a submarine sowing a minefield may not make one, a surface
    minelayer may (RULES.md §Mines)."""
    errors: dict[str, str] = {}
    require_plain(errors, "target", target)
    check(errors)
    with session_scope(factory) as session:
        ship, side = _afloat(session, ship_id, "factors")
        view = _counter_view(session, ship, side)
        if view.sowing_id is not None:
            raise InvalidInput(
                {"factors": f"{ship.name} is sowing minefield #{view.sowing_id}: no torpedo "
                 "attacks until it is complete"}
            )  # fmt: skip
        if not 1 <= factors <= view.torpedoes_left:
            raise InvalidInput(
                {"factors": f"{ship.name} has {_n(view.torpedoes_left, 'torpedo factor')} "
                 f"({view.mines_loaded} given over to mines): attack with 1.."
                 f"{view.torpedoes_left}" if view.torpedoes_left else
                 f"{ship.name} has no torpedo factors left for an attack"}
            )  # fmt: skip
        summary = f"{ship.name} made a torpedo attack with {_n(factors, 'factor')}"
        summary += f" on {target.strip()}" if target.strip() else ""
        journal.append(
            session, campaign_id=side.campaign_id, kind="torpedo", ship_id=ship.id,
            side_id=side.id, summary=summary[:400], after={"factors": factors},
        )  # fmt: skip
        return summary


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
        journal.append(session, campaign_id=campaign_id, kind="ledger",
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
    return tuple(BoundaryView(id=row.id or 0, area_a=row.area_a, area_b=row.area_b)
                 for row in rows)  # fmt: skip


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
    elif len(sector) > 12:
        errors["sector"] = "must be at most 12 characters"
    require_plain(errors, "sector", sector, name=True)
    return sector


def _turn(session: Session, campaign_id: int, turn: int | None) -> tuple[int | None, int | None]:
    """The scenario in play and the turn: the one given (not beyond the current turn of a
    scenario in play), else the current one; None between scenarios when none is given."""
    if turn is not None and not 1 <= turn <= MAX_TURN:
        raise InvalidInput({"turn": f"must be 1..{MAX_TURN}, or blank for the current turn, "
                            f"got {turn}"})  # fmt: skip
    scenario = journal.current_scenario(session, campaign_id)
    playing = scenario if scenario and scenario.status == "in_play" else None
    if playing is not None and turn is not None and turn > playing.turn:
        raise InvalidInput({"turn": f"{playing.title} is at turn {playing.turn}: a turn from 1 "
                            f"to {playing.turn}, or blank for this one"})  # fmt: skip
    return (playing.id if playing else None), (turn if turn is not None else
                                               (playing.turn if playing else None))  # fmt: skip


def _count_here(session: Session, field: Minefield) -> int:
    """Live minefields sown across the same boundary or in the same sector (public ones)."""
    if field.boundary_id is None and not field.sector:
        return 1
    query = select(Minefield).where(
        Minefield.campaign_id == field.campaign_id, Minefield.status == "active",
        col(Minefield.secret).is_(False),
    )  # fmt: skip
    if field.boundary_id is not None:
        query = query.where(Minefield.boundary_id == field.boundary_id)
    else:
        query = query.where(Minefield.sector == field.sector)
    return max(1, len(session.exec(query).all()))


def _new_field_change(field: Minefield) -> journal.RowChange:
    return journal.RowChange("minefield", field.id or 0, {"status": "void"},
                             {"status": field.status})  # fmt: skip


def sow_minefield(
    factory: SessionFactory,
    *,
    side_id: int,
    laid_by: str,
    boundary_id: int | None = None,
    sector: str = "",
    layer_ship_id: int | None = None,
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
    makes no torpedo attack until the one it is sowing is complete (RULES.md §Mines).
    """
    errors: dict[str, str] = {}
    if laid_by not in LAYERS:
        errors["laid_by"] = "must be surface, submarine or aircraft"
    elif laid_by == "aircraft":
        errors["laid_by"] = "aircraft drop minefields with a roll each: use the aerial drop"
    if len(notes) > 2000:
        errors["notes"] = "must be at most 2000 characters"
    if len(layer_name.strip()) > 60:
        errors["layer_name"] = "must be at most 60 characters"
    require_plain(errors, "notes", notes)
    require_plain(errors, "layer_name", layer_name, name=True)
    with session_scope(factory) as session:
        side = get_row(session, Side, side_id)
        campaign_id = side.campaign_id
        sector = _validate_place(session, campaign_id, boundary_id, sector, errors)
        layer = None
        if layer_ship_id is not None:
            layer = get_row(session, Ship, layer_ship_id)
            if layer.side_id != side_id:
                errors["layer"] = f"{layer.name} is not {side.name}'s ship"
            elif layer.sunk:
                errors["layer"] = f"{layer.name} is sunk"
        if laid_by == "submarine" and layer is None and "layer" not in errors:
            errors["layer"] = "choose the submarine that lays it"
        if laid_by == "submarine" and layer is not None and "layer" not in errors:
            view = _counter_view(session, layer, side)
            if view.sowing_id is not None:
                errors["layer"] = (f"{layer.name} is still sowing minefield "
                                   f"#{view.sowing_id}: complete it first")  # fmt: skip
            elif view.mines_aboard < 1:
                errors["layer"] = (f"{layer.name} has no minefields aboard ({view.mines_loaded} "
                                   f"loaded, {view.mines_laid} laid)")  # fmt: skip
        check(errors)
        key = side_key(session, side_id, passphrase) if secret else None
        scenario_id, turn = _turn(session, campaign_id, turn)
        field = Minefield(
            campaign_id=campaign_id, side_id=side_id, status="active" if complete else "sowing",
            laid_by=laid_by, layer_ship_id=layer_ship_id, scenario_id=scenario_id,
            turn_started=turn, turn_completed=turn if complete else None, drifting=drifting,
            secret=secret,
        )  # fmt: skip
        name = layer.name if layer else layer_name.strip()
        place: dict[str, Any] = {"boundary_id": boundary_id, "sector": sector, "layer_name": name,
                 "notes": notes.strip(), "path": []}  # fmt: skip
        _store_place(session, field, place, key)
        session.add(field)
        session.flush()
        verb = "laid" if complete else "began sowing"
        summary = (f"{side.name}: {name or 'a ' + laid_by + ' minelayer'} {verb} minefield "
                   f"#{field.id} ({_place_label(session, boundary_id, sector)})")  # fmt: skip
        journal.append(
            session, campaign_id=campaign_id, kind="minefield", side_id=side_id,
            summary=_secret_summary(side, field, summary) if secret else summary,
            changes=(_new_field_change(field),),
            sealed=visibility.sealed_detail(key, summary=summary) if secret else None,
        )  # fmt: skip
        return field.id or 0


def _secret_summary(side: Side, field: Minefield, summary: str) -> str:
    """What the journal says in clear of a secret minefield's change: its number, no more
    (its place, minelayer, way of laying, drift and dice are sealed: docs/RULES.md §Secrets)."""
    return f"{side.name}: secret minefield #{field.id} ({field.status})"


def _field_and_side(session: Session, minefield_id: int) -> tuple[Minefield, Side]:
    field = get_row(session, Minefield, minefield_id)
    if field.status == "void":
        raise InvalidInput({"minefield": f"minefield #{minefield_id} was undone"})
    return field, get_row(session, Side, field.side_id)


def _field_change(
    session: Session, field: Minefield, side: Side, before: dict[str, Any], summary: str,
    dice: dict[str, Any] | None = None,
) -> None:  # fmt: skip
    change = journal.row_change("minefield", field.id, before, journal.row_state(field))
    journal.append(
        session, campaign_id=field.campaign_id, kind="minefield", side_id=side.id,
        summary=summary, dice=dice, changes=(change,),
    )  # fmt: skip


def complete_minefield(
    factory: SessionFactory, *, minefield_id: int, turn: int | None = None
) -> str:
    """A minefield being sown is complete: it is active, and its layer may use torpedoes."""
    with session_scope(factory) as session:
        field, side = _field_and_side(session, minefield_id)
        if field.status != "sowing":
            raise InvalidInput({"minefield": f"minefield #{field.id} is {field.status}, "
                                "not being sown"})  # fmt: skip
        _, turn = _turn(session, field.campaign_id, turn)
        if turn is not None and field.turn_started is not None and turn < field.turn_started:
            raise InvalidInput({"turn": f"it was begun on turn {field.turn_started}: complete it "
                                "on that turn or later"})  # fmt: skip
        before = journal.row_state(field)
        field.status, field.turn_completed = "active", turn
        summary = f"{side.name}: minefield #{field.id} complete"
        _field_change(session, field, side, before, summary)
        return summary


def set_status(factory: SessionFactory, *, minefield_id: int, status: str) -> str:
    """Mark a minefield swept or expended (or active again, as a correction)."""
    if status not in ("active", "swept", "expended"):
        raise InvalidInput({"status": "must be active, swept or expended"})
    with session_scope(factory) as session:
        field, side = _field_and_side(session, minefield_id)
        if field.status in ("sowing", "scattered"):
            raise InvalidInput({"status": f"minefield #{field.id} is {field.status}: "
                                "there is nothing to sweep yet"})  # fmt: skip
        if field.status == status:
            raise InvalidInput({"status": f"minefield #{field.id} is already {status}"})
        before = journal.row_state(field)
        field.status = status
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
    require_range(errors, "naval_attack", naval_attack, 0, 99)
    require_range(errors, "land_attack", land_attack, 0, 99)
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
                status="active" if works else "scattered", laid_by="aircraft",
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
                session, campaign_id=side.campaign_id, kind="minefield", side_id=side_id,
                summary=_secret_summary(side, field, summary) if secret else summary,
                dice=None if secret else {"d6": roll}, changes=(_new_field_change(field),),
                sealed=visibility.sealed_detail(key, summary=summary, dice={"d6": roll})
                if secret else None,
            )  # fmt: skip
        return results


def _mission_word(session: Session, side: Side) -> str:
    campaign = get_row(session, Campaign, side.campaign_id)
    return "scenario" if campaign.aircraft_mission == "scenario" else "turn"


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
        Minefield.side_id == side.id, Minefield.laid_by == "aircraft",
        Minefield.status != "void", Minefield.scenario_id == scenario_id,
    )  # fmt: skip
    if scenario_id is None or _mission_word(session, side) == "turn":
        query = query.where(
            col(Minefield.turn_started).is_(None) if turn is None
            else Minefield.turn_started == turn
        )  # fmt: skip
    if scenario_id is None and turn is None:
        closed = session.exec(
            select(func.max(JournalEntry.at)).where(
                JournalEntry.campaign_id == side.campaign_id, JournalEntry.kind == "close")
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


def drift(
    factory: SessionFactory,
    *,
    minefield_id: int,
    to_boundary_id: int | None = None,
    to_sector: str = "",
    d6: int | None = None,
    turn: int | None = None,
    passphrase: str | None = None,
) -> str:
    """A drifting minefield scatters at the end of the turn to the place the player gives (or
    the way a d6 said); the ledger keeps its path (RULES.md §Subs ¶13)."""
    errors: dict[str, str] = {}
    if d6 is not None and not 1 <= d6 <= 6:
        errors["d6"] = "a d6 shows 1..6"
    with session_scope(factory) as session:
        field, side = _field_and_side(session, minefield_id)
        if not field.drifting:
            raise InvalidInput({"minefield": f"minefield #{field.id} is secured: it stays put"})
        if field.status not in LIVE:
            raise InvalidInput({"minefield": f"minefield #{field.id} is {field.status}"})
        to_sector = _validate_place(session, field.campaign_id, to_boundary_id, to_sector, errors)
        check(errors)
        key = side_key(session, side.id or 0, passphrase) if field.secret else None
        place = _place(session, field, key)
        scenario_id, turn = _turn(session, field.campaign_id, turn)
        if turn is not None and (field.drift_scenario_id, field.drift_turn) == (scenario_id, turn):
            raise InvalidInput({"minefield": f"minefield #{field.id} already drifted on turn "
                                f"{turn}: a minefield drifts once a turn, at its end"})  # fmt: skip
        old = _place_label(session, place["boundary_id"], place["sector"])
        new = _place_label(session, to_boundary_id, to_sector)
        place["path"] = [*place["path"], {"turn": turn, "from": old, "to": new, "d6": d6}]
        place["boundary_id"], place["sector"] = to_boundary_id, to_sector
        before = journal.row_state(field)
        _store_place(session, field, place, key)
        field.drift_scenario_id, field.drift_turn = scenario_id, turn
        way = f" (d6 {d6})" if d6 is not None else ""
        summary = f"{side.name}: minefield #{field.id} drifted from {old} to {new}{way}"
        dice = {"d6": d6} if d6 is not None else None
        if field.secret:
            # A secret drift says nothing in clear, and is not undoable: its before and after
            # would be the sealed notes alone, which the row already keeps.
            journal.append(
                session,
                campaign_id=field.campaign_id,
                kind="minefield",
                side_id=side.id,
                summary=_secret_summary(side, field, summary),
                sealed=visibility.sealed_detail(key, summary=summary, dice=dice),
            )
            # What the screen says aloud: no place, no die.
            return f"{side.name}: minefield #{field.id} drifted"
        else:
            _field_change(session, field, side, before, summary, dice=dice)
        return summary


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


def _field_view(
    session: Session, field: Minefield, side: Side, key: bytes | None, readable: bool,
    boundaries: dict[int, SeaBoundary] | None = None,
) -> MinefieldView:  # fmt: skip
    hidden = field.secret and not readable
    viewer = visibility.Viewer.OWNER if readable else visibility.Viewer.OPPONENT
    seen = visibility.row_as_seen("minefield", journal.row_state(field), viewer=viewer,
                                  own=readable, revealed=not field.secret)  # fmt: skip
    place = ({"boundary_id": None, "sector": "", "notes": "", "path": []} if hidden
             else _place(session, field, key))  # fmt: skip
    path = tuple(f"turn {step['turn'] or '?'}: {step['from']} → {step['to']}"
                 + (f" (d6 {step['d6']})" if step.get("d6") else "")
                 for step in place["path"])  # fmt: skip
    return MinefieldView(
        id=field.id or 0, side_id=side.id or 0, side_name=side.name,
        where="secret" if hidden else _place_label(session, place["boundary_id"],
                                                   place["sector"], boundaries),
        boundary_id=place["boundary_id"], sector=place["sector"],
        count_here=0, status=field.status,
        laid_by=seen["laid_by"], layer=place.get("layer_name", ""),
        turn_started=field.turn_started, turn_completed=field.turn_completed,
        drop_roll=seen["drop_roll"], drifting=seen["drifting"], secret=field.secret,
        hidden=hidden,
        notes=place["notes"], path=path,
    )  # fmt: skip


def _with_counts(views: list[MinefieldView]) -> list[MinefieldView]:
    """Each readable minefield with the count of active ones the viewer can place beside it:
    public ones, and in the owner's view the owner's secret ones too (RULES.md §Mines)."""
    places = Counter(
        (view.boundary_id, view.sector) for view in views
        if not view.hidden and view.status == "active"
    )  # fmt: skip
    return [
        view if view.hidden else replace(
            view, count_here=max(1, places[(view.boundary_id, view.sector)]))
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
            .where(Minefield.campaign_id == campaign_id, Minefield.status != "void")
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
            turn=scenario.turn if scenario and scenario.status == "in_play" else None,
            owner_idle_seconds=campaign.owner_idle_seconds,
        )  # fmt: skip


def _public_drifting(session: Session, campaign_id: int) -> Sequence[Minefield]:
    """The public drifting minefields on the map: a secret one's drifting is its owner's to know
    (RULES.md §Secrets), so no count shown at the table includes it."""
    return session.exec(select(Minefield).where(
        Minefield.campaign_id == campaign_id, col(Minefield.drifting).is_(True),
        col(Minefield.secret).is_(False), col(Minefield.status).in_(LIVE))).all()  # fmt: skip


def not_drifted(factory: SessionFactory, *, campaign_id: int) -> int:
    """How many public drifting minefields have not yet drifted in the turn in play: they
    scatter at the end of the turn, before the next one begins (RULES.md §Subs ¶13)."""
    with session_scope(factory) as session:
        playing = journal.current_scenario(session, campaign_id)
        if playing is None or playing.status != "in_play":
            return 0
        return sum(
            1
            for row in _public_drifting(session, campaign_id)
            if (row.drift_scenario_id, row.drift_turn) != (playing.id, playing.turn)
        )


def drifting(factory: SessionFactory, *, campaign_id: int) -> int:
    """How many public drifting minefields are on the map: they scatter at the end of each turn."""
    with session_scope(factory) as session:
        return len(_public_drifting(session, campaign_id))


def ship_by_name(
    factory: SessionFactory, *, campaign_id: int, name: str, side: str | None = None
) -> int:
    """The id of the campaign's ship of that name (any case), on that side when given."""
    return ship_finder(factory, campaign_id=campaign_id)(name, side)


def ship_finder(factory: SessionFactory, *, campaign_id: int) -> Callable[[str, str | None], int]:
    """ship_by_name for many names: the campaign's ships are read once (a CSV of counters
    names hundreds), and each name is then found among them."""
    with session_scope(factory) as session:
        get_row(session, Campaign, campaign_id)
        sides = {row.id: row.name for row in session.exec(
            select(Side).where(Side.campaign_id == campaign_id)).all()}  # fmt: skip
        ships = session.exec(
            select(col(Ship.id), col(Ship.name), col(Ship.side_id))
            .where(col(Ship.side_id).in_(list(sides))).order_by(col(Ship.id))
        ).all()  # fmt: skip
    by_name: dict[str, list[tuple[int, str]]] = {}
    for ship_id, ship_name, side_id in ships:
        # SQLite's lower() folds ASCII only: names are compared casefolded, here.
        by_name.setdefault(ship_name.casefold(), []).append((ship_id or 0, sides[side_id]))

    def find(name: str, side: str | None = None) -> int:
        matches = [
            ship_id
            for ship_id, side_name in by_name.get(name.strip().casefold(), [])
            if not side or side_name.casefold() == side.strip().casefold()
        ]
        if not matches:
            where = f" on {side.strip()!r}" if side else " in this campaign"
            raise InvalidInput({"ship": f"no ship named {name.strip()!r}{where}"})
        if len(matches) > 1:
            names = ", ".join(side_name for _, side_name in by_name[name.strip().casefold()])
            raise InvalidInput({"ship": f"{name.strip()!r} is a ship of {names}: say which in "
                                "the side column"})  # fmt: skip
        return matches[0]

    return find


def counter_ships(factory: SessionFactory, *, campaign_id: int) -> list[CounterView]:
    """Every ship afloat in the campaign, with its counter (for choosing a task force)."""
    with session_scope(factory) as session:
        sides = {side.id: side for side in session.exec(
            select(Side).where(Side.campaign_id == campaign_id)).all()}  # fmt: skip
        ships = session.exec(
            select(Ship).where(col(Ship.side_id).in_(list(sides)), col(Ship.sunk).is_(False),
                               col(Ship.retired).is_(False))
            .order_by(col(Ship.side_id), col(Ship.name))
        ).all()  # fmt: skip
        laid_by = _laid_by_ships(session, list(sides))
        return [_counter_view(session, ship, sides[ship.side_id], laid_by) for ship in ships]


# --- the mine damage table ---------------------------------------------------------------


def _table_rows(session: Session, campaign_id: int) -> list[MineTableRow]:
    return list(session.exec(
        select(MineTableRow).where(MineTableRow.campaign_id == campaign_id)
        .order_by(col(MineTableRow.low), col(MineTableRow.applies_to))
    ).all())  # fmt: skip


def save_mine_row(
    factory: SessionFactory,
    *,
    campaign_id: int,
    low: int,
    high: int,
    effects: str,
    applies_to: str = "all",
    note: str = "",
    row_id: int | None = None,
) -> int:
    """Add or change a row of the campaign's mine damage table (the variant's is not in our
    sources: the players type theirs in). Overlapping rows are refused; gaps are allowed."""
    errors: dict[str, str] = {}
    require_range(errors, "low", low, -5, 20)
    require_range(errors, "high", high, -5, 20)
    if not errors and high < low:
        errors["high"] = f"must be at least low ({low})"
    lowest, highest = mine_check.DIE_RANGE
    if not errors and (high < lowest or low > highest):
        errors["low"] = (f"a d6 plus the modifiers (0 to +5) gives {lowest} to {highest}: "
                         "this row would never be rolled")  # fmt: skip
    if applies_to not in APPLIES_TO:
        errors["applies_to"] = "must be all, long or small"
    try:
        words = mine_check.parse_mine_effects(effects).words()
    except ValueError as exc:
        errors["effects"] = str(exc).removeprefix("effects: ")
        words = ""
    if len(note) > 200:
        errors["note"] = "must be at most 200 characters"
    require_plain(errors, "note", note)
    check(errors)
    with session_scope(factory) as session:
        get_row(session, Campaign, campaign_id)
        others = [row for row in _table_rows(session, campaign_id) if row.id != row_id]
        clash = [
            row for row in others
            if row.low <= high and low <= row.high
            and (row.applies_to == applies_to or "all" in (row.applies_to, applies_to))
        ]  # fmt: skip
        if clash:
            first = clash[0]
            raise InvalidInput({"low": f"overlaps the row {first.low}-{first.high} "
                                f"({first.applies_to}): {first.effects}; change that row or "
                                "these numbers"})  # fmt: skip
        row = get_row(session, MineTableRow, row_id) if row_id else MineTableRow(
            campaign_id=campaign_id, low=low, high=high, effects=words)  # fmt: skip
        if row.campaign_id != campaign_id:
            raise InvalidInput({"low": "that row belongs to another campaign"})
        row.low, row.high, row.applies_to = low, high, applies_to
        row.effects, row.note = words, note.strip()
        session.add(row)
        session.flush()
        journal.append(
            session, campaign_id=campaign_id, kind="table",
            summary=f"mine table: {low}-{high} ({applies_to}) {words}",
        )  # fmt: skip
        return row.id or 0


def delete_mine_row(factory: SessionFactory, *, row_id: int) -> None:
    with session_scope(factory) as session:
        row = get_row(session, MineTableRow, row_id)
        summary = f"mine table: removed {row.low}-{row.high} ({row.applies_to}) {row.effects}"
        journal.delete_logged(session, row, campaign_id=row.campaign_id, summary=summary)


def mine_table(factory: SessionFactory, *, campaign_id: int) -> MineTable:
    """The campaign's mine damage table and the modified rolls 1..11 it does not cover."""
    with session_scope(factory) as session:
        rows = _table_rows(session, campaign_id)
        spans = [(row.low, row.high, row.applies_to) for row in rows]
        _, gaps = mine_check.mine_table_problems(spans)
        return MineTable(
            rows=tuple(MineRowView(id=row.id or 0, low=row.low, high=row.high,
                                   applies_to=row.applies_to, effects=row.effects,
                                   note=row.note) for row in rows),
            gaps=tuple(gaps) if rows else (),
        )  # fmt: skip


def _lookup(session: Session, campaign_id: int, cup: str, modified: int) -> MineTableRow | None:
    for row in _table_rows(session, campaign_id):
        if row.applies_to in ("all", cup) and row.low <= modified <= row.high:
            return row
    return None


# --- a task force enters a minefield -----------------------------------------------------


def _too_slow(ship: Ship, speed: int) -> str | None:
    """Why a ship cannot move at the task force's speed, or None when it can (RULES.md §Mines:
    the +2 is for a ship moving speed 3 or more, which its damaged speed rating must allow)."""
    if not ship.speed_rating:
        if swwas.fast_entry(speed):
            return (f"{ship.name} has no speed rating on its counter: enter it (u on the record "
                    f"sheet) before it enters at speed {speed}")  # fmt: skip
        return None
    can = swwas.speed_available(ship.speed_rating, ship.speed_lost)
    if speed <= can:
        return None
    lost = f", {ship.speed_lost} lost to mines" if ship.speed_lost else ""
    return (
        f"{ship.name} makes speed {can} at most (rating {ship.speed_rating}{lost}): the task "
        f"force moves at {can} or less, or leaves it behind"
    )


def start_check(
    factory: SessionFactory,
    *,
    minefield_id: int,
    ship_ids: Sequence[int],
    speed: int,
    first_cup: str = "long",
    minefields: int | None = None,
    leaving_board: bool = False,
    seed: int | None = None,
) -> int:
    """A task force enters a minefield: its long and small counters go in two cups and are drawn
    at random, alternating from `first_cup` (RULES.md §Mines)."""
    errors: dict[str, str] = {}
    require_range(errors, "speed", speed, 0, 20)
    if first_cup not in COUNTER_SIZES:
        errors["first_cup"] = "must be long or small"
    if minefields is not None:
        require_range(errors, "minefields", minefields, 1, 20)
    if seed is not None:
        require_range(errors, "seed", seed, 0, MAX_INT)
    if not ship_ids:
        errors["ships"] = "choose the ships of the task force"
    elif len(set(ship_ids)) != len(ship_ids):
        errors["ships"] = "a ship is chosen twice"
    check(errors)
    with session_scope(factory) as session:
        field, _ = _field_and_side(session, minefield_id)
        if field.secret:
            raise InvalidInput({"minefield": f"minefield #{field.id} is secret: its owner "
                                "reveals it first (r on the ledger)"})  # fmt: skip
        if field.status != "active":
            raise InvalidInput({"minefield": f"minefield #{field.id} is {field.status}: only "
                                "an active minefield is checked"})  # fmt: skip
        running = session.exec(select(MineCheck).where(
            MineCheck.campaign_id == field.campaign_id,
            MineCheck.status == "in_progress")).first()  # fmt: skip
        if running is not None:
            raise InvalidInput({"minefield": f"mine check #{running.id} is still in progress: "
                                "finish or abandon it first"})  # fmt: skip
        campaign = get_row(session, Campaign, field.campaign_id)
        cups: dict[str, list[int]] = {"long": [], "small": []}
        sides: dict[int, str] = {}
        for ship_id in ship_ids:
            ship, side, _ = _ship_and_campaign(session, ship_id)
            sides.setdefault(side.id or 0, side.name)
            if side.campaign_id != field.campaign_id:
                errors["ships"] = f"{ship.name} is in another campaign"
            elif ship.sunk:
                errors["ships"] = f"{ship.name} is sunk"
            elif len(sides) > 1:
                errors["ships"] = (f"a task force is one side's ships: {ship.name} is "
                                   f"{side.name}'s, the others {next(iter(sides.values()))}'s; "
                                   "check each side's task force on its own")  # fmt: skip
            elif (problem := _too_slow(ship, speed)) is not None:
                errors["speed"] = problem
            elif ship.counter_size not in COUNTER_SIZES:
                errors["ships"] = (f"{ship.name} has no counter size: enter long or small on "
                                   "its counter (u on the record sheet)")  # fmt: skip
            else:
                cups[ship.counter_size].append(ship_id)
        check(errors)
        scenario_id, turn = _turn(session, field.campaign_id, None)
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        check_row = MineCheck(
            campaign_id=field.campaign_id, minefield_id=minefield_id, scenario_id=scenario_id,
            turn=turn, minefields=minefields or _count_here(session, field), speed=speed,
            leaving_board=leaving_board, first_cup=first_cup, rule=campaign.mine_halt_rule,
            seed=seed,
        )  # fmt: skip
        session.add(check_row)
        session.flush()
        order = mine_check.draw_order(cups["long"], cups["small"], first=first_cup,
                                 rng=random.Random(seed))  # fmt: skip
        for draw_no, (cup, ship_id) in enumerate(order, start=1):
            session.add(MineCheckShip(check_id=check_row.id or 0, ship_id=ship_id, cup=cup,
                                      draw_no=draw_no))  # fmt: skip
        journal.append(
            session, campaign_id=field.campaign_id, kind="mine check",
            summary=f"mine check #{check_row.id}: {_n(len(ship_ids), 'ship')} enter minefield "
            f"#{field.id} at speed {speed} ({len(cups['long'])} long, {len(cups['small'])} "
            f"small; {first_cup} cup first)", dice={"seed": seed},
        )  # fmt: skip
        return check_row.id or 0


def _draw_rows(session: Session, check_id: int) -> list[MineCheckShip]:
    return list(session.exec(select(MineCheckShip).where(MineCheckShip.check_id == check_id)
                             .order_by(col(MineCheckShip.draw_no))).all())  # fmt: skip


def _halted(rule: str, struck: int, drawn: int, size: int) -> bool:
    if rule == "drawn":
        return drawn >= mine_check.quarter_of(size)
    return swwas.mine_check_halts(struck, size)


def _message(row: MineCheck, struck: int, drawn: int, size: int) -> str:
    quarter = mine_check.quarter_of(size)
    counted = f"{drawn} of {size} drawn" if row.rule == "drawn" else f"{struck} of {size} struck"
    if row.status == "halted":
        return (f"{counted} (a quarter is {quarter}): the task force stops moving and replots "
                f"(19.25); the {size - drawn} ships not drawn pass")  # fmt: skip
    if row.status == "complete":
        return f"every ship drawn: {struck} of {size} struck mines"
    if row.status == "abandoned":
        return "abandoned"
    return f"{counted}; the check halts at {quarter}"


def check_view(factory: SessionFactory, *, check_id: int) -> CheckView:
    with session_scope(factory) as session:
        return _check_view(session, check_id)


def _check_view(session: Session, check_id: int) -> CheckView:
    row = get_row(session, MineCheck, check_id)
    field = get_row(session, Minefield, row.minefield_id)
    drm = swwas.mine_drm(row.minefields, row.speed)
    draws = []
    for item in _draw_rows(session, check_id):
        ship = get_row(session, Ship, item.ship_id)
        draws.append(DrawView(
            ship_id=item.ship_id, name=ship.name, cup=item.cup, draw_no=item.draw_no,
            drawn=item.drawn, roll=item.roll, drm=item.drm if item.drawn else drm,
            effects=item.effects, struck=item.struck, fuel=_fuel(ship),
        ))  # fmt: skip
    pending = [draw for draw in draws if not draw.drawn]
    size = len(draws)
    struck = sum(1 for draw in draws if draw.drawn and draw.struck)
    return CheckView(
        id=row.id or 0, minefield=f"#{field.id} " + _place_label(
            session, field.boundary_id, field.sector),
        minefield_id=field.id or 0, minefields=row.minefields, speed=row.speed,
        leaving_board=row.leaving_board, drm=drm, first_cup=row.first_cup, rule=row.rule,
        status=row.status, size=size, halt_at=mine_check.quarter_of(size), draws=tuple(draws),
        left={cup: sum(1 for draw in pending if draw.cup == cup) for cup in COUNTER_SIZES},
        next=pending[0] if pending and row.status == "in_progress" else None,
        message=_message(row, struck, size - len(pending), size),
    )  # fmt: skip


def current_check(factory: SessionFactory, *, campaign_id: int) -> int | None:
    """The mine check in progress in the campaign, if any."""
    with session_scope(factory) as session:
        row = session.exec(select(MineCheck).where(
            MineCheck.campaign_id == campaign_id,
            MineCheck.status == "in_progress")).first()  # fmt: skip
        return row.id if row else None


def table_effect(factory: SessionFactory, *, check_id: int, roll: int) -> str | None:
    """What the campaign's table says for the next ship on this d6, or None (no row: ask)."""
    with session_scope(factory) as session:
        view = _check_view(session, check_id)
        if view.next is None or not 1 <= roll <= 6:
            return None
        campaign_id = get_row(session, MineCheck, check_id).campaign_id
        row = _lookup(session, campaign_id, view.next.cup, roll + view.drm)
        return row.effects if row else None


def _apply(ship: Ship, effect: mine_check.MineEffect) -> list[str]:
    done = []
    if effect.speed:
        was = ship.speed_lost
        ship.speed_lost = min(ship.speed_rating, ship.speed_lost + effect.speed)
        done.append(f"speed {ship.speed_rating - ship.speed_lost} "
                    f"(-{ship.speed_lost - was})")  # fmt: skip
    if effect.gunnery:
        ship.gunnery_lost += effect.gunnery
        done.append(f"gunnery -{effect.gunnery}")
    if effect.fuel:
        before = _fuel(ship)
        after = swwas.lose_fuel(before, effect.fuel)
        _set_fuel(ship, after)
        done.append(f"fuel {after.lost - before.lost} lost")
    if effect.hull:
        hits = ship.hull_damage + effect.hull
        ship.hull_damage = min(ship.hull_boxes, hits) if ship.hull_boxes else hits
        done.append(f"hull {effect.hull}")
        if ship.hull_boxes and ship.hull_damage >= ship.hull_boxes and not effect.sunk:
            # Second World War at Sea: a ship sinks when its hull is used up (RULES.md §Mines).
            ship.sunk, ship.condition = True, "Sunk: hull used up by a mine"
            done.append("hull used up: SUNK")
    if effect.crippled:
        ship.crippled = True
        done.append("crippled")
    if effect.sunk:
        ship.sunk, ship.condition = True, "Sunk by a mine"
        done.append("SUNK")
    return done


def roll_mine(
    factory: SessionFactory, *, check_id: int, roll: int, effects: str | None = None
) -> CheckView:
    """Roll for the next ship drawn: the d6 plus the modifiers (RULES.md §Mines) on the campaign's
    mine table; `effects` is the player's result where the table has no row (or no table)."""
    if not 1 <= roll <= 6:
        raise InvalidInput({"roll": f"a d6 shows 1..6, got {roll}"})
    with session_scope(factory) as session:
        view = _check_view(session, check_id)
        row = get_row(session, MineCheck, check_id)
        if view.next is None:
            raise InvalidInput({"roll": f"mine check #{check_id} is {view.status}: no ship "
                                "left to draw"})  # fmt: skip
        draw = view.next
        modified = roll + view.drm
        if effects is None or not effects.strip():
            table_row = _lookup(session, row.campaign_id, draw.cup, modified)
            if table_row is None:
                raise InvalidInput({"effects": f"no row of the mine table covers {modified} for "
                                    f"a {draw.cup} counter: type the result (none, fuel-2, "
                                    "sunk, ...)"})  # fmt: skip
            effects = table_row.effects
        try:
            effect = mine_check.parse_mine_effects(effects)
        except ValueError as exc:
            raise InvalidInput({"effects": str(exc).removeprefix("effects: ")}) from exc
        ship, side, _ = _ship_and_campaign(session, draw.ship_id)
        item = session.exec(
            select(MineCheckShip).where(
                MineCheckShip.check_id == check_id, MineCheckShip.ship_id == draw.ship_id
            )
        ).one()
        before_ship, before_item = journal.row_state(ship), journal.row_state(item)
        before_check = journal.row_state(row)
        done = _apply(ship, effect)
        item.drawn, item.roll, item.drm = True, roll, view.drm
        item.effects, item.struck = effect.words(), effect.struck
        struck = view.struck + (1 if effect.struck else 0)
        drawn = view.drawn + 1
        if drawn == view.size:
            row.status = "complete"
        if _halted(row.rule, struck, drawn, view.size) and drawn < view.size:
            row.status = "halted"
        session.flush()
        changes = [
            journal.row_change("ship", ship.id, before_ship, journal.row_state(ship)),
            journal.row_change("minecheckship", item.id, before_item, journal.row_state(item)),
        ]
        if row.status != before_check["status"]:
            changes.append(journal.row_change("minecheck", row.id, before_check,
                                              journal.row_state(row)))  # fmt: skip
        result = ", ".join(done) if done else "no effect"
        journal.append(
            session, campaign_id=row.campaign_id, kind="mine", ship_id=ship.id, side_id=side.id,
            summary=f"{ship.name} ({draw.cup} cup) d6 {roll} {view.drm:+d} = {modified}: "
            f"{result}", dice={"d6": roll, "drm": view.drm, "modified": modified},
            changes=tuple(changes),
        )  # fmt: skip
        return _check_view(session, check_id)


def abandon_check(factory: SessionFactory, *, check_id: int) -> None:
    """Stop a check set up by mistake; the rolls already made stay (undo them one by one)."""
    with session_scope(factory) as session:
        row = get_row(session, MineCheck, check_id)
        if row.status != "in_progress":
            raise InvalidInput({"check": f"mine check #{check_id} is already {row.status}"})
        before = journal.row_state(row)
        row.status = "abandoned"
        journal.append(
            session, campaign_id=row.campaign_id, kind="mine check",
            summary=f"mine check #{check_id} abandoned",
            changes=(journal.row_change("minecheck", row.id, before, journal.row_state(row)),),
        )  # fmt: skip
