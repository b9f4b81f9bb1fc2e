"""Shared fixtures: a real, migrated SQLite campaign file per test (a copy of one migrated once)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.app
import textual.pilot
import textual.screen
from campaign_files import migrated_engine
from depth import DEPTH
from hypothesis import settings as hypothesis_settings
from parsed_styles import install as parse_styles_once
from settle import SCREEN_UPDATE_PERIOD, WAIT_FOR_SCREEN, press_each, until_quiet, waiting_for_calls
from shared_engines import install as share_engines
from sqlalchemy import Engine
from textual.pilot import Pilot
from textual.widgets import Input
from toasts import keep_every_toast

from tracker import settings
from tracker.app import quiet_collector
from tracker.db import SessionFactory, session_factory

# Snapshots must render colour the same everywhere.
os.environ.pop("NO_COLOR", None)

# Every property test draws the same examples on every run, in any order and on any machine:
# derandomized, no example database (hypothesis's default replays a past failure from .hypothesis/
# first) and no deadline (an example slower than 200 ms on a loaded machine is no failure).
# A test's own @settings still chooses its number of examples.
hypothesis_settings.register_profile("tracker", derandomize=True, database=None, deadline=None)
hypothesis_settings.load_profile("tracker")

# Engines compile each statement once per worker, as one app's engine does once per process.
share_engines()

# Style sheets are parsed once per worker, as one app parses them once (tests/parsed_styles.py).
parse_styles_once()

# Under pytest-xdist each worker (gw0, gw1, ...) takes a PostgreSQL cluster of its own, started by
# tests/pg_cluster.py with TRACKER_TEST_PG_CLUSTERS; set before any test module reads the URL.
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker.startswith("gw") and os.environ.get(f"TRACKER_TEST_PG_{_worker[2:]}"):
    os.environ["TRACKER_TEST_PG"] = os.environ[f"TRACKER_TEST_PG_{_worker[2:]}"]
    os.environ["TRACKER_TEST_PG_DIR"] = os.environ[f"TRACKER_TEST_PG_DIR_{_worker[2:]}"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shuffle",
        metavar="SEED",
        type=int,
        help="run the tests in an order shuffled by SEED (`make pytest-shuffled`): no test may "
        "depend on what another left behind",
    )


def pytest_report_header(config: pytest.Config) -> list[str]:
    seed = config.getoption("--shuffle")
    said = [f"depth {DEPTH:g}: property tests draw that share of their examples (tests/depth.py)"]
    return said if seed is None else [*said, f"tests shuffled with --shuffle {seed}"]


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (every module, class and fixture definition) lives until the end:
    frozen out of the garbage collector's sight, and the youngest generation collected every
    10,000 allocations instead of 700, as the app started from the command line does
    (tracker.app.quiet_collector): about a fifth of the suite's CPU went to collections
    walking it again. A test of memory collects for itself (gc.collect)."""
    quiet_collector()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked slow first, so that no worker is left running one alone at the end
    while the others have finished; shuffled after every other hook, when asked, with the slow
    ones still first. The same seed gives each xdist worker the same order."""
    seed = config.getoption("--shuffle")
    if seed is not None:
        random.Random(seed).shuffle(items)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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
def _every_toast_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test reads the toasts an app showed with tests/toasts.py `every_toast`, even those whose
    time ran out while a loaded machine was slow to get to the assertion."""
    keep_every_toast(monkeypatch)


@pytest.fixture(autouse=True)
def _pilot_waits_for_service_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a key, a click or a pause, a pilot test waits for the service calls the screen
    started in thread workers (tests/settle.py), so it reads the database and the screen as
    they are once those calls are done. Textual's idle wait after each key ends when the event
    loop is quiet, not after 20 ms slices of low CPU (tests/settle.py until_quiet), and a
    screen's paint comes 5 ms after a change instead of up to 1/60 s (SCREEN_UPDATE_PERIOD)."""
    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", SCREEN_UPDATE_PERIOD)
    monkeypatch.setattr(Pilot, "_wait_for_screen", waiting_for_calls(WAIT_FOR_SCREEN))
    monkeypatch.setattr(Pilot, "press", press_each)
    monkeypatch.setattr(textual.pilot, "wait_for_idle", until_quiet)
    monkeypatch.setattr(textual.app, "wait_for_idle", until_quiet)


@pytest.fixture(autouse=True)
def _snapshots_show_the_cursor(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a snapshot a focused input shows its cursor: it does not blink off half a second
    after the last key, which a loaded machine can let pass before the picture is taken."""
    if "snap_compare" in request.fixturenames:
        monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


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
    engine = migrated_engine(db_path)
    yield engine
    engine.dispose()


@pytest.fixture
def factory(engine: Engine) -> SessionFactory:
    return session_factory(engine)


@pytest.fixture(autouse=True)
def _every_write_journaled() -> Iterator[None]:
    """Every act's rows reach its journal entry (services.rowlog): a write that no entry took
    fails the test that made it."""
    from tracker.services import rowlog

    rowlog.UNJOURNALED.clear()
    yield
    tables = sorted({change["table"] for kept in rowlog.UNJOURNALED for change in kept})
    rowlog.UNJOURNALED.clear()
    assert not tables, f"rows written with no journal entry: {tables}"
