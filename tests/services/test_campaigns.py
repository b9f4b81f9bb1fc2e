"""Campaigns, scenarios and sides (tracker.services.campaigns) and the sample campaign."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from campaign_files import SHARED, campaign_rows, fill_every_table, full_sample_campaign
from service_helpers import (
    Journaled,
    Refused,
    Snapshot,
    World,
    appoint,
    count_rows,
    edit_campaign,
    get_row,
)
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Battery,
    Campaign,
    Commander,
    Crew,
    JournalEntry,
    Ship,
    Side,
    Squadron,
)
from tracker.services import campaigns, command, demo, fleet, sheet
from tracker.services.errors import NotFound

# --- campaigns ----------------------------------------------------------------------------------


def test_create_campaign_stores_the_stripped_name_and_options(factory: SessionFactory) -> None:
    created = campaigns.create_campaign(
        factory,
        name="  Channel Dash  ",
        notes="February 1942",
        model_scale="1/1200",
        crew_roll_adds_commander=True,
    )
    assert created.name == "Channel Dash"
    row = get_row(factory, Campaign, created.id)
    assert (row.name, row.notes, row.model_scale, row.crew_roll_adds_commander) == (
        "Channel Dash",
        "February 1942",
        "1/1200",
        True,
    )
    [listed] = campaigns.list_campaigns(factory)
    assert listed == created
    assert (listed.sides, listed.ships, listed.current_scenario) == (0, 0, "")


def test_create_campaign_journals_once(
    factory: SessionFactory, journal_count: Callable[[int], int]
) -> None:
    created = campaigns.create_campaign(factory, name="Denmark Strait")
    assert journal_count(created.id) == 1


def test_update_campaign_changes_name_and_options_and_journals_the_difference(
    factory: SessionFactory, journaled: Journaled
) -> None:
    created = campaigns.create_campaign(factory, name="Old name")
    with journaled(created.id) as new:
        updated = edit_campaign(
            factory,
            created.id,
            "New name",
            notes="n",
            model_scale="1/3000",
            crew_roll_adds_commander=True,
        )
    assert (updated.name, updated.model_scale, updated.crew_roll_adds_commander) == (
        "New name",
        "1/3000",
        True,
    )
    assert "New name" in new.only.summary
    assert new.detail["before"]["name"] == "Old name"
    assert new.detail["after"]["name"] == "New name"
    assert [c.name for c in campaigns.list_campaigns(factory)] == ["New name"]


def test_update_campaign_may_keep_its_own_name(factory: SessionFactory) -> None:
    created = campaigns.create_campaign(factory, name="Same")
    updated = edit_campaign(factory, created.id, "Same", notes="more")
    assert (updated.name, updated.notes) == ("Same", "more")


@pytest.mark.parametrize("name", ["Bismarck chase", "  Bismarck chase  "])
def test_duplicate_campaign_name_is_refused_and_nothing_written(
    factory: SessionFactory, refused: Refused, name: str
) -> None:
    campaigns.create_campaign(factory, name="Bismarck chase")
    outcome = refused(lambda: campaigns.create_campaign(factory, name=name), "name")
    assert "already exists" in outcome.errors["name"]


def test_renaming_a_campaign_onto_another_name_is_refused(
    factory: SessionFactory, refused: Refused
) -> None:
    campaigns.create_campaign(factory, name="First")
    second = campaigns.create_campaign(factory, name="Second")
    outcome = refused(lambda: edit_campaign(factory, second.id, "First"))
    assert "name" in outcome.errors


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "   \t "}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": "ok", "notes": "n" * 4001}, "notes"),
        ({"name": "ok", "model_scale": "1/700"}, "model_scale"),
    ],
)
def test_invalid_campaign_is_refused_and_nothing_written(
    factory: SessionFactory, refused: Refused, kwargs: dict[str, Any], field: str
) -> None:
    outcome = refused(lambda: campaigns.create_campaign(factory, **kwargs))
    assert field in outcome.errors


def test_campaign_name_of_exactly_80_characters_is_accepted(factory: SessionFactory) -> None:
    created = campaigns.create_campaign(factory, name="x" * 80)
    assert created.name == "x" * 80


def test_campaign_name_with_markup_is_stored_as_typed(factory: SessionFactory) -> None:
    created = campaigns.create_campaign(factory, name="[bold]Exeter[/] & <b>")
    assert [c.name for c in campaigns.list_campaigns(factory)] == ["[bold]Exeter[/] & <b>"]
    assert campaigns.get_overview(factory, campaign_id=created.id).campaign.name == (
        "[bold]Exeter[/] & <b>"
    )


def test_missing_campaign_raises_not_found(factory: SessionFactory) -> None:
    with pytest.raises(NotFound):
        campaigns.get_overview(factory, campaign_id=999)
    with pytest.raises(NotFound):
        campaigns.delete_campaign(factory, campaign_id=999)


def _rows_of_campaign(factory: SessionFactory, campaign_id: int) -> dict[str, int]:
    """Rows in every table that belong to one campaign, however they reach it."""
    return {name: len(ids) for name, ids in campaign_rows(factory, campaign_id).items()}


def test_delete_campaign_removes_everything_and_leaves_other_campaigns(
    factory: SessionFactory,
) -> None:
    sample_id = full_sample_campaign(factory).campaign_id
    other = campaigns.create_campaign(factory, name="Other")
    other_side = campaigns.create_side(factory, campaign_id=other.id, name="Royal Navy")
    other_squadron = fleet.create_squadron(factory, side_id=other_side.id, name="Force G")
    appoint(factory, other_squadron, name="X", training=3, acquisition="direct")
    other_ship = fleet.create_ship(
        factory, squadron_id=other_squadron, fields=fleet.ShipFields(name="Exeter")
    )
    fleet.save_battery(factory, ship_id=other_ship, mount="turret", calibre="8in", guns=6)
    command.set_crew(factory, squadron_id=other_squadron, training=4, acquisition="direct")
    campaigns.add_scenario(factory, campaign_id=other.id, title="Later")
    # Both campaigns get rows in every table; the sample's Ajax is a transferred ship, which
    # must not block the delete (ships point at squadrons without cascade).
    fill_every_table(factory, campaign_id=other.id, ship_id=other_ship)

    before_other = _rows_of_campaign(factory, other.id)
    assert all(before_other.values())
    assert all(_rows_of_campaign(factory, sample_id).values())

    campaigns.delete_campaign(factory, campaign_id=sample_id)

    left = _rows_of_campaign(factory, sample_id)
    assert {left.pop(table) for table in SHARED} == {1}  # the library outlives a campaign
    assert set(left.values()) == {0}
    assert _rows_of_campaign(factory, other.id) == before_other
    # Nothing orphaned anywhere in the file: only the other campaign's rows remain.
    assert count_rows(factory, Ship) == 1
    assert count_rows(factory, Battery) == 1
    assert count_rows(factory, Commander) == 1
    assert count_rows(factory, Crew) == 1
    assert [c.name for c in campaigns.list_campaigns(factory)] == ["Other"]


# --- scenarios ----------------------------------------------------------------------------------


def test_add_scenario_appends_in_order_and_becomes_current(
    factory: SessionFactory, journaled: Journaled
) -> None:
    created = campaigns.create_campaign(factory, name="C")
    first = campaigns.add_scenario(factory, campaign_id=created.id, title="One", date="1940")
    with journaled(created.id) as new:
        second = campaigns.add_scenario(factory, campaign_id=created.id, title="  Two ")
    assert (first.position, second.position) == (1, 2)
    assert (second.title, second.status, second.turn) == ("Two", "planned", 1)
    assert "Two" in new.only.summary
    overview = campaigns.get_overview(factory, campaign_id=created.id)
    assert [s.title for s in overview.scenarios] == ["One", "Two"]
    assert overview.campaign.current_scenario == "One"


@pytest.mark.parametrize(
    ("kwargs", "field"), [({"title": " "}, "title"), ({"title": "t", "date": "d" * 41}, "date")]
)
def test_invalid_scenario_is_refused(
    factory: SessionFactory, refused: Refused, kwargs: dict[str, Any], field: str
) -> None:
    created = campaigns.create_campaign(factory, name="C")
    outcome = refused(lambda: campaigns.add_scenario(factory, campaign_id=created.id, **kwargs))
    assert field in outcome.errors


def test_journal_entries_carry_the_current_scenario_and_turn(factory: SessionFactory) -> None:
    created = campaigns.create_campaign(factory, name="C")
    scenario = campaigns.add_scenario(factory, campaign_id=created.id, title="S")
    side = campaigns.create_side(factory, campaign_id=created.id, name="Blue")
    fleet.create_squadron(factory, side_id=side.id, name="Alpha")
    with session_scope(factory) as session:
        entries = session.exec(
            select(JournalEntry)
            .where(JournalEntry.campaign_id == created.id)
            .order_by(col(JournalEntry.id))
        ).all()
    assert [e.kind for e in entries] == ["campaign", "scenario", "side", "squadron"]
    # Filed under the scenario planned, at no turn: it has not begun.
    assert [(e.scenario_id, e.turn) for e in entries[2:]] == [(scenario.id, None)] * 2
    assert entries[0].scenario_id is None


# --- sides --------------------------------------------------------------------------------------


def test_create_side_stores_it_and_journals(factory: SessionFactory, journaled: Journaled) -> None:
    created = campaigns.create_campaign(factory, name="C")
    with journaled(created.id) as new:
        side = campaigns.create_side(
            factory, campaign_id=created.id, name=" Royal Navy ", nation=" Great Britain "
        )
    assert (side.name, side.nation) == ("Royal Navy", "Great Britain")
    assert "Royal Navy" in new.only.summary
    overview = campaigns.get_overview(factory, campaign_id=created.id)
    assert [(s.id, s.name, s.nation) for s in overview.sides] == [
        (side.id, "Royal Navy", "Great Britain")
    ]
    assert overview.campaign.sides == 1


def test_two_sides_of_one_name_are_refused_and_nothing_written(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    outcome = refused(
        lambda: campaigns.create_side(factory, campaign_id=world.campaign_id, name="Blue"), "name"
    )
    assert "Blue" in outcome.errors["name"]


def test_renaming_a_side_onto_another_is_refused_and_nothing_written(
    world: World, factory: SessionFactory, refused: Refused
) -> None:
    # Nothing written: the transaction is rolled back either way.
    refused(
        lambda: campaigns.update_side(factory, side_id=world.red_id, name="Blue", nation=""),
        "name",
    )


def test_the_same_side_name_in_another_campaign_is_fine(
    world: World, factory: SessionFactory
) -> None:
    other = campaigns.create_campaign(factory, name="Other")
    side = campaigns.create_side(factory, campaign_id=other.id, name="Blue")
    assert side.name == "Blue"
    assert count_rows(factory, Side) == 3


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "n" * 61}, "name"),
        ({"name": "ok", "nation": "x" * 41}, "nation"),
    ],
)
def test_invalid_side_is_refused(
    world: World, factory: SessionFactory, refused: Refused, kwargs: dict[str, Any], field: str
) -> None:
    outcome = refused(
        lambda: campaigns.create_side(factory, campaign_id=world.campaign_id, **kwargs)
    )
    assert field in outcome.errors
    outcome = refused(
        lambda: campaigns.update_side(factory, side_id=world.blue_id, **{"nation": "", **kwargs})
    )
    assert field in outcome.errors


def test_update_side_renames_and_journals(
    world: World, factory: SessionFactory, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        view = campaigns.update_side(factory, side_id=world.blue_id, name="Allies", nation="UK")
    assert (view.name, view.nation) == ("Allies", "UK")
    assert "Blue" in new.only.summary
    assert new.detail["after"] == {"name": "Allies", "nation": "UK"}
    overview = campaigns.get_overview(factory, campaign_id=world.campaign_id)
    assert [s.name for s in overview.sides] == ["Allies", "Red"]


def test_delete_side_removes_its_squadrons_ships_and_batteries(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], journaled: Journaled
) -> None:
    blue_ship = add_ship(world.alpha_id, "Ajax")
    fleet.save_battery(factory, ship_id=blue_ship, mount="turret", calibre="6in", guns=8)
    add_ship(world.bravo_id, "Achilles")
    red_ship = add_ship(world.raider_id, "Graf Spee")
    fleet.save_battery(factory, ship_id=red_ship, mount="turret", calibre="11in", guns=6)
    with journaled(world.campaign_id) as new:
        campaigns.delete_side(factory, side_id=world.blue_id)
    assert "Blue" in new.only.summary
    with session_scope(factory) as session:
        assert [s.name for s in session.exec(select(Ship)).all()] == ["Graf Spee"]
        assert [s.name for s in session.exec(select(Squadron)).all()] == ["Raider"]
        assert [b.ship_id for b in session.exec(select(Battery)).all()] == [red_ship]
        assert [s.name for s in session.exec(select(Side)).all()] == ["Red"]


def test_delete_side_leaves_no_orphan_commanders_or_crews(
    world: World, factory: SessionFactory
) -> None:
    appoint(factory, world.alpha_id, name="A", training=3, acquisition="direct")
    command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="direct")
    campaigns.delete_side(factory, side_id=world.blue_id)
    assert (count_rows(factory, Commander), count_rows(factory, Crew)) == (0, 0)


# --- the sample campaign ------------------------------------------------------------------------


def test_sample_campaign_is_complete(factory: SessionFactory) -> None:
    campaign_id = demo.create_sample_campaign(factory)
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    assert overview.campaign.name == demo.SAMPLE_NAME
    assert "ILLUSTRATIVE" in overview.campaign.notes
    assert [s.name for s in overview.sides] == ["Royal Navy", "Kriegsmarine"]
    assert [(q.name, q.ships) for s in overview.sides for q in s.squadrons] == [
        ("Force G", 3),
        ("Panzerschiff", 1),
    ]
    assert [s.title for s in overview.scenarios] == ["Battle of the River Plate"]
    force_g = sheet.load_record_sheet(factory, squadron_id=overview.sides[0].squadrons[0].id)
    assert [s.name for s in force_g.ships] == ["Exeter", "Ajax", "Achilles"]
    assert all(len(s.batteries) == 2 for s in force_g.ships)
    assert force_g.commander is not None and force_g.crew is not None


def test_sample_campaign_twice_returns_the_same_id_and_does_not_duplicate(
    factory: SessionFactory, db_state: Callable[[], Snapshot]
) -> None:
    first = demo.create_sample_campaign(factory)
    before = db_state()
    second = demo.create_sample_campaign(factory)
    assert second == first
    assert db_state() == before
    assert len(campaigns.list_campaigns(factory)) == 1
