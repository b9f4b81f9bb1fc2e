"""The one path a screen's service calls take: off the event loop, with one handler for the outcome.

A screen never calls a service itself. It hands `run` a `Call` (the service and its arguments)
and what to do with the result; the call runs in a Textual thread worker, so a slow database or
a 275-unit import never freezes the keys, and its outcome comes back on the UI thread:

- the result, to the screen's `then`;
- the player's errors (InvalidInput, NotFound, a row another player changed meanwhile, and what
  the screen says it expects, such as a file it cannot read), to the screen's `refused`, else
  to one notification;
- an unavailable database (DatabaseUnavailable, matched by its own class before the player's
  errors), to one notification that is not repeated while it is shown, and to the change watch,
  which says when the database answers again;
- anything else, to the crash report (crash_log) and a non-zero exit.

Ordering: each screen has one queue, and its calls run one at a time in the order asked, so two
saves (or a save and the reload after it) from the same screen never race. Screens differ in
queues: one screen's long import does not hold up another's reads.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from time import monotonic
from typing import Any, Generic, TypeVar
from weakref import WeakKeyDictionary

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker

from tracker import compat
from tracker.services.errors import (
    ChangedElsewhere,
    DatabaseUnavailable,
    InvalidInput,
    NotFound,
    ReadOnlyDatabase,
)
from tracker.services.text_files import Unreadable

T = TypeVar("T")
U = TypeVar("U")
E = TypeVar("E", bound=Exception)

# The thread workers of the path, by this group: tests wait for them (tests/screens/settle.py).
GROUP = "service-calls"
SAY_AGAIN_AFTER = 10.0  # seconds: the same message is not stacked while it is still shown
PLAYERS_ERRORS: tuple[type[Exception], ...] = (ChangedElsewhere, InvalidInput, NotFound)


class Call(Generic[T]):
    """A service call not made yet: `Call(fleet.add_ship, factory, name="Exeter")`."""

    def __init__(self, service: Callable[..., T], /, *args: Any, **kwargs: Any) -> None:
        self.service = service
        self.args = args
        self.kwargs = kwargs
        self.after: Callable[[Any], Any] | None = None
        self.turns: tuple[tuple[type[Exception], Callable[[Any], Exception]], ...] = ()

    def map(self, after: Callable[[T], U]) -> Call[U]:
        """The same call, its result turned by `after` on the UI thread once it is back (the
        words a form's caller shows for it)."""
        mapped: Call[U] = Call(self.service, *self.args, **self.kwargs)  # type: ignore[arg-type]
        before = self.after
        mapped.after = after if before is None else (lambda result: after(before(result)))
        mapped.turns = self.turns
        return mapped

    def turning(self, kind: type[E], into: Callable[[E], Exception]) -> Call[T]:
        """The same call, an error of `kind` it raises turned by `into` into the one its caller
        expects (a file that exists, into a form's question whether to replace it)."""
        turned = self.map(lambda result: result)
        turned.turns = (*self.turns, (kind, into))
        return turned

    def turned(self, error: Exception) -> Exception:
        """The error the caller hears for `error`: turned by the first `turning` it matches."""
        for kind, into in self.turns:
            if isinstance(error, kind):
                said = into(error)
                said.__cause__ = error
                return said
        return error

    def __repr__(self) -> str:
        return f"Call({getattr(self.service, '__qualname__', self.service)!r})"


Refused = Callable[[Exception], None]


@dataclass(eq=False)
class _Asked:
    """One call in a screen's queue, with what to do with its outcome."""

    call: Call[Any]
    then: Callable[[Any], object] | None
    refused: Refused | None
    expected: tuple[type[Exception], ...]
    shows: Widget | None


_queues: WeakKeyDictionary[Screen[Any], deque[_Asked]] = WeakKeyDictionary()
_said: WeakKeyDictionary[App[Any], tuple[str, float]] = WeakKeyDictionary()
# The database as last found unavailable, for an act refused for what it left unread (missing).
_lost: WeakKeyDictionary[App[Any], DatabaseUnavailable] = WeakKeyDictionary()


def run(
    screen: Screen[Any],
    call: Call[T],
    *,
    then: Callable[[T], object] | None = None,
    refused: Refused | None = None,
    expected: tuple[type[Exception], ...] = (),
    busy: Widget | None = None,
) -> None:
    """Queue `call` on the screen's queue; `then(result)` runs on the UI thread once it is done,
    `refused(error)` gets the player's errors (and `expected` ones) instead of a notification,
    and `busy` shows a loading indicator while it runs (the rest of the screen answers keys)."""
    queue = _queues.setdefault(screen, deque())
    queue.append(_Asked(call, then, refused, expected, busy))
    if len(queue) == 1:
        _start(screen, queue[0])


def busy(screen: Screen[Any]) -> bool:
    """Whether the screen's queue holds a call: a second import is not started meanwhile."""
    return bool(_queues.get(screen))


def in_flight(app: App[Any]) -> list[Worker[Any]]:
    """The path's workers not finished yet (tests wait for them)."""
    return [worker for worker in app.workers if worker.group == GROUP and not worker.is_finished]


def _start(screen: Screen[Any], asked: _Asked) -> None:
    if asked.shows is not None:
        asked.shows.loading = True
    app = screen.app

    def work() -> None:
        call = asked.call
        try:
            result = call.service(*call.args, **call.kwargs)
        except Exception as error:  # every error has its handler on the UI thread
            outcome: tuple[Any, Exception | None] = (None, call.turned(error))
        else:
            outcome = (result, None)
        # An app already closing has no one left to tell.
        with suppress(RuntimeError):
            app.call_from_thread(_deliver, screen, asked, *outcome)

    # On the app, not the screen: a form that closes while its save runs still hears the end.
    app.run_worker(work, name=repr(asked.call), group=GROUP, thread=True, exit_on_error=False)


def _deliver(screen: Screen[Any], asked: _Asked, result: Any, error: Exception | None) -> None:
    """On the UI thread; then the screen's next call starts."""
    queue = _queues.get(screen)
    if asked.shows is not None:
        asked.shows.loading = False
    # The call stays first in the queue while its outcome is handled: a call the handler asks
    # for (the reload after a save) waits behind it, and is started once, below.
    try:
        if error is not None:
            _handle(screen, asked, error)
        elif asked.then is not None and _present(screen):
            after = asked.call.after
            asked.then(after(result) if after is not None else result)
    except Exception as late:  # raised by the screen's own handler
        _handle(screen, asked, late, player=False)
    if queue and queue[0] is asked:
        queue.popleft()
    if queue:
        _start(screen, queue[0])


def _handle(screen: Screen[Any], asked: _Asked, error: Exception, *, player: bool = True) -> None:
    """Route an error: the player's to the screen, the database's to one notification, any
    other to the crash report."""
    if player and isinstance(error, (ChangedElsewhere, *asked.expected)):
        _refuse(screen, asked, error)
    elif isinstance(error, DatabaseUnavailable):
        unavailable(screen.app, error)
    elif player and isinstance(error, PLAYERS_ERRORS):
        _refuse(screen, asked, error)
    else:
        # TrackerApp writes the crash's log; Textual ends the app with status 1.
        compat.crash(screen.app, error)


def _present(screen: Screen[Any]) -> bool:
    """Whether the screen is still there to show an outcome: a screen closed while its call
    ran (escape on a slow read) has no widgets left to fill, and nothing to show."""
    stacks = compat.screen_stacks(screen.app)
    return screen.is_attached and not compat.closing(screen) and any(screen in s for s in stacks)


def _refuse(screen: Screen[Any], asked: _Asked, error: Exception) -> None:
    if asked.refused is not None and _present(screen):
        asked.refused(error)
    else:
        screen.app.notify(message(error), severity="error")


def message(error: Exception, between: str = "\n") -> str:
    """What the player reads for an error: each of a refusal's messages, `between` them."""
    if isinstance(error, InvalidInput):
        return between.join(error.errors.values())
    return str(error)


def missing(screen: Screen[Any], said: str) -> None:
    """Refuse an act for lack of what the screen's calls should have read (`said` tells what
    is missing); while the database does not answer (the change watch has not seen it answer
    since a call found it unavailable), that is what is said instead."""
    app = screen.app
    lost = _lost.get(app)
    if lost is not None and getattr(getattr(app, "change_watch", None), "lost", True):
        unavailable(app, lost)
    else:
        app.notify(said, severity="warning", markup=False)


def tell_unavailable(app: App[Any], error: Exception) -> bool:
    """Tell the player, as `unavailable` does, when `error` says the database did not answer (a
    row another player changed is the player's to hear, not the database's); whether it did."""
    if isinstance(error, DatabaseUnavailable) and not isinstance(error, ChangedElsewhere):
        unavailable(app, error)
        return True
    return False


def unavailable(app: App[Any], error: DatabaseUnavailable) -> None:
    """Tell the player the database did not answer: once while the message is still shown,
    and to the change watch, which says so once more when it answers again."""
    text = message(error)
    if not isinstance(error, ReadOnlyDatabase):  # the umpire's view reads as well as ever
        _lost[app] = error
    watch = getattr(app, "change_watch", None)
    if watch is not None:
        watch.lost_database()
    last = _said.get(app)
    now = monotonic()
    if last is not None and last[0] == text and now - last[1] < SAY_AGAIN_AFTER:
        return
    _said[app] = (text, now)
    app.notify(text, title="Database", severity="error", timeout=SAY_AGAIN_AFTER)


def read_then(
    screen: Screen[Any], read: Call[bytes], then: Callable[[bytes], object],
    unreadable: Callable[[str], object],
) -> None:  # fmt: skip
    """Read a file a player named through the path (off the UI thread, as every call), then
    hand its bytes on; a file never read (a name too long, a folder, a FIFO, too large) is
    said by `unreadable` in the reader's own words."""

    def refused(error: Exception) -> None:
        unreadable(error.why if isinstance(error, Unreadable) else message(error, "; "))

    run(screen, read, then=then, refused=refused)
