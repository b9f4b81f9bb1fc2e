"""`tracker --umpire` from a real process: the commands that write are refused, the reading ones
work, and a file the read-only view cannot open as it is gets one line, exit 2, and no change."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from campaign_files import future_campaign_file, real_campaign_file, sidecars

from tracker import db, paths
from tracker.db import make_engine

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 60


def _tracker(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != paths.DB_ENV_VAR}
    return subprocess.run(
        [sys.executable, "-m", "tracker", *args], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _campaign_name(path: Path) -> str:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        name: str = conn.execute("SELECT name FROM campaign ORDER BY id").fetchone()[0]
        return name
    finally:
        conn.close()


def _older_campaign_file(path: Path) -> Path:
    """A campaign file one schema revision behind this tracker's newest."""
    engine = make_engine(str(path))
    script = ScriptDirectory(str(db.MIGRATIONS_DIR))
    older = script.get_revision(db.head_revision()).down_revision
    assert isinstance(older, str)
    command.upgrade(db._alembic_config(engine), older)
    engine.dispose()
    assert db.inspect_file(path) == older
    return path


def _refused_alone(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, nothing on stdout, one line on stderr that names what is wrong."""
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tracker: ")
    for word in words:
        assert word in lines[0]


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    return real_campaign_file(tmp_path / "campaign.db")


def _writing_command(name: str, folder: Path) -> list[str]:
    """The command `name`, which writes to the campaign file, with arguments it would accept
    (what it reads made for it alone: an export only for the import)."""
    backup = folder / "copy.db"
    backup.write_bytes((folder / "campaign.db").read_bytes())
    if name == "import":
        exported = folder / "norway.json"
        assert _tracker("--db", str(backup), "export", _campaign_name(backup), "--to",
                        str(exported)).returncode == 0  # fmt: skip
        return ["import", str(exported), "--name", "Norway"]
    if name == "import-csv":
        ships = folder / "ships.csv"
        ships.write_text("name,structure_max,flotation_max\nAjax II,10,8\n", encoding="utf-8")
        return ["import-csv", "ships", str(ships), "--into", "Force G"]
    return {"demo": ["demo"], "restore": ["restore", str(backup), "--yes"]}[name]


@pytest.mark.parametrize("name", ["demo", "import", "import-csv", "restore"])
def test_a_command_that_writes_is_refused(campaign: Path, tmp_path: Path, name: str) -> None:
    args = _writing_command(name, tmp_path)
    before = _sha(campaign)
    result = _tracker("--umpire", "--db", str(campaign), *args)
    _refused_alone(result, name, "--umpire")
    assert _sha(campaign) == before
    assert sidecars(campaign) == []
    assert not paths.backups_dir(campaign).exists()


def test_reading_commands_work_and_leave_the_file(campaign: Path, tmp_path: Path) -> None:
    before = _sha(campaign)
    exported = tmp_path / "river-plate.json"
    result = _tracker("--umpire", "--db", str(campaign), "export", _campaign_name(campaign),
                      "--to", str(exported))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert exported.stat().st_size > 0
    printed = tmp_path / "force-g.html"
    result = _tracker("--umpire", "--db", str(campaign), "print", "Force G", "--html", str(printed))
    assert result.returncode == 0, result.stderr
    assert printed.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert _sha(campaign) == before
    assert not paths.backups_dir(campaign).exists()


def test_a_file_behind_the_newest_schema_is_not_upgraded(tmp_path: Path) -> None:
    path = _older_campaign_file(tmp_path / "campaign.db")
    before = _sha(path)
    _refused_alone(_tracker("--umpire", "--db", str(path)), "without --umpire")
    assert _sha(path) == before
    assert not paths.backups_dir(path).exists()  # no upgrade, so no backup before one
    assert sidecars(path) == []


def test_a_file_of_a_newer_tracker_is_refused(tmp_path: Path) -> None:
    path = future_campaign_file(tmp_path / "campaign.db")
    before = _sha(path)
    _refused_alone(_tracker("--umpire", "--db", str(path)))
    assert _sha(path) == before


def test_a_missing_file_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "typo.db"
    _refused_alone(_tracker("--umpire", "--db", str(path)), "without --umpire")
    assert not [name for name in os.listdir(tmp_path) if name.startswith("typo")]
    assert not paths.backups_dir(path).exists()
