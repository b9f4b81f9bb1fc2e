"""The app the command line starts keeps the garbage collector off what its start built, and
collects its youngest objects less often; an app a test starts leaves the collector alone."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from campaign_files import sample_engine

from tracker import cli
from tracker.app import COLLECT_AFTER, TrackerApp, quiet_collector
from tracker.db import session_factory
from tracker.screens.campaign import CampaignScreen


@pytest.fixture
def collector() -> Iterator[None]:
    """The collector as it was, whatever the test did to it."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_quiet_collector_freezes_what_exists_and_collects_the_young_less_often(
    collector: None,
) -> None:
    gc.unfreeze()
    built = [{"a ship": n} for n in range(100)]  # what a start builds, tracked by the collector
    _, middle, oldest = gc.get_threshold()
    quiet_collector()
    assert gc.get_freeze_count() >= len(built)
    assert gc.get_threshold() == (COLLECT_AFTER, middle, oldest)


@pytest.mark.parametrize("quiet", [True, False])
async def test_the_app_quiets_the_collector_once_its_database_is_open_only_when_asked(
    tmp_path: Path, collector: None, quiet: bool
) -> None:
    gc.unfreeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(700, middle, oldest)  # the interpreter's own, whatever the suite runs with
    threshold = gc.get_threshold()
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    app = TrackerApp(session_factory(engine), open_campaign_id=campaign_id, quiet_gc=quiet)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)
        assert (gc.get_freeze_count() > 0) is quiet
        assert (gc.get_threshold()[0] == COLLECT_AFTER) is quiet
        if not quiet:
            assert gc.get_threshold() == threshold


@pytest.mark.parametrize("argv", [[], ["--umpire"]])
def test_the_command_line_starts_the_app_with_a_quiet_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    engine, _ = sample_engine(tmp_path / "campaign.db")
    engine.dispose()
    started: list[bool] = []

    def run(self: TrackerApp, *args: Any, **kwargs: Any) -> None:
        started.append(self.quiet_gc)

    monkeypatch.setattr(TrackerApp, "run", run)
    status = cli.main(["--db", str(tmp_path / "campaign.db"), *argv])
    assert status == 0 and started == [True]
