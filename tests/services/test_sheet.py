"""Commanders, crews, reductions, tests, and what the Squadron Record Sheet derives from them
(tracker.services.fleet command actions, tracker.services.sheet)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from service_helpers import (
    Journaled,
    Refused,
    World,
    appoint,
    begin_with_all,
    count_rows,
    edit_campaign,
    get_row,
)

from tracker.db import SessionFactory, session_scope
from tracker.models import Commander, Scenario, Ship
from tracker.rules import smr
from tracker.services import campaigns, command, demo, fleet, scenarios, sheet
from tracker.services.fleet import ShipFields


def _commander(factory: SessionFactory, squadron_id: int) -> Any:
    commander = sheet.load_record_sheet(factory, squadron_id=squadron_id).commander
    assert commander is not None
    return commander


def _crew(factory: SessionFactory, squadron_id: int) -> Any:
    crew = sheet.load_record_sheet(factory, squadron_id=squadron_id).crew
    assert crew is not None
    return crew


def _set(factory: SessionFactory, ship_id: int, **values: Any) -> None:
    """Set ship state that no service writes yet (sinking comes in a later feature)."""
    with session_scope(factory) as session:
        ship = session.get(Ship, ship_id)
        assert ship is not None
        for key, value in values.items():
            setattr(ship, key, value)


# --- commanders ---------------------------------------------------------------------------------


def test_rolled_commander_training_iii_roll_1_is_inept(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        appoint(factory, world.alpha_id, name=" Harwood ", training=3, acquisition="random", roll=1)
    c = _commander(factory, world.alpha_id)
    assert (c.name, c.acquisition, c.training, c.roll, c.grade, c.rating) == (
        "Harwood",
        "random",
        3,
        1,
        1,
        "Inept",
    )
    assert (c.modifier_base, c.modifier_now) == (-2, -2)
    assert (c.radius_base_cm, c.radius_now_cm) == (20, 20)
    assert (c.command_limit, c.cost, c.air, c.status) == (4, 1600, False, "active")
    assert new.only.kind == "commander"
    assert new.only.summary == "Alpha: commander Harwood rolled 1 at training III: Inept (-2)"
    assert new.detail["dice"] == {"d10": 1, "training": 3}


@pytest.mark.parametrize(
    ("training", "roll", "rating"),
    [(1, 8, "Poor"), (2, 10, "Skilled"), (3, 7, "Average"), (4, 1, "Poor"), (5, 4, "Brilliant")],
)
def test_rolled_commander_follows_table_t2(
    world: World, factory: SessionFactory, training: int, roll: int, rating: str
) -> None:
    appoint(factory, world.alpha_id, training=training, acquisition="random", roll=roll)
    c = _commander(factory, world.alpha_id)
    grade = smr.COMMAND_RATINGS.index(rating) + 1
    assert (c.rating, c.grade, c.modifier_now) == (rating, grade, grade - 3)
    assert c.radius_now_cm == 10 * (grade + 1)
    # The price is the level paid for, not the result (RULES.md §SMR2).
    assert c.cost == 100 * (training + 1) ** 2


def test_commander_bought_directly_at_iv_is_skilled(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        appoint(factory, world.alpha_id, name="Tovey", training=4, acquisition="direct")
    c = _commander(factory, world.alpha_id)
    assert (c.acquisition, c.roll, c.rating, c.modifier_now) == ("direct", None, "Skilled", 1)
    assert (c.cost, c.radius_now_cm, c.command_limit) == (2500, 50, 7)
    assert "bought" in new.only.summary and "Skilled (+1)" in new.only.summary
    assert new.detail["dice"] is None


def test_bought_commander_with_a_leftover_roll_is_journaled_as_bought(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        appoint(factory, world.alpha_id, name="Tovey", training=4, acquisition="direct", roll=2)
    assert _commander(factory, world.alpha_id).roll is None
    assert "bought" in new.only.summary and "rolled" not in new.only.summary
    assert new.detail["dice"] is None


@pytest.mark.parametrize(
    ("acquisition", "training", "roll", "rating", "radius", "cost"),
    [("random", 3, 5, "Average", 20, 400), ("direct", 5, None, "Brilliant", 30, 900)],
)
def test_air_group_commander_uses_the_aircraft_radius_and_cost(
    world: World,
    factory: SessionFactory,
    acquisition: str,
    training: int,
    roll: int | None,
    rating: str,
    radius: int,
    cost: int,
) -> None:
    air = fleet.create_squadron(factory, side_id=world.blue_id, name="Swordfish", air=True)
    appoint(factory, air, name="Esmonde", training=training, acquisition=acquisition, roll=roll)
    c = _commander(factory, air)
    assert (c.air, c.rating, c.radius_base_cm, c.radius_now_cm, c.cost) == (
        True,
        rating,
        radius,
        radius,
        cost,
    )
    assert c.command_limit == smr.COMMAND_RATINGS.index(rating) + 4


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"training": 3, "acquisition": "random"}, "roll"),
        ({"training": 3, "acquisition": "random", "roll": 0}, "roll"),
        ({"training": 3, "acquisition": "random", "roll": 11}, "roll"),
        ({"training": 0, "acquisition": "direct"}, "training"),
        ({"training": 6, "acquisition": "random", "roll": 5}, "training"),
        ({"training": 3, "acquisition": "bought"}, "acquisition"),
        ({"training": 3, "acquisition": "direct", "name": "n" * 61}, "name"),
    ],
)
def test_invalid_commander_is_refused_and_nothing_written(
    world: World, factory: SessionFactory, refused: Refused, kwargs: dict[str, Any], field: str
) -> None:
    outcome = refused(
        lambda: command.set_commander(
            factory, squadron_id=world.alpha_id, **{"name": "X", **kwargs}
        )
    )
    assert field in outcome.errors


def test_setting_a_commander_again_replaces_the_same_row(
    world: World, factory: SessionFactory
) -> None:
    appoint(factory, world.alpha_id, name="A", training=3, acquisition="direct")
    first_id = _commander(factory, world.alpha_id).id
    command.reduce_command(factory, squadron_id=world.alpha_id, modifier_by=1, radius_by_cm=10)
    appoint(factory, world.alpha_id, name="B", training=5, acquisition="random", roll=1)
    c = _commander(factory, world.alpha_id)
    assert (c.id, c.name, c.roll, c.rating) == (first_id, "B", 1, "Average")
    # The same rating, re-rolled: his combat reductions stay with him (SMR2 §3.5).
    assert (c.modifier_now, c.radius_now_cm, c.cost) == (-1, 30, 3600)
    assert count_rows(factory, Commander) == 1


# --- crews --------------------------------------------------------------------------------------


def test_rolled_crew_training_iii_roll_10_is_elite(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        command.set_crew(
            factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=10
        )
    crew = _crew(factory, world.alpha_id)
    assert (crew.quality, crew.grade, crew.modifier_base, crew.modifier_now) == ("Elite", 5, 2, 2)
    assert (crew.roll, crew.roll_modified, crew.training) == (10, 10, 3)
    # The points adjustment follows the level paid for, not the result (RULES.md §SMR2).
    assert crew.cost_percent == 0
    assert new.only.summary == "Alpha: crew Elite (+2)"
    assert new.detail["dice"] == {"d10": 10, "commander_modifier": None, "modified": 10}


def _option_on(factory: SessionFactory, world: World) -> None:
    edit_campaign(factory, world.campaign_id, "Test campaign", crew_roll_adds_commander=True)


def test_crew_roll_adds_the_commanders_modifier_when_the_campaign_says_so(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    _option_on(factory, world)
    appoint(factory, world.alpha_id, name="Inept", training=3, acquisition="random", roll=1)
    with journaled(world.campaign_id) as new:
        command.set_crew(
            factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=10
        )
    crew = _crew(factory, world.alpha_id)
    assert (crew.roll, crew.roll_modified, crew.quality, crew.modifier_now) == (10, 8, "Veteran", 1)
    assert new.detail["dice"] == {"d10": 10, "commander_modifier": -2, "modified": 8}


@pytest.mark.parametrize(
    ("commander_roll", "crew_roll", "modified", "quality"),
    [(10, 9, 10, "Elite"), (1, 1, 1, "Green"), (1, 2, 1, "Green")],
)
def test_crew_roll_with_the_commanders_modifier_is_clamped_to_1_10(
    world: World,
    factory: SessionFactory,
    commander_roll: int,
    crew_roll: int,
    modified: int,
    quality: str,
) -> None:
    _option_on(factory, world)
    appoint(factory, world.alpha_id, training=3, acquisition="random", roll=commander_roll)
    command.set_crew(
        factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=crew_roll
    )
    crew = _crew(factory, world.alpha_id)
    assert (crew.roll_modified, crew.quality) == (modified, quality)


def test_crew_roll_option_without_a_commander_is_refused(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    _option_on(factory, world)
    outcome = refused(
        lambda: command.set_crew(
            factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=10
        ),
        "roll",
    )
    assert "commander" in outcome.errors["roll"]
    # A crew bought directly needs no roll, so no commander either.
    command.set_crew(factory, squadron_id=world.alpha_id, training=4, acquisition="direct")
    crew = _crew(factory, world.alpha_id)
    assert (crew.quality, crew.roll, crew.roll_modified) == ("Veteran", None, None)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"training": 3, "acquisition": "random"}, "roll"),
        ({"training": 3, "acquisition": "random", "roll": 11}, "roll"),
        ({"training": 9, "acquisition": "direct"}, "training"),
        ({"training": 3, "acquisition": "?"}, "acquisition"),
    ],
)
def test_invalid_crew_is_refused_and_nothing_written(
    world: World, factory: SessionFactory, refused: Refused, kwargs: dict[str, Any], field: str
) -> None:
    outcome = refused(lambda: command.set_crew(factory, squadron_id=world.alpha_id, **kwargs))
    assert field in outcome.errors


@pytest.mark.parametrize(
    ("training", "percent", "points"),
    [(None, 0, 105), (1, -20, 84), (2, -10, 95), (3, 0, 105), (4, 10, 116), (5, 20, 126)],
)
def test_crew_percentage_shows_in_each_ships_points(
    world: World,
    factory: SessionFactory,
    add_ship: Callable[..., int],
    training: int | None,
    percent: int,
    points: int,
) -> None:
    first = add_ship(world.alpha_id, "Ajax", points_base=105)
    add_ship(world.alpha_id, "Achilles", points_base=400)
    if training is not None:
        command.set_crew(
            factory, squadron_id=world.alpha_id, training=training, acquisition="direct"
        )
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    ajax, achilles = record.ships
    # 105 at +10% is 115.5 and at -10% is 94.5: both round half up (RULES.md §SMR2).
    assert (ajax.points_base, ajax.crew_percent, ajax.points_total) == (105, percent, points)
    assert ajax.points_total == smr.points_with_crew(105, percent)
    assert achilles.points_total == 400 * (100 + percent) // 100
    assert record.points_total == points + achilles.points_total
    view, _ = sheet.load_ship(factory, ship_id=first)
    assert view.points_total == points


# --- combat reductions --------------------------------------------------------------------------


def test_reductions_stop_at_the_floors_and_never_touch_the_command_limit(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    # Inept: -2, 20 cm, limit 4
    appoint(factory, world.alpha_id, training=3, acquisition="random", roll=1)
    with journaled(world.campaign_id) as new:
        command.reduce_command(factory, squadron_id=world.alpha_id, modifier_by=1, radius_by_cm=15)
    c = _commander(factory, world.alpha_id)
    assert (c.modifier_now, c.radius_now_cm, c.command_limit) == (-2, 10, 4)
    assert (c.modifier_base, c.radius_base_cm) == (-2, 20)
    assert new.only.kind == "reduction"
    assert "radius (cm) 20 -> 10" in new.only.summary
    assert new.detail["before"] == {"modifier": -2, "radius_cm": 20}
    assert new.detail["after"] == {"modifier": -2, "radius_cm": 10}


def test_reductions_accumulate_down_to_the_floors(world: World, factory: SessionFactory) -> None:
    # Skilled: +1, 50 cm, limit 7
    appoint(factory, world.alpha_id, training=4, acquisition="direct")
    command.set_crew(factory, squadron_id=world.alpha_id, training=5, acquisition="direct")
    command.reduce_command(
        factory, squadron_id=world.alpha_id, modifier_by=1, radius_by_cm=5, crew_by=1
    )
    c, crew = _commander(factory, world.alpha_id), _crew(factory, world.alpha_id)
    assert (c.modifier_now, c.radius_now_cm, c.command_limit, crew.modifier_now) == (0, 45, 7, 1)
    # The most one reduction takes (CommandLoss): past the floors, which hold.
    command.reduce_command(
        factory, squadron_id=world.alpha_id, modifier_by=4, radius_by_cm=100, crew_by=4
    )
    c, crew = _commander(factory, world.alpha_id), _crew(factory, world.alpha_id)
    assert (c.modifier_now, c.radius_now_cm, c.command_limit, crew.modifier_now) == (-2, 10, 7, -2)
    assert (c.modifier_base, crew.modifier_base, crew.quality) == (1, 2, "Elite")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"modifier_by": 1}, "modifier_by"),
        ({"crew_by": 1}, "crew_by"),
        ({}, "modifier_by"),
        ({"modifier_by": 0, "radius_by_cm": 0, "crew_by": 0}, "modifier_by"),
        ({"modifier_by": -1}, "modifier_by"),
        ({"radius_by_cm": -5}, "radius_by_cm"),
        ({"crew_by": 5}, "crew_by"),
        ({"modifier_by": 5}, "modifier_by"),
        ({"radius_by_cm": 101}, "radius_by_cm"),
    ],
)
def test_impossible_reductions_are_refused_and_nothing_written(
    world: World, factory: SessionFactory, refused: Refused, kwargs: dict[str, Any], field: str
) -> None:
    outcome = refused(lambda: command.reduce_command(factory, squadron_id=world.alpha_id, **kwargs))
    assert field in outcome.errors


def test_radius_reduction_without_a_commander_is_refused(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    outcome = refused(
        lambda: command.reduce_command(factory, squadron_id=world.alpha_id, radius_by_cm=10)
    )
    assert "no commander" in " ".join(outcome.errors.values())


def test_radius_reduction_without_a_commander_names_the_radius_field(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    refused(
        lambda: command.reduce_command(factory, squadron_id=world.alpha_id, radius_by_cm=10),
        "radius_by_cm",
    )


# --- command and crew tests ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "under_fire", "extra", "total", "passed"),
    [
        (6, False, 0, 6, True),
        (5, False, 0, 5, False),
        (8, True, 0, 6, True),
        (7, True, 0, 5, False),
        (4, False, 2, 6, True),
        (6, False, -1, 5, False),
        (10, True, -3, 5, False),
    ],
)
def test_record_test_passes_at_6_and_is_journaled_with_its_dice(
    world: World,
    factory: SessionFactory,
    journaled: Journaled,
    roll: int,
    under_fire: bool,
    extra: int,
    total: int,
    passed: bool,
) -> None:
    appoint(factory, world.alpha_id, training=3, acquisition="direct")  # Average, +0
    with journaled(world.campaign_id) as new:
        result = command.record_test(
            factory,
            squadron_id=world.alpha_id,
            subject="commander",
            roll=roll,
            under_fire=under_fire,
            extra=extra,
        )
    assert (result.roll, result.modifier, result.total, result.passed) == (roll, 0, total, passed)
    assert (result.under_fire, result.extra, result.subject) == (under_fire, extra, "commander")
    assert new.only.kind == "test"
    assert ("passed" if passed else "failed") in new.only.summary
    assert f"= {total})" in new.only.summary
    assert ("under fire" in new.only.summary) == under_fire
    assert new.detail["dice"] == {
        "d10": roll,
        "modifier": 0,
        "under_fire": under_fire,
        "extra": extra,
        "total": total,
    }


def test_crew_test_uses_the_crews_current_modifier(world: World, factory: SessionFactory) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=4, acquisition="direct")  # +1
    command.reduce_command(factory, squadron_id=world.alpha_id, crew_by=2)  # now -1
    result = command.record_test(factory, squadron_id=world.alpha_id, subject="crew", roll=6)
    assert (result.modifier, result.total, result.passed) == (-1, 5, False)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"subject": "commander", "roll": 5}, "subject"),  # no commander yet
        ({"subject": "morale", "roll": 5}, "subject"),
        ({"subject": "crew", "roll": 0}, "roll"),
        ({"subject": "crew", "roll": 11}, "roll"),
        ({"subject": "crew", "roll": 5, "extra": 21}, "extra"),
    ],
)
def test_impossible_tests_are_refused_and_nothing_written(
    world: World, factory: SessionFactory, refused: Refused, kwargs: dict[str, Any], field: str
) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="direct")
    outcome = refused(lambda: command.record_test(factory, squadron_id=world.alpha_id, **kwargs))
    assert field in outcome.errors


# --- transfers and morale strength on the sheet -------------------------------------------------


def test_transferred_ship_is_out_of_command_on_its_new_sheet_for_the_rest_of_the_turn(
    factory: SessionFactory,
) -> None:
    campaign_id = demo.create_sample_campaign(factory)
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    royal_navy = overview.sides[0]
    force_g = royal_navy.squadrons[0].id
    detached = fleet.create_squadron(factory, side_id=royal_navy.id, name="Detached")
    ajax = next(
        s for s in sheet.load_record_sheet(factory, squadron_id=force_g).ships if s.name == "Ajax"
    )
    scenario_id = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios[0].id
    afloat = [
        ship.id
        for side in overview.sides
        for squadron in side.squadrons
        for ship in sheet.load_record_sheet(factory, squadron_id=squadron.id).ships
    ]
    scenarios.set_participants(factory, scenario_id=scenario_id, ship_ids=afloat)
    scenarios.start_scenario(factory, scenario_id=scenario_id)

    fleet.transfer_ship(factory, ship_id=ajax.id, to_squadron_id=detached)

    new_sheet = sheet.load_record_sheet(factory, squadron_id=detached)
    assert (new_sheet.scenario, new_sheet.turn) == ("Battle of the River Plate", 1)
    assert [(s.name, s.out_of_command) for s in new_sheet.ships] == [("Ajax", True)]
    assert new_sheet.ships[0].original_squadron_id == force_g
    # A joiner adds nothing to its new squadron's morale strength (RULES.md §SMR2.6).
    assert (new_sheet.original_count, new_sheet.half_strength) == (0, False)
    old_sheet = sheet.load_record_sheet(factory, squadron_id=force_g)
    assert [(s.name, s.out_of_command) for s in old_sheet.ships] == [
        ("Exeter", False),
        ("Achilles", False),
    ]
    assert (old_sheet.original_count, old_sheet.original_afloat) == (3, 3)
    assert sheet.load_ship(factory, ship_id=ajax.id)[0].out_of_command is True

    # From the next turn it is In Command.
    scenarios.advance_turn(factory, scenario_id=scenario_id)
    assert [
        s.out_of_command for s in sheet.load_record_sheet(factory, squadron_id=detached).ships
    ] == [False]
    assert sheet.load_ship(factory, ship_id=ajax.id)[0].out_of_command is False


def test_smr2_3_4_transfer_before_a_scenario_begins_is_not_out_of_command(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    # The world's first scenario is closed; the added one is planned, not yet begun.
    with session_scope(factory) as session:
        first = session.get(Scenario, world.scenario_id)
        assert first is not None
        first.status = "closed"
    later = campaigns.add_scenario(factory, campaign_id=world.campaign_id, title="Second clash")
    ship_id = add_ship(world.alpha_id, "Ajax")
    summary = fleet.transfer_ship(factory, ship_id=ship_id, to_squadron_id=world.bravo_id)
    assert "Out of Command" not in summary
    record = sheet.load_record_sheet(factory, squadron_id=world.bravo_id)
    assert (record.scenario, [s.out_of_command for s in record.ships]) == (later.title, [False])
    ship = get_row(factory, Ship, ship_id)
    assert (ship.transferred_scenario_id, ship.transferred_turn) == (None, None)
    # Turn 1 of the battle: it starts in its new squadron, In Command.
    scenarios.set_participants(factory, scenario_id=later.id, ship_ids=[ship_id])
    scenarios.start_scenario(factory, scenario_id=later.id)
    record = sheet.load_record_sheet(factory, squadron_id=world.bravo_id)
    assert (record.turn, [s.out_of_command for s in record.ships]) == (1, [False])


def test_smr2_3_4_transfer_after_the_last_scenario_closed_is_not_out_of_command(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    ship_id = add_ship(world.alpha_id, "Ajax")
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=[ship_id])
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    fleet.transfer_ship(factory, ship_id=ship_id, to_squadron_id=world.bravo_id)
    record = sheet.load_record_sheet(factory, squadron_id=world.bravo_id)
    assert (record.scenario_status, [s.out_of_command for s in record.ships]) == (
        "closed",
        [False],
    )
    assert sheet.load_ship(factory, ship_id=ship_id)[0].out_of_command is False


def test_half_strength_counts_original_members_only(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    ids = [add_ship(world.alpha_id, name) for name in ("A", "B", "C", "D")]
    begin_with_all(factory, world)
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert (record.original_count, record.original_afloat, record.half_strength) == (4, 4, False)

    _set(factory, ids[0], sunk=True)
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert (record.original_count, record.original_afloat, record.half_strength) == (4, 3, False)

    _set(factory, ids[1], sunk=True)
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert (record.original_count, record.original_afloat, record.half_strength) == (4, 2, True)


def test_a_joiners_loss_counts_against_its_original_squadron(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    alpha = [add_ship(world.alpha_id, name) for name in ("A1", "A2")]
    bravo = [add_ship(world.bravo_id, name) for name in ("B1", "B2")]
    begin_with_all(factory, world)
    fleet.transfer_ship(factory, ship_id=alpha[0], to_squadron_id=world.bravo_id)
    _set(factory, alpha[0], sunk=True)
    alpha_sheet = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    bravo_sheet = sheet.load_record_sheet(factory, squadron_id=world.bravo_id)
    assert (alpha_sheet.original_count, alpha_sheet.original_afloat) == (2, 1)
    assert alpha_sheet.half_strength is True
    assert (bravo_sheet.original_count, bravo_sheet.original_afloat) == (2, 2)
    assert bravo_sheet.half_strength is False
    assert sorted(s.id for s in bravo_sheet.ships) == sorted([*bravo, alpha[0]])


# --- derived ship values ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("structure_now", "flotation_now", "structure_third", "flotation_third"),
    [(9, 8, False, False), (4, 2, False, True), (3, 2, True, True), (0, 0, True, True)],
)
def test_the_one_third_marks(
    world: World,
    factory: SessionFactory,
    structure_now: int,
    flotation_now: int,
    structure_third: bool,
    flotation_third: bool,
) -> None:
    fields = ShipFields(
        name="Ajax",
        size_modifier=1,
        structure_max=9,
        flotation_max=8,
        structure_now=structure_now,
        flotation_now=flotation_now,
    )
    fleet.create_ship(factory, squadron_id=world.alpha_id, fields=fields)
    [ship] = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships
    assert (ship.structure_third, ship.flotation_third) == (structure_third, flotation_third)
    assert ship.base_width_cm == 4.0  # size +1 at the default 1/2400 (SMR2 §2.3)


def test_sheet_header_names_the_campaign_side_and_squadron(
    world: World, factory: SessionFactory
) -> None:
    record = sheet.load_record_sheet(factory, squadron_id=world.raider_id)
    assert (record.campaign_name, record.side_name, record.squadron_name) == (
        "Test campaign",
        "Red",
        "Raider",
    )
    assert (record.scenario, record.turn, record.model_scale) == ("First clash", 1, "1/2400")
    assert (record.commander, record.crew, record.ships, record.points_total) == (None, None, (), 0)
