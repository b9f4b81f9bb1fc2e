"""The umpire's print dialog (P on the record sheet under --umpire) writes the umpire's sheet:
what the opponent may see, never a minelayer's mines (docs/RULES.md §Secrets); the player's own
app writes the owner's."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import fill_form, minelaying_campaign, press_to

from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns


@pytest.mark.parametrize("umpire", [True, False], ids=["umpire", "player"])
async def test_the_umpires_print_dialog_writes_the_umpires_sheet(
    tmp_path: Path, umpire: bool
) -> None:
    path = minelaying_campaign(tmp_path / "campaign.db", "North Atlantic", "zqnotes")
    engine = make_engine(str(path), read_only=umpire)
    factory = session_factory(engine)
    campaign_id = campaigns.list_campaigns(factory)[0].id
    app = TrackerApp(factory, open_campaign_id=campaign_id, read_only=umpire)
    sheet = tmp_path / "raider.md"
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            if not isinstance(app.screen, CampaignScreen):
                await press_to(pilot, "enter", screen=CampaignScreen)
            await press_to(pilot, "enter", screen=RecordSheetScreen)
            await press_to(pilot, "P", screen=FormScreen)
            await fill_form(pilot, {"fmt": "markdown", "path": str(sheet)})
            await pilot.press("q")
    finally:
        engine.dispose()
    text = sheet.read_text(encoding="utf-8")
    assert ("mines aboard" in text) is not umpire
    assert ("torpedo factors ? of 4" in text) is umpire
