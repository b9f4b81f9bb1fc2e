"""Squadrons, ships, batteries, copies and transfers (tracker.services.fleet)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from service_helpers import (
    Journaled,
    Refused,
    Snapshot,
    World,
    appended,
    appoint,
    attempt,
    begin_with_all,
    count_rows,
    fresh_factory,
    get_row,
    refusals,
    rows_by,
    rows_of_ship,
)
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Battery, Commander, Crew, JournalEntry, Participation, Ship, Squadron
from tracker.services import (
    campaigns,
    command,
    continuity,
    damage,
    fleet,
    history,
    journal,
    scenarios,
    sheet,
)
from tracker.services.errors import InvalidInput, NotFound, RowsRefused
from tracker.services.fields import rules
from tracker.services.fleet import ShipCreate, ShipFields

FULL_FIELDS = ShipFields(
    name="Exeter",
    class_name="York",
    type_abbrev="CA",
    nation="Great Britain",
    size_modifier=1,
    speed_kn=32,
    armour_class="C",
    structure_max=12,
    structure_now=10,
    flotation_max=9,
    flotation_now=7,
    fire_markers=2,
    points_base=480,
    torpedoes="2x3 21in",
    sraa_dp="4in DP",
    radar="Type 79",
    notes="Damaged at the Plate",
)
DATA_KEYS = list(ShipCreate.model_fields)


def _ships(factory: SessionFactory) -> list[Ship]:
    with session_scope(factory) as session:
        return list(session.exec(select(Ship).order_by(col(Ship.id))).all())


# --- squadrons ----------------------------------------------------------------------------------


def test_create_squadron_stores_it_and_journals(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        squadron_id = fleet.create_squadron(
            factory, side_id=world.red_id, name="  Gruppe West ", air=True, notes=" n "
        )
    assert "Gruppe West" in new.only.summary and "Red" in new.only.summary
    with session_scope(factory) as session:
        row = session.get(Squadron, squadron_id)
        assert row is not None
        assert (row.side_id, row.name, row.air, row.notes) == (
            world.red_id,
            "Gruppe West",
            True,
            "n",
        )
    assert sheet.squadrons_of_side(factory, side_id=world.red_id) == [
        (world.raider_id, "Raider"),
        (squadron_id, "Gruppe West"),
    ]


def test_two_squadrons_of_one_name_on_a_side_are_refused(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    refused(lambda: fleet.create_squadron(factory, side_id=world.blue_id, name="Alpha"), "name")


def test_renaming_a_squadron_onto_another_is_refused(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    refused(
        lambda: fleet.update_squadron(
            factory, squadron_id=world.bravo_id, name="Alpha", air=False, notes=""
        ),
        "name",
    )


def test_the_same_squadron_name_on_another_side_is_fine(
    world: World, factory: SessionFactory
) -> None:
    squadron_id = fleet.create_squadron(factory, side_id=world.red_id, name="Alpha")
    assert (squadron_id, "Alpha") in sheet.squadrons_of_side(factory, side_id=world.red_id)


@pytest.mark.parametrize("name", ["", "   ", "s" * 61])
def test_invalid_squadron_name_is_refused(
    world: World, factory: SessionFactory, refused: Refused, name: str
) -> None:
    refused(lambda: fleet.create_squadron(factory, side_id=world.blue_id, name=name), "name")
    refused(
        lambda: fleet.update_squadron(
            factory, squadron_id=world.alpha_id, name=name, air=False, notes=""
        ),
        "name",
    )


def test_over_long_squadron_notes_are_refused(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    outcome = refused(
        lambda: fleet.create_squadron(factory, side_id=world.blue_id, name="L", notes="n" * 2001)
    )
    assert "notes" in outcome.errors


def test_update_squadron_renames_and_journals(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        fleet.update_squadron(
            factory, squadron_id=world.alpha_id, name="Force H", air=False, notes="Gibraltar"
        )
    assert "Alpha" in new.only.summary
    assert (new.detail["before"], new.detail["after"]) == (
        {"name": "Alpha", "notes": ""},
        {"name": "Force H", "notes": "Gibraltar"},
    )
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert (record.squadron_name, record.notes) == ("Force H", "Gibraltar")


def test_missing_squadron_raises_not_found(factory: SessionFactory) -> None:
    with pytest.raises(NotFound):
        fleet.update_squadron(factory, squadron_id=404, name="x", air=False, notes="")


def test_delete_squadron_deletes_its_ships_batteries_commander_and_crew(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], journaled: Journaled
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    fleet.save_battery(factory, ship_id=ajax, mount="turret", calibre="6in", guns=8)
    appoint(factory, world.alpha_id, name="H", training=3, acquisition="direct")
    command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="direct")
    kept = add_ship(world.bravo_id, "Achilles")
    entries = count_rows(factory, JournalEntry)
    fleet.delete_squadron(factory, squadron_id=world.alpha_id, check_only=True)  # done, undone
    assert count_rows(factory, JournalEntry) == entries and len(_ships(factory)) == 2
    with journaled(world.campaign_id) as new:
        fleet.delete_squadron(factory, squadron_id=world.alpha_id)
    assert "Alpha" in new.only.summary
    assert [s.id for s in _ships(factory)] == [kept]
    with session_scope(factory) as session:
        assert session.get(Squadron, world.alpha_id) is None
    assert [count_rows(factory, model) for model in (Battery, Commander, Crew)] == [0, 0, 0]


def test_delete_squadron_keeps_a_ship_it_lent_out_with_its_new_squadron_as_origin(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    stays = add_ship(world.alpha_id, "Ajax")
    lent = add_ship(world.alpha_id, "Achilles")
    fleet.transfer_ship(factory, ship_id=lent, to_squadron_id=world.bravo_id)
    fleet.delete_squadron(factory, squadron_id=world.alpha_id)
    ships = _ships(factory)
    assert [s.id for s in ships] == [lent]
    assert (ships[0].squadron_id, ships[0].original_squadron_id) == (world.bravo_id,) * 2
    assert stays not in {s.id for s in ships}
    bravo = sheet.load_record_sheet(factory, squadron_id=world.bravo_id)
    assert (bravo.original_count, [s.name for s in bravo.ships]) == (1, ["Achilles"])


@pytest.mark.parametrize("target", ["squadron", "squadron lending", "side"])
def test_a_squadron_or_side_whose_ships_fought_is_not_deleted_and_nothing_changes(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], target: str
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    add_ship(world.alpha_id, "Achilles")
    begin_with_all(factory, world)
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    if target == "squadron lending":  # Ajax fought for Alpha, now serves in Bravo
        fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    closed = continuity.scenario_detail(factory, scenario_id=world.scenario_id)
    ships = [(s.id, s.squadron_id, s.original_squadron_id) for s in _ships(factory)]
    with pytest.raises(InvalidInput) as refused:
        if target == "side":
            campaigns.delete_side(factory, side_id=world.blue_id)
        else:
            fleet.delete_squadron(factory, squadron_id=world.alpha_id)
    message = refused.value.errors["delete"]
    assert "Achilles and Ajax took part" in message and "Retire each ship" in message
    assert [(s.id, s.squadron_id, s.original_squadron_id) for s in _ships(factory)] == ships
    assert continuity.scenario_detail(factory, scenario_id=world.scenario_id) == closed
    with session_scope(factory) as session:
        assert session.get(Squadron, world.alpha_id) is not None


# --- ships --------------------------------------------------------------------------------------


def test_create_ship_stores_every_field_and_journals(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        ship_id = fleet.create_ship(factory, squadron_id=world.alpha_id, fields=FULL_FIELDS)
    ship = get_row(factory, Ship, ship_id)
    assert {key: getattr(ship, key) for key in DATA_KEYS} == dict(FULL_FIELDS)
    assert (ship.side_id, ship.squadron_id, ship.original_squadron_id) == (
        world.blue_id,
        world.alpha_id,
        world.alpha_id,
    )
    assert (ship.sunk, ship.transferred_turn, ship.transferred_scenario_id) == (False, None, None)
    assert new.only.kind == "ship" and new.only.ship_id == ship_id
    assert new.only.summary == "Added Exeter to Alpha"
    assert new.detail["after"]["structure_now"] == 10


def test_create_ship_without_present_state_starts_undamaged(
    world: World, factory: SessionFactory
) -> None:
    ship_id = fleet.create_ship(
        factory,
        squadron_id=world.alpha_id,
        fields=ShipFields(name=" Ajax ", structure_max=9, flotation_max=8),
    )
    ship = get_row(factory, Ship, ship_id)
    assert (ship.name, ship.structure_now, ship.flotation_now, ship.fire_markers) == (
        "Ajax",
        9,
        8,
        0,
    )


def test_ship_name_with_markup_is_stored_and_read_back_exactly(
    world: World, factory: SessionFactory
) -> None:
    name = "[bold]Exeter[/]"
    ship_id = fleet.create_ship(
        factory, squadron_id=world.alpha_id, fields=ShipFields(name=name, notes="[red]x[/red]")
    )
    assert get_row(factory, Ship, ship_id).name == name
    view, where = sheet.load_ship(factory, ship_id=ship_id)
    assert (view.name, view.notes) == (name, "[red]x[/red]")
    assert where == "Blue · Alpha"
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert [s.name for s in record.ships] == [name]


@pytest.mark.parametrize("squadron", ["alpha_id", "bravo_id"])
def test_two_ships_of_one_name_on_a_side_are_refused_and_nothing_written(
    world: World,
    factory: SessionFactory,
    add_ship: Callable[..., int],
    refused: Refused,
    squadron: str,
) -> None:
    add_ship(world.alpha_id, "Ajax")
    outcome = refused(
        lambda: fleet.create_ship(
            factory, squadron_id=getattr(world, squadron), fields=ShipFields(name=" Ajax")
        ),
        "name",
    )
    assert "Ajax" in outcome.errors["name"]


def test_the_same_ship_name_on_another_side_is_fine(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    add_ship(world.alpha_id, "Ajax")
    add_ship(world.raider_id, "Ajax")
    assert [(s.side_id, s.name) for s in _ships(factory)] == [
        (world.blue_id, "Ajax"),
        (world.red_id, "Ajax"),
    ]


INVALID_SHIPS: list[tuple[dict[str, Any], str]] = [
    ({"name": ""}, "name"),
    ({"name": " \n "}, "name"),
    ({"name": "n" * 61}, "name"),
    ({"class_name": "c" * 61}, "class_name"),
    ({"type_abbrev": "ABCDEFGHI"}, "type_abbrev"),
    ({"nation": "n" * 41}, "nation"),
    ({"armour_class": "a" * 21}, "armour_class"),
    ({"torpedoes": "t" * 201}, "torpedoes"),
    ({"sraa_dp": "s" * 201}, "sraa_dp"),
    ({"radar": "r" * 201}, "radar"),
    ({"notes": "n" * 4001}, "notes"),
    ({"size_modifier": -4}, "size_modifier"),
    ({"size_modifier": 4}, "size_modifier"),
    ({"speed_kn": -1}, "speed_kn"),
    ({"speed_kn": 61}, "speed_kn"),
    ({"structure_max": 0}, "structure_max"),
    ({"flotation_max": -1}, "flotation_max"),
    ({"structure_max": 9, "structure_now": 10}, "structure_now"),
    ({"flotation_max": 8, "flotation_now": 9}, "flotation_now"),
    ({"structure_now": -1}, "structure_now"),
    ({"flotation_now": -1}, "flotation_now"),
    ({"fire_markers": -1}, "fire_markers"),
    ({"points_base": -1}, "points_base"),
]


@pytest.mark.parametrize(("overrides", "field"), INVALID_SHIPS)
def test_invalid_ship_is_refused_with_the_field_named_and_nothing_written(
    world: World,
    factory: SessionFactory,
    ajax: int,
    refused: Refused,
    overrides: dict[str, Any],
    field: str,
) -> None:
    fields = {**ShipFields(name="Achilles", structure_max=9, flotation_max=8), **overrides}
    outcome = refused(lambda: fleet.create_ship(factory, squadron_id=world.alpha_id, fields=fields))
    assert field in outcome.errors
    outcome = refused(lambda: fleet.update_ship(factory, ship_id=ajax, fields=fields))
    assert field in outcome.errors


@pytest.mark.parametrize(
    "overrides",
    [
        {"size_modifier": -3},
        {"size_modifier": 3},
        {"structure_now": 9, "flotation_now": 8},
        {"structure_now": 0, "flotation_now": 0},
        {"name": "n" * 60, "type_abbrev": "CVLM"},
    ],
)
def test_ship_values_at_the_limits_are_accepted(
    world: World, factory: SessionFactory, overrides: dict[str, Any]
) -> None:
    fields = {**ShipFields(name="Ajax", structure_max=9, flotation_max=8), **overrides}
    ship = get_row(
        factory, Ship, fleet.create_ship(factory, squadron_id=world.alpha_id, fields=fields)
    )
    for key, value in overrides.items():
        assert getattr(ship, key) == value


def test_update_ship_stores_new_values_and_journals_only_the_changes(
    world: World, factory: SessionFactory, ajax: int, journaled: Journaled
) -> None:
    fields = ShipFields(
        name="Ajax",
        type_abbrev="CL",
        structure_max=9,
        structure_now=4,
        flotation_max=8,
        points_base=400,
    )
    with journaled(world.campaign_id) as new:
        fleet.update_ship(factory, ship_id=ajax, fields=fields)
    assert get_row(factory, Ship, ajax).structure_now == 4
    assert new.only.summary == "Edited Ajax"
    assert new.detail["before"] == {"structure_now": 9}
    assert new.detail["after"] == {"structure_now": 4}


@pytest.mark.parametrize(
    "given",
    [{"name": "Ajax II"}, {"notes": "Refit at Malta"}, {"structure_max": 12},
     {"fire_markers": 2}, {"structure_now": 3, "flotation_now": 2}],
    ids=["name", "notes", "structure_max", "fire_markers", "now"],
)  # fmt: skip
def test_a_field_an_update_leaves_out_keeps_the_ships_value(
    world: World, factory: SessionFactory, ajax: int, given: dict[str, Any]
) -> None:
    editable = set(fleet.ShipUpdate.model_fields) - {"version"}
    before = get_row(factory, Ship, ajax).model_dump(include=editable)
    fleet.update_ship(factory, ship_id=ajax, fields=given)
    after = get_row(factory, Ship, ajax).model_dump(include=editable)
    assert after == before | given


def test_renaming_a_ship_onto_another_is_refused(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], refused: Refused
) -> None:
    add_ship(world.alpha_id, "Ajax")
    achilles = add_ship(world.bravo_id, "Achilles")
    refused(
        lambda: fleet.update_ship(factory, ship_id=achilles, fields=ShipFields(name="Ajax")),
        "name",
    )


def test_delete_ship_removes_it_and_its_batteries_and_undo_puts_them_back(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], journaled: Journaled
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    achilles = add_ship(world.alpha_id, "Achilles")
    fleet.save_battery(factory, ship_id=ajax, mount="turret", calibre="6in", guns=8)
    kept_battery = fleet.save_battery(factory, ship_id=achilles, mount="turret", guns=8)
    with session_scope(factory) as session:
        batteries_before = [
            b.model_dump() for b in session.exec(select(Battery).order_by(col(Battery.id))).all()
        ]
    ship_before = get_row(factory, Ship, ajax).model_dump(exclude={"version"})
    with journaled(world.campaign_id) as new:
        assert fleet.delete_ship(factory, ship_id=ajax) == "Deleted Ajax"
    assert new.only.summary == "Deleted Ajax" and new.only.undoable
    assert [s.id for s in _ships(factory)] == [achilles]
    with session_scope(factory) as session:
        assert [b.id for b in session.exec(select(Battery).order_by(col(Battery.id))).all()] == [
            kept_battery
        ]
    with pytest.raises(NotFound):
        fleet.delete_ship(factory, ship_id=ajax)

    assert history.undo_last(factory, campaign_id=world.campaign_id).summary == (
        f"Undid #{new.only.id}: Deleted Ajax"
    )
    assert get_row(factory, Ship, ajax).model_dump(exclude={"version"}) == ship_before
    with session_scope(factory) as session:
        assert [
            b.model_dump() for b in session.exec(select(Battery).order_by(col(Battery.id))).all()
        ] == batteries_before
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert [s.id for s in _ships(factory)] == [achilles]


@settings(max_examples=examples(10), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    speed=st.integers(0, 60),
    structure=st.integers(1, 40),
    guns=st.lists(st.integers(0, 12), max_size=4),
    planned=st.booleans(),
)
def test_undo_of_a_delete_gives_back_the_same_ship_batteries_and_place(
    tmp_path_factory: pytest.TempPathFactory,
    migrated_template: Path,
    speed: int,
    structure: int,
    guns: list[int],
    planned: bool,
) -> None:
    """Any ship that never took part: undo puts back every field, battery and planned scenario."""
    with fresh_factory(tmp_path_factory, migrated_template, "delete") as factory:
        campaign = campaigns.create_campaign(factory, name="C")
        scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title="S")
        side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue")
        squadron = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
        fields = ShipFields(name="Ajax", speed_kn=speed, structure_max=structure)
        ajax = fleet.create_ship(factory, squadron_id=squadron, fields=fields)
        for count in guns:
            fleet.save_battery(factory, ship_id=ajax, mount="turret", guns=count)
        if planned:
            scenarios.set_participants(factory, scenario_id=scenario.id, ship_ids=[ajax])

        def state() -> tuple[Any, ...]:
            with session_scope(factory) as session:
                rows = [
                    [row.model_dump(exclude={"version"}) for row in session.exec(
                        select(model).order_by(*model.__table__.primary_key))]  # type: ignore[attr-defined]
                    for model in (Ship, Battery, Participation)
                ]  # fmt: skip
            return tuple(map(tuple, rows))

        before = state()
        fleet.delete_ship(factory, ship_id=ajax)
        assert state() == ((), (), ())
        history.undo_last(factory, campaign_id=campaign.id)
        assert state() == before
        history.redo_last(factory, campaign_id=campaign.id)
        assert state() == ((), (), ())


def test_a_ship_that_took_part_is_retired_and_closed_scenarios_keep_it(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], journaled: Journaled
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    add_ship(world.alpha_id, "Achilles")
    begin_with_all(factory, world)
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    later = campaigns.add_scenario(factory, campaign_id=world.campaign_id, title="Second")
    scenarios.set_participants(factory, scenario_id=later.id, ship_ids=[ajax])
    closed = continuity.scenario_detail(factory, scenario_id=world.scenario_id)

    with journaled(world.campaign_id) as new:
        summary = fleet.delete_ship(factory, ship_id=ajax)
    assert summary.startswith("Retired Ajax") and new.only.undoable
    assert get_row(factory, Ship, ajax).retired
    assert continuity.scenario_detail(factory, scenario_id=world.scenario_id) == closed
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert [ship.name for ship in record.ships] == ["Achilles"]
    assert continuity.scenario_detail(factory, scenario_id=later.id).participants == ()
    assert [
        p.name for p in damage.find_ships(factory, campaign_id=world.campaign_id, query="a")
    ] == ["Achilles"]
    with pytest.raises(InvalidInput, match="already retired"):
        fleet.delete_ship(factory, ship_id=ajax)
    with pytest.raises(InvalidInput, match="retired ships take part no more: Ajax"):
        scenarios.set_participants(factory, scenario_id=later.id, ship_ids=[ajax])

    history.undo_last(factory, campaign_id=world.campaign_id)
    assert not get_row(factory, Ship, ajax).retired
    assert [
        p.name for p in continuity.scenario_detail(factory, scenario_id=later.id).participants
    ] == ["Ajax"]
    assert [s.name for s in sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships] == [
        "Ajax", "Achilles"
    ]  # fmt: skip


def test_retiring_a_ship_in_play_keeps_its_squadron_s_original_strength(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    ships = [add_ship(world.alpha_id, name) for name in ("Ajax", "Achilles", "Exeter", "Hardy")]
    begin_with_all(factory, world)
    fleet.delete_ship(factory, ship_id=ships[0])
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert (len(record.ships), record.original_count) == (3, 4)


def test_add_fire_markers_counts_from_the_ship_and_journals(
    world: World, factory: SessionFactory, ajax: int, journaled: Journaled, refused: Refused
) -> None:
    with journaled(world.campaign_id) as new:
        fleet.add_fire_markers(factory, ship_id=ajax, delta=3)
    assert get_row(factory, Ship, ajax).fire_markers == 3
    assert new.only.summary == "Ajax: fire markers 0 -> 3"
    fleet.add_fire_markers(factory, ship_id=ajax, delta=-1)  # from the 3 the ship has
    assert get_row(factory, Ship, ajax).fire_markers == 2
    error = refused(lambda: fleet.add_fire_markers(factory, ship_id=ajax, delta=-3), "fire_markers")
    assert error.errors["fire_markers"] == "Ajax has 2 fire markers, not 3"
    refused(lambda: fleet.add_fire_markers(factory, ship_id=ajax, delta=98), "fire_markers")
    refused(lambda: fleet.add_fire_markers(factory, ship_id=ajax, delta=0), "fire_markers")


# --- copies -------------------------------------------------------------------------------------


def test_copy_ship_makes_an_undamaged_sister_with_the_same_data_and_batteries(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    source_id = fleet.create_ship(factory, squadron_id=world.alpha_id, fields=FULL_FIELDS)
    fleet.save_battery(
        factory,
        ship_id=source_id,
        mount="turret",
        calibre="8in",
        guns=6,
        ip="8",
        range_bands="4",
        notes="A, B, X",
    )
    fleet.save_battery(factory, ship_id=source_id, mount="shielded", calibre="4in", guns=4)
    with journaled(world.campaign_id) as new:
        copy_id = fleet.copy_ship(factory, ship_id=source_id, name=" York ")
    assert new.only.summary == "Copied Exeter as York" and new.only.ship_id == copy_id
    source, copy = get_row(factory, Ship, source_id), get_row(factory, Ship, copy_id)
    assert copy.id != source.id
    expected = dict(FULL_FIELDS) | {
        "name": "York",
        "structure_now": 12,
        "flotation_now": 9,
        "fire_markers": 0,
    }
    assert {key: getattr(copy, key) for key in DATA_KEYS} == expected
    assert (copy.side_id, copy.squadron_id, copy.original_squadron_id, copy.sunk) == (
        world.blue_id,
        world.alpha_id,
        world.alpha_id,
        False,
    )

    def battery_data(ship_id: int) -> list[tuple[Any, ...]]:
        return [
            (b.mount, b.calibre, b.guns, b.ip, b.range_bands, b.notes)
            for b in rows_of_ship(factory, Battery, ship_id)
        ]

    assert battery_data(copy_id) == battery_data(source_id)
    assert len(battery_data(copy_id)) == 2
    # The source is untouched.
    assert (source.name, source.structure_now, source.fire_markers) == ("Exeter", 10, 2)


def test_copy_of_a_transferred_ship_joins_its_present_squadron_in_command(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    ship_id = add_ship(world.alpha_id, "Ajax")
    fleet.transfer_ship(factory, ship_id=ship_id, to_squadron_id=world.bravo_id)
    copy = get_row(factory, Ship, fleet.copy_ship(factory, ship_id=ship_id, name="Achilles"))
    assert (copy.squadron_id, copy.original_squadron_id) == (world.bravo_id, world.bravo_id)
    assert (copy.transferred_turn, copy.transferred_scenario_id) == (None, None)


@pytest.mark.parametrize("name", ["Ajax", " Graf Spee ", "", "n" * 61])
def test_copy_ship_to_a_taken_or_invalid_name_is_refused_and_nothing_written(
    world: World,
    factory: SessionFactory,
    ajax: int,
    add_ship: Callable[..., int],
    refused: Refused,
    name: str,
) -> None:
    fleet.save_battery(factory, ship_id=ajax, mount="turret", guns=8)
    add_ship(world.bravo_id, "Graf Spee")
    refused(lambda: fleet.copy_ship(factory, ship_id=ajax, name=name), "name")


# --- transfers ----------------------------------------------------------------------------------


def test_transfer_ship_moves_it_and_journals(
    world: World, factory: SessionFactory, ajax: int, journaled: Journaled
) -> None:
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=[ajax])
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    with journaled(world.campaign_id) as new:
        fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    ship = get_row(factory, Ship, ajax)
    assert (ship.squadron_id, ship.original_squadron_id) == (world.bravo_id, world.alpha_id)
    assert (ship.transferred_scenario_id, ship.transferred_turn) == (world.scenario_id, 1)
    entry = new.only
    assert (entry.kind, entry.ship_id, entry.scenario_id, entry.turn) == (
        "transfer",
        ajax,
        world.scenario_id,
        1,
    )
    assert "Ajax" in entry.summary and "Alpha" in entry.summary and "Bravo" in entry.summary
    assert "Out of Command" in entry.summary
    assert new.detail["after"] == {"squadron_id": world.bravo_id}


@pytest.mark.parametrize("target", ["raider_id", "alpha_id"])
def test_transfer_to_another_side_or_the_same_squadron_is_refused(
    world: World, factory: SessionFactory, ajax: int, refused: Refused, target: str
) -> None:
    refused(
        lambda: fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=getattr(world, target)),
        "squadron",
    )


def test_a_sunk_ship_cannot_transfer(
    world: World, factory: SessionFactory, ajax: int, refused: Refused
) -> None:
    # No service sinks ships yet (a later feature): set the state up directly.
    with session_scope(factory) as session:
        ship = session.get(Ship, ajax)
        assert ship is not None
        ship.sunk = True
    outcome = refused(
        lambda: fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    )
    assert "sunk" in outcome.errors["squadron"]


# --- batteries ----------------------------------------------------------------------------------


def test_save_battery_adds_then_edits_then_delete_removes(
    world: World, factory: SessionFactory, ajax: int, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        battery_id = fleet.save_battery(
            factory,
            ship_id=ajax,
            mount="turret",
            calibre="6in",
            guns=8,
            ip=" 5 ",
            range_bands="3",
        )
    assert new.only.summary == "Ajax: added 8 x 6in turret"
    assert (new.only.kind, new.only.ship_id) == ("battery", ajax)
    [battery] = rows_of_ship(factory, Battery, ajax)
    assert (battery.id, battery.mount, battery.calibre, battery.guns, battery.ip) == (
        battery_id,
        "turret",
        "6in",
        8,
        "5",
    )
    with journaled(world.campaign_id) as new:
        again = fleet.save_battery(
            factory, ship_id=ajax, battery_id=battery_id, mount="DP", calibre="4in", guns=4
        )
    assert again == battery_id and new.only.summary == "Ajax: edited 4 x 4in DP"
    [battery] = rows_of_ship(factory, Battery, ajax)
    # The ip the edit leaves out keeps its value.
    assert (battery.mount, battery.calibre, battery.guns, battery.ip) == ("DP", "4in", 4, "5")
    with journaled(world.campaign_id) as new:
        fleet.delete_battery(factory, battery_id=battery_id)
    assert new.only.summary == "Ajax: removed 4 x 4in DP"
    assert rows_of_ship(factory, Battery, ajax) == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"mount": "barbette"}, "mount"),
        ({"mount": "turret", "guns": -1}, "guns"),
        ({"mount": "turret", "guns": 100}, "guns"),
        ({"mount": "turret", "calibre": "c" * 21}, "calibre"),
        ({"mount": "turret", "ip": "i" * 21}, "ip"),
        ({"mount": "turret", "range_bands": "r" * 41}, "range_bands"),
        ({"mount": "turret", "notes": "n" * 401}, "notes"),
    ],
)
def test_invalid_battery_is_refused_and_nothing_written(
    world: World,
    factory: SessionFactory,
    ajax: int,
    refused: Refused,
    kwargs: dict[str, Any],
    field: str,
) -> None:
    outcome = refused(lambda: fleet.save_battery(factory, ship_id=ajax, **kwargs))
    assert field in outcome.errors


def test_save_battery_never_edits_another_ships_battery(
    world: World,
    factory: SessionFactory,
    add_ship: Callable[..., int],
    db_state: Callable[[], Snapshot],
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    achilles = add_ship(world.alpha_id, "Achilles")
    achilles_battery = fleet.save_battery(factory, ship_id=achilles, mount="turret", guns=8)
    before = db_state()
    outcome = attempt(
        lambda: fleet.save_battery(
            factory, ship_id=ajax, battery_id=achilles_battery, mount="open", guns=1
        )
    )
    assert isinstance(outcome, InvalidInput | NotFound), repr(outcome)
    assert db_state() == before


# --- property: junk into create_ship ------------------------------------------------------------

_texts = st.text(max_size=70) | st.sampled_from(["", "  ", "[bold]x[/]", "Ajax", " Ajax\t"])
_ints = st.integers(min_value=-10, max_value=70) | st.integers(min_value=-(2**70), max_value=2**70)
_fields = st.builds(
    ShipFields,
    name=_texts,
    class_name=_texts,
    type_abbrev=st.text(max_size=10),
    nation=_texts,
    size_modifier=_ints,
    speed_kn=_ints,
    armour_class=st.text(max_size=22),
    structure_max=_ints,
    structure_now=st.none() | _ints,
    flotation_max=_ints,
    flotation_now=st.none() | _ints,
    fire_markers=_ints,
    points_base=_ints,
    torpedoes=st.text(max_size=205),
    sraa_dp=st.text(max_size=5),
    radar=st.text(max_size=5),
    notes=st.text(max_size=20),
)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=_fields)
@example(
    fields=ShipFields(
        name=" Exeter",
        class_name="York ",
        type_abbrev="CA",
        nation="",
        size_modifier=1,
        speed_kn=32,
        armour_class="C",
        structure_max=12,
        structure_now=None,
        flotation_max=9,
        flotation_now=9,
        fire_markers=0,
        points_base=480,
        torpedoes="",
        sraa_dp="",
        radar="",
        notes="x",
    )
)
def test_create_ship_either_stores_valid_values_or_refuses_cleanly(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, fields: ShipFields
) -> None:
    with fresh_factory(tmp_path_factory, migrated_template, "junk") as factory:
        campaign = campaigns.create_campaign(factory, name="C")
        side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue")
        squadron_id = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
        fleet.create_ship(factory, squadron_id=squadron_id, fields=ShipFields(name="Ajax"))
        try:
            ship_id = fleet.create_ship(factory, squadron_id=squadron_id, fields=fields)
        except InvalidInput as exc:
            assert exc.errors
            assert [s.name for s in _ships(factory)] == ["Ajax"]
            return
        ship = get_row(factory, Ship, ship_id)
        assert ship.name == fields["name"].strip() and ship.name not in ("", "Ajax")
        for rule in rules(ShipCreate):
            if rule.kind == "text":
                assert getattr(ship, rule.key) == fields[rule.key].strip()
                assert len(getattr(ship, rule.key)) <= (rule.max_length or 0)
        assert -3 <= ship.size_modifier <= 3 and 0 <= ship.speed_kn <= 60
        assert 0 <= ship.structure_now <= ship.structure_max
        assert 0 <= ship.flotation_now <= ship.flotation_max
        assert ship.fire_markers >= 0 and ship.points_base >= 0
        expected_now = (
            fields["structure_max"] if fields["structure_now"] is None else fields["structure_now"]
        )
        assert ship.structure_now == expected_now
        assert len(_ships(factory)) == 2
        # What was stored reads back through the sheet (its derived rules accept the values).
        [_, view] = sheet.load_record_sheet(factory, squadron_id=squadron_id).ships
        assert view.name == ship.name


# --- the commander's ship (SMR2 §3.1, §3.4, §6.7) ------------------------------------------------


def test_the_commander_s_ship_is_set_and_moved_journaled_and_sinking_it_loses_him(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], journaled: Journaled
) -> None:
    ajax, achilles = (add_ship(world.alpha_id, name) for name in ("Ajax", "Achilles"))
    appoint(factory, world.alpha_id, name="Harwood", training=3, acquisition="direct")
    assert command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=ajax) == (
        "Alpha: Harwood aboard Ajax"
    )
    with journaled(world.campaign_id) as new:
        summary = command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=achilles)
    assert summary == new.only.summary == "Alpha: Harwood transferred from Ajax to Achilles"
    assert sheet.load_record_sheet(factory, squadron_id=world.alpha_id).commander_ship == "Achilles"
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert sheet.load_record_sheet(factory, squadron_id=world.alpha_id).commander_ship == "Ajax"

    begin_with_all(factory, world)
    damage.record_hit(factory, request=damage.HitRequest(ajax, structure=99))
    notes = damage.confirm_condition(factory, ship_id=ajax, outcome="Sunk")
    assert any("Harwood was lost with Ajax" in n and "SMR2 §10.3" in n for n in notes)
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert record.commander is not None and record.commander.status == "lost"
    assert [ship.out_of_command for ship in record.ships] == [True, True]
    assert sheet.load_ship(factory, ship_id=achilles)[0].out_of_command
    # The player types the replacement his rulebook gives; then says where he sails.
    appoint(factory, world.alpha_id, name="Woodhouse", training=2, acquisition="direct")
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert record.commander is not None and record.commander.status == "active"
    assert record.commander_ship == "" and not any(s.out_of_command for s in record.ships)
    command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=achilles)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("other squadron", "Exeter is not in Alpha: the commander sails in one of its own ships"),
        ("no commander", "Alpha has no commander yet: roll or buy one first (r)"),
        ("sunk", "Ajax is sunk: choose a ship afloat"),
        ("same", "Ajax already carries the commander"),
    ],
)
def test_the_commander_s_ship_is_refused_with_a_reason_and_nothing_written(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], refused: Refused,
    case: str, message: str,
) -> None:  # fmt: skip
    ajax = add_ship(world.alpha_id, "Ajax")
    exeter = add_ship(world.bravo_id, "Exeter")
    if case != "no commander":
        appoint(factory, world.alpha_id, training=3, acquisition="direct")
    if case == "same":
        command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=ajax)
    if case == "sunk":
        damage.record_hit(factory, request=damage.HitRequest(ajax, structure=99))
        damage.confirm_condition(factory, ship_id=ajax, outcome="Sunk")
    target = exeter if case == "other squadron" else ajax
    error = refused(
        lambda: command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=target),
        "ship",
    )
    assert error.errors["ship"] == message


# --- a save that changes nothing writes nothing -------------------------------------------------


def test_every_edit_form_saved_unchanged_writes_nothing(
    world: World, factory: SessionFactory, ajax: int, db_state: Callable[[], Snapshot]
) -> None:
    ship = sheet.load_ship(factory, ship_id=ajax)[0]
    fields = ShipFields({key: getattr(ship, key) for key in DATA_KEYS})
    campaign = campaigns.get_overview(factory, campaign_id=world.campaign_id)
    summary = campaigns.list_campaigns(factory)[0]
    blue = campaign.sides[0]
    scenario = campaign.scenarios[0]
    saves = [
        lambda: fleet.update_ship(factory, ship_id=ajax, fields=fields),
        lambda: fleet.update_squadron(
            factory, squadron_id=world.alpha_id, name="Alpha", air=False, notes=""
        ),
        lambda: campaigns.update_side(factory, side_id=blue.id, name=blue.name, nation="Britain"),
        lambda: campaigns.update_scenario(
            factory, scenario_id=scenario.id, title=scenario.title, date=scenario.date
        ),
        lambda: campaigns.update_campaign(
            factory, campaign_id=world.campaign_id, name=summary.name, notes=summary.notes,
            model_scale=summary.model_scale,
            crew_roll_adds_commander=summary.crew_roll_adds_commander,
        ),
    ]  # fmt: skip
    for save in saves:
        before = db_state()
        save()
        assert db_state() == before
    # A real change is still journaled.
    fleet.update_ship(factory, ship_id=ajax, fields={**fields, "speed_kn": 31})
    newest = history.list_entries(factory, campaign_id=world.campaign_id, limit=1)
    assert [entry.summary for entry in newest] == ["Edited Ajax"]


_ROW = st.fixed_dictionaries(
    {
        "name": st.sampled_from(
            ["Ajax", "ajax", "Exeter", "Émile", "ÉMILE", " Orion ", "", *"ABCDEFGH"]
        ),
        "structure_max": st.sampled_from([0, 3, 3, 3]),
        "structure_now": st.sampled_from([None, None, 1, 3]),
    }
)


@settings(max_examples=examples(25), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(rows=st.lists(_ROW, min_size=1, max_size=5))
@example(rows=[{"name": "Ajax", "structure_max": 3}, {"name": " Émile", "structure_now": 1}])
def test_ships_added_in_one_act_are_refused_and_journaled_as_each_added_alone(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, rows: list[ShipFields]
) -> None:
    """Many ships in one act (a CSV file's): a row is refused exactly when adding the rows one
    by one refuses it (its model check, a name the side or an earlier row has), and then none
    is added; else each is added and journaled as create_ship adds and journals one."""
    with fresh_factory(tmp_path_factory, migrated_template, "ships") as factory:
        campaign = campaigns.create_campaign(factory, name="C")
        squadrons = []
        for side_name in ("Blue", "Red"):
            side = campaigns.create_side(factory, campaign_id=campaign.id, name=side_name)
            squadrons.append(fleet.create_squadron(factory, side_id=side.id, name="Alpha"))
            fleet.create_ship(factory, squadron_id=squadrons[-1], fields={"name": "Exeter"})
        alone, together = squadrons
        expected, alone_entries = appended(
            factory,
            lambda: refusals(
                lambda row: fleet.create_ship(factory, squadron_id=alone, fields=row), rows
            ),
        )
        outcome, new = appended(factory, lambda: fleet.create_ships(
            factory, squadron_id=together, rows=rows))  # fmt: skip
        by_squadron = rows_by(factory, Ship, "squadron_id")
        if isinstance(outcome, RowsRefused):
            assert outcome.errors == next(iter(outcome.rows.values()))
        if expected or outcome != [e.ship_id for e in new]:
            assert (outcome.rows, new) == (expected, [])  # type: ignore[union-attr]
            assert [s.name for s in by_squadron[together]] == ["Exeter"]
            return
        mine, theirs = by_squadron[together][1:], by_squadron[alone][1:]
        assert (
            [s.name for s in mine]
            == [s.name for s in theirs]
            == [row["name"].strip() for row in rows]
        )
        assert all(s.original_squadron_id == together for s in mine)
        assert [(e.kind, e.summary) for e in new] == [(e.kind, e.summary) for e in alone_entries]
        assert [e.ship_id for e in new] == [s.id for s in mine]
        # Where each ship is, and her identity (each her own: test_row_identities), differ.
        places = {"side_id", "squadron_id", "original_squadron_id", "uid"}
        for made, alone_made, ship in zip(new, alone_entries, mine, strict=True):
            after = json.loads(made.detail)["after"]
            assert after == journal.row_state(ship)
            assert {k: v for k, v in after.items() if k not in places} == {
                k: v for k, v in json.loads(alone_made.detail)["after"].items() if k not in places
            }


def test_a_name_another_program_adds_after_the_read_refuses_every_ship_of_the_act(
    factory: SessionFactory, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The side's names are read once for the act; one another program wrote since then is
    refused by the database, and the act writes none of its ships (common.insert_named)."""
    fleet.create_ship(factory, squadron_id=world.alpha_id, fields={"name": "Exeter"})
    before = rows_by(factory, Ship, "squadron_id")
    entries = len(history.list_entries(factory, campaign_id=world.campaign_id))
    monkeypatch.setattr(fleet, "scope_names", lambda *_, **__: set())  # read before Exeter
    with pytest.raises(InvalidInput) as refused:
        fleet.create_ships(factory, squadron_id=world.alpha_id,
                           rows=[{"name": "Hardy"}, {"name": "Exeter"}])  # fmt: skip
    assert refused.value.errors == {
        "name": "this side already has a ship named one of these names: choose another"
    }
    assert rows_by(factory, Ship, "squadron_id") == before
    assert len(history.list_entries(factory, campaign_id=world.campaign_id)) == entries
