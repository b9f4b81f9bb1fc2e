"""The benchmark harness (bench/, `make bench`) on tiny campaigns, once each, so it cannot rot.

Only that it runs and reports: whether the goals are met is `make bench`'s business, on the
issue's sizes (its timings on tiny files under a busy test run mean nothing).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NUMBER = r"(\d+(?:\.\d+)?)"
ROW = re.compile(
    rf"^\| (?P<figure>[1-9]|1[0-6]) \| (?P<title>[^|]+) \| [^|:]+: {NUMBER} (?:ms|MiB) "
    rf"\| [^|:]+: {NUMBER} (?:ms|MiB) \| {NUMBER}x \| <= {NUMBER}x \| (?:yes|NO) \|$"
)
# A figure that cannot be measured here (15 without PostgreSQL) says why.
SKIPPED = re.compile(r"^\| (?P<figure>15) \| [^|]+ \| - \| - \| - \| <= 2x \| skipped: [^|]+ \|$")


def run_module(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done


def test_the_generator_writes_what_it_was_asked_for(tmp_path: Path) -> None:
    done = run_module(
        "bench.generate", str(tmp_path / "tiny.db"), "--preset", "tiny-large",
        "--sizes", "journal=250,markers=5",
    )  # fmt: skip
    made = json.loads(done.stdout)
    assert made["read_back"] == {
        "squadrons": 4, "sheet_ships": 3, "markers": 5, "minefields": 6, "journal": 250,
        "entries_read": 50,
    }  # fmt: skip


@pytest.mark.slow
def test_the_benchmark_prints_and_writes_its_sixteen_ratios(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    done = run_module(
        "bench.run", "--preset", "tiny", "--runs", "1", "--warmup", "0",
        "--workdir", str(tmp_path / "work"), "--out", str(out),
    )  # fmt: skip
    written = out.read_text()
    lines = [line for line in written.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [line.split()[1] for line in lines] == [str(n) for n in range(1, 17)], written
    skipped = [line for line in lines if SKIPPED.match(line)]
    rows = [ROW.match(line) for line in lines if line not in skipped]
    assert all(rows), written
    for row in filter(None, rows):
        baseline, measured, ratio, goal = (float(value) for value in row.groups()[2:])
        assert baseline > 0 and measured > 0 and goal > 0
        # The times are shown to 0.1 (ms or MiB), the ratio of the unrounded ones to 0.01.
        low, high = (measured - 0.05) / (baseline + 0.05), (measured + 0.05) / (baseline - 0.05)
        assert low - 0.005 <= ratio <= high + 0.005, row.group(0)
    assert "| record sheet |" in written and "| journal |" in written
    # Figure 7 counts the keys of the routine hit scripted from the record sheet.
    assert "Routine hit from the sheet, 12 keys (goal 12), next ship 3 (goal <= 4)" in written
    assert "Figure 7 in parts" in written
    # Figures 6 and 16 list each CSV import.
    for kind in ("ships", "units", "counters", "library"):
        assert re.search(rf"^\| {kind} \| {NUMBER} ms \| {NUMBER} ms \|", written, re.M), written
    assert written in done.stdout
