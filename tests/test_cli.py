"""The command line: refusing bad campaign files from a real process, and choosing the file."""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from campaign_files import future_campaign_file, real_campaign_file

import tracker
from tracker import paths
from tracker.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 60


def _tracker(*args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != paths.DB_ENV_VAR}
    return subprocess.Popen(
        [sys.executable, "-m", "tracker", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"hello" * 100)


def _truncated(path: Path) -> None:
    data = real_campaign_file(path).read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


BAD = {
    "not_sqlite": (_not_sqlite, "not SQLite"),
    "truncated": (_truncated, "damaged"),
    "newer": (future_campaign_file, "newer tracker"),
    "empty": (_empty, "empty"),
}


@dataclass
class Run:
    path: Path
    sha_before: str
    process: subprocess.Popen[str]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Run]]:
    """Every bad file made first, then one `python -m tracker --db FILE` each, run side by side
    so the slow interpreter starts overlap."""
    started: dict[str, Run] = {}
    for kind, (make, _) in BAD.items():
        path = tmp_path_factory.mktemp(kind) / "campaign.db"
        make(path)
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        started[kind] = Run(path, sha, _tracker("--db", str(path)))
    yield started
    for run in started.values():
        if run.process.poll() is None:
            run.process.kill()
        run.process.communicate()


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_file_exits_2_with_one_line_on_stderr_and_leaves_the_file(
    runs: dict[str, Run], kind: str
) -> None:
    run = runs[kind]
    stdout, stderr = run.process.communicate(timeout=TIMEOUT_S)
    assert run.process.returncode == 2, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("tracker: ")
    assert str(run.path) in lines[0]
    assert BAD[kind][1] in lines[0]
    assert stdout == ""
    assert hashlib.sha256(run.path.read_bytes()).hexdigest() == run.sha_before


def test_version_exits_0() -> None:
    process = _tracker("--version")
    stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    assert process.returncode == 0, stderr
    assert stdout.strip() == f"tracker {tracker.__version__}"


# --- choosing the campaign file -----------------------------------------------------------------


def test_db_option_beats_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.DB_ENV_VAR, "/from/env.db")
    assert paths.resolve_db("/from/option.db") == "/from/option.db"


def test_environment_beats_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.DB_ENV_VAR, "sqlite:////from/env.db")
    assert paths.resolve_db(None) == "sqlite:////from/env.db"


def test_default_is_campaign_db_in_saves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(paths.DB_ENV_VAR, raising=False)
    chosen = Path(paths.resolve_db(None))
    assert chosen.name == "campaign.db"
    assert chosen.parent.name == "saves"
    assert chosen == paths.default_saves_dir() / paths.DEFAULT_DB_NAME


def test_default_outside_a_checkout_is_saves_in_the_working_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(paths.DB_ENV_VAR, raising=False)
    monkeypatch.setattr(paths, "PACKAGE_DIR", tmp_path / "site-packages" / "tracker")
    monkeypatch.chdir(tmp_path)
    assert paths.resolve_db(None) == str(tmp_path / "saves" / "campaign.db")


def _every_parser() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Each command's parser and its sub-commands' (tracker library import, ...), by name."""
    todo = [("tracker", build_parser())]
    while todo:
        name, parser = todo.pop()
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [(f"{name} {sub}", child) for sub, child in action.choices.items()]


def test_every_command_says_what_it_does_and_every_argument_what_to_give() -> None:
    for name, parser in _every_parser():
        assert parser.description, f"{name} --help says nothing of what it does"
        for action in parser._actions:
            if not isinstance(action, argparse._SubParsersAction):  # its choices say it
                named = action.option_strings or [action.dest]
                assert action.help, f"{name} {named[0]}: no help"
