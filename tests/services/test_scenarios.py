"""Linked scenarios played through: taking part, turns, close, repairs, and the carried state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Journaled, fresh_factory, save_table

from tracker.db import SessionFactory
from tracker.services import (
    campaigns,
    command,
    continuity,
    damage,
    demo,
    fleet,
    history,
    repairs,
    roster,
    scenarios,
    sheet,
)
from tracker.services.errors import InvalidInput
from tracker.services.roster import UnitFields


def _state(factory: SessionFactory, ship_id: int) -> tuple[int, int]:
    view = sheet.load_ship(factory, ship_id=ship_id)[0]
    return view.structure_now, view.flotation_now


def _hit(factory: SessionFactory, ship_id: int, **kwargs: int) -> None:
    damage.record_hit(factory, request=damage.HitRequest(ship_id=ship_id, **kwargs))


@pytest.fixture
def river_plate(factory: SessionFactory) -> dict[str, int]:
    """The sample campaign with its ships by name and its first scenario."""
    campaign_id = demo.create_sample_campaign(factory)
    ships = {p.name: p.id for p in damage.find_ships(factory, campaign_id=campaign_id, query="")}
    first = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios[0].id
    return {"campaign": campaign_id, "first": first, **ships}


def _play(factory: SessionFactory, scenario_id: int, ship_ids: list[int]) -> None:
    scenarios.set_participants(factory, scenario_id=scenario_id, ship_ids=ship_ids)
    scenarios.start_scenario(factory, scenario_id=scenario_id)


def _assert_continuity(factory: SessionFactory, campaign_id: int) -> None:
    assert continuity.check_continuity(factory, campaign_id=campaign_id) == []


def test_three_linked_scenarios_carry_damage_repairs_and_a_loss(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    fleet_ids = [rp["Exeter"], rp["Ajax"], rp["Achilles"], rp["Admiral Graf Spee"]]
    # Scenario 1: Exeter badly hit, Ajax lightly.
    _play(factory, rp["first"], fleet_ids)
    _hit(factory, rp["Exeter"], structure=8, flotation=3)
    _hit(factory, rp["Ajax"], structure=2)
    assert (
        scenarios.close_scenario(factory, scenario_id=rp["first"], outcome="Spee escapes").ships
        == 4
    )
    since = {
        row.name: row for row in continuity.since_last_battle(factory, campaign_id=rp["campaign"])
    }
    assert (since["Exeter"].end_structure, since["Exeter"].end_flotation) == (4, 6)
    assert since["Exeter"].outstanding == (8, 3)
    _assert_continuity(factory, rp["campaign"])

    # Between: Exeter repaired in port; Achilles untouched.
    repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=5, flotation=3)
    assert _state(factory, rp["Exeter"]) == (9, 9)
    second = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Second").id
    _play(factory, second, fleet_ids)
    _assert_continuity(factory, rp["campaign"])
    # Scenario 2: Ajax is sunk.
    _hit(factory, rp["Ajax"], structure=7)
    damage.confirm_condition(factory, ship_id=rp["Ajax"], outcome="Sunk")
    scenarios.advance_turn(factory, scenario_id=second)
    _hit(factory, rp["Exeter"], flotation=2)
    scenarios.close_scenario(factory, scenario_id=second, outcome="Ajax lost")
    _assert_continuity(factory, rp["campaign"])

    # Ajax never takes part again; the others carry their state into scenario 3.
    third = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Third").id
    with pytest.raises(InvalidInput, match="sunk ships never take part again: Ajax"):
        scenarios.set_participants(factory, scenario_id=third, ship_ids=fleet_ids)
    repairs.repair_ship(factory, ship_id=rp["Exeter"], flotation=1)
    _play(factory, third, [rp["Exeter"], rp["Achilles"]])
    _assert_continuity(factory, rp["campaign"])
    history_points = continuity.ship_history(factory, ship_id=rp["Exeter"])
    assert [(p.start, p.end) for p in history_points] == [
        ((12, 9), (4, 6)),
        ((9, 9), (9, 7)),
        ((9, 8), None),
    ]
    assert [p.start for p in continuity.ship_history(factory, ship_id=rp["Ajax"])] == [
        (9, 8),
        (7, 8),
    ]


def test_a_ship_cannot_be_in_two_scenarios_at_once(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _play(factory, rp["first"], [rp["Exeter"]])
    second = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Second").id
    scenarios.set_participants(factory, scenario_id=second, ship_ids=[rp["Exeter"]])
    with pytest.raises(InvalidInput, match="still in play: close it first"):
        scenarios.start_scenario(factory, scenario_id=second)


def test_only_ships_taking_part_can_be_hit_while_a_scenario_is_in_play(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _hit(factory, rp["Ajax"], structure=1)  # no scenario in play: offline bookkeeping
    _play(factory, rp["first"], [rp["Exeter"]])
    with pytest.raises(InvalidInput, match="Ajax is not taking part in Battle of the River Plate"):
        _hit(factory, rp["Ajax"], structure=1)
    assert _state(factory, rp["Ajax"]) == (8, 8)


@settings(max_examples=examples(8), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(sample=st.booleans(), lost=st.integers(1, 3))
def test_one_rule_for_hits_before_the_first_scenario_begins_in_every_campaign(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, sample: bool, lost: int
) -> None:
    """Set-up damage before the first scenario, said so and kept at its start; refused between."""
    with fresh_factory(tmp_path_factory, migrated_template, "first") as factory:
        if sample:
            campaign_id = demo.create_sample_campaign(factory)
        else:
            campaign_id = campaigns.create_campaign(factory, name="Own").id
            campaigns.add_scenario(factory, campaign_id=campaign_id, title="First")
            side = campaigns.create_side(factory, campaign_id=campaign_id, name="Blue")
            squadron = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
            fields = fleet.ShipFields(name="Hardy", structure_max=6, flotation_max=6)
            fleet.create_ship(factory, squadron_id=squadron, fields=fields)
        pick = damage.find_ships(factory, campaign_id=campaign_id, query="")[0]
        first = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios[0].id
        full = _state(factory, pick.id)
        result = damage.record_hit(factory, request=damage.HitRequest(pick.id, structure=lost))
        assert result.set_up == f"{pick.name} begins the first scenario with this damage"
        _play(factory, first, [pick.id])
        start = continuity.ship_history(factory, ship_id=pick.id)[0].start
        assert start == (full[0] - lost, full[1])
        in_play = damage.record_hit(factory, request=damage.HitRequest(pick.id, structure=1))
        assert in_play.set_up == ""
        scenarios.close_scenario(factory, scenario_id=first)
        with pytest.raises(InvalidInput, match="no scenario is in play"):
            _hit(factory, pick.id, structure=1)


@settings(max_examples=examples(10), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(speed=st.integers(0, 40), loss=st.integers(1, 12), in_port=st.booleans())
def test_clearing_a_critical_that_cut_the_speed_gives_the_knots_back_in_play_or_in_port(
    tmp_path_factory: pytest.TempPathFactory,
    migrated_template: Path,
    speed: int,
    loss: int,
    in_port: bool,
) -> None:
    with fresh_factory(tmp_path_factory, migrated_template, "speed") as factory:
        campaign_id = campaigns.create_campaign(factory, name="C").id
        first = campaigns.add_scenario(factory, campaign_id=campaign_id, title="First").id
        side = campaigns.create_side(factory, campaign_id=campaign_id, name="Blue")
        squadron = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
        fields = fleet.ShipFields(name="Hotspur", structure_max=6, flotation_max=6, speed_kn=speed)
        hotspur = fleet.create_ship(factory, squadron_id=squadron, fields=fields)
        save_table(factory, campaign_id, [(1, 10, "Engine room hit", "speed_kn", -loss)])
        _play(factory, first, [hotspur])
        roll = damage.CriticalRequest(kind="structural", roll=4)
        damage.record_hit(factory, request=damage.HitRequest(hotspur, criticals=(roll,)))
        assert sheet.load_ship(factory, ship_id=hotspur)[0].speed_kn == max(0, speed - loss)
        if in_port:
            scenarios.close_scenario(factory, scenario_id=first)
            critical = damage.list_criticals(factory, ship_id=hotspur)[0].id
            repairs.repair_ship(factory, ship_id=hotspur, clear_criticals=[critical])
        else:
            damage.record_hit(factory, request=damage.HitRequest(hotspur, fixes=(1,)))
        assert sheet.load_ship(factory, ship_id=hotspur)[0].speed_kn == speed
        history.undo_last(factory, campaign_id=campaign_id)  # the clearing, journaled
        assert sheet.load_ship(factory, ship_id=hotspur)[0].speed_kn == max(0, speed - loss)


def test_repairs_are_refused_above_max_on_sunk_ships_in_play_and_beyond_the_allowance(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _play(factory, rp["first"], [rp["Exeter"], rp["Ajax"]])
    _hit(factory, rp["Exeter"], structure=6)
    with pytest.raises(InvalidInput, match="repairs between scenarios come after it closes"):
        repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=1)
    _hit(factory, rp["Ajax"], structure=9)
    damage.confirm_condition(factory, ship_id=rp["Ajax"], outcome="Sunk")
    scenarios.close_scenario(factory, scenario_id=rp["first"])
    with pytest.raises(InvalidInput, match="Ajax is sunk"):
        repairs.repair_ship(factory, ship_id=rp["Ajax"], structure=1)
    with pytest.raises(InvalidInput, match="at most 6 can be repaired"):
        repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=7)
    overview = campaigns.get_overview(factory, campaign_id=rp["campaign"]).campaign
    campaigns.update_campaign(
        factory, campaign_id=rp["campaign"], name=overview.name, notes=overview.notes,
        model_scale=overview.model_scale, crew_roll_adds_commander=False,
        repair_limit_structure=4,
    )  # fmt: skip
    repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=3)
    with pytest.raises(InvalidInput, match="allows 4 Structure between scenarios; 3 already"):
        repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=2)
    assert _state(factory, rp["Exeter"]) == (9, 9)


def test_a_new_turn_takes_fire_markers_off_and_can_be_undone(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _play(factory, rp["first"], [rp["Exeter"]])
    _hit(factory, rp["Exeter"], fire_delta=2)
    assert scenarios.advance_turn(factory, scenario_id=rp["first"]) == 2
    assert sheet.load_ship(factory, ship_id=rp["Exeter"])[0].fire_markers == 0
    history.undo_last(factory, campaign_id=rp["campaign"])
    assert sheet.load_ship(factory, ship_id=rp["Exeter"])[0].fire_markers == 2
    assert continuity.scenario_detail(factory, scenario_id=rp["first"]).turn == 1


def test_undo_stops_at_a_scenario_start_and_reopening_is_a_journaled_correction(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _hit(factory, rp["Exeter"], structure=1)
    _play(factory, rp["first"], [rp["Exeter"]])
    with pytest.raises(InvalidInput, match="undo does not reach back past a scenario"):
        history.undo_last(factory, campaign_id=rp["campaign"])
    scenarios.close_scenario(factory, scenario_id=rp["first"], outcome="draw")
    with pytest.raises(InvalidInput, match="say why"):
        scenarios.reopen_scenario(factory, scenario_id=rp["first"], reason=" ")
    scenarios.reopen_scenario(factory, scenario_id=rp["first"], reason="Exeter's hit was wrong")
    assert continuity.scenario_detail(factory, scenario_id=rp["first"]).status == "in_play"
    newest = history.list_entries(factory, campaign_id=rp["campaign"])[0]
    assert (newest.kind, newest.summary) == (
        "correction",
        "Battle of the River Plate reopened: Exeter's hit was wrong",
    )
    scenarios.close_scenario(factory, scenario_id=rp["first"], outcome="draw")
    _assert_continuity(factory, rp["campaign"])


def test_reopening_is_refused_after_repairs_or_a_later_scenario(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _play(factory, rp["first"], [rp["Exeter"]])
    _hit(factory, rp["Exeter"], structure=2)
    scenarios.close_scenario(factory, scenario_id=rp["first"])
    repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=1)
    with pytest.raises(InvalidInput, match="1 repairs were made after it: undo them first"):
        scenarios.reopen_scenario(factory, scenario_id=rp["first"], reason="typo")
    history.undo_last(factory, campaign_id=rp["campaign"])
    second = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Second").id
    _play(factory, second, [rp["Exeter"]])
    scenarios.close_scenario(factory, scenario_id=second)
    with pytest.raises(InvalidInput, match="Second was played after it"):
        scenarios.reopen_scenario(factory, scenario_id=rp["first"], reason="typo")


def test_hits_between_scenarios_are_refused_and_an_edit_there_shows_in_the_check(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _play(factory, rp["first"], [rp["Exeter"]])
    scenarios.close_scenario(factory, scenario_id=rp["first"])
    with pytest.raises(InvalidInput, match="no scenario is in play"):
        _hit(factory, rp["Exeter"], structure=2)
    # An edit of the ship's data sheet is not a repair: the continuity check names it.
    exeter = sheet.load_ship(factory, ship_id=rp["Exeter"])[0]
    fleet.update_ship(factory, ship_id=exeter.id, fields=fleet.ShipFields(
        name=exeter.name, structure_max=12, structure_now=10, flotation_max=9))  # fmt: skip
    second = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Second").id
    _play(factory, second, [rp["Exeter"]])
    problems = continuity.check_continuity(factory, campaign_id=rp["campaign"])
    assert problems == [
        "Exeter: Second began at S10 F9, but Battle of the River Plate ended at S12 F9 and "
        "repairs added S0 F0"
    ]


def test_a_closed_scenario_shows_its_end_state_and_fire_markers_come_off(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _play(factory, rp["first"], [rp["Exeter"]])
    _hit(factory, rp["Exeter"], structure=4, fire_delta=2)
    scenarios.close_scenario(factory, scenario_id=rp["first"])
    assert sheet.load_ship(factory, ship_id=rp["Exeter"])[0].fire_markers == 0
    repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=3)
    shown = continuity.scenario_detail(factory, scenario_id=rp["first"]).participants[0]
    assert (shown.name, shown.structure) == ("Exeter", "8/12")


def test_a_scenario_with_journal_entries_is_archived_not_deleted(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    _hit(factory, rp["Exeter"], structure=1)  # journaled while the first scenario is current
    with pytest.raises(InvalidInput, match="journal entries"):
        campaigns.delete_scenario(factory, scenario_id=rp["first"])
    scenarios.archive_scenario(factory, scenario_id=rp["first"])
    assert continuity.scenario_detail(factory, scenario_id=rp["first"]).status == "archived"


def test_correction_factor_per_side(factory: SessionFactory, river_plate: dict[str, int]) -> None:
    rp = river_plate
    detail = continuity.scenario_detail(factory, scenario_id=rp["first"])
    royal_navy = detail.sides[0][0]
    scenarios.set_correction_factor(
        factory, scenario_id=rp["first"], side_id=royal_navy, value="+150 pts"
    )
    sides = continuity.scenario_detail(factory, scenario_id=rp["first"]).sides
    assert [(name, factor) for _, name, factor in sides] == [
        ("Royal Navy", "+150 pts"),
        ("Kriegsmarine", ""),
    ]


def test_the_allowance_is_per_period_and_a_ship_that_sat_out_carries_both_periods(
    factory: SessionFactory, river_plate: dict[str, int]
) -> None:
    rp = river_plate
    overview = campaigns.get_overview(factory, campaign_id=rp["campaign"]).campaign
    campaigns.update_campaign(
        factory, campaign_id=rp["campaign"], name=overview.name, notes=overview.notes,
        model_scale=overview.model_scale, crew_roll_adds_commander=False,
        repair_limit_structure=2,
    )  # fmt: skip
    _play(factory, rp["first"], [rp["Exeter"], rp["Ajax"]])
    _hit(factory, rp["Exeter"], structure=6)
    scenarios.close_scenario(factory, scenario_id=rp["first"])
    repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=2)
    with pytest.raises(InvalidInput, match="allows 2 Structure"):
        repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=1)
    second = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Second").id
    _play(factory, second, [rp["Ajax"]])  # Exeter sits this one out
    scenarios.close_scenario(factory, scenario_id=second)
    repairs.repair_ship(factory, ship_id=rp["Exeter"], structure=2)  # a new period
    exeter = next(
        row
        for row in continuity.since_last_battle(factory, campaign_id=rp["campaign"])
        if row.name == "Exeter"
    )
    assert (exeter.last_scenario, exeter.repaired_structure, exeter.structure) == (
        "Battle of the River Plate",
        4,
        10,
    )
    third = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Third").id
    _play(factory, third, [rp["Exeter"]])
    _assert_continuity(factory, rp["campaign"])


def test_a_war_at_sea_game_begins_with_unit_cards_and_no_ship_taking_part(
    factory: SessionFactory,
) -> None:
    """The hunt counts the turns of the scenario in play (RULES.md §Subs): a group that plays
    only War at Sea, with no record-sheet ship, can still begin, turn and close one."""
    campaign = campaigns.create_campaign(factory, name="Atlantic 1942").id
    side = campaigns.create_side(factory, campaign_id=campaign, name="Kriegsmarine").id
    battle = campaigns.add_scenario(factory, campaign_id=campaign, title="HX-229").id
    with pytest.raises(InvalidInput, match=r"choose the ships taking part first \(p\), or"):
        scenarios.start_scenario(factory, scenario_id=battle)
    u66 = UnitFields(name="U-66", unit_type="submarine", points=12, hull_points=2)
    roster.save_unit(factory, side_id=side, fields=u66)
    scenarios.start_scenario(factory, scenario_id=battle)
    assert scenarios.advance_turn(factory, scenario_id=battle) == 2
    scenarios.close_scenario(factory, scenario_id=battle, outcome="Convoy through")
    assert [s.status for s in campaigns.get_overview(factory, campaign_id=campaign).scenarios] == [
        "closed"
    ]


def test_every_entry_is_filed_under_the_scenario_and_turn_it_was_made_in(
    factory: SessionFactory, river_plate: dict[str, int], journaled: Journaled
) -> None:
    """The journal's scenario and turn say when a change was made: before the first scenario
    begins, under it at no turn (it has none yet); in play, at its turn; the close, under the
    scenario closed at its last turn, not under the next one; after it, under the next at no
    turn."""
    rp = river_plate
    squadron = campaigns.get_overview(factory, campaign_id=rp["campaign"]).sides[0].squadrons[0]
    second = campaigns.add_scenario(factory, campaign_id=rp["campaign"], title="Montevideo").id

    def stamped(act: Callable[[], object]) -> tuple[int | None, int | None]:
        with journaled(rp["campaign"]) as new:
            act()
        return new.only.scenario_id, new.only.turn

    def crew() -> None:
        command.set_crew(factory, squadron_id=squadron.id, training=3, acquisition="direct")

    assert stamped(crew) == (rp["first"], None)
    _play(factory, rp["first"], [rp["Exeter"]])
    assert stamped(lambda: scenarios.advance_turn(factory, scenario_id=rp["first"])) == (
        rp["first"],
        2,
    )
    assert stamped(crew) == (rp["first"], 2)
    with journaled(rp["campaign"]) as new:
        scenarios.close_scenario(factory, scenario_id=rp["first"], outcome="Spee in Montevideo")
    closed = next(entry for entry in new.entries if entry.kind == "close")
    assert (closed.scenario_id, closed.turn) == (rp["first"], 2)
    assert stamped(crew) == (second, None)
