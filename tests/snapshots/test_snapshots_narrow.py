"""The screens at a table's 80x24 terminal; each SVG was looked at before it was committed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tracker.app import TrackerApp
from tracker.db import SessionFactory, make_engine, migrate, session_factory
from tracker.services import campaigns, damage, demo, sheet

SMALL = (80, 24)


@pytest.fixture
def sample(tmp_path: Path) -> tuple[SessionFactory, TrackerApp]:
    engine = make_engine(str(tmp_path / "campaign.db"))
    migrate(engine)
    factory = session_factory(engine)
    campaign_id = demo.create_sample_campaign(factory)
    return factory, TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id)


def test_campaign_screen_shows_each_scenarios_status_and_turn(snap_compare, sample) -> None:  # type: ignore[no-untyped-def]
    _, app = sample
    assert snap_compare(app, terminal_size=SMALL)


def test_record_sheet_shows_name_tracks_fire_and_morale_first(snap_compare, sample) -> None:  # type: ignore[no-untyped-def]
    factory, app = sample
    overview = campaigns.get_overview(factory, campaign_id=app.open_campaign_id)
    force_g = overview.sides[0].squadrons[0].id
    exeter = sheet.load_record_sheet(factory, squadron_id=force_g).ships[0]
    damage.record_hit(
        factory, request=damage.HitRequest(ship_id=exeter.id, structure=9, fire_delta=1)
    )
    assert snap_compare(app, terminal_size=SMALL, press=["enter"])


def test_damage_entry_keeps_its_preview_and_two_criticals(snap_compare, sample) -> None:  # type: ignore[no-untyped-def]
    _, app = sample

    async def type_hit(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("enter", "d")
        await pilot.pause()
        await pilot.press(*'exeter s9 f1 fm+1 crit "B turret out" crit "Engine room"')
        await pilot.pause()

    assert snap_compare(app, terminal_size=SMALL, run_before=type_hit)


def test_add_unit_dialog_fits_with_its_buttons(snap_compare, sample) -> None:  # type: ignore[no-untyped-def]
    _, app = sample
    assert snap_compare(app, terminal_size=SMALL, press=["f", "a"])
