"""The app paints its first screen before the database is open, fills it once the opener
(which the command line runs in a thread) is done, and stops with the reason when it fails."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from campaign_files import migrated_engine, workers_end
from textual.widgets import DataTable, Static

from tracker import paths, settings
from tracker.app import FIRST_SCREEN_STYLES, Opened, TrackerApp
from tracker.campaign_file import DatabaseProblem, file_key, first_look
from tracker.db import session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.welcome import OPENING, FirstLook, WelcomeScreen
from tracker.services import campaigns, demo


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


async def test_the_first_look_lists_the_campaigns_at_once_and_enter_opens_one_when_open(
    tmp_path: Path,
) -> None:
    path = tmp_path / "campaign.db"
    engine = migrated_engine(path)
    factory = session_factory(engine)
    for name in ("Denmark Strait", "Narvik", "River Plate"):
        campaigns.create_campaign(factory, name=name)
    narvik = next(c.id for c in campaigns.list_campaigns(factory) if c.name == "Narvik")
    # The player's last campaign, in this file: the first look puts the cursor on it.
    settings.remember(last_campaign=settings.LastCampaign(file_key(path), narvik))
    lines = first_look(path)
    assert lines is not None
    release = threading.Event()

    def opener() -> Opened:
        assert release.wait(10)
        return Opened(factory)

    app = TrackerApp(None, opener=opener, first_look=FirstLook(file_key(path), lines))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        table = welcome.query_one(DataTable)
        assert table.display
        assert [str(table.get_row_at(n)[0]) for n in range(table.row_count)] == [
            "Denmark Strait", "Narvik", "River Plate"]  # fmt: skip
        assert table.cursor_row == 1
        await pilot.press("down", "n", "enter")  # the keys wait: nothing is open to act on
        assert app.screen is welcome
        assert table.cursor_row == 2
        release.set()
        await workers_end(pilot)
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)
        assert app.screen.campaign_id == next(
            c.id for c in campaigns.list_campaigns(factory) if c.name == "River Plate")  # fmt: skip
        await pilot.press("escape")
        assert app.screen is welcome and table.cursor_row == 2  # where the player left it
    engine.dispose()


async def test_the_screens_styles_are_read_after_the_first_paint_and_reach_every_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = migrated_engine(tmp_path / "campaign.db")
    read_every_style = TrackerApp.read_every_style
    # Held back, to see a screen pushed before the read (by a key typed during the start).
    monkeypatch.setattr(TrackerApp, "read_every_style", lambda self: None)
    app = TrackerApp(session_factory(engine))
    assert [Path(p).name for p in app.css_path] == ["app.tcss", FIRST_SCREEN_STYLES]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.action_help()
        await pilot.pause()
        dialog = app.screen.query_one("#help-dialog")
        assert str(dialog.styles.width) != "100"  # help.tcss not read yet
        read_every_style(app)
        await pilot.pause()
        read = {Path(path).name for path, _ in app.stylesheet.source if path.endswith(".tcss")}
        assert read == {path.name for path in paths.styles_dir().glob("*.tcss")}
        assert str(dialog.styles.width) == "100"  # help.tcss: HelpScreen #help-dialog
        await pilot.press("escape")
        # And the screen under it, pushed before the read too.
        assert isinstance(app.screen, WelcomeScreen)
        table = app.screen.query_one(DataTable)
        assert str(table.styles.height) == "1fr"  # welcome.tcss, read before the first paint
    engine.dispose()


async def test_the_app_reads_every_style_file_once_it_has_painted(tmp_path: Path) -> None:
    engine = migrated_engine(tmp_path / "campaign.db")
    app = TrackerApp(session_factory(engine))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        read = {Path(path).name for path, _ in app.stylesheet.source if path.endswith(".tcss")}
        assert read == {path.name for path in paths.styles_dir().glob("*.tcss")}
        await pilot.press("question_mark")
        assert str(app.screen.query_one("#help-dialog").styles.width) == "100"
    engine.dispose()


async def test_enter_on_the_first_look_while_the_sample_is_made_opens_one_campaign(
    tmp_path: Path,
) -> None:
    """`tracker demo`: the sample opens once made; enter typed on the first look meanwhile does
    not open a second campaign screen over it."""
    path = tmp_path / "campaign.db"
    engine = migrated_engine(path)
    factory = session_factory(engine)
    campaigns.create_campaign(factory, name="Denmark Strait")
    lines = first_look(path)
    assert lines is not None
    release = threading.Event()

    def opener() -> Opened:
        assert release.wait(10)
        return Opened(factory, demo.create_sample_campaign(factory))

    app = TrackerApp(None, opener=opener, first_look=FirstLook(file_key(path), lines))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        release.set()
        await workers_end(pilot)
        await pilot.pause()
        opened = [screen for screen in app.screen_stack if isinstance(screen, CampaignScreen)]
        assert [screen.campaign_id for screen in opened] == [app.open_campaign_id]
        await pilot.press("escape")
        assert isinstance(app.screen, WelcomeScreen)
    engine.dispose()
