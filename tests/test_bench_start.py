"""bench/start.py (figure 12's profile): every stage of a start measured in a fresh process, on
a campaign file it leaves as it found it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(
    r"^\| (?P<stage>[^|]+) \| (?P<ms>\d+) ms \| (?P<mib>-?\d+\.\d) MiB(?: \(.*\))? \|$"
)


def test_the_start_stages_are_each_measured_and_the_file_is_left_as_it_was(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tiny.db"
    subprocess.run([sys.executable, "-m", "bench.generate", str(path), "--preset", "tiny-large"],
                   cwd=ROOT, capture_output=True, check=True, timeout=300)  # fmt: skip
    before = path.read_bytes()
    done = subprocess.run([sys.executable, "-m", "bench.start", str(path)], cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=300)  # fmt: skip
    rows = [ROW.match(line) for line in done.stdout.splitlines()[2:]]
    assert all(rows), done.stdout
    stages = [row["stage"] for row in rows if row]
    assert stages[0].startswith("textual.app") and stages[-1].startswith("in all"), stages
    assert len(stages) == 11, stages
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("tiny.db-*")), "a -wal or -shm left beside the file"
