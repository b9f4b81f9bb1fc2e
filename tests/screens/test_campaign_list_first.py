"""The campaign list is shown before the screens it opens are loaded: they are imported in a
thread once it is up, and a key opens them as before. In a process of its own: this one has
imported every screen already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from campaign_files import sample_engine

ROOT = Path(__file__).resolve().parent.parent.parent
CODE = """
import asyncio, sys
from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens.campaign import NEXT_SCREENS, CampaignScreen

def loaded():
    return [name for name in NEXT_SCREENS if f"tracker.screens.{name}" in sys.modules]

seen = {}
real = CampaignScreen._show

def show(self, overview):
    seen.setdefault("at the list", loaded())
    real(self, overview)

CampaignScreen._show = show

async def main():
    app = TrackerApp(session_factory(make_engine(sys.argv[1])), open_campaign_id=int(sys.argv[2]))
    async with app.run_test(size=(120, 40)) as pilot:
        while "at the list" not in seen:
            await asyncio.sleep(0.01)
        warming = [w for w in app.workers if w.name == "import-next-screens"]
        await app.workers.wait_for_complete(warming)
        print(len(warming), seen["at the list"], loaded() == list(NEXT_SCREENS))
        await pilot.press("j")
        await pilot.pause()
        print(type(app.screen).__name__)

asyncio.run(main())
"""


def test_the_campaign_list_shows_first_and_its_screens_load_behind_it(tmp_path: Path) -> None:
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
    assert done.stdout.splitlines() == ["1 [] True", "JournalScreen"], done.stdout
