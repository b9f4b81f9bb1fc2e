"""What the app remembers for the player: the last campaign, the scale of new campaigns and the
theme, kept in the settings file (a folder of the test's own, see tests/conftest.py)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from campaign_files import migrated_engine
from textual.widgets import DataTable, Input, Select
from toasts import every_toast

from tracker import settings
from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.form import FormScreen
from tracker.screens.welcome import WelcomeScreen
from tracker.services import campaigns
from tracker.settings import LastCampaign


def _app(path: Path) -> tuple[TrackerApp, SessionFactory]:
    engine = migrated_engine(path)
    factory = session_factory(engine)
    return TrackerApp(factory, rng=random.Random(1)), factory


def _three_campaigns(factory: SessionFactory) -> list[int]:
    return [
        campaigns.create_campaign(factory, name=name).id for name in ("Arctic", "Biscay", "Crete")
    ]


async def test_the_welcome_screen_puts_the_cursor_on_the_last_campaign(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    app, factory = _app(path)
    ids = _three_campaigns(factory)
    settings.update(last_campaign=LastCampaign(os.path.abspath(path), ids[1]))
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, WelcomeScreen)
        assert app.screen.query_one(DataTable).cursor_row == 1
        # Opening another one makes it the last campaign, for the next start.
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.query_one(DataTable).cursor_row == 2
    assert settings.load().last_campaign == LastCampaign(os.path.abspath(path), ids[2])

    app, _ = _app(path)
    async with app.run_test(size=(120, 40)):
        assert app.screen.query_one(DataTable).cursor_row == 2


async def test_the_last_campaign_of_another_file_leaves_the_cursor_at_the_top(
    tmp_path: Path,
) -> None:
    app, factory = _app(tmp_path / "campaign.db")
    ids = _three_campaigns(factory)
    settings.update(last_campaign=LastCampaign(str(tmp_path / "other.db"), ids[2]))
    async with app.run_test(size=(120, 40)):
        assert app.screen.query_one(DataTable).cursor_row == 0


async def test_the_new_campaign_form_starts_with_the_scale_last_chosen(tmp_path: Path) -> None:
    settings.update(model_scale="1/6000")
    app, factory = _app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        scale = app.screen.query_one("#field-model_scale", Select)
        assert scale.value == "1/6000"
        # A campaign at another scale makes that scale the next default.
        app.screen.query_one("#field-name", Input).value = "Norway 1940"
        scale.value = "1/1200"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)
    [summary] = campaigns.list_campaigns(factory)
    assert summary.model_scale == "1/1200"
    assert settings.load().model_scale == "1/1200"
    assert settings.load().last_campaign is not None
    assert settings.load().last_campaign.campaign_id == summary.id


async def test_the_theme_is_applied_and_a_change_is_saved(tmp_path: Path) -> None:
    settings.update(theme="light")
    app, _ = _app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "textual-light"
        app.theme = "textual-dark"  # what the palette's Theme command does
        await pilot.pause()
        assert settings.load().theme == "dark"
        app.theme = "nord"
        await pilot.pause()
        assert settings.load().theme == "nord"
    app, _ = _app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)):
        assert app.theme == "nord"


async def test_a_corrupt_settings_file_starts_with_the_defaults_and_a_warning(
    tmp_path: Path, config_dir: Path
) -> None:
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_text("{not json")
    app, _ = _app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        assert app.theme == "textual-dark"
        assert any("not valid JSON" in str(n.message) for n in every_toast(app))
