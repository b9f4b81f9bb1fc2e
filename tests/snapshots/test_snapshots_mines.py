"""Snapshots of the minefield ledger, a task force's mine check in progress and a fuel track;
each SVG was looked at before it was committed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import migrated_engine

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.services import campaigns, fleet, mines, scenarios
from tracker.services.fleet import ShipFields

SIZE = (120, 40)
LONG = ("Hood", "Renown", "Sheffield")
SMALL = ("Faulknor", "Foresight", "Forester", "Fury", "Foxhound")


@pytest.fixture
def mined(tmp_path: Path) -> tuple[SessionFactory, int]:
    """Force H in the North Sea: three minefields on one boundary, one being sown by a U-boat,
    a scattered air drop, a secret drifting field, and a mine check three draws in."""
    engine = migrated_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    campaign_id = campaigns.create_campaign(factory, name="North Sea 1940").id
    navy = campaigns.create_side(factory, campaign_id=campaign_id, name="Royal Navy").id
    kms = campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine").id
    force = fleet.create_squadron(factory, side_id=navy, name="Force H")
    ships = []
    for name in LONG + SMALL:
        ship = fleet.create_ship(factory, squadron_id=force, fields=ShipFields(
            name=name, structure_max=12, flotation_max=9))  # fmt: skip
        mines.save_counter(
            factory, ship_id=ship, counter_size="long" if name in LONG else "small",
            speed_rating=3, hull_boxes=6 if name in LONG else 2,
            fuel_full=6 if name in LONG else 3, fuel_empty=1,
        )  # fmt: skip
        ships.append(ship)
    uboats = fleet.create_squadron(factory, side_id=kms, name="U-boats")
    u32 = fleet.create_ship(
        factory, squadron_id=uboats, fields=ShipFields(name="U-32", type_abbrev="SS")
    )
    mines.save_counter(factory, ship_id=u32, counter_size="small", speed_rating=1,
                       torpedo_factors=3, mines_loaded=2, fuel_full=4)  # fmt: skip
    skagerrak = mines.add_boundary(factory, campaign_id=campaign_id, area_a="North Sea",
                                   area_b="Skagerrak")  # fmt: skip
    firth = mines.add_boundary(factory, campaign_id=campaign_id, area_a="Moray Firth",
                               area_b="North Sea")  # fmt: skip
    battle = campaigns.add_scenario(factory, campaign_id=campaign_id, title="Into the Skagerrak")
    scenarios.set_participants(factory, scenario_id=battle.id, ship_ids=ships)
    scenarios.start_scenario(factory, scenario_id=battle.id)
    for layer in ("Roland", "Cobra", "Roland"):
        field = mines.sow_minefield(
            factory, side_id=kms, laid_by="surface", boundary_id=skagerrak, layer_name=layer,
            complete=True, notes="off Hanstholm",
        )  # fmt: skip
    mines.sow_minefield(factory, side_id=kms, laid_by="submarine", boundary_id=firth,
                        layer_ship_id=u32)  # fmt: skip
    mines.aerial_drop(factory, side_id=kms, aircraft="He 115", naval_attack=2, land_attack=1,
                      circled=True, rolls=[2], boundary_id=firth)  # fmt: skip
    drifting = mines.sow_minefield(factory, side_id=kms, laid_by="surface", sector="K7",
                                   layer_name="Brummer", complete=True, drifting=True,
                                   secret=True, notes="drifts east")  # fmt: skip
    mines.drift(factory, minefield_id=drifting, to_sector="K8", d6=2)
    for low, high, applies, effects in ((1, 6, "all", "none"), (7, 7, "all", "fuel-2"),
                                        (8, 9, "long", "speed-1 fuel-2"),
                                        (8, 9, "small", "crippled fuel-1"),
                                        (10, 10, "all", "hull-2 fuel-3")):  # fmt: skip
        mines.save_mine_row(factory, campaign_id=campaign_id, low=low, high=high,
                            applies_to=applies, effects=effects)  # fmt: skip
    check = mines.start_check(factory, minefield_id=field, ship_ids=ships, speed=3, seed=11)
    for roll in (2, 1, 4):
        mines.roll_mine(factory, check_id=check, roll=roll)
    return factory, campaign_id


def app_for(factory: SessionFactory, campaign_id: int) -> TrackerApp:
    return TrackerApp(factory, rng=random.Random(4), open_campaign_id=campaign_id)


def test_minefield_ledger(snap_compare, mined) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*mined), terminal_size=SIZE, press=["m"])


def test_mine_check_in_progress(snap_compare, mined) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*mined), terminal_size=SIZE, press=["m", "m"])


def test_fuel_track_on_the_record_sheet(snap_compare, mined) -> None:  # type: ignore[no-untyped-def]
    # Sheffield, third on the sheet, struck a mine: two fuel factors lost.
    assert snap_compare(app_for(*mined), terminal_size=SIZE, press=["enter", "down", "down"])
