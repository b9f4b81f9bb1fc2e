"""The campaign screen and the record sheet load only what they show: each screen a key opens
from them is imported at that key (every one of them, imported behind the campaign screen, was
held in memory at every sitting), and the key opens it. In a process of its own: this one has
imported every screen already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from campaign_files import sample_engine

ROOT = Path(__file__).resolve().parent.parent.parent
# The screens the campaign screen and the record sheet open by a key.
OPENED_BY_KEYS = ("damage_entry", "roster", "ledger", "journal", "scenario", "repairs", "report",
                  "critical_tables", "library", "library_import", "class_picker", "csv_import",
                  "library_changes", "next_turn", "sheet_print", "ship_detail",
                  "zero_outcome")  # fmt: skip
CODE = f"""
import asyncio, sys
from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens.campaign import CampaignScreen

def loaded():
    return [name for name in {OPENED_BY_KEYS!r} if f"tracker.screens.{{name}}" in sys.modules]

async def settle(app, pilot):
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()

async def main():
    app = TrackerApp(session_factory(make_engine(sys.argv[1])), open_campaign_id=int(sys.argv[2]))
    async with app.run_test(size=(120, 40)) as pilot:
        while not (isinstance(app.screen, CampaignScreen) and app.screen.overview):
            await asyncio.sleep(0.01)
        await settle(app, pilot)
        print(loaded())
        await pilot.press("enter")  # the first squadron's record sheet
        while type(app.screen).__name__ != "RecordSheetScreen" or app.screen.record is None:
            await asyncio.sleep(0.01)
        await settle(app, pilot)
        print(loaded())
        await pilot.press("j")
        await settle(app, pilot)
        print(type(app.screen).__name__, loaded())

asyncio.run(main())
"""


def test_the_screens_a_key_opens_are_imported_at_that_key(tmp_path: Path) -> None:
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    engine.dispose()
    done = subprocess.run(
        [sys.executable, "-c", CODE, str(tmp_path / "campaign.db"), str(campaign_id)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["[]", "[]", "JournalScreen ['journal']"], done.stdout
