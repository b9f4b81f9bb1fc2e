"""The library's import against a bare baseline (issue 20 goal 2), and its growth with size.

    python -m bench.library_import            # 275 cards; then 250 and 10,000 rows

Figure: a 275-card import (every row checked by the model family, matched by name and nation,
written by executemany in one transaction) over a bare `csv.reader` read plus one sqlite3
executemany of the same rows into a table of the same columns, on a file with the same pragmas;
the goal is 10x or less. Growth: 10,000 rows over 250 rows, the goal 40x or less (linear).
Best of three runs each; a new migrated file per run, its migration not timed.
"""

from __future__ import annotations

import csv
import io
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tracker.db import make_engine, migrate, session_factory
from tracker.services import library

TYPES = ("battleship", "cruiser", "destroyer", "submarine", "aircraft", "carrier")
NATIONS = ("Germany", "Britain", "Japan", "Italy", "USA", "France", "USSR", "Netherlands", "Canada")
COLUMNS = ("name", "nation", "unit_type", "year", "points", "armor", "vital_armor",
           "hull_points", "speed", "attack_main", "attack_anti_air", "abilities")  # fmt: skip


def cards_csv(count: int, seed: int = 20) -> bytes:
    """A seeded card list of `count` rows, as a spreadsheet's CSV (UTF-8, commas)."""
    rng = random.Random(seed)
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for n in range(count):
        writer.writerow([
            f"Unit {n}", rng.choice(NATIONS), rng.choice(TYPES), rng.randint(1936, 1945),
            rng.randint(5, 80), rng.randint(1, 10), rng.randint(2, 15), rng.randint(1, 8),
            str(rng.randint(1, 3)), f"{rng.randint(1, 8)} {rng.randint(1, 6)} - -",
            f"{rng.randint(1, 4)} - - -", "Radar: reroll one miss\n\nFlagship: +1",
        ])  # fmt: skip
    return out.getvalue().encode()


def _best(run: Callable[[Path], float]) -> float:
    times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as scratch:
            times.append(run(Path(scratch)))
    return min(times)


def bare(raw: bytes) -> float:
    def run(folder: Path) -> float:
        conn = sqlite3.connect(folder / "bare.db")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(f"CREATE TABLE card ({', '.join(COLUMNS)})")
        start = time.perf_counter()
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))[1:]
        with conn:
            conn.executemany(f"INSERT INTO card VALUES ({', '.join('?' * len(COLUMNS))})", rows)
        elapsed = time.perf_counter() - start
        conn.close()
        return elapsed

    return _best(run)


def tracker(raw: bytes) -> float:
    def run(folder: Path) -> float:
        engine = make_engine(str(folder / "campaign.db"))
        migrate(engine)
        factory = session_factory(engine)
        start = time.perf_counter()
        report = library.import_library(factory, raw=raw)
        elapsed = time.perf_counter() - start
        engine.dispose()
        assert report.written and not report.problems, report.problems
        return elapsed

    return _best(run)


def main() -> int:
    raw = cards_csv(275)
    base, ours = bare(raw), tracker(raw)
    print(f"275 cards: tracker {ours * 1000:.1f} ms, bare csv + sqlite3 executemany "
          f"{base * 1000:.1f} ms: {ours / base:.1f}x (goal <= 10x)")  # fmt: skip
    small, large = tracker(cards_csv(250)), tracker(cards_csv(10_000))
    print(f"250 rows {small * 1000:.1f} ms, 10,000 rows {large * 1000:.1f} ms: "
          f"{large / small:.1f}x for 40x the rows (goal <= 40x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
