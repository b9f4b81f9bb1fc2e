"""Pilot tests wait for the service calls a key started (tracker/screens/calls.py), never for a
fixed time: a key's save or a screen's reload runs in a thread worker, so the database and the
screen are only up to date once the path's workers have finished."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerError

from tracker.screens import calls

# Textual's own wait for the screen's pending messages, before the pilot learnt to wait for calls.
WAIT_FOR_SCREEN = Pilot._wait_for_screen
PRESS = Pilot.press


async def settle(app: App[Any]) -> None:
    """Return once no service call of the app is queued or running; a call's outcome may start
    the next call (a save, then the reload), so this waits until none is left."""
    while workers := calls.in_flight(app):
        with suppress(WorkerError):
            await app.workers.wait_for_complete(workers)


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
