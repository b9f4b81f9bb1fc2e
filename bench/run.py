"""`make bench`: sixteen ratios of the tracker's speed and memory, each a median of several runs.

Absolute times drift on shared machines, so every figure is a ratio against a baseline measured
in the same run, the same way, the two sides taking turns:

1. the whole process, from its start until the first screen is painted: `python -m tracker
   --db large.db` in a pseudo-terminal, timed from the spawn until the first text it draws
   reaches the terminal, against a bare Textual app painting a label (bench/bare_app.py), timed
   alike;
2. opening each of nine screens (welcome, campaign, record sheet, damage entry, roster, ledger,
   journal, scenario, repairs) as a player opens it, large campaign against a small one whose
   tables fill the screen as full (bench/generate.py's SMALL): the worst of the nine is the
   figure, each is listed (bench/screens.py holds each campaign open in a worker; see there how
   each is opened and what "painted" means);
3. recording one hit through services.damage.record_hit against a bare `sqlite3` INSERT and
   COMMIT into the same file with the pragmas of tracker.db (WAL, synchronous=FULL, ...);
4. one keystroke in the damage shorthand until the preview is repainted, large against small;
5. the peak memory (VmHWM, the peak resident set) of the tracker run on the large campaign
   through to a record sheet, against the stack's floor: the bare app in a process that has
   also imported SQLAlchemy and SQLModel and opened the same file (bench/bare_app.py --stack);
6. every CSV import (ships, units, counters, library cards) of the large number of rows against
   the small one, as time per row (an import linear in its rows costs the same per row at any
   size), each into a fresh file: the worst of the four (bench/csv_imports.py);
7. the routine hit at the table (`d s3 f1 fm+1` Enter on the record sheet's highlighted ship):
   the app's own share, damage entry opened, each key's preview painted and the hit recorded,
   on the large campaign, against the goal of 60 ms (a fixed figure, not a run); its title
   counts the keys scripted, and those of the same line on the sheet's next ship, and gives
   the slowest key's preview against its goal of 16 ms;
8. to 10. a campaign file at the large campaign's size: `tracker export` against `sqlite3 .dump`,
   `tracker import` against loading that dump, and the import's peak memory against the file's
   size (bench/bulk.py);
11. the peak memory of figure 5, the large campaign against the small one (each to a record
   sheet);
12. the whole process from its start until its campaign list's keys are ready (the footer
   shows "New campaign": the database is open), on the large campaign, against the bare app's
   first paint (figure 1's processes); its title gives the time the list itself was shown;
13. each screen of figure 2 opened on the large campaign, against a bare Textual copy of it as
   shown (the same widget tree, rows, texts and styles; none of the tracker's reads or
   handlers: bench/bare_copy.py) opened in the same app: the worst of the screens is the
   figure.
14. the peak memory a hostile campaign file adds to `tracker import`'s process before it is
   refused (one field oversized, or rows refused at the end; 200 MB each), against the file's
   size: the worse of the two (bench/refused.py);
15. figure 3 on PostgreSQL: the hit against a bare psycopg INSERT and COMMIT on the same
   throw-away server (bench/hits_pg.py); skipped, and said so, where PostgreSQL is absent.
16. each CSV import of figure 6 at the large number of rows against a bare `csv.reader` read and
   one sqlite3 executemany of the same rows at the same durability: the worst of the four, each
   listed under the table (bench/csv_imports.py).

The small campaign and the large one are made first with a seeded generator (bench/generate.py)
in a temporary folder (or --workdir). The table goes to stdout and to bench/results/latest.md
(--out).

    python -m bench.run                          # the issue's sizes, 7 runs each (make bench)
    python -m bench.run --runs 9 --profile       # and where the time goes, for each miss
    python -m bench.run --only 2,4 --large journal=300000
    python -m bench.run --preset tiny --runs 1 --warmup 0    # the smoke run of `make test`
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import fcntl
import json
import os
import platform
import pstats
import pty
import re
import select
import signal
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import textual

from bench import bulk, csv_imports, generate, hits_pg, refused, start
from bench.bare_app import TEXT as BARE_TEXT
from bench.generate import Built, Sizes
from bench.screens import SCREEN_NAMES
from tracker.db import make_engine, session_factory
from tracker.models.identity import new_uid
from tracker.services import damage

ROOT = Path(__file__).resolve().parent.parent
# Git ignores it: `make bench` leaves the checkout as it found it.
RESULTS = Path(__file__).resolve().parent / "results" / "latest.md"
COLUMNS, ROWS = 120, 40
TIMEOUT = 60.0
PRESETS = {
    "default": (generate.SMALL, generate.LARGE),
    "tiny": (generate.TINY_SMALL, generate.TINY_LARGE),
}
GOALS = {1: 1.2, 2: 1.1, 3: 2.0, 4: 1.2, 5: 1.25, 6: 1.5, 7: 1.0, 8: 3.0, 9: 3.0, 10: 3.0,
         11: 1.15, 12: 2.0, 13: 1.2, 14: 1.5, 15: 2.0, 16: 5.0}  # fmt: skip
# Figure 7's goal: the app's share of a routine hit, in seconds, and the keys; and every key's
# preview painted within this (the slowest key's, in the figure's title).
ROUTINE_SECONDS = 0.060
KEY_PREVIEW_SECONDS = 0.016
ROUTINE_KEYS_GOAL, NEXT_SHIP_KEYS_GOAL = 12, 4
# Figure 7's parts, as bench/screens.py's routine_hit names them: the three the figure adds up,
# then every key's preview, the slowest key's, and the process's CPU time over the three.
ROUTINE_PARTS = ("open", "preview", "record", "typing", "slowest_key", "cpu")
# Figure 3's runs take milliseconds: it takes this many per run of the others.
HIT_RUNS_PER_RUN = 6
# Markers on the screens the terminal runs wait for.
CAMPAIGN_SCREEN = "Sides and squadrons"
RECORD_SHEET = "Squadron Record Sheet"
# The welcome screen's footer shows this key once the database is open (the list's keys ready).
READY_KEY = "New campaign"


@dataclass
class Figure:
    """One row of the table: a measurement against its baseline."""

    number: int
    title: str
    baseline_label: str
    baseline: float
    measured_label: str
    measured: float
    unit: str  # "s" (shown in ms) or "KiB" (shown in MiB)
    samples: dict[str, list[float]] = field(default_factory=dict)
    skipped: str = ""  # why the figure could not be measured here

    @property
    def goal(self) -> float:
        return GOALS[self.number]

    @property
    def ratio(self) -> float:
        return self.measured / self.baseline if self.baseline else float("inf")

    @property
    def meets(self) -> bool:
        return self.ratio <= self.goal

    def show(self, value: float) -> str:
        if self.unit == "KiB":
            return f"{value / 1024:.1f} MiB"
        return f"{value * 1000:.1f} ms"


@dataclass
class Breakdown:
    """Figure 2 screen by screen."""

    rows: list[tuple[str, float, float]] = field(default_factory=list)
    bare: dict[str, float] = field(default_factory=dict)  # each screen's bare copy, large


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


# --- a program in a pseudo-terminal --------------------------------------------------------

# CSI, OSC, DCS and two-byte escapes: what is left is the text the screen shows.
ESCAPES = re.compile(
    rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1bP[^\x1b]*\x1b\\|\x1b\[[0-?]*[ -/]*[@-~]"
    rb"|\x1b[ -/]*[0-~]"
)


class Terminal:
    """A program in a 120x40 pseudo-terminal, its output read as a terminal would get it."""

    def __init__(self, argv: Sequence[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.argv = list(argv)
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            self.argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=ROOT,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.output = bytearray()
        self.mark = 0  # output before this was matched already
        self.closed = False

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return
        try:
            chunk = os.read(self.master, 1 << 16)
        except OSError:  # EIO: the program closed the terminal
            chunk = b""
        if chunk:
            self.output += chunk
        else:
            self.closed = True

    def text(self, since: int = 0) -> str:
        return ESCAPES.sub(b"", bytes(self.output[since:])).decode("utf-8", "replace")

    def wait_for(self, marker: str, timeout: float = TIMEOUT) -> float:
        """Seconds from the start of the program until the marker was on its screen."""
        deadline = time.perf_counter() + timeout
        while marker not in self.text(self.mark):
            if self.closed or time.perf_counter() > deadline:
                self.kill()
                tail = self.text()[-1500:]
                raise RuntimeError(f"{' '.join(self.argv)}: {marker!r} never showed:\n{tail}")
            self._read(0.05)
        seconds = time.perf_counter() - self.started
        self.mark = len(self.output)
        return seconds

    def first_paint(self, timeout: float = TIMEOUT) -> float:
        """Seconds from the start of the program until its first frame: the first text it
        draws (what it writes before, switching to the alternate screen and the like, is no
        text)."""
        deadline = time.perf_counter() + timeout
        while not self.text(self.mark).strip():
            if self.closed or time.perf_counter() > deadline:
                self.kill()
                raise RuntimeError(f"{' '.join(self.argv)} drew nothing")
            self._read(0.05)
        return time.perf_counter() - self.started

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def settle(self, seconds: float) -> None:
        """Keep reading for a while: the program must never block on a full terminal."""
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline and not self.closed:
            self._read(0.05)

    def peak_memory(self) -> int:
        """The program's peak resident memory so far, KiB (VmHWM).

        Not ru_maxrss from wait4: Linux carries a process's maxrss across exec, so a child
        forked from this (large) process would report this process's peak as its own.
        """
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
        if match is None:
            raise RuntimeError("no VmHWM in /proc: the peak memory needs Linux")
        return int(match.group(1))

    def quit(self, timeout: float = 15.0) -> None:
        """Press q and read until the program is gone."""
        self.send(b"q")
        deadline = time.perf_counter() + timeout
        while True:
            pid, status = os.waitpid(self.process.pid, os.WNOHANG)
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                os.close(self.master)
                return
            if time.perf_counter() > deadline:
                self.kill()
                raise RuntimeError(f"{' '.join(self.argv)} did not quit on q")
            if not self.closed:
                self._read(0.05)
            else:
                time.sleep(0.01)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)


def environment(workdir: Path) -> dict[str, str]:
    """The children's environment: a terminal, and settings of their own (not the player's)."""
    # Bytecode is written and read as an installed tracker's is (pip compiles it): under
    # PYTHONDONTWRITEBYTECODE a checkout without __pycache__ compiled every module the tracker
    # imports at each start, where the bare app's Textual came compiled from the venv.
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("NO_COLOR", "TRACKER_DB", "PYTHONDONTWRITEBYTECODE")
        and not key.startswith("TEXTUAL_")
    }
    env.update(
        TERM="xterm-256color",
        COLORTERM="truecolor",
        COLUMNS=str(COLUMNS),
        LINES=str(ROWS),
        TRACKER_CONFIG_DIR=str(workdir / "config"),
        XDG_CONFIG_HOME=str(workdir / "xdg"),
    )
    return env


def bare_command(stack: Path | None = None) -> list[str]:
    """The bare app; with a file, the stack's floor that opens it (bench/bare_app.py)."""
    extra = ["--stack", str(stack)] if stack is not None else []
    return [sys.executable, str(ROOT / "bench" / "bare_app.py"), *extra]


def tracker_command(path: Path) -> list[str]:
    return [sys.executable, "-m", "tracker", "--db", str(path)]


# --- the figures ---------------------------------------------------------------------------


def to_record_sheet(terminal: Terminal) -> None:
    """From the campaign list: enter (its campaign screen), enter (the first squadron's sheet)."""
    terminal.settle(0.2)
    terminal.send(b"\r")
    terminal.wait_for(CAMPAIGN_SCREEN)
    terminal.settle(0.3)  # the cursor goes to the first squadron after the first paint
    terminal.send(b"\r")
    terminal.wait_for(RECORD_SHEET)
    terminal.settle(0.3)


def figures_1_5_11_12(
    small: Built, large: Built, env: dict[str, str], runs: int, warmup: int
) -> tuple[Figure, Figure, Figure, Figure]:
    """The whole process, the baselines and the tracker in turns (all see the same drift of the
    machine): seconds to the first frame drawn, and for the tracker also to its campaign list
    showing the large campaign (which may come later: the issue lets the database load while
    the first screen paints); then the peak memory: the tracker's on a record sheet of the large
    campaign and of the small one, the stack floor's on the large file."""
    times: dict[str, list[float]] = {"bare": [], "tracker": [], "tracker list": [],
                                     "tracker ready": []}  # fmt: skip
    memory: dict[str, list[float]] = {"bare": [], "stack": [], "tracker": [], "small": []}
    for run in range(warmup + runs):
        bare = Terminal(bare_command(), env)
        bare_seconds = bare.first_paint()
        bare.wait_for(BARE_TEXT)
        bare.settle(0.2)
        bare_kib = bare.peak_memory()
        bare.quit()
        stack = Terminal(bare_command(large.path), env)
        stack.wait_for(BARE_TEXT)
        stack.settle(0.2)
        stack_kib = stack.peak_memory()
        stack.quit()
        app = Terminal(tracker_command(large.path), env)
        app_seconds = app.first_paint()
        list_seconds = app.wait_for(large.campaign_name)
        # The list's keys wait for the database (the footer shows them once it is open).
        ready_seconds = app.wait_for(READY_KEY)
        to_record_sheet(app)
        app_kib = app.peak_memory()
        app.quit()
        on_small = Terminal(tracker_command(small.path), env)
        on_small.wait_for(small.campaign_name)
        to_record_sheet(on_small)
        small_kib = on_small.peak_memory()
        on_small.quit()
        if run >= warmup:
            times["bare"].append(bare_seconds)
            times["tracker"].append(app_seconds)
            times["tracker list"].append(list_seconds)
            times["tracker ready"].append(ready_seconds)
            for key, kib in (("bare", bare_kib), ("stack", stack_kib), ("tracker", app_kib),
                             ("small", small_kib)):  # fmt: skip
                memory[key].append(kib)
    bare_paint = median(times["bare"])
    first = Figure(1, "Start to first screen painted", "bare Textual app", bare_paint,
                   "tracker, large campaign", median(times["tracker"]), "s", times)  # fmt: skip
    shown = median(times["tracker list"]) * 1000
    listed = Figure(12, f"Start to the campaign list's keys ready (the list shown at {shown:,.0f} "
                    "ms)", "bare Textual app's first paint", bare_paint,
                    "tracker, large campaign", median(times["tracker ready"]), "s",
                    times)  # fmt: skip
    to_sheet = "tracker, large campaign, to a record sheet"
    peak = Figure(5, "Peak memory (VmHWM) vs the stack's floor",
                  "bare app + SQLAlchemy + SQLModel, the file open", median(memory["stack"]),
                  to_sheet, median(memory["tracker"]), "KiB", memory)  # fmt: skip
    grown = Figure(11, "Peak memory, large campaign vs small", "small campaign, to a record sheet",
                   median(memory["small"]), to_sheet, median(memory["tracker"]), "KiB",
                   memory)  # fmt: skip
    return first, peak, grown, listed


class ScreensWorker:
    """A bench.screens process holding the app open on one campaign, answering commands."""

    def __init__(
        self, built: Built, env: dict[str, str], label: str, workdir: Path, profile: Path | None
    ) -> None:
        command = [
            sys.executable,
            "-m",
            "bench.screens",
            str(built.path),
            "--campaign-id",
            str(built.campaign_id),
            "--ship",
            built.probe_ship_name,
            "--label",
            label,
        ]
        if profile is not None:
            command += ["--profile", str(profile)]
        self.log = workdir / f"screens-{label}.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                command,
                env=env,
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=30)
            raise RuntimeError(f"bench.screens stopped:\n{self.log.read_text()[-3000:]}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask(self, **order: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(order) + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": "quit"}) + "\n")
        self.process.stdin.close()
        if self.process.wait(timeout=120) != 0:
            raise RuntimeError(f"bench.screens failed:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def figures_2_and_4(
    small: Built,
    large: Built,
    env: dict[str, str],
    workdir: Path,
    runs: int,
    warmup: int,
    profile: Path | None,
    wanted: set[int],
) -> tuple[dict[int, Figure], Breakdown | None]:
    """Both campaigns open in a worker each; every measurement is made on one, then on the
    other (which goes first alternates), so drift of the machine falls on both sides alike.
    Only the figures wanted (of 2, 4 and 7) are measured: `--only 7` times the routine hit
    alone."""
    workers = {
        "small": ScreensWorker(small, env, "small", workdir, profile),
        "large": ScreensWorker(large, env, "large", workdir, profile),
    }
    times: dict[str, dict[str, list[float]]] = {"small": {}, "large": {}}
    said: dict[str, dict[str, Any]] = {}  # each worker's last answer (figure 7's keys)

    def in_turns(name: str, on: tuple[str, ...] = ("small", "large"), **order: Any) -> None:
        for run in range(warmup + runs):
            for label in on if run % 2 == 0 else on[::-1]:
                said[label] = workers[label].ask(**order, timed=run >= warmup)
                seconds = said[label]["seconds"]
                if run >= warmup:
                    times[label].setdefault(name, []).append(seconds)
                    for part in ROUTINE_PARTS:  # figure 7's parts
                        if part in said[label]:
                            times[label].setdefault(part, []).append(said[label][part])

    try:
        for worker in workers.values():
            worker.read()  # ready
        for name in SCREEN_NAMES if wanted & {2, 13} else ():
            in_turns(name, op="open", screen=name)
            if 13 in wanted:  # the bare copy on the large campaign, beside the tracker's
                in_turns(f"bare {name}", ("large",), op="bare", screen=name)
        if 4 in wanted:
            for worker in workers.values():
                worker.ask(op="damage")
            in_turns("keystroke", op="keystroke")
            for worker in workers.values():
                worker.ask(op="leave")
        if 7 in wanted:
            in_turns("routine", op="routine")
        for worker in workers.values():
            worker.close()
    finally:
        for worker in workers.values():
            worker.kill()
    on_small, on_large = times["small"], times["large"]
    figures: dict[int, Figure] = {}
    breakdown = None
    if wanted & {2, 13}:
        breakdown = _breakdown(on_small, on_large)
        figures[2] = _screens_figure(on_small, on_large, breakdown)
    if 13 in wanted and breakdown is not None:
        breakdown.bare = {name: median(on_large[f"bare {name}"]) for name in SCREEN_NAMES}
        figures[13] = _bare_figure(on_large, breakdown)
    if 4 in wanted:
        keystroke = {"small": on_small["keystroke"], "large": on_large["keystroke"]}
        figures[4] = Figure(4, "Keystroke in the damage shorthand to the preview painted",
                            "small campaign", median(keystroke["small"]), "large campaign",
                            median(keystroke["large"]), "s", keystroke)  # fmt: skip
    if 7 in wanted:
        keys_said = said["large"]
        slowest = median(on_large["slowest_key"])
        key_meets = "yes" if slowest <= KEY_PREVIEW_SECONDS else "NO"
        figures[7] = Figure(
            7,
            f"Routine hit from the sheet, {keys_said['keys']} keys (goal {ROUTINE_KEYS_GOAL}), "
            f"next ship {keys_said['next_ship_keys']} (goal <= {NEXT_SHIP_KEYS_GOAL}): open + "
            f"preview + record; the slowest key's preview {slowest * 1000:.1f} ms (goal <= "
            f"{KEY_PREVIEW_SECONDS * 1000:g} ms: {key_meets})",
            "goal",
            ROUTINE_SECONDS,
            "large campaign",
            median(on_large["routine"]),
            "s",
            {"small": on_small["routine"], "large": on_large["routine"]}
            | {part: on_large[part] for part in ROUTINE_PARTS},
        )
    return figures, breakdown


def _breakdown(on_small: dict[str, list[float]], on_large: dict[str, list[float]]) -> Breakdown:
    breakdown = Breakdown()
    for name in SCREEN_NAMES:
        breakdown.rows.append((name, median(on_small[name]), median(on_large[name])))
    return breakdown


def _bare_figure(on_large: dict[str, list[float]], breakdown: Breakdown) -> Figure:
    worst = max(breakdown.rows, key=lambda row: row[2] / breakdown.bare[row[0]])
    name = worst[0]
    return Figure(13, f"Open a screen vs a bare Textual copy of it, large (worst: {name})",
                  "bare copy", breakdown.bare[name], "tracker", worst[2], "s",
                  {"bare": on_large[f"bare {name}"], "tracker": on_large[name]})  # fmt: skip


def _screens_figure(
    on_small: dict[str, list[float]], on_large: dict[str, list[float]], breakdown: Breakdown
) -> Figure:
    worst = max(breakdown.rows, key=lambda row: row[2] / row[1])
    return Figure(
        2,
        f"Open a screen, large vs small (worst: {worst[0]})",
        "small campaign",
        worst[1],
        "large campaign",
        worst[2],
        "s",
        {"small": on_small[worst[0]], "large": on_large[worst[0]]},
    )


BARE_INSERT = (
    "INSERT INTO journalentry (at, campaign_id, scenario_id, turn, side_id, ship_id, kind, "
    "summary, detail, undoable, uid) VALUES (?, ?, NULL, NULL, NULL, ?, 'damage', ?, ?, 1, ?)"
)


def bare_connection(path: Path) -> sqlite3.Connection:
    """sqlite3 with the pragmas of tracker.db's connect listener, autocommit as the app's."""
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in (
        "busy_timeout=5000",
        "journal_mode=WAL",
        "synchronous=FULL",
        "foreign_keys=ON",
        "secure_delete=ON",
    ):
        conn.execute(f"PRAGMA {pragma}")
    return conn


def figure_3(large: Built, workdir: Path, runs: int, warmup: int, profile: Path | None) -> Figure:
    """One hit through services.damage.record_hit against one bare INSERT and COMMIT, in turns,
    on a copy of the large campaign (the ships taking part in the scenario in play). A run takes
    milliseconds and a commit's fsync varies a lot, so `runs` here is --hit-runs (many)."""
    copy = workdir / "hits.db"
    source = sqlite3.connect(large.path)
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()
    engine = make_engine(str(copy))
    factory = session_factory(engine)
    conn = bare_connection(copy)
    profiler = cProfile.Profile() if profile is not None else None
    service: list[float] = []
    bare: list[float] = []
    ships = large.hit_ship_ids
    try:
        for run in range(warmup + runs):
            timed = run >= warmup
            request = damage.HitRequest(ship_id=ships[run % len(ships)], structure=1)
            if profiler is not None and timed:
                profiler.enable()
            started = time.perf_counter()
            damage.record_hit(factory, request=request)
            seconds = time.perf_counter() - started
            if profiler is not None and timed:
                profiler.disable()
            detail = json.dumps({"before": None, "after": None, "dice": None, "changes": []})
            bare_started = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                BARE_INSERT,
                (
                    datetime.now(UTC).isoformat(" "),
                    large.campaign_id,
                    request.ship_id,
                    "bench: one bare insert",
                    detail,
                    new_uid(),
                ),
            )
            conn.execute("COMMIT")
            bare_seconds = time.perf_counter() - bare_started
            if timed:
                service.append(seconds)
                bare.append(bare_seconds)
    finally:
        conn.close()
        engine.dispose()
    if profiler is not None and profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(profile / "record_hit.prof")
    return Figure(
        3,
        "Record one hit vs a bare sqlite3 insert + commit",
        "sqlite3 INSERT+COMMIT",
        median(bare),
        "services.damage.record_hit",
        median(service),
        "s",
        {"bare": bare, "service": service},
    )


def figure_15(large: Built, runs: int, warmup: int) -> Figure:
    """Figure 3 on PostgreSQL, against psycopg (bench/hits_pg.py); skipped without it."""
    title = "Record one hit vs a bare psycopg insert + commit, PostgreSQL"
    samples = hits_pg.measure(large, runs, warmup)
    if isinstance(samples, str):
        return Figure(15, title, "", 0.0, "", 0.0, "s", skipped=samples)
    bare, service = median(samples["bare"]), median(samples["service"])
    return Figure(15, title, "psycopg INSERT+COMMIT", bare, "services.damage.record_hit", service,
                  "s", samples)  # fmt: skip


def figures_8_to_10(
    large: Built, env: dict[str, str], workdir: Path, runs: int, warmup: int
) -> tuple[Figure, Figure, Figure]:
    """A campaign file written and read, against the sqlite3 shell's dump (bench/bulk.py)."""
    samples = bulk.measure(large, env, workdir, ROOT, runs, warmup)
    export = Figure(8, "tracker export vs sqlite3 .dump, large campaign", "sqlite3 .dump",
                    median(samples["dump"]), "tracker export", median(samples["export"]), "s",
                    {"dump": samples["dump"], "export": samples["export"]})  # fmt: skip
    load = Figure(9, "tracker import vs loading the dump into a new file", "sqlite3 < dump",
                  median(samples["load"]), "tracker import", median(samples["import"]), "s",
                  {"load": samples["load"], "import": samples["import"]})  # fmt: skip
    memory = Figure(10, "Peak memory an import adds vs the file's size", "file",
                    samples["size"][0], "import's peak", samples["memory"][0], "KiB",
                    {"size": samples["size"], "memory": samples["memory"]})  # fmt: skip
    return export, load, memory


def figure_14(large: Built, env: dict[str, str], workdir: Path, preset: str) -> Figure:
    """The worse of the two hostile files refused (bench/refused.py): memory against size."""
    found = refused.measure(large, env, workdir, ROOT, preset)
    kind, (size, added, _) = max(found.items(), key=lambda item: item[1][1] / item[1][0])
    samples = {f"{name}: size": [values[0]] for name, values in found.items()}
    samples.update({f"{name}: added": [values[1]] for name, values in found.items()})
    return Figure(14, f"Peak memory a refused import adds vs the file's size (worst: {kind})",
                  "file", size, "refused import's peak", added, "KiB", samples)  # fmt: skip


def figures_6_and_16(small: Built, large: Built, workdir: Path, runs: int) -> tuple[Figure, Figure]:
    """Every CSV import, per row at two sizes and against its bare floor (bench/csv_imports.py)."""
    few, many = small.sizes.csv_rows, large.sizes.csv_rows
    samples = csv_imports.measure(workdir, (few, many), runs)
    found = csv_imports.medians(samples)
    kind = max(found, key=lambda k: found[k][1] / many / (found[k][0] / few))
    growth = Figure(6, f"A CSV import of {many:,} rows vs {few:,}, per row (worst: {kind})",
                    f"{few:,} rows", found[kind][0] / few, f"{many:,} rows",
                    found[kind][1] / many, "s", samples)  # fmt: skip
    kind = max(found, key=lambda k: found[k][1] / found[k][2])
    floor = Figure(16, f"A CSV import of {many:,} rows vs bare csv + executemany (worst: {kind})",
                   "bare", found[kind][2], "tracker import", found[kind][1], "s",
                   samples)  # fmt: skip
    return growth, floor


# --- where the time goes (--profile) -------------------------------------------------------


def _where(file: str, line: int, name: str) -> str:
    for anchor in ("site-packages/", f"{ROOT}/"):
        if anchor in file:
            file = file.split(anchor, 1)[1]
    return f"{file}:{line} {name}" if line else name


def hotspots(path: Path, runs: int, limit: int = 8) -> str:
    """The project's own functions by cumulative time, then any function by its own time;
    milliseconds per timed run."""
    stats: dict[tuple[str, int, str], tuple[int, int, float, float, Any]]
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    ours = sorted(
        (
            (ct, tt, nc, _where(*key))
            for key, (_, nc, tt, ct, _) in stats.items()
            if "/tracker/" in key[0] and "/bench/" not in key[0]
        ),
        reverse=True,
    )
    anyone = sorted(
        ((tt, ct, nc, _where(*key)) for key, (_, nc, tt, ct, _) in stats.items()), reverse=True
    )
    lines = ["  cumulative      own    calls  (per run) the project's functions by cumulative time"]
    lines += [
        f"  {ct / runs * 1000:8.1f} ms {tt / runs * 1000:6.1f} ms {nc / runs:8.0f}  {where}"
        for ct, tt, nc, where in ours[:limit]
    ]
    lines += ["  own time  cumulative   calls  (per run) any function by its own time"]
    lines += [
        f"  {tt / runs * 1000:6.1f} ms {ct / runs * 1000:8.1f} ms {nc / runs:8.0f}  {where}"
        for tt, ct, nc, where in anyone[:limit]
    ]
    return "\n".join(lines)


def startup_profile(large: Built, env: dict[str, str], folder: Path) -> tuple[Path, Path]:
    """The tracker's start up to its first screen (then q) under cProfile; and the import tree
    of the same path (-X importtime), outside a terminal: Textual draws on stderr too."""
    out = folder / "startup.prof"
    terminal = Terminal(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "tracker", "--db",
         str(large.path)], env,
    )  # fmt: skip
    terminal.wait_for(large.campaign_name)
    terminal.quit()
    imports = folder / "startup-imports.txt"
    # What tracker.cli.main imports before the app runs, in its order.
    code = ("import tracker.cli as cli; cli.build_parser(); import tracker.db as db; "
            "db.head_revision(); import tracker.app")  # fmt: skip
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=True)  # fmt: skip
    imports.write_text(done.stderr)
    return out, imports


def import_tree(path: Path, depth: int = 2, at_least_ms: float = 25.0) -> str:
    """The import tree of -X importtime down to `depth`, imports of at least `at_least_ms`."""
    rows = []
    for line in path.read_text().splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( +)(\S+)", line)
        if match is None:
            continue
        level = (len(match.group(3)) - 1) // 2
        cumulative = int(match.group(2)) / 1000
        if level <= depth and cumulative >= at_least_ms:
            rows.append(f"  {cumulative:8.1f} ms  {'  ' * level}{match.group(4)}")
    # -X importtime lists a module after what it imports: reversed, parents come first.
    return "\n".join(reversed(rows))


def memory_by_import(env: dict[str, str]) -> str:
    """Peak memory of a process that only imports each group of modules, for figure 5."""
    # Each group adds to the one before, so each line says what that library costs.
    layers = (
        ("python", "pass"),
        ("+ textual.app (the bare app's floor)", "import textual.app"),
        ("+ sqlalchemy.orm", "import sqlalchemy.orm"),
        ("+ sqlmodel (and pydantic)", "import sqlmodel"),
        ("+ alembic.script (head_revision at each start)", "import alembic.script"),
        ("+ cryptography.fernet", "import cryptography.fernet"),
        ("+ tracker.db, tracker.models, tracker.app", "import tracker.db, tracker.models, "
         "tracker.app"),
        ("+ tracker.cli.build_parser() (every sub-command)",
         "import tracker.cli; tracker.cli.build_parser()"),
    )  # fmt: skip
    groups = [
        (label, "; ".join(code for _, code in layers[: index + 1]))
        for index, (label, _) in enumerate(layers)
    ]
    lines = []
    for label, code in groups:
        # The child reads its own VmHWM: see Terminal.peak_memory.
        probe = (
            f"{code}\nimport re\nprint(re.search(r'VmHWM:\\s+(\\d+)', "
            "open('/proc/self/status').read()).group(1))"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        lines.append(f"{int(done.stdout.split()[-1]) / 1024:8.1f} MiB  {label}")
    return "\n".join(lines)


def profiles(
    figures: dict[int, Figure],
    breakdown: Breakdown | None,
    large: Built,
    env: dict[str, str],
    folder: Path,
    runs: int,
) -> str:
    """A section per figure that misses its goal: where its time (or memory) goes."""
    folder.mkdir(parents=True, exist_ok=True)  # `--only 1`: no worker has made it first
    parts = []
    files_profiled = memory_profiled = csv_profiled = False
    for number, figure in sorted(figures.items()):
        if figure.meets or figure.skipped:
            continue
        parts.append(f"## Figure {number}: {figure.title} ({figure.ratio:.2f}x)")
        if number == 1:
            profile, imports = startup_profile(large, env, folder)
            parts.append(
                "One start of the tracker, to its first screen:\n" + hotspots(profile, 1, 15)
            )
            parts.append("Its imports (-X importtime, cumulative):\n" + import_tree(imports))
        elif number == 2 and breakdown is not None:
            for name, small, large_seconds in breakdown.rows:
                if large_seconds / small > GOALS[2]:
                    path = folder / f"large-{name.replace(' ', '_')}.prof"
                    parts.append(
                        f"### {name}, large campaign ({large_seconds / small:.2f}x)\n"
                        + hotspots(path, runs)
                    )
        elif number == 3:
            hit_runs = len(figure.samples["service"])
            parts.append(hotspots(folder / "record_hit.prof", hit_runs, 12))
        elif number == 4:
            for label in ("large", "small"):
                path = folder / f"{label}-keystroke.prof"
                parts.append(f"### {label} campaign\n{hotspots(path, runs)}")
        elif number == 7:
            parts.append(hotspots(folder / "large-routine.prof", runs))
        elif number == 12:
            parts.append("A start, stage by stage, in one process (bench/start.py):\n"
                         + start.stages(large.path, env))  # fmt: skip
        elif number in (8, 9, 10) and not files_profiled:  # one profile serves the three
            files_profiled = True
            exported, imported = bulk.profile(large, folder.parent, folder)
            parts.append("tracker export, in process:\n" + hotspots(exported, 1, 12))
            parts.append("tracker import, in process:\n" + hotspots(imported, 1, 12))
        elif number in (6, 16) and not csv_profiled:  # the four kinds' imports, one profile
            csv_profiled = True
            rows = [int(count) for count in figure.samples["rows"]]
            done = csv_imports.profile(
                folder.parent, (rows[0], rows[1]), folder / f"csv-{number}.prof"
            )
            parts.append("Each CSV import of the large size, in process:\n" + hotspots(done, 1, 12))
        elif number in (5, 11) and not memory_profiled:  # one list serves the two
            memory_profiled = True
            parts.append(
                "Peak memory (VmHWM) of a process that only imports:\n" + memory_by_import(env)
            )
    return "\n\n".join(parts)


# --- the table -----------------------------------------------------------------------------


def table(figures: dict[int, Figure], breakdown: Breakdown | None) -> str:
    lines = [
        "| # | Figure | Baseline | Measured | Ratio | Goal | Meets? |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for number, figure in sorted(figures.items()):
        if figure.skipped:
            lines.append(f"| {number} | {figure.title} | - | - | - | <= {figure.goal:g}x | "
                         f"skipped: {figure.skipped} |")  # fmt: skip
            continue
        lines.append(
            f"| {number} | {figure.title} | {figure.baseline_label}: "
            f"{figure.show(figure.baseline)} | {figure.measured_label}: "
            f"{figure.show(figure.measured)} | {figure.ratio:.2f}x | <= {figure.goal:g}x | "
            f"{'yes' if figure.meets else 'NO'} |"
        )
    peak = figures.get(5)
    if peak is not None:
        bare = median(peak.samples["bare"])
        lines += [
            "",
            f"Figure 5 against the bare Textual app alone ({peak.show(bare)}): "
            f"{peak.measured / bare:.2f}x.",
        ]
    routine = figures.get(7)
    if routine is not None:
        ms = {part: median(routine.samples[part]) * 1000 for part in ROUTINE_PARTS}
        lines += [
            "",
            f"Figure 7 in parts (large campaign, median): open {ms['open']:.1f} ms, preview "
            f"of the line after its last key {ms['preview']:.1f} ms, record "
            f"{ms['record']:.1f} ms (the process's CPU time over these: {ms['cpu']:.1f} "
            f"ms); every key's preview {ms['typing']:.1f} ms in all, the slowest key "
            f"{ms['slowest_key']:.1f} ms; on the small campaign "
            f"{median(routine.samples['small']) * 1000:.1f} ms in all.",
        ]
    csv = figures.get(16) or figures.get(6)
    if csv is not None:
        lines += csv_imports.lines(csv.samples)
    if breakdown is not None and breakdown.rows:
        lines += [
            "",
            "Figures 2 and 13, screen by screen (key press to screen painted, median; the bare "
            "copy from its push):",
            "",
            "| Screen | Small campaign | Large campaign | Ratio | Bare copy, large | Ratio |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for name, small, large in breakdown.rows:
            bare_seconds = breakdown.bare.get(name)
            versus = "- | -"
            if bare_seconds:
                versus = f"{bare_seconds * 1000:.1f} ms | {large / bare_seconds:.2f}x"
            lines.append(
                f"| {name} | {small * 1000:.1f} ms | {large * 1000:.1f} ms | {large / small:.2f}x "
                f"| {versus} |"
            )
    return "\n".join(lines)


def report(
    figures: dict[int, Figure],
    breakdown: Breakdown | None,
    small: Built,
    large: Built,
    args: argparse.Namespace,
    seconds: float,
    loads: tuple[float, float],
) -> str:
    sqlite = sqlite3.sqlite_version
    return "\n".join(
        [
            "# Benchmark results",
            "",
            f"`python -m bench.run --runs {args.runs} --warmup {args.warmup} --preset "
            f"{args.preset}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, Textual {textual.__version__}, SQLite {sqlite}; "
            f"{seconds:.0f} s in all, load average {loads[0]:.1f} at the start and {loads[1]:.1f} "
            f"at the end. Each figure is the median of {args.runs} runs (after {args.warmup} "
            f"discarded; figure 3: {len(figures[3].samples['service']) if 3 in figures else 0} "
            f"runs; figures 6 and 16: {args.import_runs}, none "
            "discarded), as a ratio to a baseline measured in the same run.",
            "",
            table(figures, breakdown),
            "",
            f"Small campaign: {small.sizes.label()}.  ",
            f"Large campaign: {large.sizes.label()} (generated in {large.seconds:.1f} s).",
            "",
            "How each is measured: see the docstring of bench/run.py; `make bench` runs it.",
            "",
        ]
    )


def build(
    workdir: Path, presets: tuple[Sizes, Sizes], args: argparse.Namespace
) -> tuple[Built, Built]:
    small_sizes = Sizes.parse(args.small, presets[0])
    large_sizes = Sizes.parse(args.large, presets[1])
    built = []
    for label, sizes in (("small", small_sizes), ("large", large_sizes)):
        path = workdir / f"{label}.db"
        print(f"generating the {label} campaign ({sizes.label()})...", flush=True)
        made = generate.generate(path, sizes, seed=args.seed, name=f"Bench {label} campaign")
        print(f"  {made.seconds:.1f} s, {path.stat().st_size / 1e6:.1f} MB", flush=True)
        built.append(made)
    return built[0], built[1]


def run(args: argparse.Namespace, workdir: Path) -> int:
    started = time.perf_counter()
    load = os.getloadavg()[0]
    env = environment(workdir)
    os.environ.update(
        TRACKER_CONFIG_DIR=env["TRACKER_CONFIG_DIR"], XDG_CONFIG_HOME=env["XDG_CONFIG_HOME"]
    )
    small, large = build(workdir, PRESETS[args.preset], args)
    profile = workdir / "profiles" if args.profile else None
    wanted = {int(number) for number in args.only.split(",")} if args.only else set(GOALS)
    figures: dict[int, Figure] = {}
    breakdown: Breakdown | None = None
    steps: list[tuple[set[int], str, Callable[[], None]]]

    def whole() -> None:
        figures[1], figures[5], figures[11], figures[12] = figures_1_5_11_12(
            small, large, env, args.runs, args.warmup
        )

    def screens() -> None:
        nonlocal breakdown
        measured, breakdown = figures_2_and_4(
            small, large, env, workdir, args.runs, args.warmup, profile, wanted
        )
        figures.update(measured)

    def hits() -> None:
        hit_runs = args.hit_runs or HIT_RUNS_PER_RUN * args.runs
        if 3 in wanted:
            figures[3] = figure_3(large, workdir, hit_runs, args.warmup, profile)
        if 15 in wanted:
            figures[15] = figure_15(large, hit_runs, args.warmup)

    def imports() -> None:
        figures[6], figures[16] = figures_6_and_16(small, large, workdir, args.import_runs)

    def files() -> None:
        figures[8], figures[9], figures[10] = figures_8_to_10(
            large, env, workdir, args.runs, args.warmup
        )

    def hostile() -> None:
        figures[14] = figure_14(large, env, workdir, args.preset)

    steps = [
        ({1, 5, 11, 12}, "1, 5, 11 and 12: the whole process, its start and memory", whole),
        ({2, 4, 7, 13}, "2, 4, 7 and 13: screens, the keystroke, the routine hit", screens),
        ({3, 15}, "3 and 15: recording a hit, on SQLite and PostgreSQL", hits),
        ({6, 16}, "6 and 16: CSV imports", imports),
        ({8, 9, 10}, "8, 9 and 10: campaign files, exported and imported", files),
        ({14}, "14: hostile campaign files refused", hostile),
    ]
    for numbers, label, step in steps:
        if numbers & wanted:
            print(f"figure {label}...", flush=True)
            step_started = time.perf_counter()
            step()
            print(f"  {time.perf_counter() - step_started:.1f} s", flush=True)
    for number in set(figures) - wanted:
        del figures[number]
    seconds = time.perf_counter() - started
    text = report(figures, breakdown, small, large, args, seconds, (load, os.getloadavg()[0]))
    print("\n" + text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"written to {args.out}")
    if profile is not None:
        where = profiles(figures, breakdown, large, env, profile, args.runs)
        (workdir / "profiles.txt").write_text(where)
        print("\n# Where the time goes, for each figure that misses its goal\n\n" + where)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (median)")
    parser.add_argument("--warmup", type=int, default=1, help="runs discarded first")
    parser.add_argument(
        "--hit-runs",
        type=int,
        help=f"timed runs of figure 3 (default {HIT_RUNS_PER_RUN} times --runs: each is a few ms)",
    )
    parser.add_argument("--preset", choices=sorted(PRESETS), default="default")
    parser.add_argument("--small", default="", help="size overrides, e.g. ships=20,journal=500")
    parser.add_argument("--large", default="", help="size overrides for the large campaign")
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--only", default="", help="figures to measure, e.g. 2,4")
    parser.add_argument(
        "--import-runs", type=int, default=1,
        help="timed runs of figures 6 and 16 (default 1: each is four imports at two sizes)",
    )  # fmt: skip
    parser.add_argument(
        "--profile", action="store_true", help="profile each figure that misses its goal (cProfile)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="the markdown table")
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep the campaign files and profiles here (default: a temporary "
        "folder, removed afterwards)",
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be 1 or more, --warmup 0 or more")
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        if any(args.workdir.glob("*.db")):
            parser.error(f"{args.workdir} holds campaign files already: give an empty folder")
        return run(args, args.workdir)
    with tempfile.TemporaryDirectory(prefix="tracker-bench-") as folder:
        return run(args, Path(folder))


if __name__ == "__main__":
    sys.exit(main())
