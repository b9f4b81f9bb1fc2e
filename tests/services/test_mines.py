"""The minefield ledger, ships' counters and fuel, and a task force entering a minefield, through
the services on a real migrated file (Second World War at Sea mine-warfare variant, RULES.md §Mines,
RULES.md §Mines; drifting and secured minefields, RULES.md §Subs ¶12-13)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import (
    Journaled,
    Refused,
    World,
    attempt,
    ctrl_z,
    edit_campaign,
    fresh_factory,
    get_row,
)
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry, Minefield, Ship
from tracker.rules.swwas import Fuel
from tracker.services import campaigns, mines, repairs, scenarios, sealing
from tracker.services.errors import InvalidInput

PASS = "minelayer7"
LONG_NAMES = ("Nelson", "Rodney", "Sheffield")
SMALL_NAMES = ("Kite", "Starling", "Wren", "Woodpecker", "Olna")
# Long counters: speed 4, 6 hull boxes, 3 full fuel factors and 1 empty.
LONG_COUNTER = {
    "counter_size": "long",
    "speed_rating": 4,
    "hull_boxes": 6,
    "fuel_full": 3,
    "fuel_empty": 1,
}
# Small counters: speed 3, 2 hull boxes, 2 full fuel factors.
SMALL_COUNTER = {
    "counter_size": "small",
    "speed_rating": 3,
    "hull_boxes": 2,
    "fuel_full": 2,
    "fuel_empty": 0,
}
# The players' typed-in table, covering the modified rolls 1..11 for both cups.
ACCEPTANCE_TABLE = ((1, 6, "none"), (7, 8, "fuel-2 speed-1"), (9, 11, "fuel-4 hull-2"))

AddShip = Callable[..., int]
TableRow = tuple[int, int, str] | tuple[int, int, str, str]


@dataclass(frozen=True)
class TaskForce:
    long: tuple[int, ...]
    small: tuple[int, ...]

    @property
    def ships(self) -> list[int]:
        return [*self.long, *self.small]


@dataclass(frozen=True)
class Mined:
    """A boundary of the campaign's map with Red's three active minefields across it."""

    boundary_id: int
    field_ids: tuple[int, ...]


def _counter(factory: SessionFactory, ship_id: int, **values: object) -> int:
    mines.save_counter(factory, ship_id=ship_id, **values)  # type: ignore[arg-type]
    return ship_id


def _sub_counter(factory: SessionFactory, ship_id: int, torpedoes: int, loaded: int = 0) -> int:
    """A submarine's counter: small, speed 1, with torpedo factors, loaded minefields among them."""
    return _counter(
        factory,
        ship_id,
        counter_size="small",
        speed_rating=1,
        torpedo_factors=torpedoes,
        mines_loaded=loaded,
    )


def _boundary(factory: SessionFactory, world: World, area_a: str, area_b: str) -> int:
    return mines.add_boundary(factory, campaign_id=world.campaign_id, area_a=area_a, area_b=area_b)


def _sow(factory: SessionFactory, world: World, boundary_id: int, **options: Any) -> int:
    """mines.sow_minefield for Red across the boundary, by a surface ship unless laid_by says."""
    options.setdefault("laid_by", "surface")
    return mines.sow_minefield(factory, side_id=world.red_id, boundary_id=boundary_id, **options)


def _sow_secret(
    factory: SessionFactory, world: World, boundary_id: int, notes: str, **options: Any
) -> int:
    """A complete secret minefield of Red's, laid by a surface ship, with these notes."""
    return _sow(factory, world, boundary_id, complete=True, secret=True, notes=notes, **options)


def _drop(
    factory: SessionFactory, world: World, boundary_id: int, aircraft: str, **options: Any
) -> list[str]:
    """mines.aerial_drop for Red across the boundary (the rolls among the options): naval attack 1,
    land 0 and not circled unless the options say otherwise."""
    options = {"naval_attack": 1, "land_attack": 0, "circled": False, **options}
    return mines.aerial_drop(
        factory, side_id=world.red_id, aircraft=aircraft, boundary_id=boundary_id, **options
    )


def _mine_row(
    factory: SessionFactory, campaign_id: int, row: TableRow, row_id: int | None = None
) -> int:
    """Type one row (low, high, effects[, applies_to]) into the campaign's mine damage table, or
    over the row row_id."""
    return mines.save_mine_row(
        factory,
        campaign_id=campaign_id,
        low=row[0],
        high=row[1],
        effects=row[2],
        applies_to=row[3] if len(row) == 4 else "all",
        row_id=row_id,
    )


def _type_table(factory: SessionFactory, campaign_id: int, rows: Sequence[TableRow]) -> list[int]:
    return [_mine_row(factory, campaign_id, row) for row in rows]


def _field(
    factory: SessionFactory, minefield_id: int, **ledger_args: object
) -> mines.MinefieldView:
    campaign_id = get_row(factory, Minefield, minefield_id).campaign_id
    ledger = mines.ledger(factory, campaign_id=campaign_id, **ledger_args)  # type: ignore[arg-type]
    return next(view for view in ledger.minefields if view.id == minefield_id)


def _journal(factory: SessionFactory, campaign_id: int) -> list[JournalEntry]:
    with session_scope(factory) as session:
        return list(
            session.exec(
                select(JournalEntry)
                .where(JournalEntry.campaign_id == campaign_id)
                .order_by(col(JournalEntry.id))
            ).all()
        )


@pytest.fixture
def task_force(factory: SessionFactory, world: World, add_ship: AddShip) -> TaskForce:
    """Blue's task force: 3 long and 5 small counters, all in squadron Alpha."""
    return TaskForce(
        long=tuple(
            _counter(factory, add_ship(world.alpha_id, name), **LONG_COUNTER) for name in LONG_NAMES
        ),
        small=tuple(
            _counter(factory, add_ship(world.alpha_id, name, type_abbrev="DE"), **SMALL_COUNTER)
            for name in SMALL_NAMES
        ),
    )


@pytest.fixture
def mined(factory: SessionFactory, world: World) -> Mined:
    boundary = _boundary(factory, world, "Skagerrak", "North Sea")
    fields = tuple(
        _sow(factory, world, boundary, layer_name="Cobra", complete=True) for _ in range(3)
    )
    return Mined(boundary_id=boundary, field_ids=fields)


@pytest.fixture
def sub(factory: SessionFactory, world: World, add_ship: AddShip) -> int:
    """Red's submarine U-116: 4 torpedo factors, 2 of them given over to minefields."""
    return _sub_counter(factory, add_ship(world.raider_id, "U-116", type_abbrev="SS"), 4, 2)


# --- the acceptance scenario ---------------------------------------------------------------


def test_acceptance_task_force_of_3_long_5_small_enters_3_minefields_at_speed_3(
    factory: SessionFactory, world: World, task_force: TaskForce, mined: Mined, refused: Refused
) -> None:
    tf = task_force
    _type_table(factory, world.campaign_id, ACCEPTANCE_TABLE)
    assert mines.mine_table(factory, campaign_id=world.campaign_id).gaps == ()
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=tf.ships)
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    before = {ship: mines.counter(factory, ship_id=ship) for ship in tf.ships}

    check_id = mines.start_check(
        factory,
        minefield_id=mined.field_ids[0],
        ship_ids=tf.ships,
        speed=3,
        first_cup="small",
        seed=20070201,
    )
    view = mines.check_view(factory, check_id=check_id)
    # The chosen cup first, then the other, alternating; the long cup runs out after its third
    # ship and the small cup finishes alone.
    assert [d.cup for d in view.draws] == ["small", "long"] * 3 + ["small", "small"]
    assert [d.draw_no for d in view.draws] == list(range(1, 9))
    assert sorted(d.ship_id for d in view.draws if d.cup == "long") == sorted(tf.long)
    assert sorted(d.ship_id for d in view.draws if d.cup == "small") == sorted(tf.small)
    assert (view.status, view.size, view.halt_at, view.left) == (
        "in_progress",
        8,
        2,
        {"long": 3, "small": 5},
    )
    assert view.minefield == f"#{mined.field_ids[0]} North Sea | Skagerrak"
    # +1 for each of the two minefields beyond the first, +2 for speed 3: +4 on every draw.
    assert (view.minefields, view.speed, view.drm.total) == (3, 3, 4)
    assert [d.drm for d in view.draws] == [4] * 8
    assert view.next == view.draws[0]

    # d6 2 -> 6 none; d6 3 -> 7 struck; d6 1 -> 5 none; d6 6 -> 10 struck: the second strike
    # is a quarter of 8, so the task force halts at the fourth ship drawn.
    rolls = [
        (2, "none", False),
        (3, "speed-1 fuel-2", True),
        (1, "none", False),
        (6, "fuel-4 hull-2", True),
    ]
    for number, (roll, effects, struck) in enumerate(rolls):
        assert view.status == "in_progress"
        assert view.next is not None and view.next.draw_no == number + 1
        assert mines.table_effect(factory, check_id=check_id, roll=roll) == effects
        view = mines.roll_mine(factory, check_id=check_id, roll=roll)
        draw = view.draws[number]
        assert (draw.drawn, draw.roll, draw.drm, draw.modified, draw.effects, draw.struck) == (
            True,
            roll,
            4,
            roll + 4,
            effects,
            struck,
        )
    assert (view.status, view.drawn, view.struck, view.next) == ("halted", 4, 2, None)
    assert view.message == (
        "2 of 8 struck (a quarter is 2): the task force stops moving and replots (19.25); "
        "the 4 ships not drawn pass"
    )
    assert view.left == {"long": 1, "small": 3}
    error = refused(lambda: mines.roll_mine(factory, check_id=check_id, roll=4), "roll")
    assert error.errors["roll"] == f"mine check #{check_id} is halted: no ship left to draw"
    assert mines.current_check(factory, campaign_id=world.campaign_id) is None

    # The undrawn ships (and the two that passed) are untouched.
    for draw in view.draws[4:]:
        assert (draw.drawn, draw.roll, draw.effects, draw.struck) == (False, None, "", False)
    for draw in (view.draws[0], view.draws[2], *view.draws[4:]):
        assert mines.counter(factory, ship_id=draw.ship_id) == before[draw.ship_id]

    # Fuel lost to mines comes from full factors first, then empty ones.
    first_hit, second_hit = view.draws[1].ship_id, view.draws[3].ship_id
    one = mines.counter(factory, ship_id=first_hit)
    assert (one.fuel, one.speed_lost, one.hull_damage) == (Fuel(full=1, empty=1, lost=2), 1, 0)
    two = mines.counter(factory, ship_id=second_hit)
    assert (two.fuel, two.speed_lost, two.hull_damage) == (Fuel(full=0, empty=0, lost=4), 0, 2)

    # Lost factors do not refuel; empty ones do.
    error = refused(lambda: mines.refuel_ship(factory, ship_id=second_hit), "factors")
    assert error.errors["factors"] == (
        f"{two.name} has 0 empty fuel factors to refuel; 4 lost to mines need a repair in a "
        "friendly port"
    )
    error = refused(lambda: mines.refuel_ship(factory, ship_id=first_hit, factors=3), "factors")
    assert "2 lost to mines need a repair in a friendly port" in error.errors["factors"]
    mines.refuel_ship(factory, ship_id=first_hit)
    assert mines.counter(factory, ship_id=first_hit).fuel == Fuel(full=2, empty=0, lost=2)

    # No repair while the ship is in a scenario in play; none at sea; then in port.
    error = refused(
        lambda: repairs.repair_ship(factory, ship_id=second_hit, fuel=True), "structure"
    )
    assert "repairs between scenarios come after it closes" in error.errors["structure"]
    assert scenarios.close_scenario(factory, scenario_id=world.scenario_id).ships == 8
    error = refused(
        lambda: repairs.repair_ship(factory, ship_id=second_hit, fuel=True, in_port=False),
        "fuel",
    )
    assert error.errors["fuel"] == "fuel lost to mines is repaired only in a friendly port"
    for ship, after_repair in ((second_hit, Fuel(0, 4, 0)), (first_hit, Fuel(2, 2, 0))):
        lost = mines.counter(factory, ship_id=ship).fuel.lost
        summary = repairs.repair_ship(factory, ship_id=ship, fuel=True, in_port=True)
        assert summary.endswith(f"repaired in port: fuel {lost} lost → empty")
        assert mines.counter(factory, ship_id=ship).fuel == after_repair
        error = refused(
            lambda ship=ship: repairs.repair_ship(factory, ship_id=ship, fuel=True), "fuel"
        )
        assert error.errors["fuel"].endswith("has no fuel factors lost to mines")
        mines.refuel_ship(factory, ship_id=ship)
        assert mines.counter(factory, ship_id=ship).fuel == Fuel(full=4, empty=0, lost=0)


def test_the_same_seed_draws_the_same_order(
    factory: SessionFactory, world: World, task_force: TaskForce, mined: Mined
) -> None:
    orders = []
    for _ in range(2):
        check_id = mines.start_check(
            factory, minefield_id=mined.field_ids[1], ship_ids=task_force.ships, speed=1, seed=77
        )
        draws = mines.check_view(factory, check_id=check_id).draws
        orders.append([(d.cup, d.ship_id) for d in draws])
        mines.abandon_check(factory, check_id=check_id)
    assert orders[0] == orders[1]
    # The long cup is drawn first by default; the small cup finishes alone.
    assert [cup for cup, _ in orders[0]] == ["long", "small"] * 3 + ["small", "small"]


# --- the halt rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "status", "drawn", "message"),
    [
        ("struck", "complete", 8, "every ship drawn: 0 of 8 struck mines"),
        (
            "drawn",
            "halted",
            2,
            "2 of 8 drawn (a quarter is 2): the task force stops moving and "
            "replots (19.25); the 6 ships not drawn pass",
        ),
    ],
)
def test_the_drawn_rule_halts_after_a_quarter_drawn_even_if_none_struck(
    factory: SessionFactory,
    world: World,
    task_force: TaskForce,
    mined: Mined,
    rule: str,
    status: str,
    drawn: int,
    message: str,
) -> None:
    summary = edit_campaign(factory, world.campaign_id, "Test campaign", mine_halt_rule=rule)
    assert summary.mine_halt_rule == rule
    _type_table(factory, world.campaign_id, [(1, 11, "none")])
    check_id = mines.start_check(
        factory, minefield_id=mined.field_ids[0], ship_ids=task_force.ships, speed=2, seed=5
    )
    view = mines.check_view(factory, check_id=check_id)
    assert (view.rule, view.drm.total) == (rule, 2)
    while view.next is not None:
        view = mines.roll_mine(factory, check_id=check_id, roll=6)
    assert (view.status, view.drawn, view.struck, view.message) == (status, drawn, 0, message)


@pytest.mark.parametrize("rule", ["struck", "drawn"])
def test_a_quarter_of_five_ships_is_rounded_up_to_two(
    factory: SessionFactory,
    world: World,
    task_force: TaskForce,
    mined: Mined,
    rule: str,
) -> None:
    edit_campaign(factory, world.campaign_id, "Test campaign", mine_halt_rule=rule)
    _type_table(factory, world.campaign_id, [(1, 11, "hull-1")])
    ships = [*task_force.long, *task_force.small[:2]]
    check_id = mines.start_check(
        factory, minefield_id=mined.field_ids[0], ship_ids=ships, speed=1, seed=2
    )
    view = mines.check_view(factory, check_id=check_id)
    assert (view.size, view.halt_at) == (5, 2)
    view = mines.roll_mine(factory, check_id=check_id, roll=1)
    assert (view.status, view.struck) == ("in_progress", 1)  # one of five is not a quarter
    view = mines.roll_mine(factory, check_id=check_id, roll=1)
    assert (view.status, view.drawn, view.struck) == ("halted", 2, 2)
    assert view.message.endswith("the 3 ships not drawn pass")


def test_the_extra_minefield_modifier_stops_at_plus_3(
    factory: SessionFactory, world: World, task_force: TaskForce, mined: Mined
) -> None:
    expected = {(1, 2): 0, (2, 2): 1, (4, 2): 3, (5, 2): 3, (9, 3): 5, (1, 3): 2, (2, 0): 1}
    for (minefields, speed), drm in expected.items():
        check_id = mines.start_check(
            factory,
            minefield_id=mined.field_ids[0],
            ship_ids=task_force.small[:1],
            speed=speed,
            minefields=minefields,
        )
        view = mines.check_view(factory, check_id=check_id)
        assert (view.minefields, view.drm.total) == (minefields, drm)
        mines.abandon_check(factory, check_id=check_id)


def test_the_halt_rule_is_struck_or_drawn_and_a_new_campaign_can_choose_drawn(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    error = refused(
        lambda: edit_campaign(factory, world.campaign_id, "Test campaign", mine_halt_rule="half"),
        "mine_halt_rule",
    )
    assert "struck" in error.errors["mine_halt_rule"] and "drawn" in error.errors["mine_halt_rule"]
    created = campaigns.create_campaign(factory, name="Bomb Alley", mine_halt_rule="drawn")
    assert created.mine_halt_rule == "drawn"


# --- counters, torpedoes and submarine minelayers -------------------------------------------


def test_a_counter_loads_no_more_minefields_than_torpedo_factors(
    factory: SessionFactory, world: World, add_ship: AddShip, refused: Refused
) -> None:
    ship = add_ship(world.raider_id, "U-73", type_abbrev="SS")
    error = refused(lambda: _sub_counter(factory, ship, 2, 3), "mines_loaded")
    assert error.errors["mines_loaded"] == (
        "each minefield takes the place of a torpedo factor: at most 2"
    )
    error = refused(
        lambda: mines.save_counter(factory, ship_id=ship, counter_size="medium", speed_rating=1),
        "counter_size",
    )
    assert "long or small" in error.errors["counter_size"]
    _sub_counter(factory, ship, 2, 2)
    view = mines.counter(factory, ship_id=ship)
    assert (view.mines_aboard, view.torpedoes_left) == (2, 0)


def test_a_submarine_makes_no_torpedo_attack_while_sowing(
    factory: SessionFactory, world: World, mined: Mined, sub: int, refused: Refused
) -> None:
    field = _sow(factory, world, mined.boundary_id, laid_by="submarine", layer_ship_id=sub)
    assert _field(factory, field).status == "sowing"
    error = refused(lambda: mines.torpedo_attack(factory, ship_id=sub, factors=1), "factors")
    assert error.errors["factors"] == (
        f"U-116 is sowing minefield #{field}: no torpedo attacks until it is complete"
    )
    mines.complete_minefield(factory, minefield_id=field)
    assert _field(factory, field).status == "active"
    assert mines.torpedo_attack(factory, ship_id=sub, factors=2, target="Nelson") == (
        "U-116 made a torpedo attack with 2 factors on Nelson"
    )
    # 4 torpedo factors, 2 given over to mines: 2 left for an attack.
    error = refused(lambda: mines.torpedo_attack(factory, ship_id=sub, factors=3), "factors")
    assert "has 2 torpedo factors (2 given over to mines)" in error.errors["factors"]


def test_a_submarine_lays_the_minefields_it_loaded_one_at_a_time(
    factory: SessionFactory,
    world: World,
    mined: Mined,
    sub: int,
    add_ship: AddShip,
    refused: Refused,
) -> None:
    def sow(layer: int) -> int:
        return _sow(factory, world, mined.boundary_id, laid_by="submarine", layer_ship_id=layer)

    assert mines.counter(factory, ship_id=sub).mines_aboard == 2
    first = sow(sub)
    view = mines.counter(factory, ship_id=sub)
    assert (view.mines_aboard, view.mines_laid, view.sowing_id) == (1, 1, first)
    error = refused(lambda: sow(sub), "layer")
    assert error.errors["layer"] == f"U-116 is still sowing minefield #{first}: complete it first"
    mines.complete_minefield(factory, minefield_id=first)
    second = sow(sub)
    assert mines.counter(factory, ship_id=sub).mines_aboard == 0
    mines.complete_minefield(factory, minefield_id=second)
    error = refused(lambda: sow(sub), "layer")
    assert error.errors["layer"] == "U-116 has no minefields aboard (2 loaded, 2 laid)"
    # The split stays: the counter cannot be re-entered with fewer minefields than it laid.
    error = refused(lambda: _sub_counter(factory, sub, 4, 1), "mines_loaded")
    assert error.errors["mines_loaded"] == "U-116 has already laid 2: at least 2"

    empty = _sub_counter(factory, add_ship(world.raider_id, "U-47", type_abbrev="SS"), 4)
    error = refused(lambda: sow(empty), "layer")
    assert error.errors["layer"] == "U-47 has no minefields aboard (0 loaded, 0 laid)"
    error = refused(lambda: _sow(factory, world, mined.boundary_id, laid_by="submarine"), "layer")
    assert error.errors["layer"] == "choose the submarine that lays it"
    error = refused(lambda: _sow(factory, world, mined.boundary_id, laid_by="aircraft"), "laid_by")
    assert "aerial drop" in error.errors["laid_by"]


# --- aerial drops --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("circled", "statuses"),
    [
        (True, ["scattered", "scattered", "active", "active", "active", "active"]),
        (False, ["scattered", "scattered", "scattered", "active", "active", "active"]),
    ],
)
def test_aerial_drops_take_effect_on_3_6_circled_or_4_6_and_scatter_otherwise(
    factory: SessionFactory, world: World, add_ship: AddShip, circled: bool, statuses: list[str]
) -> None:
    boundary = _boundary(factory, world, "Malta", "Sicilian Channel")
    results = _drop(
        factory,
        world,
        boundary,
        "II./KG 26",
        naval_attack=6,
        land_attack=2,
        circled=circled,
        rolls=[1, 2, 3, 4, 5, 6],
        turn=4,
    )
    need = "3-6" if circled else "4-6"
    words = ["effective" if status == "active" else "scattered" for status in statuses]
    assert [result.split(": ", 1)[1] for result in results] == [
        f"roll {roll} ({need}) {word}" for roll, word in zip(range(1, 7), words, strict=True)
    ]
    ledger = mines.ledger(factory, campaign_id=world.campaign_id).minefields
    assert [(f.status, f.drop_roll, f.laid_by, f.layer) for f in ledger] == [
        (status, roll, "aircraft", "II./KG 26")
        for roll, status in zip(range(1, 7), statuses, strict=True)
    ]
    assert all((f.turn_started, f.turn_completed) == (4, 4) for f in ledger)
    active = statuses.count("active")
    # Scattered drops make no minefield: only the effective ones count on the boundary, and the
    # modifier for extra minefields stops at +3.
    assert {f.count_here for f in ledger if f.status == "active"} == {active}
    first_active = next(f.id for f in ledger if f.status == "active")
    ship = _counter(
        factory, add_ship(world.alpha_id, "Penelope"), counter_size="long", speed_rating=3
    )
    check_id = mines.start_check(
        factory, minefield_id=first_active, ship_ids=[ship], speed=0, seed=1
    )
    view = mines.check_view(factory, check_id=check_id)
    assert (view.minefields, view.drm.minefields) == (active, min(3, active - 1))


def test_an_aircraft_drops_no_more_minefields_than_its_greater_attack_factor(
    factory: SessionFactory, world: World, mined: Mined, refused: Refused
) -> None:
    def drop(naval: int, land: int, rolls: list[int]) -> list[str]:
        return _drop(
            factory,
            world,
            mined.boundary_id,
            "X./KG 26",
            naval_attack=naval,
            land_attack=land,
            rolls=rolls,
        )

    error = refused(lambda: drop(2, 3, [4, 4, 4, 4]), "rolls")
    assert error.errors["rolls"] == (
        "X./KG 26 carries 3 minefields (the greater attack factor): at most 3 drops"
    )
    refused(lambda: drop(1, 0, [5, 5]), "rolls")
    refused(lambda: drop(3, 1, []), "rolls")
    refused(lambda: drop(3, 1, [0]), "rolls")
    refused(lambda: drop(3, 1, [7]), "rolls")
    assert len(drop(3, 1, [4, 5, 6])) == 3
    other = _drop(factory, world, mined.boundary_id, "II./KG 26", naval_attack=0, land_attack=2,
                  rolls=[4, 5])  # fmt: skip
    assert len(other) == 2


# --- a scattered failed drop is in the ledger -----------------------------------------------


def test_a_failed_drop_is_recorded_as_scattered_and_cannot_be_checked(
    factory: SessionFactory, world: World, mined: Mined, task_force: TaskForce, refused: Refused
) -> None:
    [result] = _drop(factory, world, mined.boundary_id, "Swordfish", circled=True, rolls=[2])
    scattered = max(f.id for f in mines.ledger(factory, campaign_id=world.campaign_id).minefields)
    assert result == f"minefield #{scattered}: roll 2 (3-6) scattered"
    view = _field(factory, scattered)
    assert (view.status, view.drop_roll, view.where) == ("scattered", 2, "North Sea | Skagerrak")
    # It adds nothing to the three minefields on the boundary.
    assert _field(factory, mined.field_ids[0]).count_here == 3
    error = refused(
        lambda: mines.start_check(
            factory, minefield_id=scattered, ship_ids=task_force.ships, speed=1
        ),
        "minefield",
    )
    assert "is scattered: only an active minefield is checked" in error.errors["minefield"]


# --- drifting minefields -------------------------------------------------------------------


def test_a_drifting_minefield_keeps_its_path_and_a_secured_one_stays_put(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    ab, bc, cd = (
        _boundary(factory, world, *areas) for areas in (("B", "A"), ("B", "C"), ("C", "D"))
    )
    secured = _sow(factory, world, ab, complete=True)
    error = refused(
        lambda: mines.drift(factory, minefield_id=secured, to_boundary_id=bc), "minefield"
    )
    assert error.errors["minefield"] == f"minefield #{secured} is secured: it stays put"

    drifting = _sow(factory, world, ab, complete=True, drifting=True)
    assert mines.drift(factory, minefield_id=drifting, to_boundary_id=bc, d6=4, turn=2) == (
        f"Red: minefield #{drifting} drifted from A | B to B | C (roll 4)"
    )
    mines.drift(factory, minefield_id=drifting, to_boundary_id=cd, turn=3)
    view = _field(factory, drifting)
    assert (view.where, view.boundary_id) == ("C | D", cd)
    assert view.path == ("turn 2: A | B → B | C (roll 4)", "turn 3: B | C → C | D")
    assert _field(factory, secured).path == ()
    refused(lambda: mines.drift(factory, minefield_id=drifting, to_boundary_id=cd, d6=7), "d6")
    refused(lambda: mines.drift(factory, minefield_id=drifting), "boundary")
    # Between scenarios, a drift needs the turn whose end it happened at.
    error = refused(lambda: mines.drift(factory, minefield_id=drifting, to_boundary_id=ab),
                    "minefield")  # fmt: skip
    assert "give the turn it drifted at the end of" in error.errors["minefield"]
    mines.set_status(factory, minefield_id=drifting, status="swept")
    error = refused(
        lambda: mines.drift(factory, minefield_id=drifting, to_boundary_id=ab), "minefield"
    )
    assert error.errors["minefield"] == f"minefield #{drifting} is swept"


# --- secret minefields ---------------------------------------------------------------------


def test_a_secret_minefield_is_hidden_from_the_opponent_and_sealed_under_the_passphrase(
    factory: SessionFactory,
    world: World,
    mined: Mined,
    task_force: TaskForce,
    stored_bytes: Callable[[], bytes],
    refused: Refused,
) -> None:
    notes = "Laid at dusk off Utsira light"
    secret = _sow_secret(factory, world, mined.boundary_id, notes, layer_name="Roland")
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)

    sealed = get_row(factory, Minefield, secret)
    assert sealed.sealed.startswith("fernet:")
    assert notes not in sealed.sealed and "boundary_id" not in sealed.sealed
    assert (sealed.boundary_id, sealed.notes, sealed.sector) == (None, "", "")
    raw = stored_bytes()
    assert notes.encode() not in raw

    # The opponent (and Blue's own view) see only the owner, status and turns.
    for args in ({}, {"owner_side_id": world.blue_id}):
        view = _field(factory, secret, **args)
        assert (
            view.hidden,
            view.secret,
            view.where,
            view.boundary_id,
            view.notes,
            view.layer,
            view.path,
            view.side_name,
            view.status,
        ) == (True, True, "secret", None, "", "", (), "Red", "active")
    # Red's own view opens it with the passphrase, and only with it.
    owner = _field(factory, secret, owner_side_id=world.red_id, passphrase=PASS)
    assert (owner.hidden, owner.where, owner.boundary_id, owner.notes, owner.layer) == (
        False,
        "North Sea | Skagerrak",
        mined.boundary_id,
        notes,
        "Roland",
    )
    for wrong in (None, "", "minelayer8"):
        error = refused(
            lambda wrong=wrong: mines.ledger(
                factory, campaign_id=world.campaign_id, owner_side_id=world.red_id, passphrase=wrong
            ),
            "passphrase",
        )
        assert "passphrase" in error.errors["passphrase"]
    # A secret minefield must be sown with the passphrase once the side has one.
    refused(lambda: _sow(factory, world, mined.boundary_id, secret=True), "passphrase")

    # It is not checked while secret; the owner reveals it first.
    error = refused(
        lambda: mines.start_check(factory, minefield_id=secret, ship_ids=task_force.ships, speed=1),
        "minefield",
    )
    assert error.errors["minefield"].startswith(f"minefield #{secret} is secret")
    refused(lambda: mines.reveal(factory, minefield_id=secret), "passphrase")
    refused(
        lambda: mines.reveal(factory, minefield_id=secret, passphrase="nope-nope"), "passphrase"
    )
    assert mines.reveal(factory, minefield_id=secret, passphrase=PASS) == (
        f"Red: minefield #{secret} revealed (North Sea | Skagerrak)"
    )
    public = _field(factory, secret)
    assert (public.hidden, public.secret, public.where, public.notes, public.layer) == (
        False,
        False,
        "North Sea | Skagerrak",
        notes,
        "Roland",
    )
    assert get_row(factory, Minefield, secret).sealed == ""
    # Revealed, it counts on its boundary with the other three, and may be checked.
    assert public.count_here == 4
    check_id = mines.start_check(
        factory, minefield_id=secret, ship_ids=task_force.ships, speed=1, seed=3
    )
    assert mines.check_view(factory, check_id=check_id).minefields == 4
    refused(lambda: mines.reveal(factory, minefield_id=secret, passphrase=PASS), "minefield")


def test_a_secret_drifting_minefield_drifts_under_the_seal_and_the_journal_keeps_no_copy(
    factory: SessionFactory,
    world: World,
    mined: Mined,
    stored_bytes: Callable[[], bytes],
    refused: Refused,
) -> None:
    notes = "Drifting field, laid by Brummer"
    kattegat = _boundary(factory, world, "Kattegat", "Skagerrak")
    sound = _boundary(factory, world, "Kattegat", "The Sound")
    secret = _sow_secret(factory, world, mined.boundary_id, notes, drifting=True)
    # Drifted before the side has a passphrase, then sealed under one.
    summary = mines.drift(factory, minefield_id=secret, to_boundary_id=kattegat, turn=2)
    assert summary == f"Red: minefield #{secret} drifted"  # no place in the journal
    entry = _journal(factory, world.campaign_id)[-1]
    assert not entry.undoable and "Kattegat" not in entry.summary + entry.detail.split("plain:")[0]
    assert notes not in entry.detail
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    raw = stored_bytes()
    assert notes.encode() not in raw

    refused(lambda: mines.drift(factory, minefield_id=secret, to_boundary_id=sound), "passphrase")
    mines.drift(factory, minefield_id=secret, to_boundary_id=sound, turn=3, passphrase=PASS)
    sealed = get_row(factory, Minefield, secret).sealed
    assert sealed.startswith("fernet:") and "Sound" not in sealed
    assert _field(factory, secret).path == ()
    owner = _field(factory, secret, owner_side_id=world.red_id, passphrase=PASS)
    assert (owner.where, owner.notes, owner.path) == (
        "Kattegat | The Sound",
        notes,
        (
            "turn 2: North Sea | Skagerrak → Kattegat | Skagerrak",
            "turn 3: Kattegat | Skagerrak → Kattegat | The Sound",
        ),
    )
    # A secret drift cannot be undone (its old seal is not kept): ctrl+z passes over both drifts
    # to the sowing, and the minefield never goes back to a plain seal.
    result = ctrl_z(factory, world.campaign_id)
    assert (
        result.summary
        == f"Undid #{_sowing_entry(factory, world, secret)}: Red: secret minefield #{secret} "
        "(active)"
    )
    assert get_row(factory, Minefield, secret).sealed == sealed
    assert secret not in [
        f.id for f in mines.ledger(factory, campaign_id=world.campaign_id).minefields
    ]


def _sowing_entry(factory: SessionFactory, world: World, minefield_id: int) -> int:
    return next(
        entry.id or 0
        for entry in _journal(factory, world.campaign_id)
        if entry.summary.endswith(f"secret minefield #{minefield_id} (active)")
    )


def test_an_undone_reveal_opens_under_a_passphrase_changed_since(
    factory: SessionFactory, world: World, mined: Mined, refused: Refused
) -> None:
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    secret = _sow_secret(factory, world, mined.boundary_id, "Off the Naze", passphrase=PASS)
    mines.reveal(factory, minefield_id=secret, passphrase=PASS)
    sealing.set_passphrase(
        factory, side_id=world.red_id, passphrase="another-one", old_passphrase=PASS
    )
    ctrl_z(factory, world.campaign_id)  # the reveal
    assert _field(factory, secret).hidden
    owner = _field(factory, secret, owner_side_id=world.red_id, passphrase="another-one")
    assert (owner.secret, owner.where, owner.notes) == (
        True,
        "North Sea | Skagerrak",
        "Off the Naze",
    )
    refused(
        lambda: mines.ledger(
            factory, campaign_id=world.campaign_id, owner_side_id=world.red_id, passphrase=PASS
        ),
        "passphrase",
    )


# --- the mine damage table -----------------------------------------------------------------


def test_overlapping_mine_table_rows_are_refused_long_and_small_rows_may_share_a_range(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    def row(low: int, high: int, effects: str, applies_to: str = "all") -> int:
        return _mine_row(factory, world.campaign_id, (low, high, effects, applies_to))

    row(1, 4, "none")
    error = refused(lambda: row(3, 5, "fuel-1", "long"), "low")
    assert error.errors["low"] == (
        "overlaps the row 1-4 (all): none; change that row or these numbers"
    )
    long_row = row(5, 7, "fuel-1", "long")
    row(5, 7, "hull-1", "small")  # the same range for the other cup is no overlap
    # An "all" row overlaps a long row (and a small one).
    error = refused(lambda: row(7, 9, "sunk"), "low")
    assert error.errors["low"].startswith("overlaps the row 5-7 (")
    refused(lambda: row(7, 7, "sunk", "long"), "low")
    refused(lambda: row(6, 6, "sunk", "small"), "low")
    refused(lambda: row(8, 6, "sunk"), "high")
    refused(lambda: row(8, 9, "sunk", "big"), "applies_to")
    error = refused(lambda: row(8, 9, "boom"), "effects")
    assert "'boom' is not an effect" in error.errors["effects"]
    refused(lambda: row(8, 9, "none sunk"), "effects")
    # Editing a row does not clash with itself.
    assert (
        _mine_row(factory, world.campaign_id, (5, 8, "fuel-1, speed-1", "long"), long_row)
        == long_row
    )

    table = mines.mine_table(factory, campaign_id=world.campaign_id)
    assert [(r.low, r.high, r.applies_to, r.effect) for r in table.rows] == [
        (1, 4, "all", "none"),
        (5, 8, "long", "speed-1 fuel-1"),
        (5, 7, "small", "hull-1"),
    ]
    # Gaps are allowed, and listed per cup.
    assert table.gaps == ("long counters: no row for 9-11", "small counters: no row for 8-11")


def test_a_roll_in_a_gap_of_the_table_asks_for_the_result_and_takes_the_typed_one(
    factory: SessionFactory, world: World, mined: Mined, task_force: TaskForce, refused: Refused
) -> None:
    _type_table(factory, world.campaign_id, [(1, 6, "none"), (8, 11, "sunk")])
    assert mines.mine_table(factory, campaign_id=world.campaign_id).gaps == (
        "long counters: no row for 7",
        "small counters: no row for 7",
    )
    # Two minefields entered by hand (+1) at speed 2 (no +2): +1 in all.
    check_id = mines.start_check(
        factory,
        minefield_id=mined.field_ids[0],
        ship_ids=task_force.long[:1],
        speed=2,
        minefields=2,
    )
    assert mines.check_view(factory, check_id=check_id).drm.total == 1
    ship = task_force.long[0]
    assert mines.table_effect(factory, check_id=check_id, roll=6) is None
    error = refused(lambda: mines.roll_mine(factory, check_id=check_id, roll=6), "effects")
    assert error.errors["effects"] == (
        "no row of the mine table covers 7 for a long counter: type the result (none, fuel-2, "
        "sunk, ...)"
    )
    refused(
        lambda: mines.roll_mine(factory, check_id=check_id, roll=6, effects="kaboom"), "effects"
    )
    refused(lambda: mines.roll_mine(factory, check_id=check_id, roll=7, effects="none"), "roll")
    view = mines.roll_mine(factory, check_id=check_id, roll=6, effects="gunnery-1 fuel-1")
    assert (view.status, view.draws[0].effects, view.draws[0].modified) == (
        "complete",
        "gunnery-1 fuel-1",
        7,
    )
    counter = mines.counter(factory, ship_id=ship)
    assert (counter.gunnery_lost, counter.fuel) == (1, Fuel(full=2, empty=1, lost=1))


def test_without_a_table_the_player_types_each_result(
    factory: SessionFactory, world: World, mined: Mined, task_force: TaskForce, refused: Refused
) -> None:
    table = mines.mine_table(factory, campaign_id=world.campaign_id)
    assert (table.rows, table.gaps) == ((), ())
    check_id = mines.start_check(
        factory, minefield_id=mined.field_ids[0], ship_ids=task_force.small[:2], speed=3, seed=9
    )
    error = refused(lambda: mines.roll_mine(factory, check_id=check_id, roll=1), "effects")
    assert "no row of the mine table covers 5 for a small counter" in error.errors["effects"]
    view = mines.roll_mine(factory, check_id=check_id, roll=1, effects="sunk")
    # A quarter of 2 is 1: the sinking halts the task force before the second ship.
    assert (view.status, view.draws[0].effects, view.struck) == ("halted", "sunk", 1)
    sunk = mines.counter(factory, ship_id=view.draws[0].ship_id)
    assert sunk.sunk
    assert mines.counter(factory, ship_id=view.draws[1].ship_id).sunk is False
    # A sunk ship enters no more minefields.
    error = refused(
        lambda: mines.start_check(
            factory, minefield_id=mined.field_ids[1], ship_ids=[sunk.ship_id], speed=1
        ),
        "ships",
    )
    assert error.errors["ships"] == f"{sunk.name} is sunk"


def test_a_second_check_waits_for_the_first_and_ships_without_a_size_are_refused(
    factory: SessionFactory,
    world: World,
    mined: Mined,
    task_force: TaskForce,
    add_ship: AddShip,
    refused: Refused,
) -> None:
    field = mined.field_ids[0]
    bare = add_ship(world.alpha_id, "Bare")
    error = refused(
        lambda: mines.start_check(factory, minefield_id=field, ship_ids=[bare], speed=1), "ships"
    )
    assert error.errors["ships"].startswith("Bare has no counter size")
    refused(lambda: mines.start_check(factory, minefield_id=field, ship_ids=[], speed=1), "ships")
    refused(
        lambda: mines.start_check(
            factory, minefield_id=field, ship_ids=task_force.long[:1], speed=1, first_cup="middle"
        ),
        "first_cup",
    )
    check_id = mines.start_check(factory, minefield_id=field, ship_ids=task_force.long, speed=1)
    error = refused(
        lambda: mines.start_check(factory, minefield_id=field, ship_ids=task_force.small, speed=1),
        "minefield",
    )
    assert f"mine check #{check_id} is still in progress" in error.errors["minefield"]
    mines.abandon_check(factory, check_id=check_id)
    assert mines.check_view(factory, check_id=check_id).message == "abandoned"
    refused(lambda: mines.roll_mine(factory, check_id=check_id, roll=3, effects="none"), "roll")


# --- fuel ----------------------------------------------------------------------------------


def test_ordinary_fuel_use_empties_full_factors_and_refuel_fills_them(
    factory: SessionFactory, world: World, task_force: TaskForce, refused: Refused
) -> None:
    ship = task_force.long[0]
    assert mines.use_fuel(factory, ship_id=ship, factors=2) == "Nelson used 2 fuel (1 full left)"
    assert mines.counter(factory, ship_id=ship).fuel == Fuel(full=1, empty=3, lost=0)
    refused(lambda: mines.use_fuel(factory, ship_id=ship, factors=2), "factors")
    refused(lambda: mines.use_fuel(factory, ship_id=ship, factors=0), "factors")
    error = refused(lambda: mines.refuel_ship(factory, ship_id=ship, factors=4), "factors")
    assert error.errors["factors"] == "Nelson has 3 empty fuel factors to refuel"
    refused(lambda: mines.refuel_ship(factory, ship_id=ship, factors=0), "factors")
    assert mines.refuel_ship(factory, ship_id=ship, factors=2) == "Nelson refuelled 2 (3 full)"
    assert mines.counter(factory, ship_id=ship).fuel == Fuel(full=3, empty=1, lost=0)


def test_a_sunk_ship_uses_no_fuel_refuels_none_and_fires_no_torpedoes(
    factory: SessionFactory, world: World, task_force: TaskForce, sub: int, refused: Refused
) -> None:
    for ship in (task_force.long[0], sub):
        with session_scope(factory) as session:
            session.get_one(Ship, ship).sunk = True
    for call in (
        lambda: mines.use_fuel(factory, ship_id=task_force.long[0], factors=1),
        lambda: mines.refuel_ship(factory, ship_id=task_force.long[0]),
        lambda: mines.torpedo_attack(factory, ship_id=sub, factors=1),
    ):
        assert refused(call, "factors").errors["factors"].endswith("is sunk")


# --- undo ----------------------------------------------------------------------------------


def test_undo_of_a_mine_roll_restores_the_ship_and_puts_it_back_in_the_cup(
    factory: SessionFactory, world: World, mined: Mined, task_force: TaskForce
) -> None:
    _type_table(factory, world.campaign_id, ACCEPTANCE_TABLE)
    check_id = mines.start_check(
        factory, minefield_id=mined.field_ids[0], ship_ids=task_force.ships, speed=3, seed=11
    )
    start = mines.check_view(factory, check_id=check_id)
    first = start.draws[0].ship_id
    before = mines.counter(factory, ship_id=first)

    struck = mines.roll_mine(factory, check_id=check_id, roll=3)  # 7: speed-1 fuel-2
    hit = mines.counter(factory, ship_id=first)
    assert (hit.speed_lost, hit.fuel) == (1, Fuel(full=1, empty=1, lost=2))
    assert struck.draws[0].drawn and struck.next == struck.draws[1]

    result = ctrl_z(factory, world.campaign_id)
    assert result.ship_ids == (first,)
    assert mines.counter(factory, ship_id=first) == before
    assert mines.check_view(factory, check_id=check_id) == start

    # The halting roll undone: the check is in progress again, and goes on from that ship.
    mines.roll_mine(factory, check_id=check_id, roll=3)
    second = start.draws[1].ship_id
    second_before = mines.counter(factory, ship_id=second)
    halted = mines.roll_mine(factory, check_id=check_id, roll=5)  # 9: fuel-4 hull-2
    assert (halted.status, halted.struck) == ("halted", 2)
    assert mines.counter(factory, ship_id=second).hull_damage == 2
    ctrl_z(factory, world.campaign_id)
    view = mines.check_view(factory, check_id=check_id)
    assert (view.status, view.drawn, view.struck) == ("in_progress", 1, 1)
    assert view.next is not None and view.next.ship_id == second
    assert (view.draws[1].drawn, view.draws[1].roll, view.draws[1].effects) == (False, None, "")
    assert mines.counter(factory, ship_id=second) == second_before
    assert mines.roll_mine(factory, check_id=check_id, roll=1).status == "in_progress"


def test_undo_of_sowing_gives_the_submarine_its_minefield_back(
    factory: SessionFactory, world: World, mined: Mined, sub: int
) -> None:
    field = _sow(factory, world, mined.boundary_id, laid_by="submarine", layer_ship_id=sub)
    assert mines.counter(factory, ship_id=sub).mines_aboard == 1
    ctrl_z(factory, world.campaign_id)
    view = mines.counter(factory, ship_id=sub)
    assert (view.mines_aboard, view.sowing_id) == (2, None)
    ids = [f.id for f in mines.ledger(factory, campaign_id=world.campaign_id).minefields]
    assert field not in ids
    assert mines.torpedo_attack(factory, ship_id=sub, factors=1).startswith("U-116 made")


# --- the journal ---------------------------------------------------------------------------


def test_each_roll_sow_drift_fuel_use_and_refuel_writes_one_journal_entry(
    factory: SessionFactory,
    world: World,
    mined: Mined,
    task_force: TaskForce,
    sub: int,
    journaled: Journaled,
) -> None:
    campaign = world.campaign_id
    ship = task_force.long[0]
    _type_table(factory, campaign, ACCEPTANCE_TABLE)

    with journaled(campaign) as new:
        field = _sow(
            factory,
            world,
            mined.boundary_id,
            laid_by="submarine",
            layer_ship_id=sub,
            drifting=True,
            turn=1,
        )
    assert (new.only.kind, new.only.side_id) == ("minefield", world.red_id)
    assert new.only.summary == (
        f"Red: U-116 began sowing minefield #{field} (North Sea | Skagerrak)"
    )
    with journaled(campaign) as new:
        mines.complete_minefield(factory, minefield_id=field, turn=2)
    assert new.only.summary == f"Red: minefield #{field} complete"
    other = _boundary(factory, world, "Kattegat", "Skaw")
    with journaled(campaign) as new:
        mines.drift(factory, minefield_id=field, to_boundary_id=other, d6=2, turn=3)
    assert new.only.kind == "minefield" and new.detail["dice"] == {"d6": 2}
    with journaled(campaign) as new:
        _drop(factory, world, mined.boundary_id, "Sunderland", rolls=[5])
    assert new.detail["dice"] == {"d6": 5}
    with journaled(campaign) as new:
        mines.torpedo_attack(factory, ship_id=sub, factors=1)
    assert new.only.kind == "torpedo"

    with journaled(campaign) as new:
        mines.use_fuel(factory, ship_id=ship, factors=1)
    assert (new.only.kind, new.only.ship_id) == ("fuel", ship)
    with journaled(campaign) as new:
        mines.refuel_ship(factory, ship_id=ship)
    assert (new.only.kind, new.only.ship_id, new.only.summary) == (
        "fuel",
        ship,
        "Nelson refuelled 2 (4 full)",
    )

    with journaled(campaign) as new:
        check_id = mines.start_check(
            factory, minefield_id=mined.field_ids[0], ship_ids=[ship], speed=3, seed=1
        )
    assert new.only.kind == "mine check" and new.detail["dice"] == {"seed": 1}
    with journaled(campaign) as new:
        mines.roll_mine(factory, check_id=check_id, roll=2)
    entry = new.only
    assert (entry.kind, entry.ship_id, entry.side_id) == ("mine", ship, world.blue_id)
    # Three minefields and the effective drop lie across this boundary (the sub's drifted
    # away): +3 at most for the extra ones, +2 for speed 3.
    assert entry.summary == "Nelson (long cup) roll 2 +5 = 7: speed 3 (-1), fuel 2 lost"
    assert new.detail["dice"] == {"d6": 2, "drm": 5, "modified": 7}
    assert entry.undoable
    tables = {change["table"] for change in new.detail["changes"]}
    assert tables == {"ship", "minecheckship", "minecheck"}  # one ship: the check completes

    kinds = [e.kind for e in _journal(factory, campaign)]
    assert kinds.count("fuel") == 2 and kinds.count("mine") == 1
    assert json.loads(_journal(factory, campaign)[-1].detail)["dice"]["modified"] == 7


def test_drifting_counts_the_drifting_minefields_on_the_map(
    factory: SessionFactory, world: World
) -> None:
    boundary = _boundary(factory, world, "Kattegat", "Skagerrak")
    assert mines.drifting(factory, campaign_id=world.campaign_id) == 0
    _sow(factory, world, boundary, complete=True)  # secured
    loose = _sow(factory, world, boundary, complete=True, drifting=True)
    sowing = _sow(factory, world, boundary, drifting=True)  # not yet a minefield: no drift
    assert mines.drifting(factory, campaign_id=world.campaign_id) == 1
    mines.complete_minefield(factory, minefield_id=sowing)
    assert mines.drifting(factory, campaign_id=world.campaign_id) == 2
    mines.set_status(factory, minefield_id=loose, status="swept")
    assert mines.drifting(factory, campaign_id=world.campaign_id) == 1


def test_a_secret_minefield_keeps_its_layer_sealed_and_counts_in_its_owners_view(
    factory: SessionFactory, world: World, mined: Mined
) -> None:
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase="Raeder")
    secret = _sow_secret(factory, world, mined.boundary_id, "", layer_name="Brummer",
                         passphrase="Raeder")  # fmt: skip
    assert get_row(factory, Minefield, secret).layer_name == ""
    assert all("Brummer" not in entry.summary for entry in _journal(factory, world.campaign_id))
    opponent = _field(factory, mined.field_ids[0])
    assert opponent.count_here == 3  # the secret one is not the opponent's to count
    assert _field(factory, secret).layer == ""
    owner = {"owner_side_id": world.red_id, "passphrase": "Raeder"}
    assert _field(factory, mined.field_ids[0], **owner).count_here == 4
    assert _field(factory, secret, **owner).layer == "Brummer"
    mines.reveal(factory, minefield_id=secret, passphrase="Raeder")
    assert get_row(factory, Minefield, secret).layer_name == "Brummer"
    assert _field(factory, mined.field_ids[0]).count_here == 4


def test_a_ship_whose_hull_boxes_are_used_up_by_a_mine_sinks(
    factory: SessionFactory, world: World, task_force: TaskForce, mined: Mined
) -> None:
    _type_table(factory, world.campaign_id, ((1, 11, "hull-1"),))
    check_id = mines.start_check(factory, minefield_id=mined.field_ids[0],
                                 ship_ids=task_force.small[:1], speed=0, seed=1)  # fmt: skip
    mines.roll_mine(factory, check_id=check_id, roll=2)  # 2 hull boxes: one left
    assert not mines.counter(factory, ship_id=task_force.small[0]).sunk
    check_id = mines.start_check(factory, minefield_id=mined.field_ids[0],
                                 ship_ids=task_force.small[:1], speed=0, seed=1)  # fmt: skip
    mines.roll_mine(factory, check_id=check_id, roll=2)
    view = mines.counter(factory, ship_id=task_force.small[0])
    assert (view.hull_damage, view.sunk) == (2, True)
    last = _journal(factory, world.campaign_id)[-1]
    assert "hull used up: SUNK" in last.summary


def test_a_turn_beyond_the_scenarios_current_turn_is_refused(
    factory: SessionFactory, world: World, mined: Mined, task_force: TaskForce, refused: Refused
) -> None:
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=task_force.ships)
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    sowing = _sow(factory, world, mined.boundary_id)  # begun on the current turn, 1
    error = refused(lambda: mines.complete_minefield(factory, minefield_id=sowing, turn=5), "turn")
    assert error.errors["turn"].startswith("First clash is at turn 1")
    refused(lambda: _sow(factory, world, mined.boundary_id, turn=2), "turn")
    scenarios.advance_turn(factory, scenario_id=world.scenario_id)
    assert mines.complete_minefield(factory, minefield_id=sowing, turn=2).endswith("complete")
    assert _field(factory, sowing).turn_completed == 2


@pytest.mark.parametrize(("low", "high"), [(12, 14), (-5, 0)])
def test_a_mine_table_row_no_modified_roll_can_reach_is_refused(
    factory: SessionFactory, world: World, refused: Refused, low: int, high: int
) -> None:
    error = refused(lambda: _mine_row(factory, world.campaign_id, (low, high, "sunk")), "low")
    assert "would never be rolled" in error.errors["low"]
    assert _mine_row(factory, world.campaign_id, (10, 14, "sunk"))  # reaches 10 and 11


# --- the seed's rules where play uses them (docs/RULES.md §Mines) ---------------------------


def test_mines_surface_minelayer_sowing_may_still_torpedo(
    factory: SessionFactory, world: World, mined: Mined, add_ship: AddShip
) -> None:
    layer = _counter(factory, add_ship(world.raider_id, "Brummer"), counter_size="long",
                     speed_rating=3, torpedo_factors=2)  # fmt: skip
    field = _sow(factory, world, mined.boundary_id, layer_ship_id=layer)
    assert _field(factory, field).status == "sowing"
    assert mines.counter(factory, ship_id=layer).sowing_id is None
    assert mines.torpedo_attack(factory, ship_id=layer, factors=2) == (
        "Brummer made a torpedo attack with 2 factors"
    )


def _two_factor_drop(factory: SessionFactory, world: World, boundary: int, rolls: list[int],
                     **options: Any) -> list[str]:  # fmt: skip
    return _drop(factory, world, boundary, "X./KG 26", naval_attack=2, land_attack=1,
                 rolls=rolls, **options)  # fmt: skip


def test_mines_aircraft_capacity_per_mission(
    factory: SessionFactory, world: World, mined: Mined, refused: Refused, add_ship: AddShip
) -> None:
    ship = add_ship(world.alpha_id, "Nelson")
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=[ship])
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    assert len(_two_factor_drop(factory, world, mined.boundary_id, [4])) == 1
    assert len(_two_factor_drop(factory, world, mined.boundary_id, [2])) == 1  # scattered counts
    error = refused(lambda: _two_factor_drop(factory, world, mined.boundary_id, [5]), "rolls")
    assert error.errors["rolls"] == (
        "X./KG 26 carries 2 minefields a mission (the greater attack factor) and has dropped 2 "
        "this turn: none left"
    )
    # Another aircraft has its own load; the next turn is a new mission.
    assert len(_drop(factory, world, mined.boundary_id, "III./KG 26", rolls=[6])) == 1
    scenarios.advance_turn(factory, scenario_id=world.scenario_id)
    assert len(_two_factor_drop(factory, world, mined.boundary_id, [5, 6])) == 2


def test_mines_aircraft_capacity_per_mission_of_a_scenario_when_the_campaign_says_so(
    factory: SessionFactory, world: World, mined: Mined, refused: Refused, add_ship: AddShip
) -> None:
    edit_campaign(factory, world.campaign_id, "Test campaign", aircraft_mission="scenario")
    ship = add_ship(world.alpha_id, "Nelson")
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=[ship])
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    _two_factor_drop(factory, world, mined.boundary_id, [4])
    scenarios.advance_turn(factory, scenario_id=world.scenario_id)
    error = refused(lambda: _two_factor_drop(factory, world, mined.boundary_id, [5, 6]), "rolls")
    assert error.errors["rolls"].endswith("has dropped 1 this scenario: at most 1 more")


def test_mines_aircraft_capacity_counts_its_secret_drops_between_scenarios(
    factory: SessionFactory, world: World, mined: Mined, refused: Refused
) -> None:
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    _two_factor_drop(factory, world, mined.boundary_id, [4], secret=True, passphrase=PASS)
    # The aircraft's earlier drop is sealed: counting it takes the side's passphrase.
    refused(lambda: _two_factor_drop(factory, world, mined.boundary_id, [5, 6]), "passphrase")
    error = refused(
        lambda: _two_factor_drop(factory, world, mined.boundary_id, [5, 6], passphrase=PASS),
        "rolls",
    )
    assert error.errors["rolls"].endswith("has dropped 1 this turn: at most 1 more")
    assert len(_two_factor_drop(factory, world, mined.boundary_id, [5], passphrase=PASS)) == 1


def test_mines_task_force_is_one_side(
    factory: SessionFactory, world: World, mined: Mined, task_force: TaskForce,
    add_ship: AddShip, refused: Refused,
) -> None:  # fmt: skip
    raider = _counter(factory, add_ship(world.raider_id, "Hipper"), **LONG_COUNTER)
    error = refused(
        lambda: mines.start_check(
            factory, minefield_id=mined.field_ids[0], ship_ids=[*task_force.ships, raider],
            speed=2,
        ),
        "ships",
    )  # fmt: skip
    assert error.errors["ships"] == (
        "a task force is one side's ships: Hipper is Red's, the others Blue's; check each "
        "side's task force on its own"
    )


def test_mines_speed_3_needs_a_damaged_speed_rating_that_makes_it(
    factory: SessionFactory, world: World, mined: Mined, task_force: TaskForce, refused: Refused
) -> None:
    slowed = task_force.long[0]
    mines.save_counter(factory, ship_id=slowed, **{**LONG_COUNTER, "speed_lost": 2})
    error = refused(
        lambda: mines.start_check(
            factory, minefield_id=mined.field_ids[0], ship_ids=task_force.ships, speed=3
        ),
        "speed",
    )
    assert error.errors["speed"] == (
        "Nelson makes speed 2 at most (rating 4, 2 lost to mines): the task force moves at 2 or "
        "less, or leaves it behind"
    )
    check_id = mines.start_check(
        factory, minefield_id=mined.field_ids[0], ship_ids=task_force.ships, speed=2
    )
    assert mines.check_view(factory, check_id=check_id).speed == 2


@pytest.mark.parametrize(("rating", "lost", "speed"), [(0, 0, 3), (2, 0, 3), (5, 3, 3), (4, 4, 1)])
def test_mines_a_ship_cannot_enter_faster_than_it_can_move(
    factory: SessionFactory, world: World, mined: Mined, add_ship: AddShip, refused: Refused,
    rating: int, lost: int, speed: int,
) -> None:  # fmt: skip
    ship = _counter(factory, add_ship(world.alpha_id, "Kite"), counter_size="small",
                    speed_rating=rating, speed_lost=lost)  # fmt: skip
    refused(
        lambda: mines.start_check(
            factory, minefield_id=mined.field_ids[0], ship_ids=[ship], speed=speed
        ),
        "speed",
    )


def test_mines_counter_full_fuel_correction_says_what_it_bypasses(
    factory: SessionFactory, world: World, task_force: TaskForce, journaled: Journaled
) -> None:
    ship = task_force.long[0]
    with session_scope(factory) as session:
        row = session.get(Ship, ship)
        assert row is not None
        row.fuel_full, row.fuel_lost = 1, 2  # two factors lost to a mine
    with journaled(world.campaign_id) as new:
        summary = mines.save_counter(factory, ship_id=ship, **{**LONG_COUNTER, "fuel_full": 3})
    assert summary.endswith(
        "; correction: full fuel 1 -> 3 while 2 factors lost to mines stay lost, bypassing "
        "'refuel lost factors only in a friendly port'"
    )
    assert (new.only.kind, new.only.summary) == ("correction", summary)
    counter = mines.counter(factory, ship_id=ship)
    assert (counter.fuel.full, counter.fuel.lost) == (3, 2)
    # Less full fuel, or none lost, is an ordinary counter edit.
    with journaled(world.campaign_id) as new:
        mines.save_counter(factory, ship_id=ship, **{**LONG_COUNTER, "fuel_full": 2})
    assert new.only.kind == "counter"


def test_mines_drift_stamped_with_its_turn_and_once_per_turn(
    factory: SessionFactory, world: World, add_ship: AddShip, refused: Refused
) -> None:
    ab, bc, cd = (
        _boundary(factory, world, *areas) for areas in (("A", "B"), ("B", "C"), ("C", "D"))
    )
    drifting = _sow(factory, world, ab, complete=True, drifting=True)
    ship = add_ship(world.alpha_id, "Nelson")
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=[ship])
    # A secret drifting minefield is its owner's to know: the count said at the table skips it.
    _sow(factory, world, cd, complete=True, drifting=True, secret=True)
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    assert mines.not_drifted(factory, campaign_id=world.campaign_id) == 1
    mines.drift(factory, minefield_id=drifting, to_boundary_id=bc)
    assert mines.not_drifted(factory, campaign_id=world.campaign_id) == 0
    error = refused(lambda: mines.drift(factory, minefield_id=drifting, to_boundary_id=cd),
                    "minefield")  # fmt: skip
    assert error.errors["minefield"] == (
        f"minefield #{drifting}: it already drifted on turn 1: a minefield drifts once a turn, "
        "at its end"
    )
    scenarios.advance_turn(factory, scenario_id=world.scenario_id)
    assert mines.not_drifted(factory, campaign_id=world.campaign_id) == 1
    mines.drift(factory, minefield_id=drifting, to_boundary_id=cd)
    assert _field(factory, drifting).path == ("turn 1: A | B → B | C", "turn 2: B | C → C | D")


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    naval=st.integers(0, 4),
    land=st.integers(0, 4),
    calls=st.lists(st.integers(1, 4), min_size=1, max_size=5),
)
def test_mines_aircraft_never_drops_more_than_its_capacity_in_a_mission(
    tmp_path_factory: pytest.TempPathFactory,
    migrated_template: Path,
    naval: int,
    land: int,
    calls: list[int],
) -> None:
    capacity = max(naval, land)
    with fresh_factory(tmp_path_factory, migrated_template, "drops") as factory:
        campaign = campaigns.create_campaign(factory, name="C")
        side = campaigns.create_side(factory, campaign_id=campaign.id, name="Red")
        boundary = mines.add_boundary(factory, campaign_id=campaign.id, area_a="A", area_b="B")
        dropped = 0
        for size in calls:
            outcome = attempt(
                lambda size=size: mines.aerial_drop(
                    factory, side_id=side.id, aircraft="KG 26", naval_attack=naval,
                    land_attack=land, circled=False, rolls=[4] * size, boundary_id=boundary,
                )
            )  # fmt: skip
            assert outcome is None or isinstance(outcome, InvalidInput)
            assert (outcome is None) == (dropped + size <= capacity)
            dropped += size if outcome is None else 0
        assert dropped <= capacity


@pytest.mark.parametrize(("speed", "drm"), [(2, 2), (3, 4)])
@pytest.mark.parametrize("leaving_board", [False, True])
def test_ships_leaving_the_tactical_board_take_the_speed_modifier_by_their_speed_alone(
    factory: SessionFactory, task_force: TaskForce, mined: Mined, speed: int, drm: int,
    leaving_board: bool,
) -> None:  # fmt: skip
    """The +2 "for any ship moving Speed 3 or greater ..., including ships exiting the Tactical
    Board": the tick records how they came in and adds nothing of its own (RULES.md §Mines)."""
    check_id = mines.start_check(factory, minefield_id=mined.field_ids[0],
                                 ship_ids=task_force.ships, speed=speed,
                                 leaving_board=leaving_board)  # fmt: skip
    view = mines.check_view(factory, check_id=check_id)
    assert (view.minefields, view.leaving_board, view.drm.total) == (3, leaving_board, drm)


def test_the_count_across_a_boundary_leaves_out_secret_and_unfinished_minefields(
    factory: SessionFactory, world: World, task_force: TaskForce, mined: Mined
) -> None:
    _sow(factory, world, mined.boundary_id, layer_name="Roland")  # still being sown
    _sow_secret(factory, world, mined.boundary_id, "off Hanstholm")
    check_id = mines.start_check(factory, minefield_id=mined.field_ids[0],
                                 ship_ids=task_force.ships, speed=1)  # fmt: skip
    assert mines.check_view(factory, check_id=check_id).minefields == 3  # the public active ones


_SHIPS = itertools.count(1)  # a ship of her own for each example


@settings(max_examples=examples(10), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(spellings=st.lists(st.sampled_from(["K7", "k7", " K7 ", "k7 "]), min_size=2, max_size=4))
def test_minefields_in_one_sector_typed_in_any_case_count_as_one_square(
    factory: SessionFactory, world: World, add_ship: AddShip, spellings: list[str]
) -> None:
    """RULES.md §Mines, the count across a boundary or in a sector: K7 and k7 are one square,
    as they are to the markers (rules.was.square); the ledger's count and the check's agree."""
    with session_scope(factory) as session:  # each example on a clean ledger
        for field in session.exec(select(Minefield)).all():
            session.delete(field)
    ids = [
        mines.sow_minefield(
            factory,
            side_id=world.red_id,
            laid_by="surface",
            sector=sector,
            layer_name="Ulm",
            complete=True,
        )
        for sector in spellings
    ]
    ledger = mines.ledger(factory, campaign_id=world.campaign_id).minefields
    assert [field.count_here for field in ledger] == [len(spellings)] * len(spellings)
    penelope = add_ship(world.alpha_id, f"Penelope {next(_SHIPS)}")
    ship = _counter(factory, penelope, counter_size="long", speed_rating=3)
    check = mines.start_check(factory, minefield_id=ids[-1], ship_ids=[ship], speed=0, seed=1)
    assert mines.check_view(factory, check_id=check).minefields == len(spellings)
