"""What a process killed midway leaves in a scratch folder goes at the next start: the upgrade
of an older export (`tracker import`, in the temporary folder) as the copy of a restore (in the
backups folder) already did, by the one mechanism (campaign_file.scratch_folder and
remove_scratch_left); a folder of a process still running is left alone, and so is one in the
shared temporary folder that no tracker named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from campaign_files import real_campaign_file

from tracker import paths
from tracker.campaign_file import SCRATCH_PREFIX

REPO = Path(__file__).resolve().parents[1]
OLD_EXPORT = REPO / "tests" / "revision_exports" / "campaign-0001.json"
HANG_GUARD_S = 120  # not a speed limit: a command that never ends fails here
# `tracker import` of an older export, the process killed while the export's upgrade is in its
# scratch database (as a power cut or a kill -9 would leave it).
KILLED_IMPORT = """
import os, signal, sys
from tracker.services import exchange

def killed(engine):
    os.kill(os.getpid(), signal.SIGKILL)

exchange.upgrade_scratch = killed
from tracker.cli import main
main(["--db", sys.argv[1], "import", sys.argv[2]])
"""


def _run(argv: list[str], temporary: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != paths.DB_ENV_VAR}
    env["TMPDIR"] = str(temporary)  # tempfile.gettempdir() in the child
    return subprocess.run(
        [sys.executable, *argv], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=HANG_GUARD_S, check=False,
    )  # fmt: skip


def _scratch(temporary: Path) -> list[Path]:
    return sorted(temporary.glob(f"{SCRATCH_PREFIX}*"))


def test_a_killed_import_leaves_a_scratch_folder_that_the_next_start_removes(
    tmp_path: Path,
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    campaign = real_campaign_file(tmp_path / "campaign.db")
    killed = _run(["-c", KILLED_IMPORT, str(campaign), str(OLD_EXPORT)], temporary)
    assert killed.returncode == -9, killed.stderr
    left = _scratch(temporary)
    assert len(left) == 1 and (left[0] / "scratch.db").exists(), left
    started = _run(["-m", "tracker", "--db", str(campaign), "backups"], temporary)
    assert started.returncode == 0, started.stderr
    assert _scratch(temporary) == []


def test_the_next_start_spares_a_running_process_and_a_folder_it_did_not_name(
    tmp_path: Path,
) -> None:
    temporary = tmp_path / "tmp"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = temporary / f"{SCRATCH_PREFIX}{dead.pid}-abc"
    running = temporary / f"{SCRATCH_PREFIX}{os.getpid()}-def"
    unnamed = temporary / f"{SCRATCH_PREFIX}x1y2z3"  # another program's, or an older tracker's
    for folder in (stale, running, unnamed):
        folder.mkdir(parents=True)
        (folder / "scratch.db").write_bytes(b"work")
    # Any start, on a campaign file or a database named by a URL.
    campaign = real_campaign_file(tmp_path / "campaign.db")
    started = _run(["-m", "tracker", "--db", str(campaign), "backups"], temporary)
    assert started.returncode == 0, started.stderr
    assert _scratch(temporary) == [running, unnamed]
