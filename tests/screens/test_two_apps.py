"""Two instances of the app on one SQLite file: both keep working, each sees the other's
changes at its watch's next look, and no change is lost."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from campaign_files import open_sheet, sample_engine, watch_looks

from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns, sheet

WATCH = 0.2


def _app(path: Path, campaign_id: int) -> TrackerApp:
    """An app with its own engine on the file, as a second `tracker` process would have."""
    factory = session_factory(make_engine(str(path)))
    return TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id,
                      watch_seconds=WATCH)  # fmt: skip


async def _until(pilot: Any, condition: Any) -> None:
    await watch_looks(pilot)
    assert condition(), "the other app's change did not arrive"


async def test_two_apps_on_one_file_see_each_other_and_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    engine, campaign_id = sample_engine(path)
    factory = session_factory(engine)
    squadron_id = campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].squadrons[0].id
    first, second = _app(path, campaign_id), _app(path, campaign_id)

    def fire(screen: RecordSheetScreen) -> int:
        return screen.record.ships[0].fire_markers

    async with first.run_test(size=(120, 40)) as one, second.run_test(size=(120, 40)) as two:
        sheet_one, sheet_two = await open_sheet(one), await open_sheet(two)
        for round_ in range(3):
            await one.press("f")  # a fire marker on Exeter from the first app
            await one.pause()
            await _until(two, lambda n=round_: fire(sheet_two) == 2 * n + 1)
            await two.press("f")  # and one from the second
            await two.pause()
            await _until(one, lambda n=round_: fire(sheet_one) == 2 * n + 2)
        await one.press("d")  # the first app records a hit while the second looks on
        await one.pause()
        await one.press(*"exeter s2", "enter")
        await one.pause()
        await one.press("escape")
        await _until(two, lambda: sheet_two.record.ships[0].structure_now == 10)
    stored = sheet.load_record_sheet(factory, squadron_id=squadron_id).ships[0]
    assert (stored.fire_markers, stored.structure_now) == (6, 10)
    engine.dispose()
