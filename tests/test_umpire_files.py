"""The umpire's read-only view leaves no file beside the campaign file (no -wal, no -shm), and
still sees what other players change meanwhile.

A campaign file no program has open is read immutable (nothing outside the main file to
read); while a player's tracker has it open, its -wal and -shm are there already and the view
reads through them, one connection per look, so a change made since is never hidden.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from campaign_files import real_campaign_file, sidecars
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.services import campaigns, damage, history, sheet

# Keys that move about the view (and some that would write, refused there), in any order.
KEYS = ("tab", "shift+tab", "enter", "escape", "down", "up", "j", "m", "r", "l", "question_mark",
        "f", "d", "n", "e", "ctrl+p", "home", "end", "pagedown")  # fmt: skip


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_reading_through_the_umpires_view_leaves_no_sidecar(tmp_path: Path) -> None:
    path = real_campaign_file(tmp_path / "campaign.db")
    before = _sha(path)
    engine = make_engine(str(path), read_only=True)
    try:
        factory = session_factory(engine)
        for summary in campaigns.list_campaigns(factory):
            for ship in damage.find_ships(factory, campaign_id=summary.id, query=""):
                sheet.load_ship(factory, ship_id=ship.id)
        history.change_mark(factory)
        assert sidecars(path) == []
    finally:
        engine.dispose()
    assert sidecars(path) == [] and _sha(path) == before


def test_the_umpire_sees_a_change_made_while_it_looks_and_leaves_no_sidecar(
    tmp_path: Path,
) -> None:
    path = real_campaign_file(tmp_path / "campaign.db")
    umpire = make_engine(str(path), read_only=True)
    player = make_engine(str(path))
    try:
        watching = session_factory(umpire)
        first = history.change_mark(watching)
        assert sidecars(path) == []
        playing = session_factory(player)
        campaigns.create_campaign(playing, name="Denmark Strait")
        assert sidecars(path) != []  # the player's tracker has the file open (WAL)
        during = history.change_mark(watching)
        assert during != first
        assert "Denmark Strait" in [c.name for c in campaigns.list_campaigns(watching)]
        player.dispose()  # the player quits: the WAL goes back into the file
        assert sidecars(path) == []
        campaigns_after = [c.name for c in campaigns.list_campaigns(watching)]
        assert history.change_mark(watching) == during and "Denmark Strait" in campaigns_after
    finally:
        player.dispose()
        umpire.dispose()
    assert sidecars(path) == []


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return real_campaign_file(tmp_path_factory.mktemp("template") / "campaign.db")


@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(keys=st.lists(st.sampled_from(KEYS), min_size=1, max_size=12))
def test_any_keys_in_the_umpires_view_leave_no_file_beside_the_campaign_file(
    template: Path, tmp_path: Path, keys: list[str]
) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    path = folder / "campaign.db"
    shutil.copyfile(template, path)
    before = _sha(path)
    engine = make_engine(str(path), read_only=True)
    app = TrackerApp(session_factory(engine), rng=random.Random(4), read_only=True)

    async def play() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
                assert sidecars(path) == [], key
            app.exit()

    try:
        asyncio.run(play())
    finally:
        engine.dispose()
    assert sorted(item.name for item in folder.iterdir()) == ["campaign.db"]
    assert _sha(path) == before
