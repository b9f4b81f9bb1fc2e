"""The owner's view of a side's secrets, shared by the roster and the minefield ledger.

The opponent view is the default. The owner view needs the side's passphrase (when it has
one), is checked before anything is shown, and falls back to the opponent view after the
campaign's idle time (a minute unless the campaign says otherwise) and whenever another screen
takes its place; a dialog of its own actions (a move, an attack) keeps it. The umpire's
read-only view never shows it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.screen import ModalScreen
from textual.timer import Timer

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec

SIDE_PASSPHRASE = FieldSpec("passphrase", "Side's passphrase", password=True)
OWNER_IDLE_SECONDS = 60.0
IDLE_CHECK_SECONDS = 1.0  # how often the idle time is looked at: the view hides within a second


class OwnerViewScreen(TrackerScreen):
    """A screen with an owner view: `owner` and `passphrase` are what reload() shows."""

    def __init__(self) -> None:
        super().__init__()
        self.owner = False
        self.passphrase: str | None = None
        self.owner_side_id: int | None = None  # the side whose secrets show, where it is chosen
        self.idle: Timer | None = None
        # The clock the idle time is measured by: tests drive their own.
        self.clock: Callable[[], float] = time.monotonic
        self.last_active = 0.0

    def owner_idle_seconds(self) -> float:
        """Seconds without a key before the owner view hides: the campaign's option, as the
        screen's `view` read it."""
        view = getattr(self, "view", None)
        return float(view.owner_idle_seconds) if view is not None else OWNER_IDLE_SECONDS

    def on_screen_suspend(self) -> None:
        # Another screen in its place hides the secrets; a dialog over it (a move, an attack on
        # the marker under the cursor) is part of the owner's work and keeps them.
        if not isinstance(self.app.screen, ModalScreen):
            self._hide()
        self.last_active = self.clock()

    def on_screen_resume(self) -> None:
        # Textual calls the base class's handler too (it reloads): this one only notes the time.
        self.last_active = self.clock()

    def action_back(self) -> None:
        self._hide()
        self.dismiss()

    def _hide(self) -> None:
        self.owner, self.passphrase = False, None
        if self.idle is not None:
            self.idle.stop()
            self.idle = None

    def ask_owner_view(
        self, check: Callable[..., Call[Any]], fields: list[FieldSpec], **form: Any
    ) -> None:
        """Hide the owner view, or show it once the form's `fields` are answered (the passphrase
        and, where it is chosen, the side; none asked when the side has no passphrase): `check`
        is the call whose refusal of a wrong passphrase is said inside the form, so nothing is
        shown."""
        if self.refuse_if_read_only():
            return
        if self.owner:
            self._hide()
            self.reload()
            return
        if not fields:
            self._show_owner(None)
            return

        def submit(values: dict[str, Any]) -> Call[dict[str, Any]]:
            return check(**values).map(lambda _read: values)

        def done(values: dict[str, Any] | None) -> None:
            if values is not None:
                self.owner_side_id = values.get("side_id", self.owner_side_id)
                self._show_owner(values["passphrase"] or None)

        self.open_form("Owner view", fields, submit, done=done, **form)

    def calling_secret(
        self, service: Callable[..., Any], /, **fixed: Any
    ) -> Callable[[dict[str, Any]], Call[Any]]:
        """A form's submit (as `calling` makes) with the passphrase the form asked for, else
        the owner view's."""
        call = self.calling(service, **fixed)
        return lambda values: call({**values, "passphrase": self.passphrase_of(values)})

    def passphrase_of(self, values: dict[str, Any]) -> str | None:
        return values.pop("passphrase", None) or self.passphrase

    def _show_owner(self, passphrase: str | None) -> None:
        if self.refuse_if_read_only():
            return
        self.owner, self.passphrase = True, passphrase
        self.last_active = self.clock()
        if self.idle is None:
            self.idle = self.set_interval(IDLE_CHECK_SECONDS, self.hide_if_idle)
        self.reload()

    def hide_if_idle(self) -> None:
        if not self.owner or self.app.screen is not self:
            return  # a dialog of the owner's is open: the owner is at work
        seconds = self.owner_idle_seconds()
        if self.clock() - self.last_active < seconds:
            return
        self._hide()
        self.reload()
        self.notify(f"Owner view hidden after {seconds:g} s idle.")

    def on_key(self) -> None:
        self.last_active = self.clock()
