"""A ship's Second World War at Sea counter: its values, its fuel, what mines did to it, and its
torpedo attacks (RULES.md §Mines).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, update
from sqlmodel import Session, col, select

from tracker.db import SessionFactory, read_scope, session_scope
from tracker.models import Campaign, Minefield, Ship, Side
from tracker.models.fields import read
from tracker.models.fleet import CounterRead as CounterView
from tracker.models.fleet import CounterUpdate as CounterUpdate  # re-exported: the counter form
from tracker.models.kinds import JournalKind, MinefieldStatus
from tracker.rules import swwas
from tracker.rules.words import plural
from tracker.services import acts, journal, visibility
from tracker.services.common import Act, act, get_row, require_version, rows_where
from tracker.services.errors import (
    InvalidInput,
    RowsRefused,
    check,
    require_plain,
    require_range,
)
from tracker.services.fields import edited


def _fuel(ship: Ship) -> swwas.Fuel:
    return swwas.Fuel(full=ship.fuel_full, empty=ship.fuel_empty, lost=ship.fuel_lost)


def _set_fuel(ship: Ship, fuel: swwas.Fuel) -> None:
    ship.fuel_full, ship.fuel_empty, ship.fuel_lost = fuel.full, fuel.empty, fuel.lost


def _laid_by_ships(session: Session, side_ids: Sequence[int | None]) -> dict[int, list[Minefield]]:
    """What acts.laid gives, for every ship of these sides at once (a ledger has many ships)."""
    laid: dict[int, list[Minefield]] = {}
    for field in session.exec(
        select(Minefield)
        .join(Ship, col(Ship.id) == col(Minefield.layer_ship_id))
        .where(col(Ship.side_id).in_(side_ids), Minefield.status != MinefieldStatus.VOID)
        .order_by(col(Minefield.id))
    ).all():  # fmt: skip
        laid.setdefault(field.layer_ship_id or 0, []).append(field)
    return laid


def _counter_view(
    session: Session, ship: Ship, side: Side, laid_by: dict[int, list[Minefield]],
    viewer: visibility.Viewer,
) -> CounterView:  # fmt: skip
    """`laid_by` holds what _laid_by_ships found; `viewer` is who looks: the opponent and the
    umpire see no minelayer's secret."""
    laid = laid_by.get(ship.id or 0, [])
    if viewer is not visibility.Viewer.OWNER and ship.torpedo_factors:
        # Only public minefields count; the mines aboard read as the placeholder.
        laid = [field for field in laid if not field.secret]
        shown = visibility.shown("ship", "mines_loaded", ship.mines_loaded, viewer=viewer,
                                 own=False, revealed=False)  # fmt: skip
        if shown is None:
            shown = _counter_view(session, ship, side, {}, visibility.Viewer.OWNER)
            return shown.model_copy(update={"mines_loaded": 0,
                                            "sowing_id": acts.sowing_id(laid),
                                            "mines_hidden": True})  # fmt: skip
    return read(
        CounterView, ship, ship_id=ship.id or 0, side_name=side.name,
        mines_laid=acts.mines_laid(laid), sowing_id=acts.sowing_id(laid), fuel=_fuel(ship),
    )  # fmt: skip


def counter(
    factory: SessionFactory, *, ship_id: int, viewer: visibility.Viewer = visibility.Viewer.OWNER
) -> CounterView:
    """A ship's counter as `viewer` sees it (docs/RULES.md §Secrets)."""
    with session_scope(factory) as session:
        return counters_of(session, [get_row(session, Ship, ship_id)], viewer)[ship_id]


def ship_counters(
    factory: SessionFactory,
    *,
    ship_ids: Sequence[int],
    viewer: visibility.Viewer = visibility.Viewer.OWNER,
) -> dict[int, CounterView]:
    """These ships' counters as `viewer` sees them, by ship id (docs/RULES.md §Secrets)."""
    with read_scope(factory) as session:
        ships = session.exec(select(Ship).where(col(Ship.id).in_(list(ship_ids)))).all()
        return counters_of(session, ships, viewer)


def counters_of(
    session: Session, ships: Sequence[Ship], viewer: visibility.Viewer
) -> dict[int, CounterView]:
    """These ships' counters (read already) as `viewer` sees them, by ship id."""
    sides = {ship.side_id: get_row(session, Side, ship.side_id) for ship in ships}
    laid_by = _laid_by_ships(session, list(sides))
    return {
        ship.id or 0: _counter_view(session, ship, sides[ship.side_id], laid_by, viewer)
        for ship in ships
    }


def _ship_and_side(session: Session, ship_id: int) -> tuple[Ship, Side]:
    ship = get_row(session, Ship, ship_id)
    return ship, get_row(session, Side, ship.side_id)


def _journal_fuel(a: Act[Ship], before: dict[str, Any], summary: str) -> None:
    ship = a.row
    change = journal.row_change("ship", ship.id, before, journal.row_state(ship))
    a.log(JournalKind.FUEL, summary, ship_id=ship.id, side_id=ship.side_id, changes=(change,))


def save_counter(
    factory: SessionFactory, *, ship_id: int, version: int | None = None, **values: Any
) -> str:
    """Enter a ship's counter values (CounterUpdate's fields): save_counters of one row."""
    return save_counters(factory, rows=[(ship_id, {**values, "version": version})])[0]


def save_counters(
    factory: SessionFactory, *, rows: Sequence[tuple[int, dict[str, Any]]]
) -> list[str]:
    """Enter ships' counter values in one act (a CSV file's rows; the form's one ship is a row
    of one): each row a ship's id and CounterUpdate's fields, a field not given keeping the
    ship's value. The size is the player's, never derived (RULES.md §Mines). The damage mines
    did is kept unless given: giving it is how a repair or a correction is entered (the repair
    rules are the group's). Any row refused and none is written (RowsRefused says each, by its
    place); the rows' summaries."""
    with session_scope(factory) as session:
        ids = sorted({ship_id for ship_id, _ in rows})
        ships = {ship.id: ship for ship in session.exec(select(Ship).where(col(Ship.id).in_(ids)))}
        side_ids = {ship.side_id for ship in ships.values()}
        sides = {side.id: side for side in rows_where(session, Side, col(Side.id).in_(side_ids))}
        laid_by = _laid_by_ships(session, list(sides))
        states = {ship_id: journal.row_state(ship) for ship_id, ship in ships.items()}
        refused: dict[int, dict[str, str]] = {}
        entries, said = [], []
        filed: dict[int, Any] = {}
        for number, (ship_id, values) in enumerate(rows):
            ship = ships.get(ship_id) or get_row(session, Ship, ship_id)  # NotFound: gone
            try:
                laid = acts.mines_laid(laid_by.get(ship_id, []))
                before = states[ship_id]
                kind, summary, states[ship_id] = _counter_row(ship, before, laid, values)
            except InvalidInput as exc:
                refused[number] = exc.errors
                continue
            side = sides[ship.side_id]
            if side.campaign_id not in filed:  # each entry under the scenario now, read once
                filed[side.campaign_id] = journal.current_scenario(session, side.campaign_id)
            change = journal.row_change("ship", ship_id, before, states[ship_id])
            entries.append(journal.Entry(
                campaign_id=side.campaign_id, kind=kind, ship_id=ship_id, side_id=side.id,
                summary=summary, changes=(change,), scenario=filed[side.campaign_id]))  # fmt: skip
            said.append(summary)
        if refused:
            raise RowsRefused(refused)
        columns = sorted(_WRITTEN)
        session.connection().execute(_UPDATE_COUNTER, [
            {"ship": ship_id, **{f"new_{key}": states[ship_id][key] for key in columns}}
            for ship_id in ships
        ])  # fmt: skip
        journal.insert_entries(session, entries)
        return said


def import_counters(
    factory: SessionFactory, *, campaign_id: int, rows: Sequence[dict[str, Any]]
) -> list[str]:
    """A CSV file's counters (import-csv counters): each row's ship named (`ship`, and `side`
    when two sides have a ship of that name, ship_finder), then every row saved in one act
    (save_counters). Any row refused and none is written (RowsRefused says each)."""
    find = ship_finder(factory, campaign_id=campaign_id)
    refused: dict[int, dict[str, str]] = {}
    named: dict[int, tuple[int, dict[str, Any]]] = {}
    for number, row in enumerate(rows):
        values = dict(row)
        try:
            named[number] = (find(values.pop("ship"), values.pop("side", None)), values)
        except InvalidInput as exc:
            refused[number] = exc.errors
    try:
        said = save_counters(factory, rows=list(named.values())) if named else []
    except RowsRefused as exc:
        numbers = list(named)
        refused |= {numbers[n]: errors for n, errors in exc.rows.items()}
    if refused:
        raise RowsRefused(dict(sorted(refused.items())))
    return said


def _counter_row(
    ship: Ship, state: dict[str, Any], laid: int, values: dict[str, Any]
) -> tuple[JournalKind, str, dict[str, Any]]:
    """One row's counter over the ship's values as the rows before it left them: the entry's
    kind and summary, and the ship's values after it (InvalidInput for a row refused)."""
    version = values.get("version")
    given_values = {key: value for key, value in values.items()
                    if value is not None and key != "version"}  # fmt: skip
    typed = edited(CounterUpdate, SimpleNamespace(**state), {**given_values, "version": version},
                   names=())  # fmt: skip
    given = set(given_values)
    errors: dict[str, str] = {}
    # The bounds one value sets on another: the model declares each alone.
    if "speed_lost" in given:
        require_range(errors, "speed_lost", typed.speed_lost, 0, typed.speed_rating)
    if "hull_damage" in given and typed.hull_boxes:
        require_range(errors, "hull_damage", typed.hull_damage, 0, typed.hull_boxes)
    if typed.mines_loaded > typed.torpedo_factors:
        errors["mines_loaded"] = (
            f"each minefield takes the place of a torpedo factor: at most {typed.torpedo_factors}"
        )
    check(errors)
    require_version(ship, typed.version, ship.name)
    if typed.mines_loaded < laid:
        raise InvalidInput(
            {"mines_loaded": f"{ship.name} has already laid {laid}: at least {laid}"}
        )
    after = {**state, **typed.model_dump(exclude={"version"})}
    after["speed_lost"] = min(after["speed_lost"], typed.speed_rating)
    if typed.hull_boxes:
        after["hull_damage"] = min(after["hull_damage"], typed.hull_boxes)
    size = after["counter_size"] or "(no size)"
    summary = f"{ship.name}: counter {size}, speed {typed.speed_rating}, " \
        f"fuel {typed.fuel_full} full {typed.fuel_empty} empty"  # fmt: skip
    kind = JournalKind.COUNTER
    if after["fuel_lost"] and typed.fuel_full > state["fuel_full"]:
        # Lost factors refuel only in a friendly port (RULES.md §Mines): more full fuel beside
        # them is a correction the player may make, said and journaled as one.
        kind = JournalKind.CORRECTION
        summary += (f"; correction: full fuel {state['fuel_full']} -> {typed.fuel_full} while "
                    f"{plural(after['fuel_lost'], 'factor')} lost to mines stay lost, bypassing "
                    "'refuel lost factors only in a friendly port'")  # fmt: skip
    return kind, summary, after


# What a counter writes: CounterUpdate's fields, and the losses they bound.
_WRITTEN = (set(CounterUpdate.model_fields) - {"version"}) | {"speed_lost", "hull_damage"}
_SHIPS = Ship.__table__  # type: ignore[attr-defined]
_UPDATE_COUNTER = (
    update(_SHIPS)
    .where(_SHIPS.c.id == bindparam("ship"))
    .values({**{key: bindparam(f"new_{key}") for key in sorted(_WRITTEN)},
             "version": _SHIPS.c.version + 1})
)  # fmt: skip


def _afloat(a: Act[Ship], field: str) -> Ship:
    """The act's ship: a sunk ship burns no fuel and fires no torpedoes."""
    if a.row.sunk:
        raise InvalidInput({field: f"{a.row.name} is sunk"})
    return a.row


def use_fuel(
    factory: SessionFactory, *, ship_id: int, factors: int, version: int | None = None
) -> str:
    """Ordinary fuel use, entered by the player: full factors become empty."""
    with act(factory, Ship, ship_id, version=version) as a:
        ship = _afloat(a, "factors")
        if not 1 <= factors <= ship.fuel_full:
            raise InvalidInput(
                {"factors": f"{ship.name} has {ship.fuel_full} full fuel factors: use 1.."
                 f"{ship.fuel_full}" if ship.fuel_full else f"{ship.name} has no full fuel"}
            )  # fmt: skip
        before = journal.row_state(ship)
        ship.fuel_full -= factors
        ship.fuel_empty += factors
        summary = f"{ship.name} used {factors} fuel ({ship.fuel_full} full left)"
        _journal_fuel(a, before, summary)
        return summary


def refuel_ship(
    factory: SessionFactory, *, ship_id: int, factors: int | None = None,
    version: int | None = None,
) -> str:  # fmt: skip
    """Refuel empty factors (None: all); factors lost to mines wait for a port repair."""
    if factors is not None and factors < 1:
        raise InvalidInput({"factors": "refuel 1 or more factors, or leave it blank for all"})
    with act(factory, Ship, ship_id, version=version) as a:
        ship = _afloat(a, "factors")
        fuel = _fuel(ship)
        if fuel.empty == 0 or (factors is not None and factors > fuel.empty):
            lost = (f"; {fuel.lost} lost to mines {'needs' if fuel.lost == 1 else 'need'} a repair "
                    "in a friendly port") if fuel.lost else ""  # fmt: skip
            empty = plural(fuel.empty, "empty fuel factor")
            raise InvalidInput({"factors": f"{ship.name} has {empty} to refuel{lost}"})
        try:
            after = swwas.refuel(fuel, factors)
        except ValueError as exc:
            raise InvalidInput({"factors": str(exc)}) from exc
        before = journal.row_state(ship)
        _set_fuel(ship, after)
        summary = f"{ship.name} refuelled {after.full - fuel.full} ({after.full} full)"
        _journal_fuel(a, before, summary)
        return summary


def torpedo_attack(factory: SessionFactory, *, ship_id: int, factors: int, target: str = "") -> str:
    """Record a torpedo attack; a submarine sowing a minefield may not make one, a surface
    minelayer may (RULES.md §Mines: the one rule, services.acts, every roster asks)."""
    errors: dict[str, str] = {}
    require_plain(errors, "target", target)
    check(errors)
    with act(factory, Ship, ship_id) as a:
        ship, session = _afloat(a, "factors"), a.session
        refusal = acts.torpedo_refusal(session, acts.actor(ship))
        if refusal:
            raise InvalidInput({"factors": refusal})
        view = counters_of(session, [ship], visibility.Viewer.OWNER)[ship_id]
        if not 1 <= factors <= view.torpedoes_left:
            raise InvalidInput(
                {"factors": f"{ship.name} has {plural(view.torpedoes_left, 'torpedo factor')} "
                 f"({view.mines_loaded} given over to mines): attack with 1.."
                 f"{view.torpedoes_left}" if view.torpedoes_left else
                 f"{ship.name} has no torpedo factors left for an attack"}
            )  # fmt: skip
        summary = f"{ship.name} made a torpedo attack with {plural(factors, 'factor')}"
        summary += f" on {target.strip()}" if target.strip() else ""
        said = {"factors": factors}
        a.log(JournalKind.TORPEDO, summary[:400], ship_id=ship.id, side_id=ship.side_id, after=said)
        return summary


def ship_finder(factory: SessionFactory, *, campaign_id: int) -> Callable[[str, str | None], int]:
    """The id of the campaign's ship of a name (any case), on a side if given; ships read once."""
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
        ships = session.exec(
            select(Ship).join(Side, col(Ship.side_id) == col(Side.id))
            .where(Side.campaign_id == campaign_id, col(Ship.sunk).is_(False),
                   col(Ship.retired).is_(False))
            .order_by(col(Ship.side_id), col(Ship.name))
        ).all()  # fmt: skip
        return list(counters_of(session, ships, visibility.Viewer.OWNER).values())
