"""A database that stops answering (or a read-only one) is said on screen, never a crash.

Every key's action, event handler and reload of a tracker screen is wrapped once, when its class
is made: a DatabaseUnavailable raised inside becomes a notification, and the screen stays as it
was. Services already roll such a change back whole, so there is nothing to undo here.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from time import monotonic
from typing import Any
from weakref import WeakKeyDictionary

from textual.screen import Screen

from tracker.services.errors import DatabaseUnavailable

GUARDED_PREFIXES = ("action_", "on_")
GUARDED_NAMES = frozenset({"reload"})


SAY_AGAIN_AFTER = 10.0  # seconds: the same message is not stacked while it is still shown
_said: WeakKeyDictionary[Any, tuple[str, float]] = WeakKeyDictionary()


def say(screen: Screen[Any], exc: DatabaseUnavailable) -> None:
    """Tell the player what happened to the database; a message still on screen is not
    repeated however many keys meet the same trouble."""
    message = "\n".join(exc.errors.values())
    last = _said.get(screen.app)
    now = monotonic()
    if last is not None and last[0] == message and now - last[1] < SAY_AGAIN_AFTER:
        return
    _said[screen.app] = (message, now)
    screen.notify(message, title="Database", severity="error", timeout=SAY_AGAIN_AFTER)


def guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """The method, with DatabaseUnavailable turned into a notification."""
    if getattr(method, "_database_guard", False):
        return method
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def run_async(self: Screen[Any], *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(self, *args, **kwargs)
            except DatabaseUnavailable as exc:
                say(self, exc)
                return None

        run_async._database_guard = True  # type: ignore[attr-defined]
        return run_async

    @functools.wraps(method)
    def run(self: Screen[Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except DatabaseUnavailable as exc:
            say(self, exc)
            return None

    run._database_guard = True  # type: ignore[attr-defined]
    return run


def guard_class(cls: type) -> None:
    """Wrap the actions, handlers and reload the class itself defines."""
    for name, value in list(vars(cls).items()):
        if not inspect.isfunction(value):
            continue
        if name.startswith(GUARDED_PREFIXES) or name in GUARDED_NAMES:
            setattr(cls, name, guarded(value))
