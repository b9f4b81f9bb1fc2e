"""The app paints its first screen before the database is open, fills it once the opener
(which the command line runs in a thread) is done, and stops with the reason when it fails."""

from __future__ import annotations

import threading
from pathlib import Path

from campaign_files import migrated_engine, workers_end
from textual.widgets import DataTable, Static

from tracker.app import Opened, TrackerApp
from tracker.campaign_file import DatabaseProblem
from tracker.db import session_factory
from tracker.screens.welcome import OPENING, WelcomeScreen
from tracker.services import demo


async def test_the_first_screen_paints_while_the_file_opens_then_fills(tmp_path: Path) -> None:
    engine = migrated_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    demo.create_sample_campaign(factory)
    release = threading.Event()

    def opener() -> Opened:
        assert release.wait(10)  # the file takes its time to open
        return Opened(factory, note="Upgraded the campaign file")

    app = TrackerApp(None, opener=opener)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        assert str(welcome.query_one("#welcome-empty", Static).render()) == OPENING
        assert not welcome.query_one(DataTable).display
        await pilot.press("n")  # nothing to act on yet: no form opens
        assert app.screen is welcome
        release.set()
        await workers_end(pilot)  # the opening thread
        assert [s.name for s in welcome.summaries] == ["River Plate, December 1939 (sample)"]
        assert welcome.query_one(DataTable).display
    engine.dispose()


async def test_a_file_that_cannot_be_opened_stops_the_app_with_the_reason() -> None:
    def opener() -> Opened:
        raise DatabaseProblem("campaign.db lacks the table ship of tracker's schema")

    app = TrackerApp(None, opener=opener)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if app.failure is not None:
                break
    assert app.failure == "campaign.db lacks the table ship of tracker's schema"
    assert app.return_code == 2
