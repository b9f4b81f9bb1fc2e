"""Campaign files made for the tests outside tracker: the sample campaign on disk, and SQL run
straight at a file (imported as a plain module by tests in this folder)."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path
from typing import Any, TypeVar

from textual.screen import Screen
from textual.widgets import Checkbox, Input, Select

from tracker.app import TrackerApp
from tracker.db import make_engine, migrate, session_factory
from tracker.screens.form import FormScreen
from tracker.services import demo


def run_sql(path: Path, statement: str) -> None:
    """Run one statement on the file with plain sqlite3 and commit it."""
    conn = sqlite3.connect(path)
    try:
        conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


def sidecars(path: Path) -> list[str]:
    """The -wal and -shm files beside path."""
    return sorted(
        name for name in os.listdir(path.parent) if name in (f"{path.name}-wal", f"{path.name}-shm")
    )


def real_campaign_file(path: Path) -> Path:
    """A migrated file holding the sample campaign, its WAL folded back into the file."""
    engine = make_engine(str(path))
    migrate(engine)
    demo.create_sample_campaign(session_factory(engine))
    engine.dispose()
    run_sql(path, "PRAGMA wal_checkpoint(TRUNCATE)")
    assert sidecars(path) == []
    return path


def future_campaign_file(path: Path) -> Path:
    """The sample campaign at a schema revision newer than tracker knows (9999_future)."""
    run_sql(real_campaign_file(path), "UPDATE alembic_version SET version_num = '9999_future'")
    assert sidecars(path) == []
    return path


def sample_app(path: Path, seed: int) -> TrackerApp:
    """The app on a real file holding the River Plate sample, opened on its campaign screen."""
    engine = make_engine(str(path))
    migrate(engine)
    factory = session_factory(engine)
    campaign_id = demo.create_sample_campaign(factory)
    return TrackerApp(factory, rng=random.Random(seed), open_campaign_id=campaign_id)


async def fill_form(pilot, values: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """Type into the open form as a player would (selects and ticks set), then ctrl+s."""
    form = pilot.app.screen
    assert isinstance(form, FormScreen)
    for key, value in values.items():
        widget = form.query_one(f"#field-{key}")
        if isinstance(widget, Select):
            widget.value = value
        elif isinstance(widget, Checkbox):
            widget.value = bool(value)
        else:
            assert isinstance(widget, Input)
            widget.value = str(value)
    await pilot.press("ctrl+s")
    await pilot.pause()


S = TypeVar("S", bound=Screen[Any])


async def press_to(pilot, *keys: str, screen: type[S]) -> S:  # type: ignore[no-untyped-def]
    """Press keys as a player would and return the screen they lead to, checking its kind."""
    await pilot.press(*keys)
    await pilot.pause()
    current = pilot.app.screen
    assert isinstance(current, screen), f"{keys} led to {type(current).__name__}"
    return current
