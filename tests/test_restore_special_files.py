"""`tracker restore` from a real process on what is no campaign file or backup: a FIFO, a device,
a folder, a file it cannot read, as the backup given or as the campaign file (through a link too).
Each is refused at once, naming the path and what it is, and nothing changes; a restore killed
midway leaves its scratch copy only until the next start."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from campaign_files import real_campaign_file

from tracker import paths
from tracker.campaign_file import RESTORE_PREFIX

REPO = Path(__file__).resolve().parents[1]
# Only a guard: a refusal returns at once, and a FIFO opened for reading would wait forever.
HANG_GUARD_S = 60
# Root reads any file whatever its mode; without these two capabilities it reads as others do.
DROP_READ_OVERRIDE = (
    ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
     "--bounding-set=-dac_override,-dac_read_search"]
    if os.geteuid() == 0 else []
)  # fmt: skip


def _tracker(*args: str, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != paths.DB_ENV_VAR}
    return subprocess.run(
        [*(prefix or []), sys.executable, "-m", "tracker", *args], cwd=REPO, env=env,
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=HANG_GUARD_S,
        check=False,
    )  # fmt: skip


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fifo(folder: Path) -> tuple[Path, str]:
    path = folder / "pipe.db"
    os.mkfifo(path)
    return path, "is a FIFO"


def _device(folder: Path) -> tuple[Path, str]:
    return Path("/dev/zero"), "is a device"


def _folder(folder: Path) -> tuple[Path, str]:
    path = folder / "folder.db"
    path.mkdir()
    (path / "keep.txt").write_text("keep me")
    return path, "is a folder"


def _unreadable(folder: Path) -> tuple[Path, str]:
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root reads any file, and setpriv (to run without that power) is missing")
    path = real_campaign_file(folder / "locked.db")
    path.chmod(0)
    return path, "cannot be read (Permission denied)"


KINDS: dict[str, Callable[[Path], tuple[Path, str]]] = {
    "fifo": _fifo, "device": _device, "folder": _folder, "unreadable": _unreadable,
}  # fmt: skip


def _as_given(path: Path, form: str, folder: Path) -> Path:
    """The path as a player might type it: itself, or a link to it."""
    if form == "link":
        link = folder / f"link-to-{path.name}"
        link.symlink_to(path)
        return link
    return path


@pytest.mark.parametrize("role", ["backup", "campaign file"])
@pytest.mark.parametrize("form", ["path", "link"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_what_is_no_file_is_refused_at_once(
    tmp_path: Path, kind: str, form: str, role: str
) -> None:
    """As the backup given (onto a good campaign file) or as the campaign file (from a good
    backup): refused, named, and nothing changed or written."""
    (tmp_path / "good").mkdir()
    good = real_campaign_file(tmp_path / "good" / "campaign.db")
    before = _sha(good)
    special, words = KINDS[kind](tmp_path)
    given = _as_given(special, form, tmp_path)
    campaign, backup = (good, given) if role == "backup" else (given, good)
    prefix = DROP_READ_OVERRIDE if kind == "unreadable" else None
    result = _tracker("--db", str(campaign), "restore", str(backup), "--yes", prefix=prefix)
    assert result.returncode == 2, result.stderr
    assert f"tracker: {given} {words}" in result.stderr
    assert "nothing was restored" in result.stderr
    assert "empty" not in result.stderr and "remove it" not in result.stderr
    assert _sha(good) == before
    assert not paths.backups_dir(good).exists()
    if kind == "folder":
        assert os.listdir(special) == ["keep.txt"]
    if kind == "fifo":
        assert special.is_fifo()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_the_app_names_a_campaign_file_that_is_no_file(tmp_path: Path, kind: str) -> None:
    """Opening (not restoring) says what the path is, never that it is empty and may go."""
    target, words = KINDS[kind](tmp_path)
    given = _as_given(target, "link", tmp_path)
    result = _tracker("--db", str(given))
    assert result.returncode == 2, result.stderr
    assert f"{given} {words}" in result.stderr
    assert "empty" not in result.stderr and "remove it" not in result.stderr


def _padded_backup(path: Path) -> Path:
    """A campaign file big enough (tens of MB) that a restore of it can be caught midway."""
    real_campaign_file(path)
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE TABLE padding (blob BLOB)")
        conn.executemany("INSERT INTO padding VALUES (randomblob(1000000))", [()] * 60)
        conn.commit()
    finally:
        conn.close()
    return path


def _scratch(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{RESTORE_PREFIX}*")) if folder.is_dir() else []


def test_a_restore_killed_midway_leaves_nothing_after_the_next_start(tmp_path: Path) -> None:
    campaign = real_campaign_file(tmp_path / "campaign.db")
    backup = _padded_backup(tmp_path / "big.db")
    folder = paths.backups_dir(campaign)
    env = {k: v for k, v in os.environ.items() if k != paths.DB_ENV_VAR}
    process = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(campaign), "restore", str(backup), "--yes"],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        # Polled, not timed: the kill comes as soon as the scratch copy is seen.
        while not _scratch(folder) and process.poll() is None:
            time.sleep(0.001)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=HANG_GUARD_S)
    left = _scratch(folder)
    assert left, "the restore ended before it could be killed midway"
    assert process.returncode == -signal.SIGKILL
    result = _tracker("--db", str(campaign), "backups")
    assert result.returncode == 0, result.stderr
    assert _scratch(folder) == []


def test_the_next_start_spares_the_scratch_copy_of_a_restore_still_running(
    tmp_path: Path,
) -> None:
    campaign = real_campaign_file(tmp_path / "campaign.db")
    folder = paths.backups_dir(campaign)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = folder / f"{RESTORE_PREFIX}{dead.pid}-abc"
    running = folder / f"{RESTORE_PREFIX}{os.getpid()}-def"
    old_style = folder / f"{RESTORE_PREFIX}x1y2z3"
    for item in (stale, running, old_style):
        item.mkdir(parents=True)
        (item / "restore.db").write_bytes(b"copy")
    result = _tracker("--db", str(campaign), "backups")
    assert result.returncode == 0, result.stderr
    assert _scratch(folder) == [running]
