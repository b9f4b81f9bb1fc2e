"""The screens at a table's 80x24 terminal; each SVG was looked at before it was committed."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import sample_app

from tracker.app import TrackerApp
from tracker.services import campaigns, damage, sheet

SMALL = (80, 24)


@pytest.fixture
def app(tmp_path: Path) -> TrackerApp:
    return sample_app(tmp_path / "campaign.db", seed=3)


def test_campaign_screen_shows_each_scenarios_status_and_turn(snap_compare, app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app, terminal_size=SMALL)


def test_record_sheet_shows_name_tracks_fire_and_morale_first(snap_compare, app) -> None:  # type: ignore[no-untyped-def]
    factory = app.factory
    overview = campaigns.get_overview(factory, campaign_id=app.open_campaign_id)
    force_g = overview.sides[0].squadrons[0].id
    exeter = sheet.load_record_sheet(factory, squadron_id=force_g).ships[0]
    damage.record_hit(
        factory, request=damage.HitRequest(ship_id=exeter.id, structure=9, fire_delta=1)
    )
    assert snap_compare(app, terminal_size=SMALL, press=["enter"])


def test_damage_entry_keeps_its_preview_and_two_criticals(snap_compare, app) -> None:  # type: ignore[no-untyped-def]

    async def type_hit(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("enter", "d")
        await pilot.pause()
        await pilot.press(*'exeter s9 f1 fm+1 crit "B turret out" crit "Engine room"')
        await pilot.pause()

    assert snap_compare(app, terminal_size=SMALL, run_before=type_hit)


def test_add_unit_dialog_fits_with_its_buttons(snap_compare, app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app, terminal_size=SMALL, press=["f", "a"])
