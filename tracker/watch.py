"""Other players' changes reach the screen by themselves, and a lost database is reported.

Every few seconds a thread worker reads a change mark (services.history.change_mark: the newest
journal entry and the campaigns); when another program has moved it, the screen on top reads
its data again. The read runs off the event loop, so a database server that does not answer
never freezes the keyboard; losing it, and getting it back, is said once each.
"""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING, Any

from textual.app import App

from tracker.services.errors import DatabaseUnavailable, NotFound

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory

WATCH_SECONDS = 2.0


class ChangeWatch:
    """Polls the database for the app and reloads its top screen when something changed."""

    def __init__(self, app: App[Any], factory: SessionFactory, seconds: float) -> None:
        self.app = app
        self.factory = factory
        self.mark: tuple[int, int, int] | None = None
        self.lost = False
        # Counts the screen's own reloads: a look begun before one is out of date.
        self.reloads = 0
        app.set_interval(seconds, self.check, name="change-watch")

    def check(self) -> None:
        # exit_on_error off: a look that fails (the app closing meanwhile) never ends the app.
        self.app.run_worker(
            self._read, thread=True, exclusive=True, group="change-watch", exit_on_error=False
        )

    def screen_reloaded(self) -> None:
        """The screen on top has just read its data (after the player's own change, say): what
        the database holds now is on screen, so only a later change calls for a reload."""
        from tracker.services import history

        self.reloads += 1
        with suppress(DatabaseUnavailable):  # the next look says so
            self.mark = history.change_mark(self.factory)

    def lost_database(self) -> None:
        """A screen's service call found the database unavailable and said so: the next look
        that reaches it says that it answers again."""
        self.lost = True

    def _read(self) -> None:
        from tracker.services import history

        begun = self.reloads
        try:
            mark = history.change_mark(self.factory)
        except DatabaseUnavailable as exc:
            self.app.call_from_thread(self._unavailable, "\n".join(exc.errors.values()))
            return
        self.app.call_from_thread(self._seen, mark, begun)

    def _unavailable(self, message: str) -> None:
        if not self.lost:
            self.lost = True
            self.app.notify(message, title="Database", severity="error", timeout=15)

    def _seen(self, mark: tuple[int, int, int], begun: int) -> None:
        back = self.lost
        if back:
            self.lost = False
            self.app.notify("The database answers again.", title="Database")
        elif begun != self.reloads:
            return  # the screen read the database after this look began: nothing new here
        if self.mark is not None and (mark != self.mark or back):
            self._reload_top()
        self.mark = mark

    def _reload_top(self) -> None:
        screen = self.app.screen
        reload = getattr(screen, "reload", None)
        if reload is None or not screen.is_mounted:
            # A form or a dialog (its screen reads again when it closes), or a screen not yet
            # composed or already closing.
            return
        try:
            reload()
        except NotFound as exc:
            self.app.notify(f"{exc}: another player removed it; going back", severity="warning")
            screen.dismiss()
        except DatabaseUnavailable as exc:
            self._unavailable("\n".join(exc.errors.values()))
