"""Where the start's time and memory go, for figures 1, 5 and 12 (`--profile`): each stage of a
start on the large campaign, from the bare app's import to the record sheet's, done one after
the other in a fresh process, with the CPU time and the resident memory each adds.

    python -m bench.start CAMPAIGN.db
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The screens a key opens from the campaign screen and the record sheet (each imported at its key).
OTHER_SCREENS = ("damage_entry", "roster", "ledger", "journal", "scenario", "repairs", "report",
                 "critical_tables", "library", "library_import", "class_picker", "ship_detail",
                 "csv_import", "sheet_print", "library_changes", "zero_outcome", "help", "form",
                 "confirm")  # fmt: skip


def _resident_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 1048576


def _open(path: str) -> Callable[[], None]:
    def stage() -> None:
        from tracker.cli import connect, open_database
        from tracker.db import session_factory
        from tracker.services import campaigns

        # Read-only, as the umpire's view opens it: the file stays as tracker left it (a start
        # after another program's change checks it all first).
        engine = connect(path, read_only=True)
        open_database(engine, path, umpire=True)
        campaigns.list_campaigns(session_factory(engine))
        engine.dispose()

    return stage


def _imports(*names: str) -> Callable[[], None]:
    def stage() -> None:
        for name in names:
            __import__(name)

    return stage


def measure(path: str) -> list[tuple[str, float, float]]:
    """(stage, CPU ms, MiB added) for each stage of a start, in this process. The collector is
    off: a full pass (50 ms and more once the libraries are in) fell on whichever stage came
    next."""
    gc.disable()
    stages = [
        ("textual.app (the bare app's own import)", _imports("textual.app", "textual.widgets")),
        ("tracker.cli, campaign_file, app, welcome (before the first paint)",
         _imports("tracker.cli", "tracker.campaign_file", "tracker.app",
                  "tracker.screens.welcome")),
        ("sqlalchemy", _imports("sqlalchemy")),
        ("sqlalchemy.orm", _imports("sqlalchemy.orm")),
        ("sqlmodel (and pydantic)", _imports("sqlmodel")),
        ("tracker.models (25 tables, 63 form and base models)", _imports("tracker.models")),
        ("the file opened and checked, the list read (services.campaigns)", _open(path)),
        ("tracker.screens.campaign", _imports("tracker.screens.campaign")),
        ("tracker.screens.record_sheet", _imports("tracker.screens.record_sheet")),
        ("every other screen (imported at its key)",
         _imports(*(f"tracker.screens.{name}" for name in OTHER_SCREENS))),
    ]  # fmt: skip
    rows = []
    for label, stage in stages:
        cpu, resident = time.process_time(), _resident_mib()
        stage()
        rows.append((label, (time.process_time() - cpu) * 1000, _resident_mib() - resident))
    return rows


def stages(path: Path, env: dict[str, str]) -> str:
    """The table of `measure`, from a fresh process."""
    done = subprocess.run([sys.executable, "-m", "bench.start", str(path)], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.rstrip()


def main() -> None:
    rows = measure(sys.argv[1])
    print("| Stage | CPU | Memory added |\n| --- | --- | --- |")
    for label, ms, mib in rows:
        print(f"| {label} | {ms:.0f} ms | {mib:.1f} MiB |")
    print(f"| in all (resident at the end) | {sum(row[1] for row in rows):.0f} ms | "
          f"{_resident_mib():.1f} MiB |")  # fmt: skip


if __name__ == "__main__":
    main()
