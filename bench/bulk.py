"""Figures 8 to 10: a campaign file written and read at the large campaign's size (issue 20).

8. `tracker export` of the large campaign, the whole command as a player runs it, against
   `sqlite3 FILE .dump` of the same file (the sqlite3 shell), in turns;
9. `tracker import` of that export into a new file, against loading the dump into a new file
   with the sqlite3 shell (`.read`), in turns;
10. the peak memory an import of the export adds to its process (VmHWM once the campaign is
    in, less the resident size before the file was read), against the file's size.

    python -m bench.run --only 8,9,10 --runs 3     # these three alone
"""

from __future__ import annotations

import cProfile
import subprocess
import sys
import time
from pathlib import Path

from bench.generate import Built

SQLITE3 = "sqlite3"
# A child that reads a campaign file and imports it into a new campaign file, its peak memory
# (VmHWM: see run.Terminal.peak_memory, reset once the new file is migrated) against its
# resident size before the file was read.
IMPORT_MEMORY = """
import re, sys
from pathlib import Path
from tracker.db import make_engine, migrate, session_factory
from tracker.services import exchange

def status(key):
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{key}:\\s+(\\d+) kB", text, re.MULTILINE).group(1))

engine = make_engine(sys.argv[2])
migrate(engine)
factory = session_factory(engine)
Path("/proc/self/clear_refs").write_text("5")  # the peak so far (the migration's) forgotten
before = status("VmRSS")
with open(sys.argv[1], "rb") as file:  # as tracker import reads it: from the file
    exchange.import_campaign(factory, document=exchange.read_document(file))
print(status("VmHWM") - before)
"""


def _timed(argv: list[str], env: dict[str, str], cwd: Path, stdin: Path | None = None) -> float:
    """Seconds the command takes, start to exit; it must succeed."""
    started = time.perf_counter()
    with open(stdin or "/dev/null", "rb") as given:
        done = subprocess.run(argv, env=env, cwd=cwd, stdin=given, capture_output=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.decode()[-2000:]}")
    return seconds


def _fresh(path: Path) -> Path:
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    return path


def measure(
    large: Built, env: dict[str, str], workdir: Path, root: Path, runs: int, warmup: int
) -> dict[str, list[float]]:
    """The samples of figures 8 to 10: seconds of each side, KiB of memory and of the file."""
    tracker = [sys.executable, "-m", "tracker"]
    dump, document = workdir / "large.sql", workdir / "large.json"
    samples: dict[str, list[float]] = {
        name: [] for name in ("dump", "export", "load", "import", "memory", "size")
    }
    for run in range(warmup + runs):
        timed = run >= warmup
        with open(dump, "wb") as out:
            started = time.perf_counter()
            subprocess.run([SQLITE3, str(large.path), ".dump"], stdout=out, check=True)
            dumped = time.perf_counter() - started
        exported = _timed(
            [*tracker, "--db", str(large.path), "export", large.campaign_name,
             "--to", str(document), "--force"], env, root,
        )  # fmt: skip
        loaded = _timed([SQLITE3, str(_fresh(workdir / "loaded.db"))], env, root, stdin=dump)
        imported = _timed(
            [*tracker, "--db", str(_fresh(workdir / "imported.db")), "import", str(document)],
            env, root,
        )  # fmt: skip
        if timed:
            samples["dump"].append(dumped)
            samples["export"].append(exported)
            samples["load"].append(loaded)
            samples["import"].append(imported)
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_MEMORY, str(document), str(_fresh(workdir / "memory.db"))],
        env=env, cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    samples["memory"].append(float(done.stdout.split()[-1]))
    samples["size"].append(document.stat().st_size / 1024)
    return samples


def profile(large: Built, workdir: Path, folder: Path) -> tuple[Path, Path]:
    """One export and one import of the large campaign in this process, under cProfile."""
    from tracker.db import make_engine, migrate, session_factory
    from tracker.services import exchange

    export_out, import_out = folder / "export.prof", folder / "import.prof"
    folder.mkdir(parents=True, exist_ok=True)
    source = make_engine(str(large.path))
    target = make_engine(str(_fresh(workdir / "profiled.db")))
    try:
        migrate(target)
        profiler = cProfile.Profile()
        profiler.enable()
        text = exchange.dumps(
            exchange.export_campaign(session_factory(source), campaign_id=large.campaign_id)
        )
        profiler.disable()
        profiler.dump_stats(export_out)
        exported = workdir / "profiled.json"
        exported.write_text(text)
        profiler = cProfile.Profile()
        profiler.enable()
        with exported.open("rb") as file:
            document = exchange.read_document(file)
        exchange.import_campaign(session_factory(target), document=document)
        profiler.disable()
        profiler.dump_stats(import_out)
    finally:
        source.dispose()
        target.dispose()
    return export_out, import_out
