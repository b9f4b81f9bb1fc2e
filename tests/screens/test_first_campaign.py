"""A new player's first session, key by key, then a restart on the same file."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import migrated_engine
from textual.widgets import DataTable, Input

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.welcome import WelcomeScreen
from tracker.services import campaigns, sheet


def open_app(path: Path) -> TrackerApp:
    engine = migrated_engine(path)
    return TrackerApp(session_factory(engine), rng=random.Random(7))


async def fill(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """Replace the focused input's text, as a player selecting all and typing would."""
    focused = pilot.app.focused
    assert isinstance(focused, Input), f"expected a text field, focus is on {focused!r}"
    focused.value = ""
    await pilot.press(*text)


async def test_create_campaign_side_squadron_commander_ships_and_restart(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    app = open_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("n")
        assert isinstance(app.screen, FormScreen)
        await fill(pilot, "Norway 1940")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)

        await pilot.press("s")
        await fill(pilot, "Royal Navy")
        await pilot.press("tab")
        await fill(pilot, "Great Britain")
        await pilot.press("ctrl+s")
        await pilot.pause()

        await pilot.press("n")
        await fill(pilot, "2nd Destroyer Flotilla")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)

        # Commander bought at training III, d10 typed as 1: Inept (SMR2 §3.1 worked example).
        await pilot.press("r")
        await fill(pilot, "Capt Warburton-Lee")
        await pilot.press("tab", "tab", "tab")
        await fill(pilot, "1")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)

        for name in ("Hardy", "Hunter"):
            await pilot.press("a")
            await fill(pilot, name)
            await pilot.press("ctrl+s")
            await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        assert app.screen.query_one(DataTable).row_count == 2
        await pilot.press("q")

    # Start again on the same file: everything is there.
    app = open_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.screen.query_one(DataTable)
        assert table.row_count == 1
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        record = app.screen.record
        assert record is not None
        assert record.campaign_name == "Norway 1940"
        assert record.side_name == "Royal Navy"
        assert record.squadron_name == "2nd Destroyer Flotilla"
        commander = record.commander
        assert commander is not None
        assert (commander.name, commander.rating, commander.training, commander.roll) == (
            "Capt Warburton-Lee",
            "Inept",
            3,
            1,
        )
        assert (commander.cost, commander.radius_now_cm, commander.command_limit) == (1600, 20, 4)
        assert [ship.name for ship in record.ships] == ["Hardy", "Hunter"]
    listed = campaigns.list_campaigns(app.factory)
    assert [c.name for c in listed] == ["Norway 1940"]
    assert sheet.load_record_sheet(app.factory, squadron_id=record.squadron_id).ships[1].name == (
        "Hunter"
    )


async def test_bad_number_shows_inline_error_and_writes_nothing(tmp_path: Path) -> None:
    app = open_app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")  # the sample campaign
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        before = app.screen.query_one(DataTable).row_count
        await pilot.press("a")
        await fill(pilot, "Cumberland")
        await pilot.press("tab", "tab", "tab", "tab")
        await fill(pilot, "abc")
        await pilot.press("ctrl+s")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FormScreen)
        error = form.query_one("#error-size_modifier")
        assert "whole number" in str(error.render())
        await pilot.press("escape", "y")  # discard what was typed
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        assert app.screen.query_one(DataTable).row_count == before


async def test_structure_above_max_is_refused_inline(tmp_path: Path) -> None:
    app = open_app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("e")  # edit Exeter
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FormScreen)
        form.query_one("#field-structure_now", Input).value = "13"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form
        assert "must not exceed structure max (12)" in str(
            form.query_one("#error-structure_now").render()
        )
        await pilot.press("escape", "y")  # discard what was typed
        await pilot.pause()
        record = app.screen.record  # type: ignore[attr-defined]
        assert record.ships[0].structure_now == 12
