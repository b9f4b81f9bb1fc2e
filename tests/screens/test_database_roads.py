"""A database that stops answering, met on a road no screen guard wraps (the app's own undo, a
confirmation's answer), is told to the player and the app carries on: it is no InvalidInput
any more (tracker.errors), so each such place catches it by name."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import migrated_engine, open_sheet

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.errors import ChangedElsewhere, ConnectionLost, DatabaseUnavailable
from tracker.services import demo, history

LOST = [
    ConnectionLost("lost the connection to the database (server closed): nothing was written"),
    ChangedElsewhere("another player changed this at the same moment: nothing was written"),
    DatabaseUnavailable("the disk is full: nothing was written; free some space and try again"),
]


@pytest.mark.parametrize("problem", LOST, ids=lambda problem: type(problem).__name__)
async def test_undo_on_a_database_that_stopped_answering_is_said_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, problem: DatabaseUnavailable
) -> None:
    engine = migrated_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    campaign_id = demo.create_sample_campaign(factory)

    def undo_last(*_: object, **__: object) -> None:
        raise problem

    monkeypatch.setattr(history, "undo_last", undo_last)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    try:
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await open_sheet(pilot)
            await pilot.press("ctrl+z")
            await pilot.pause()
            [said] = [note for note in app._notifications if note.title == "Database"]
            assert (said.message, said.severity) == (problem.message, "error")
            assert app.crash is None and app.is_running
    finally:
        engine.dispose()
