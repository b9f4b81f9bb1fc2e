"""Stations Manned and Ready! Part 2 command and crew rules as play uses them (docs/RULES.md §SMR2):
crews that belong to their ships, Out of Command in battle only, reductions that stay with the
commander, the rated modifier in the crew roll, and the campaign's half-strength reading."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import (
    Refused,
    World,
    appoint,
    begin_with_all,
    edit_campaign,
    fresh_factory,
    get_row,
)

from tracker.db import SessionFactory
from tracker.models import Crew, Ship
from tracker.rules import smr
from tracker.services import campaigns, command, continuity, damage, fleet, scenarios, sheet
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields
from tracker.services.views import ShipView

AddShip = Callable[..., int]


def _ship_view(factory: SessionFactory, ship_id: int) -> ShipView:
    return sheet.load_ship(factory, ship_id=ship_id)[0]


def _strength(factory: SessionFactory, squadron_id: int) -> tuple[int, int, bool]:
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    return record.original_count, record.original_afloat, record.half_strength


def _sink(factory: SessionFactory, ship_id: int) -> list[str]:
    return damage.confirm_condition(factory, ship_id=ship_id, outcome="Sunk")


# --- §3.2 a ship's crew is its own ----------------------------------------------------------


def test_smr2_3_2_transfer_keeps_crew(
    world: World, factory: SessionFactory, add_ship: AddShip
) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=5, acquisition="direct")
    command.set_crew(factory, squadron_id=world.bravo_id, training=1, acquisition="direct")
    ajax = add_ship(world.alpha_id, "Ajax", points_base=100)
    assert (_ship_view(factory, ajax).points_total, _ship_view(factory, ajax).crew_percent) == (
        120,
        20,
    )
    fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    # Still an Elite crew (+20 %), not Bravo's Green one (-20 %, 80 points).
    bravo = sheet.load_record_sheet(factory, squadron_id=world.bravo_id)
    assert [(s.name, s.points_total, s.crew_percent) for s in bravo.ships] == [("Ajax", 120, 20)]
    crew = get_row(factory, Crew, get_row(factory, Ship, ajax).crew_id or 0)
    assert (crew.grade, crew.modifier_now) == (5, 2)


def test_smr2_3_2_transferred_crew_keeps_its_reduction_and_takes_no_other(
    world: World, factory: SessionFactory, add_ship: AddShip
) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=4, acquisition="direct")
    ajax = add_ship(world.alpha_id, "Ajax")
    command.reduce_command(factory, squadron_id=world.alpha_id, crew_by=1)
    fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    # Alpha's crew is cut again after Ajax left: Ajax's own crew is not.
    command.reduce_command(factory, squadron_id=world.alpha_id, crew_by=1)
    own = get_row(factory, Crew, get_row(factory, Ship, ajax).crew_id or 0)
    assert (own.grade, own.modifier_now) == (4, 0)
    alpha = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).crew
    assert alpha is not None and alpha.modifier_now == -1


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    old=st.integers(1, 5),
    new=st.integers(1, 5),
    points=st.integers(0, 5000),
    back=st.booleans(),
)
def test_smr2_3_2_points_follow_the_ship_whatever_squadron_it_joins(
    tmp_path_factory: pytest.TempPathFactory,
    migrated_template: Path,
    old: int,
    new: int,
    points: int,
    back: bool,
) -> None:
    with fresh_factory(tmp_path_factory, migrated_template, "crews") as factory:
        campaign = campaigns.create_campaign(factory, name="C")
        side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue")
        first = fleet.create_squadron(factory, side_id=side.id, name="First")
        second = fleet.create_squadron(factory, side_id=side.id, name="Second")
        command.set_crew(factory, squadron_id=first, training=old, acquisition="direct")
        command.set_crew(factory, squadron_id=second, training=new, acquisition="direct")
        ship = fleet.create_ship(
            factory, squadron_id=first, fields=ShipFields(name="Ajax", points_base=points)
        )
        expected = smr.points_with_crew(points, smr.crew_cost_percent(old))
        fleet.transfer_ship(factory, ship_id=ship, to_squadron_id=second)
        if back:
            fleet.transfer_ship(factory, ship_id=ship, to_squadron_id=first)
        assert _ship_view(factory, ship).points_total == expected


# --- §3.4 Out of Command only for a transfer in battle -------------------------------------


def test_smr2_3_4_transfer_in_play_is_out_of_command_until_the_turn_advances(
    world: World, factory: SessionFactory, add_ship: AddShip
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    begin_with_all(factory, world)
    scenarios.advance_turn(factory, scenario_id=world.scenario_id)
    summary = fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    assert summary.endswith("Out of Command until the end of turn 2")
    assert _ship_view(factory, ajax).out_of_command is True
    scenarios.advance_turn(factory, scenario_id=world.scenario_id)
    assert _ship_view(factory, ajax).out_of_command is False
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    assert _ship_view(factory, ajax).out_of_command is False


def test_smr2_3_4_transfer_out_of_play_is_never_out_of_command_in_the_next_battle(
    world: World, factory: SessionFactory, add_ship: AddShip
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    summary = fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    assert "Out of Command" not in summary
    begin_with_all(factory, world)
    assert _ship_view(factory, ajax).out_of_command is False


# --- §3.5 reductions stay with the commander ------------------------------------------------


@pytest.mark.parametrize(
    ("again", "expected"),
    [
        # Re-rolled to the same rating (Average from III on 4-7): still -2 and 10 cm.
        ({"training": 3, "acquisition": "random", "roll": 5}, (-2, 10)),
        # Re-bought at the same rating.
        ({"training": 3, "acquisition": "direct"}, (-2, 10)),
        # Re-rolled to Brilliant (+2, 60 cm): the cuts he bears (-2 at the floor, -30 cm) are
        # taken from his new rating.
        ({"training": 5, "acquisition": "random", "roll": 9}, (0, 30)),
    ],
)
def test_smr2_3_5_reductions_survive_a_reroll_or_rebuy(
    world: World,
    factory: SessionFactory,
    again: dict[str, object],
    expected: tuple[int, int],
) -> None:
    appoint(factory, world.alpha_id, training=3, acquisition="random", roll=4)
    command.reduce_command(factory, squadron_id=world.alpha_id, modifier_by=4, radius_by_cm=30)
    appoint(factory, world.alpha_id, **again)
    commander = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).commander
    assert commander is not None
    assert (commander.modifier_now, commander.radius_now_cm) == expected


def test_smr2_3_5_restoring_a_commander_needs_the_rule_named(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    appoint(factory, world.alpha_id, training=4, acquisition="direct")
    refused(lambda: command.restore_command(factory, squadron_id=world.alpha_id, rule="x"), "rule")
    command.reduce_command(factory, squadron_id=world.alpha_id, modifier_by=2, radius_by_cm=20)
    refused(lambda: command.restore_command(factory, squadron_id=world.alpha_id, rule=" "), "rule")
    summary = command.restore_command(
        factory, squadron_id=world.alpha_id, rule="our house rule: new flagship"
    )
    assert summary.endswith("(our house rule: new flagship)")
    commander = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).commander
    assert commander is not None
    assert (commander.modifier_now, commander.radius_now_cm) == (1, 50)


# --- §3.2 optional rule: the commander's rated modifier --------------------------------------


def test_smr2_3_2_optional_crew_roll_adds_the_rated_modifier(
    world: World, factory: SessionFactory
) -> None:
    edit_campaign(factory, world.campaign_id, "Test campaign", crew_roll_adds_commander=True)
    appoint(factory, world.alpha_id, training=5, acquisition="direct")  # Brilliant, +2
    command.reduce_command(factory, squadron_id=world.alpha_id, modifier_by=4)  # now -2
    command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=5)
    crew = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).crew
    # 5 + 2 = 7: Average at training III (the reduced -2 would have made it 3, Raw).
    assert crew is not None and (crew.roll_modified, crew.quality) == (7, "Average")


# --- §3.4 original composition: the campaign's reading --------------------------------------


def test_smr2_3_4_losses_of_battle_1_call_no_morale_tests_in_battle_2(
    world: World, factory: SessionFactory, add_ship: AddShip
) -> None:
    ships = [add_ship(world.alpha_id, name) for name in ("A1", "A2", "A3")]
    begin_with_all(factory, world)
    assert _sink(factory, ships[0]) == ["A1: Sunk"]
    assert _strength(factory, world.alpha_id) == (3, 2, False)
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    second = campaigns.add_scenario(factory, campaign_id=world.campaign_id, title="Second clash")
    # Before battle 2 begins, Alpha is its two ships afloat.
    assert _strength(factory, world.alpha_id) == (2, 2, False)
    scenarios.set_participants(factory, scenario_id=second.id, ship_ids=ships[1:])
    scenarios.start_scenario(factory, scenario_id=second.id)
    assert _strength(factory, world.alpha_id) == (2, 2, False)
    assert _sink(factory, ships[1])[1:] == [
        "Alpha at half strength or less (1 of 2 original ships afloat): morale tests"
    ]
    detail = continuity.scenario_detail(factory, scenario_id=second.id)
    assert detail.strengths == (("Alpha", 2, 1, True),)


def test_smr2_3_4_campaign_reading_counts_the_ships_it_was_formed_with(
    world: World, factory: SessionFactory, add_ship: AddShip
) -> None:
    campaigns.update_campaign(
        factory, campaign_id=world.campaign_id, name="Test campaign", notes="",
        model_scale="1/2400", crew_roll_adds_commander=False, half_strength_scope="campaign",
    )  # fmt: skip
    ships = [add_ship(world.alpha_id, name) for name in ("A1", "A2", "A3")]
    begin_with_all(factory, world)
    _sink(factory, ships[0])
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    second = campaigns.add_scenario(factory, campaign_id=world.campaign_id, title="Second clash")
    scenarios.set_participants(factory, scenario_id=second.id, ship_ids=ships[1:])
    scenarios.start_scenario(factory, scenario_id=second.id)
    assert _strength(factory, world.alpha_id) == (3, 2, False)
    assert _sink(factory, ships[1])[1:] == [
        "Alpha at half strength or less (1 of 3 original ships afloat): morale tests"
    ]


def test_smr2_3_4_a_squadron_whose_ships_left_between_battles_has_no_strength(
    world: World, factory: SessionFactory, add_ship: AddShip
) -> None:
    ships = [add_ship(world.alpha_id, name) for name in ("A1", "A2")]
    for ship in ships:
        fleet.transfer_ship(factory, ship_id=ship, to_squadron_id=world.bravo_id)
    begin_with_all(factory, world)
    # Not "2 of 2 afloat" for a squadron with no ships: Bravo began the battle with them.
    assert _strength(factory, world.alpha_id) == (0, 0, False)
    assert _strength(factory, world.bravo_id) == (2, 2, False)
    detail = continuity.scenario_detail(factory, scenario_id=world.scenario_id)
    assert detail.strengths == (("Bravo", 2, 2, False),)


def test_smr2_3_4_half_strength_option_is_checked(world: World, factory: SessionFactory) -> None:
    with pytest.raises(InvalidInput) as caught:
        campaigns.update_campaign(
            factory, campaign_id=world.campaign_id, name="Test campaign", notes="",
            model_scale="1/2400", crew_roll_adds_commander=False, half_strength_scope="battle",
        )  # fmt: skip
    assert "scenario" in caught.value.errors["half_strength_scope"]


def test_smr2_3_5_a_radius_cut_stays_when_the_squadron_becomes_an_air_group(
    world: World, factory: SessionFactory
) -> None:
    appoint(factory, world.alpha_id, training=4, acquisition="direct")  # Skilled: 50 cm, air 25
    command.reduce_command(factory, squadron_id=world.alpha_id, radius_by_cm=20)
    fleet.update_squadron(factory, squadron_id=world.alpha_id, name="Alpha", air=True, notes="")
    commander = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).commander
    assert commander is not None
    assert (commander.radius_base_cm, commander.radius_now_cm) == (25, 10)  # 25 - 20, floor 10
    fleet.update_squadron(factory, squadron_id=world.alpha_id, name="Alpha", air=False, notes="")
    commander = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).commander
    assert commander is not None and commander.radius_now_cm == 50 - 15


def test_smr2_3_2_a_ship_with_its_own_crew_tests_and_takes_reductions_with_it(
    world: World, factory: SessionFactory, add_ship: AddShip, refused: Refused
) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=5, acquisition="direct")
    command.set_crew(factory, squadron_id=world.bravo_id, training=1, acquisition="direct")
    ajax = add_ship(world.alpha_id, "Ajax")
    stays = add_ship(world.bravo_id, "Achilles")
    fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    ship_test = command.record_test(
        factory, squadron_id=world.bravo_id, subject="crew", roll=4, ship_id=ajax
    )
    squadron_test = command.record_test(factory, squadron_id=world.bravo_id, subject="crew", roll=4)
    assert (ship_test.modifier, ship_test.passed) == (2, True)  # Ajax's Elite crew
    assert (squadron_test.modifier, squadron_test.passed) == (-2, False)  # Bravo's Green crew
    # A ship without a crew of its own tests with its squadron's.
    assert (
        command.record_test(
            factory, squadron_id=world.bravo_id, subject="crew", roll=4, ship_id=stays
        ).modifier
        == -2
    )
    command.reduce_command(factory, squadron_id=world.bravo_id, crew_by=1, ship_id=ajax)
    record = sheet.load_record_sheet(factory, squadron_id=world.bravo_id)
    own = next(ship.own_crew for ship in record.ships if ship.id == ajax)
    assert own is not None and (own.quality, own.modifier_now) == ("Elite", 1)
    assert record.crew is not None and record.crew.modifier_now == -2
    refused(
        lambda: command.record_test(
            factory, squadron_id=world.alpha_id, subject="crew", roll=4, ship_id=ajax
        ),
        "subject",
    )


@pytest.mark.parametrize(("training", "roll", "expected"), [(3, 5, -1), (3, 9, 0), (5, 10, 1)])
def test_smr2_3_5_crew_reductions_survive_a_reroll(
    world: World, factory: SessionFactory, training: int, roll: int, expected: int
) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=4)
    command.reduce_command(factory, squadron_id=world.alpha_id, crew_by=1)  # Average 0 -> -1
    command.set_crew(
        factory, squadron_id=world.alpha_id, training=training, acquisition="random", roll=roll
    )
    crew = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).crew
    assert crew is not None and crew.modifier_now == expected == crew.modifier_base - 1
