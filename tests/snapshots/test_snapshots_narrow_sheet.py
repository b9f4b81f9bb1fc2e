"""A game night's screens at a table's 80x24 terminal: the River Plate in play, every ship with
a Second World War at Sea counter, long names (tests/game_night.py); each SVG was looked at
before it was committed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import sample_engine
from game_night import game_night_campaign

from tracker.app import TrackerApp
from tracker.db import session_factory

SMALL = (80, 24)
# From the campaign screen, where each screen is (enter on Force G opens its sheet).
SCREENS = {
    "campaign": (),
    "campaign_scenarios_focused": ("tab",),
    "record_sheet_with_counter": ("enter",),
    "record_sheet_long_names": ("down", "down", "down", "enter"),
    "ship_detail": ("enter", "enter"),
    "ship_history": ("enter", "enter", "h"),
    "scenario": ("tab", "enter"),
    "welcome": ("escape",),
    "damage_entry": ("d",),
    "critical_tables": ("ctrl+t",),
    "campaign_report": ("a",),
    "help_of_the_sheet": ("enter", "question_mark"),
}


@pytest.fixture
def app(tmp_path: Path) -> TrackerApp:
    engine, campaign_id = sample_engine(tmp_path / "campaign.db", game_night_campaign)
    factory = session_factory(engine)
    return TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id)


@pytest.mark.parametrize("screen", list(SCREENS))
def test_game_night_screen_at_80x24(snap_compare, app, screen) -> None:  # type: ignore[no-untyped-def]
    async def walk(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.pause()
        for key in SCREENS[screen]:
            await pilot.press(key)
            await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SMALL, run_before=walk)
