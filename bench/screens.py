"""Figures 2, 4, 7 and 13: a worker that holds the app open on one campaign file and measures what
bench/run.py asks for, so that the small and the large campaign's measurements take turns
(each ratio's two sides then see the same load of the machine).

The app runs under Textual's headless driver (App.run_test), started as the command line
starts it (quiet_gc); keys are posted as the terminal driver posts them. A time runs from the
key to the screen painted with its data and settled: every read the key started has come back
and been shown (the screen's service calls, screens/calls.py), every widget has handled what it
was sent, and the screen has painted it (`settled`, which looks at Textual's state rather than
asking each widget to call back: asking cost 8 ms a time on damage entry). No
`pilot.press`/`pilot.pause`, which sleep 20 ms or more per call and would pad both sides of a
ratio alike.

Waiting polls every millisecond: it once spun on `asyncio.sleep(0)`, which kept the event
loop's thread busy and took the interpreter's lock from the very thread workers whose reads it
waited for (a part of every time measured was the wait's own).

    python -m bench.screens FILE --campaign-id 1 --ship NAME [--profile DIR --label small]

then one JSON command a line on stdin, one JSON answer a line on stdout:

    {"op": "open", "screen": "ledger", "timed": true}    -> {"seconds": 0.41, "open_cpu": 0.3}
    {"op": "damage"}     (the record sheet, then d)       -> {}
    {"op": "keystroke", "timed": true}                    -> {"seconds": 0.05}
    {"op": "routine", "timed": true}  (figure 7)          -> {"seconds": 0.09, "keys": 12, ...}
    {"op": "bare", "screen": "ledger", "timed": true}    -> {"seconds": 0.12}  (figure 13)
    {"op": "quit"}       (profiles written, then exit)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import events
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static, Tree

from bench.bare_copy import Blueprint, copy_of
from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens import calls
from tracker.screens.campaign import CampaignScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.journal import JournalScreen
from tracker.screens.ledger import LedgerScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.repairs import RepairsScreen
from tracker.screens.roster import RosterScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.screens.welcome import WelcomeScreen
from tracker.services import history

SIZE = (120, 40)
TIMEOUT = 60.0
POLL = 0.001  # seconds between two looks of `until`
# Figure 7: the routine hit, typed from the record sheet on the highlighted ship, then the same
# line on the sheet's next ship (the last line's damage, the next ship, Enter).
ROUTINE = "s3 f1 fm+1"
ROUTINE_KEYS = ("d", *("space" if char == " " else char for char in ROUTINE), "enter")
NEXT_SHIP_KEYS = ("ctrl+r", "ctrl+down", "enter")


@dataclass(frozen=True)
class Opening:
    """How a screen is opened from the campaign screen: what is done first (untimed), the key
    that opens it (timed from), the screen it opens, "its data is in", and what is done after
    the key back (escape) to be on the campaign screen as before (untimed)."""

    key: str
    kind: type[Screen[Any]]
    ready: Callable[[Any], bool]
    before: Callable[[TrackerApp], Awaitable[None]] | None = None
    after: Callable[[TrackerApp], Awaitable[None]] | None = None
    back: bool = True  # escape goes back to the campaign screen


def _always(screen: Any) -> bool:
    return True


def _has(name: str) -> Callable[[Any], bool]:
    """The screen's data is in: its attribute `name` is read."""
    return lambda screen: getattr(screen, name) is not None


async def _to_welcome(app: TrackerApp) -> None:
    post_key(app, "escape")
    await until(showing(app, WelcomeScreen))
    await settled(app)


async def _to_campaign(app: TrackerApp) -> None:
    """From the welcome screen, its campaign opened again (enter)."""
    post_key(app, "enter")
    await until(lambda: isinstance(app.screen, CampaignScreen) and app.screen.overview is not None)
    await settled(app)


async def _on_scenario_in_play(app: TrackerApp) -> None:
    """The campaign screen's scenarios focused, the cursor on the one in play (enter opens it)."""
    screen = app.screen
    assert isinstance(screen, CampaignScreen) and screen.overview is not None
    row = next(i for i, s in enumerate(screen.overview.scenarios) if s.status == "in_play")
    table = screen.query_one("#scenario-table", DataTable)
    table.focus()
    table.move_cursor(row=row)
    await settled(app)


async def _on_forces(app: TrackerApp) -> None:
    app.screen.query_one(Tree).focus()
    await settled(app)


# Each screen as a player opens it from the campaign screen (the welcome screen: escape from
# it, which shows the list again; the campaign screen: enter on that list).
OPENINGS: dict[str, Opening] = {
    "welcome": Opening("escape", WelcomeScreen, _always, after=_to_campaign, back=False),
    "campaign": Opening("enter", CampaignScreen, _has("overview"), before=_to_welcome, back=False),
    "record sheet": Opening("enter", RecordSheetScreen, _has("record")),
    "damage entry": Opening("d", DamageEntryScreen, lambda screen: not screen.opening),
    "roster": Opening("f", RosterScreen, _has("view")),
    "ledger": Opening("m", LedgerScreen, _has("view")),
    "journal": Opening("j", JournalScreen, lambda screen: bool(screen.entries)),
    "scenario": Opening("enter", ScenarioScreen, _has("detail"), _on_scenario_in_play, _on_forces),
    "repairs": Opening("r", RepairsScreen, lambda screen: bool(screen.rows)),
}
SCREEN_NAMES = tuple(OPENINGS)


def post_key(app: TrackerApp, key: str) -> None:
    """A key as the terminal driver delivers it."""
    character = key if len(key) == 1 else {"space": " "}.get(key)
    event = events.Key(key, character)
    event.set_sender(app)
    app.post_message(event)


def _quiet(app: TrackerApp) -> bool:
    """Nothing left to do: no service call queued or running, no widget of the screen (nor the
    app) holding a message it has not handled or a callback it has not run, and nothing of the
    screen waiting to be laid out or painted (Textual clears these once it has painted)."""
    if calls.in_flight(app):
        return False
    screen: Any = app.screen
    if (screen._layout_required or screen._repaint_required or screen._scroll_required
            or screen._recompose_required or screen._dirty_widgets):  # fmt: skip
        return False
    for node in (app, *screen.walk_children(with_self=True)):
        if (node._pending_message is not None or not node._message_queue.empty()
                or node._next_callbacks):  # fmt: skip
            return False
    return True


async def settled(app: TrackerApp) -> None:
    """Every service call the app has queued has come back and been handled (one's outcome
    may queue the next), every widget of the screen has handled what it was sent, and the
    screen has painted what changed: twice in a row, with nothing else ready to run on the
    event loop between the two looks (a handler that sends another message, a reload after a
    filter is set, say, is seen).

    It looks at Textual's own state, every millisecond, rather than asking each widget to
    answer a callback and the screen to call back after its next refresh: that asking cost
    8 ms of the process's time on damage entry (30 widgets, twice over), counted in every
    time measured, though the app had finished."""
    loop: Any = asyncio.get_running_loop()
    deadline = time.perf_counter() + TIMEOUT
    looks = 0
    while looks < 2:
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not settle in time")
        if _quiet(app):
            looks += 1
            await asyncio.sleep(0)  # anything queued meanwhile runs before the second look
            if loop._ready:
                looks = 0
            continue
        looks = 0
        await asyncio.sleep(POLL)


def showing(app: TrackerApp, kind: type[Screen[Any]]) -> Callable[[], bool]:
    """Whether the app shows that kind of screen (a condition for until)."""
    return lambda: isinstance(app.screen, kind)


async def until(condition: Callable[[], bool]) -> None:
    deadline = time.perf_counter() + TIMEOUT
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not get there in time")
        await asyncio.sleep(POLL)


@contextmanager
def profiling(profile: cProfile.Profile | None) -> Iterator[None]:
    if profile is not None:
        profile.enable()
    try:
        yield
    finally:
        if profile is not None:
            profile.disable()


async def show(app: TrackerApp, opening: Opening, profile: cProfile.Profile | None) -> float:
    """From the campaign screen: seconds from the key to the screen painted with its data."""
    if opening.before is not None:
        await opening.before(app)
    with profiling(profile):
        started = time.perf_counter()
        post_key(app, opening.key)
        await until(lambda: isinstance(app.screen, opening.kind) and opening.ready(app.screen))
        await settled(app)
        return time.perf_counter() - started


async def leave(app: TrackerApp, opening: Opening) -> None:
    """Back to the campaign screen as it was before `show`."""
    if opening.back:
        post_key(app, "escape")
        await until(showing(app, CampaignScreen))
        await settled(app)
    if opening.after is not None:
        await opening.after(app)


async def open_bare(
    app: TrackerApp,
    blueprints: dict[str, Blueprint],
    name: str,
    opening: Opening,
    profile: cProfile.Profile | None,
) -> float:
    """Seconds from pushing the bare copy of a screen (bench/bare_copy.py) to it painted and
    settled, as `show` times the tracker's; then back. The copy is taken from the tracker's
    screen as `show` shows it (when the worker opened it, else now)."""
    if name not in blueprints:
        await show(app, opening, None)
        blueprints[name] = copy_of(app.screen)
        await leave(app, opening)
    bare = blueprints[name].build()
    with profiling(profile):
        started = time.perf_counter()
        app.push_screen(bare)
        await until(lambda: app.screen is bare)
        await settled(app)
        seconds = time.perf_counter() - started
    app.pop_screen()
    await until(showing(app, CampaignScreen))
    await settled(app)
    return seconds


async def keystroke(
    app: TrackerApp, line: str, key: str, profile: cProfile.Profile | None
) -> float:
    """With `line` typed in damage entry, seconds from one more key to the preview repainted."""
    field = app.screen.query_one("#shorthand", Input)
    preview = app.screen.query_one("#damage-preview", Static)
    field.value = line
    field.cursor_position = len(line)
    await until(lambda: field.value == line)
    await settled(app)
    shown = preview.content
    with profiling(profile):
        started = time.perf_counter()
        post_key(app, key)
        await until(lambda: preview.content is not shown)
        await settled(app)
        return time.perf_counter() - started


async def routine_hit(app: TrackerApp, profile: cProfile.Profile | None) -> dict[str, Any]:
    """From the campaign screen: the first squadron's sheet, the cursor on a ship the routine
    hit does not sink (nor the next one), then the keys a player presses. Timed: the app's own
    share, what the player waits for (damage entry opened, the preview of the line typed
    painted after its last key, the hit recorded and shown), not the player's typing. The keys
    before the last are each answered while the player types the next one: each is timed to
    its own preview painted too, and reported apart ("typing", all of them; "slowest key",
    which must stay under the time between two keys of a typist for the line not to lag).
    Both hits are undone afterwards, so every run finds the same ships."""
    post_key(app, "enter")
    await until(lambda: isinstance(app.screen, RecordSheetScreen) and app.screen.record is not None)
    await settled(app)
    sheet = app.screen
    assert isinstance(sheet, RecordSheetScreen) and sheet.record is not None
    ships = sheet.record.ships
    fit = [s.structure_now > 3 and s.flotation_now > 1 and not s.sunk and not s.condition
           for s in ships]  # fmt: skip
    row = next((i for i in range(len(ships) - 1) if fit[i] and fit[i + 1]), None)
    if row is None:
        raise RuntimeError("no two ships side by side on the first sheet can take the hit")
    sheet.query_one(DataTable).move_cursor(row=row)
    await settled(app)
    parts: dict[str, float] = {}
    # The process's CPU time over the same parts (its threads' too): on a shared machine the
    # wall clock also counts the time the app waited for a core.
    cpu = 0.0
    with profiling(profile):
        cpu_started = time.process_time()
        started = time.perf_counter()
        post_key(app, "d")
        await until(lambda: isinstance(app.screen, DamageEntryScreen))
        await settled(app)
        parts["open"] = time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        entry = app.screen
        field = entry.query_one("#shorthand", Input)
        last = entry.query_one("#last-hit", Static)
        each = []
        for key in ROUTINE_KEYS[1:-1]:
            before = field.value
            cpu_started = time.process_time()
            started = time.perf_counter()
            post_key(app, key)
            await until(lambda before=before: field.value != before)  # type: ignore[misc]
            await settled(app)
            each.append(time.perf_counter() - started)
            last_key_cpu = time.process_time() - cpu_started
        parts["preview"] = each[-1]
        cpu += last_key_cpu
        cpu_started = time.process_time()
        started = time.perf_counter()
        post_key(app, "enter")
        await until(lambda: not last.has_class("-empty"))
        await settled(app)
        parts["record"] = time.perf_counter() - started
        cpu += time.process_time() - cpu_started
    first = str(last.render())
    for key in NEXT_SHIP_KEYS:
        post_key(app, key)
        await settled(app)
    await until(lambda: str(last.render()) != first)
    hit = (ships[row].name in first, ships[row + 1].name in str(last.render()))
    if not all(hit):
        raise RuntimeError(f"the hits did not go to the sheet's ships: {hit}")
    for _ in range(2):
        history.undo_last(app.factory, campaign_id=sheet.record.campaign_id)
    post_key(app, "escape")
    await until(lambda: app.screen is sheet)
    post_key(app, "escape")
    await until(lambda: isinstance(app.screen, CampaignScreen))
    await settled(app)
    return {"seconds": sum(parts.values()), **parts, "typing": sum(each), "cpu": cpu,
            "slowest_key": max(each), "keys": len(ROUTINE_KEYS),
            "next_ship_keys": len(NEXT_SHIP_KEYS)}  # fmt: skip


class Profiles:
    """cProfile over the timed runs only, one file per measurement (when asked for)."""

    def __init__(self, folder: Path | None, label: str) -> None:
        self.folder, self.label = folder, label
        self.profiles: dict[str, cProfile.Profile] = {}

    def of(self, name: str, timed: bool) -> cProfile.Profile | None:
        if self.folder is None or not timed:
            return None
        return self.profiles.setdefault(name, cProfile.Profile())

    def dump(self) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        for name, profile in self.profiles.items():
            profile.dump_stats(self.folder / f"{self.label}-{name.replace(' ', '_')}.prof")


def answer(message: dict[str, Any]) -> None:
    # Straight to the file descriptor: the app redirects sys.stdout while it runs.
    os.write(1, (json.dumps(message) + "\n").encode())


async def command() -> dict[str, Any]:
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    order: dict[str, Any] = json.loads(line) if line.strip() else {"op": "quit"}
    return order


async def to_damage_entry(app: TrackerApp) -> None:
    """From the campaign screen: the first squadron's record sheet, then d."""
    post_key(app, "enter")
    await until(lambda: isinstance(app.screen, RecordSheetScreen))
    await settled(app)
    post_key(app, "d")
    await until(lambda: isinstance(app.screen, DamageEntryScreen))
    await settled(app)


async def serve(args: argparse.Namespace) -> None:
    engine = make_engine(str(args.path))
    factory = session_factory(engine)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=args.campaign_id,
                     quiet_gc=True)  # fmt: skip
    profiles = Profiles(args.profile, args.label)
    blueprints: dict[str, Blueprint] = {}
    # The ship typed by name, as the README shows: `exeter s3`.
    line = (f'"{args.ship}"' if " " in args.ship else args.ship) + " s"
    try:
        async with app.run_test(size=SIZE):
            await until(lambda: isinstance(app.screen, CampaignScreen))
            await until(lambda: app.screen.overview is not None)  # type: ignore[attr-defined]
            await settled(app)
            answer({"ready": True})
            while (order := await command())["op"] != "quit":
                if order["op"] == "open":
                    name = order["screen"]
                    profile = profiles.of(name, order["timed"])
                    cpu = time.process_time()
                    seconds = await show(app, OPENINGS[name], profile)
                    cpu = time.process_time() - cpu
                    # The bare copy (figure 13) of the screen as this opening shows it.
                    if name not in blueprints:
                        blueprints[name] = copy_of(app.screen)
                    await leave(app, OPENINGS[name])
                    answer({"seconds": seconds, "open_cpu": cpu})
                elif order["op"] == "bare":
                    name = order["screen"]
                    profile = profiles.of(f"bare {name}", order["timed"])
                    seconds = await open_bare(app, blueprints, name, OPENINGS[name], profile)
                    answer({"seconds": seconds})
                elif order["op"] == "damage":
                    await to_damage_entry(app)
                    answer({})
                elif order["op"] == "routine":
                    answer(await routine_hit(app, profiles.of("routine", order["timed"])))
                elif order["op"] == "leave":  # damage entry, its line dropped, and the sheet
                    app.screen.query_one("#shorthand", Input).value = ""
                    await settled(app)
                    for back_to in (RecordSheetScreen, CampaignScreen):
                        post_key(app, "escape")
                        await until(showing(app, back_to))
                        await settled(app)
                    answer({})
                elif order["op"] == "keystroke":
                    profile = profiles.of("keystroke", order["timed"])
                    seconds = await keystroke(app, line, "3", profile)
                    preview = str(app.screen.query_one("#damage-preview", Static).render())
                    if args.ship not in preview or "→" not in preview:
                        raise RuntimeError(f"the preview does not show the hit: {preview!r}")
                    answer({"seconds": seconds})
                else:
                    raise ValueError(f"unknown command {order!r}")
            app.exit()
    finally:
        engine.dispose()
    profiles.dump()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.screens",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path)
    parser.add_argument("--campaign-id", type=int, required=True)
    parser.add_argument("--ship", required=True, help="a ship taking part in the scenario in play")
    parser.add_argument("--profile", type=Path, help="write cProfile stats of the timed runs here")
    parser.add_argument("--label", default="screens", help="prefix of the profile files")
    asyncio.run(serve(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
