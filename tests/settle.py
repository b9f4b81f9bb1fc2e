"""Pilot tests wait for the service calls a key started (tracker/screens/calls.py), never for a
fixed time: a key's save or a screen's reload runs in a thread worker, so the database and the
screen are only up to date once the path's workers have finished."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest
import textual._wait
from textual._context import active_app
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerError

from tracker.screens import calls

# Textual's own wait for the screen's pending messages, before the pilot learnt to wait for calls.
WAIT_FOR_SCREEN = Pilot._wait_for_screen
PRESS = Pilot.press
IDLE = textual._wait.wait_for_idle


# A timer due sooner than this is waited for: the screen's repaint and a refresh's callbacks.
DUE_SOON = 0.025

# While a service call runs in its thread, the wait looks again this often.
CALL_POLL = 0.002

# Whether the wait after a key waits for the calls in flight: `keys_do_not_wait` turns it off
# for a test of what the screen does while a call is held.
_calls_waited_for = True

# A screen paints its changes on a timer, 1/60 s apart in the app. The wait after a key waits for
# that paint, about 9 ms on average and nearly a fifth of a pilot test's wall time; in the tests the
# paint comes 5 ms apart (tests/conftest.py). The same paints, sooner: what is painted is unchanged.
SCREEN_UPDATE_PERIOD = 0.001


async def until_quiet(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
    """Textual's wait after a key or a pause (`textual._wait.wait_for_idle`), made exact.

    Textual sleeps in 20 ms slices until one passes with under 1 ms of the process's CPU: at
    least 40 ms a key even when everything is done, and far more on a loaded machine, where the
    suite spent about three quarters of its pilot tests' wall time in those sleeps. Here the
    wait ends once the event loop has twice in a row had nothing ready to run, no service call
    in flight and no timer due within DUE_SOON; a timer due that soon is waited for. It reads
    asyncio's own queues (`_ready`, `_scheduled`), so a loop without them takes Textual's wait.
    """
    loop = asyncio.get_running_loop()
    ready, scheduled = getattr(loop, "_ready", None), getattr(loop, "_scheduled", None)
    if ready is None or scheduled is None:
        return await IDLE(min_sleep, max_sleep)
    start = time.monotonic()
    if min_sleep:
        await asyncio.sleep(min_sleep)
    app = active_app.get(None)
    quiet = 0
    while quiet < 2 and time.monotonic() - start < max_sleep:
        await asyncio.sleep(0)
        if ready:
            quiet = 0
            continue
        if app is not None and _calls_waited_for and calls.in_flight(app):
            # A call runs in its thread: sleep, not spin. Spinning on sleep(0) held the GIL
            # from the very thread it waited for and burnt a core the other worker needed.
            await asyncio.sleep(CALL_POLL)
            quiet = 0
            continue
        due = min((h.when() for h in scheduled if not h.cancelled()), default=None)
        if due is not None and due - loop.time() < DUE_SOON:
            await asyncio.sleep(max(0.0, due - loop.time()))
            quiet = 0
            continue
        quiet += 1
    return None


async def settle(app: App[Any]) -> None:
    """Return once no service call of the app is queued or running; a call's outcome may start
    the next call (a save, then the reload), so this waits until none is left."""
    while workers := calls.in_flight(app):
        with suppress(WorkerError):
            await app.workers.wait_for_complete(workers)


@contextmanager
def keys_do_not_wait() -> Iterator[None]:
    """Within the block a key, a click or a pause waits for the screen, not for the service calls
    in flight (a call the test holds would hold each key for the wait's whole second)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys.modules[__name__], "_calls_waited_for", False)
        patch.setattr(Pilot, "_wait_for_screen", WAIT_FOR_SCREEN)
        yield


def waiting_for_calls(
    wait: Callable[..., Awaitable[bool]],
) -> Callable[..., Awaitable[bool]]:
    """Pilot's wait after a key, a click or a pause, made to wait for the calls it started."""

    async def wait_for_screen(self: Pilot[Any], timeout: float = 30.0) -> bool:
        await settle(self.app)
        return await wait(self, timeout)

    return wait_for_screen


async def press_each(self: Pilot[Any], *keys: str) -> None:
    """Pilot.press, one key at a time: the calls before each key are done when it comes, so
    `press("r", "enter")` opens the repairs and then acts on the rows they read."""
    for key in keys:
        await self.pause()  # the calls, then the refresh their outcome asked for (a cursor)
        await PRESS(self, key)
