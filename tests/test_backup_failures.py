"""A backup that cannot be written at a scenario's close is told to the player: in the service's
result, in the journal and as a notification on the screen, never only in the log."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from campaign_files import press_to, sample_app
from toasts import every_toast

from tracker import paths
from tracker.app import TrackerApp
from tracker.db import SessionFactory
from tracker.screens.form import FormScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import backups, campaigns, damage, scenarios


def _folder_is_a_file(path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """backups/ cannot be made: a file of that name is in the way (a real failure)."""
    paths.backups_dir(path).write_text("not a folder")
    return "File exists"


def _disk_full(path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The copy fails as it does on a full disk (the error the system gives, ENOSPC)."""

    def full(*_args: object, **_kwargs: object) -> Path:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(backups, "backup_file", full)
    return "No space left on device"


FAILURES: dict[str, Callable[[Path, pytest.MonkeyPatch], str]] = {
    "folder_is_a_file": _folder_is_a_file, "disk_full": _disk_full,
}  # fmt: skip


def _journal(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [row[0] for row in conn.execute("SELECT summary FROM journalentry ORDER BY id")]
    finally:
        conn.close()


def _in_play(path: Path) -> tuple[TrackerApp, SessionFactory, int]:
    """The River Plate sample on a file, its first scenario in play with every ship."""
    app = sample_app(path, seed=1)
    factory = app.factory
    assert factory is not None
    first = campaigns.get_overview(factory, campaign_id=1).scenarios[0].id
    ships = [ship.id for ship in damage.find_ships(factory, campaign_id=1, query="")]
    scenarios.set_participants(factory, scenario_id=first, ship_ids=ships)
    scenarios.start_scenario(factory, scenario_id=first)
    return app, factory, first


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_the_close_says_the_backup_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    path = tmp_path / "campaign.db"
    _app, factory, first = _in_play(path)
    reason = FAILURES[failure](path, monkeypatch)
    closed = scenarios.close_scenario(factory, scenario_id=first, outcome="Spee escapes")
    assert closed.ships > 0 and closed.backup is None
    assert closed.backup_failure is not None and reason in closed.backup_failure
    assert str(paths.backups_dir(path)) in closed.backup_failure
    lines = _journal(path)
    assert lines[-2].endswith("closed: Spee escapes")  # the close itself is kept
    assert lines[-1].startswith("No backup after closing ") and reason in lines[-1]


def test_a_close_that_backs_up_says_where_and_adds_no_line(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    _app, factory, first = _in_play(path)
    closed = scenarios.close_scenario(factory, scenario_id=first)
    assert closed.backup_failure is None
    assert closed.backup is not None and closed.backup.parent == paths.backups_dir(path)
    assert not any(line.startswith("No backup") for line in _journal(path))


@pytest.mark.parametrize("failure", sorted(FAILURES))
async def test_the_player_sees_the_backup_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    path = tmp_path / "campaign.db"
    app, _factory, _first = _in_play(path)
    reason = FAILURES[failure](path, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "tab", "enter", screen=ScenarioScreen)  # its first scenario
        await press_to(pilot, "c", screen=FormScreen)
        await press_to(pilot, *"Spee escapes", "ctrl+s", screen=ScenarioScreen)
        shown = [(n.title, n.message, n.severity) for n in every_toast(app)]
        failures = [item for item in shown if item[0] == "No backup"]
        assert len(failures) == 1, shown
        _title, message, severity = failures[0]
        assert severity == "error" and reason in message and "is closed" in message
        await pilot.press("q")
    assert _journal(path)[-1].startswith("No backup after closing ")
