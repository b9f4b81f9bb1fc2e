"""What the player sees, screen by screen; each SVG was looked at before it was committed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import sample_engine

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.services import campaigns, damage, fleet, history, sheet

SIZE = (120, 40)


@pytest.fixture
def snapshot_factory(tmp_path: Path) -> SessionFactory:
    """A file holding the sample campaign alone (a copy of one built once per process)."""
    engine, _ = sample_engine(tmp_path / "campaign.db")
    return session_factory(engine)


def sample_app(factory: SessionFactory) -> tuple[TrackerApp, int]:
    [campaign] = campaigns.list_campaigns(factory)
    return TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign.id), campaign.id


def force_g(factory: SessionFactory, campaign_id: int) -> int:
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    return overview.sides[0].squadrons[0].id


def test_welcome_screen(snap_compare, snapshot_factory: SessionFactory) -> None:  # type: ignore[no-untyped-def]
    app = TrackerApp(snapshot_factory, rng=random.Random(3))
    assert snap_compare(app, terminal_size=SIZE)


def test_sample_record_sheet(snap_compare, snapshot_factory: SessionFactory) -> None:  # type: ignore[no-untyped-def]
    app, _ = sample_app(snapshot_factory)
    assert snap_compare(app, terminal_size=SIZE, press=["enter"])


def test_ship_below_a_third_of_structure_and_flotation(  # type: ignore[no-untyped-def]
    snap_compare, snapshot_factory: SessionFactory
) -> None:
    app, campaign_id = sample_app(snapshot_factory)
    squadron_id = force_g(snapshot_factory, campaign_id)
    exeter = sheet.load_record_sheet(snapshot_factory, squadron_id=squadron_id).ships[0]
    fields = fleet.ShipFields(
        name=exeter.name, class_name=exeter.class_name, type_abbrev=exeter.type_abbrev,
        nation=exeter.nation, size_modifier=exeter.size_modifier, speed_kn=exeter.speed_kn,
        armour_class=exeter.armour_class, structure_max=12, structure_now=4, flotation_max=9,
        flotation_now=3, fire_markers=2, points_base=exeter.points_base,
    )  # fmt: skip
    fleet.update_ship(snapshot_factory, ship_id=exeter.id, fields=fields)
    assert snap_compare(app, terminal_size=SIZE, press=["enter"])


def test_commander_roll_dialog(snap_compare, snapshot_factory: SessionFactory) -> None:  # type: ignore[no-untyped-def]
    app, _ = sample_app(snapshot_factory)

    async def roll_one(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("enter", "r")
        await pilot.pause()
        roll = pilot.app.screen.query_one("#field-roll")
        roll.value = ""
        roll.focus()
        await pilot.press("1")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=roll_one)


def test_form_with_inline_error(snap_compare, snapshot_factory: SessionFactory) -> None:  # type: ignore[no-untyped-def]
    app, _ = sample_app(snapshot_factory)

    async def bad_size(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("enter", "a")
        await pilot.pause()
        await pilot.press(*"Cumberland")
        size = pilot.app.screen.query_one("#field-size_modifier")
        size.value = "abc"
        flotation = pilot.app.screen.query_one("#field-flotation_now")
        flotation.value = "-1"
        await pilot.press("ctrl+s")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=bad_size)


def _type_in_damage_entry(line: str):  # type: ignore[no-untyped-def]
    async def run(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("enter", "d")
        await pilot.pause()
        await pilot.press(*line)
        await pilot.pause()  # the last key starts the preview's read: the next pause waits
        await pilot.pause()

    return run


def test_damage_entry_with_preview(snap_compare, snapshot_factory: SessionFactory) -> None:  # type: ignore[no-untyped-def]
    app, _ = sample_app(snapshot_factory)
    line = 'exeter s9 f1 fm+1 crit "B turret out"'
    assert snap_compare(app, terminal_size=SIZE, run_before=_type_in_damage_entry(line))


def test_damage_entry_with_parse_error(snap_compare, snapshot_factory: SessionFactory) -> None:  # type: ignore[no-untyped-def]
    app, _ = sample_app(snapshot_factory)
    line = "exeter s3 flot2"
    assert snap_compare(app, terminal_size=SIZE, run_before=_type_in_damage_entry(line))


def test_journal_screen(snap_compare, snapshot_factory: SessionFactory) -> None:  # type: ignore[no-untyped-def]
    app, campaign_id = sample_app(snapshot_factory)
    squadron_id = force_g(snapshot_factory, campaign_id)
    ships = sheet.load_record_sheet(snapshot_factory, squadron_id=squadron_id).ships
    damage.record_hit(snapshot_factory, request=damage.HitRequest(ship_id=ships[0].id, structure=3))
    damage.record_hit(
        snapshot_factory,
        request=damage.HitRequest(
            ship_id=ships[1].id, flotation=2, fire_delta=1,
            criticals=(damage.CriticalRequest(effect="Y turret jammed"),),
        ),
    )  # fmt: skip
    history.undo_last(snapshot_factory, campaign_id=campaign_id)
    assert snap_compare(app, terminal_size=SIZE, press=["j"])
