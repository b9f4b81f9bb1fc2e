"""Figures 6 and 16: every CSV import against a bare read and write of the same rows (issue 38,
goal 7).

Four imports read a player's CSV file: ships into a squadron, War at Sea units into a side,
Second World War at Sea counters onto a campaign's ships (services/csv_import.py) and the
library's cards (services/library.py). Each is timed on a fresh migrated file (its setup not
timed) against the bare floor of the same rows: `csv.reader` over the same bytes and one
`executemany` of every row into a table of the file's columns, in one transaction, on a file
with the tracker's durability (WAL, synchronous=FULL), the two taking turns.

16. each import of the large number of rows against its bare floor: the worst of the four is
    the figure;
6. each import's time per row at the large number of rows against the small one (an import
   linear in its rows costs the same per row at any size): the worst of the four.

    python -m bench.csv_imports                    # the default sizes, one run, printed
    python -m bench.csv_imports 1000 100000        # the issue's 100,000 rows
"""

from __future__ import annotations

import cProfile
import csv
import io
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from bench.library_import import cards_csv
from tracker.db import make_engine, migrate, session_factory
from tracker.services import campaigns, csv_import, fleet, library

KINDS = ("ships", "units", "counters", "library")
# The rows of the small and the large import, by preset.
SIZES = {"default": (1_000, 10_000), "tiny": (20, 200)}


def ships_csv(count: int) -> bytes:
    lines = ["name,class_name,nation,speed_kn,structure_max,flotation_max,notes"]
    lines += [f"Ship {n},Town,Britain,{20 + n % 12},{6 + n % 9},{4 + n % 5},from a sheet"
              for n in range(count)]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n").encode()


def units_csv(count: int) -> bytes:
    lines = ["name,unit_type,nation,points,year,speed,armor,vital_armor,hull_points,attack_main"]
    lines += [f"U-{n},submarine,Germany,0,{1936 + n % 10},2,2,3,{1 + n % 4},3 2 1 -"
              for n in range(count)]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n").encode()


def counters_csv(count: int) -> bytes:
    lines = ["ship,counter_size,speed_rating,torpedo_factors,mines_loaded,fuel_full"]
    lines += [f"Ship {n},{('small', 'long')[n % 2]},{1 + n % 3},{n % 5},0,{n % 6}"
              for n in range(count)]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n").encode()


@dataclass
class Target:
    """A fresh campaign file ready for one kind's import: the import, given the file's
    sessions and the CSV bytes, returns the rows it wrote."""

    engine: Engine
    run: Callable[[bytes], int]


def _target(kind: str, path: Path, count: int) -> Target:
    template = path.with_name("migrated.db")
    if not template.exists():  # each file a copy of one migrated file: one migration per folder
        engine = make_engine(str(template))
        migrate(engine)
        engine.dispose()
    shutil.copyfile(template, path)
    engine = make_engine(str(path))
    factory = session_factory(engine)
    if kind == "library":
        return Target(engine, lambda raw: library.import_library(factory, raw=raw).rows)
    campaign = campaigns.create_campaign(factory, name="Import")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue", nation="")
    target = {"units": side.id, "counters": campaign.id}.get(kind)
    if target is None or kind == "counters":
        squadron = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
        if kind == "ships":
            target = squadron
        else:  # the ships the counters are of, imported before the clock starts
            csv_import.import_csv(factory, kind="ships", raw=ships_csv(count), target_id=squadron)

    def run(raw: bytes) -> int:
        report = csv_import.import_csv(factory, kind=kind, raw=raw, target_id=target or 0)
        if not report.ok:
            raise RuntimeError(f"the import of {kind} failed: {report.problems[:3]}")
        return report.written

    return Target(engine, run)


def rows_csv(kind: str, count: int) -> bytes:
    if kind == "library":
        return cards_csv(count)
    return {"ships": ships_csv, "units": units_csv, "counters": counters_csv}[kind](count)


def tracker_seconds(
    kind: str, folder: Path, count: int, profiler: cProfile.Profile | None = None
) -> float:
    """One import of `count` rows of `kind` into a fresh file; its setup is not timed."""
    raw = rows_csv(kind, count)
    target = _target(kind, _fresh(folder / f"{kind}.db"), count)
    try:
        if profiler is not None:
            profiler.enable()
        started = time.perf_counter()
        written = target.run(raw)
        seconds = time.perf_counter() - started
        if profiler is not None:
            profiler.disable()
    finally:
        target.engine.dispose()
    if written != count:
        raise RuntimeError(f"the import of {count} {kind} wrote {written}")
    return seconds


def bare_seconds(kind: str, folder: Path, count: int) -> float:
    """The floor: the same bytes read by `csv.reader` and written by one executemany."""
    raw = rows_csv(kind, count)
    connection = sqlite3.connect(_fresh(folder / "bare.db"))
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        header = raw.split(b"\r\n", 1)[0].decode().split(",")
        connection.execute(f"CREATE TABLE row ({', '.join(header)})")
        started = time.perf_counter()
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))[1:]
        with connection:
            connection.executemany(f"INSERT INTO row VALUES ({', '.join('?' * len(header))})", rows)
        return time.perf_counter() - started
    finally:
        connection.close()


def _fresh(path: Path) -> Path:
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    return path


def measure(workdir: Path, sizes: tuple[int, int], runs: int) -> dict[str, list[float]]:
    """Each kind at both sizes and its floor at the large one, in turns, `runs` times: seconds
    by "kind: small", "kind: large" and "kind: bare"; the two sizes by "rows"."""
    few, many = sizes
    folder = workdir / "csv-imports"
    folder.mkdir(parents=True, exist_ok=True)
    samples: dict[str, list[float]] = {"rows": [few, many]}
    for kind in KINDS:
        tracker_seconds(kind, folder, 2)  # not timed: what the process builds at its first use
        for _ in range(runs):
            for side, count in (("small", few), ("bare", many), ("large", many)):
                timed = bare_seconds if side == "bare" else tracker_seconds
                samples.setdefault(f"{kind}: {side}", []).append(timed(kind, folder, count))
    return samples


def medians(samples: dict[str, list[float]]) -> dict[str, tuple[float, float, float]]:
    """Each kind's medians: the small import, the large one, and the large one's floor."""
    return {
        kind: tuple(statistics.median(samples[f"{kind}: {side}"])
                    for side in ("small", "large", "bare"))  # type: ignore[misc]
        for kind in KINDS
    }  # fmt: skip


def lines(samples: dict[str, list[float]]) -> list[str]:
    """The four kinds, listed under the table."""
    few, many = (int(count) for count in samples["rows"])
    out = [
        "",
        "Figures 6 and 16, import by import (median; a fresh file each, its setup not timed):",
        "",
        f"| Import | {few:,} rows | {many:,} rows | Bare csv + executemany, {many:,} rows | "
        "Ratio (16) | Per row, large vs small (6) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    out += [
        f"| {kind} | {small * 1000:.1f} ms | {large * 1000:.1f} ms | {bare * 1000:.1f} ms | "
        f"{large / bare:.2f}x | {(large / many) / (small / few):.2f}x |"
        for kind, (small, large, bare) in medians(samples).items()
    ]
    return out


def profile(workdir: Path, sizes: tuple[int, int], out: Path) -> Path:
    """Each kind's large import in this process, under one cProfile."""
    folder = workdir / "csv-profiled"
    folder.mkdir(parents=True, exist_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    profiler = cProfile.Profile()
    for kind in KINDS:
        tracker_seconds(kind, folder, 2)  # what the process builds at first use, not profiled
        tracker_seconds(kind, folder, sizes[1], profiler)
    profiler.dump_stats(out)
    return out


def main(argv: list[str]) -> int:
    import tempfile

    sizes = (int(argv[0]), int(argv[1])) if len(argv) == 2 else SIZES["default"]
    with tempfile.TemporaryDirectory(prefix="tracker-csv-") as scratch:
        print("\n".join(lines(measure(Path(scratch), sizes, 1))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
