"""A crash, in the app or around it, ends with status 1 and one line saying where its log is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from campaign_files import real_campaign_file, run_main

import tracker.cli
from tracker import crash_log
from tracker.app import TrackerApp
from tracker.screens.welcome import WelcomeScreen

LOG_LINE = re.compile(r"^tracker: crashed \((\w+)\); what happened is written in (.+\.log): ")


class Boom(RuntimeError):
    """An error no code of tracker expects."""


def logged(stderr: str) -> tuple[str, Path]:
    """The error's kind and the log's path, from the one line on stderr."""
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    match = LOG_LINE.match(lines[0])
    assert match is not None, lines[0]
    return match.group(1), Path(match.group(2))


@pytest.mark.parametrize("form", ["path", "url"])
def test_a_crash_in_the_app_exits_1_naming_its_log(
    form: str,
    tmp_path: Path,
    config_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = real_campaign_file(tmp_path / "campaign.db")
    run = TrackerApp.run

    def headless(self: TrackerApp, **kwargs: Any) -> Any:
        return run(self, headless=True, size=(80, 24))

    def explode(self: WelcomeScreen) -> None:
        raise Boom("secret-1 is not shown on the terminal")

    monkeypatch.setattr(TrackerApp, "run", headless)
    monkeypatch.setattr(WelcomeScreen, "on_mount", explode)
    target = str(path) if form == "path" else f"sqlite:///{path}"
    outcome = run_main(capsys, ["--db", target])
    assert outcome.status == 1
    kind, log = logged(outcome.err)
    assert kind == "Boom"
    assert log.parent == config_dir / crash_log.FOLDER_NAME
    text = log.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text
    assert "in explode" in text and "Boom: secret-1" in text
    assert "secret-1" not in outcome.err  # the message stays in the log, off the screen


def test_a_crash_around_the_app_exits_1_naming_its_log(
    config_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(argv: Any = None) -> int:
        raise Boom("before the app")

    monkeypatch.setattr(tracker.cli, "main", explode)
    with pytest.raises(SystemExit) as exited:
        tracker.cli.run()
    assert exited.value.code == 1
    kind, log = logged(capsys.readouterr().err)
    assert kind == "Boom"
    assert "Boom: before the app" in log.read_text(encoding="utf-8")


def test_a_crash_with_no_writable_folder_shows_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setattr(crash_log, "folder", lambda: blocked / "crashes")
    monkeypatch.setattr(crash_log.tempfile, "gettempdir", lambda: str(blocked / "tmp"))
    try:
        raise Boom("nowhere to write")
    except Boom as exc:
        error = exc
    assert crash_log.write(error) is None
    line = crash_log.say(error, None)
    assert line.startswith("tracker: crashed (Boom) and could not write its log: ")
    assert "Boom: nowhere to write" in line


def test_only_the_newest_logs_are_kept(config_dir: Path) -> None:
    folder = crash_log.folder()
    folder.mkdir(parents=True)
    old = [folder / f"tracker-crash-20200101-0000{n:02d}-1.log" for n in range(crash_log.KEEP)]
    for path in old:
        path.write_text("old")
    newest = crash_log.write(Boom("new"))
    assert newest is not None and newest.exists()
    kept = sorted(folder.glob("tracker-crash-*.log"))
    assert len(kept) == crash_log.KEEP
    assert old[0] not in kept
