"""Shared fixtures: a real, migrated SQLite campaign file per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from settle import WAIT_FOR_SCREEN, press_each, waiting_for_calls
from sqlalchemy import Engine
from textual.pilot import Pilot

from tracker import settings
from tracker.db import SessionFactory, make_engine, migrate, session_factory

# Snapshots must render colour the same everywhere.
os.environ.pop("NO_COLOR", None)

# Under pytest-xdist each worker (gw0, gw1, ...) takes a PostgreSQL cluster of its own, started by
# tests/pg_cluster.py with TRACKER_TEST_PG_CLUSTERS; set before any test module reads the URL.
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker.startswith("gw") and os.environ.get(f"TRACKER_TEST_PG_{_worker[2:]}"):
    os.environ["TRACKER_TEST_PG"] = os.environ[f"TRACKER_TEST_PG_{_worker[2:]}"]
    os.environ["TRACKER_TEST_PG_DIR"] = os.environ[f"TRACKER_TEST_PG_DIR_{_worker[2:]}"]


@pytest.fixture(scope="session", autouse=True)
def _no_real_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test, nor a tracker process it starts, reads or writes the player's real settings:
    XDG_CONFIG_HOME for platformdirs on Linux, TRACKER_CONFIG_DIR on every platform."""
    folder = tmp_path_factory.mktemp("config")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(folder))
        patch.setenv(settings.DIR_ENV_VAR, str(folder / "tracker"))
        yield


@pytest.fixture(autouse=True)
def _pilot_waits_for_service_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a key, a click or a pause, a pilot test waits for the service calls the screen
    started in thread workers (tests/settle.py), so it reads the database and the screen as
    they are once those calls are done."""
    monkeypatch.setattr(Pilot, "_wait_for_screen", waiting_for_calls(WAIT_FOR_SCREEN))
    monkeypatch.setattr(Pilot, "press", press_each)


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test starts with no settings file, in a config folder of its own."""
    folder = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    monkeypatch.setenv(settings.DIR_ENV_VAR, str(folder / "tracker"))
    return folder / "tracker"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "campaign.db"


@pytest.fixture
def engine(db_path: Path) -> Iterator[Engine]:
    engine = make_engine(str(db_path))
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def factory(engine: Engine) -> SessionFactory:
    return session_factory(engine)
