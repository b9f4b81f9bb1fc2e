"""The owner's view of a side's secrets, shared by the roster and the minefield ledger.

The opponent view is the default. The owner view needs the side's passphrase (when it has
one), is checked before anything is shown, and falls back to the opponent view after a
minute idle and whenever the screen is left. The umpire's read-only view never shows it.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer

from tracker.screens.base import TrackerScreen
from tracker.screens.form import FieldSpec, FormScreen

OWNER_IDLE_SECONDS = 60.0


class OwnerViewScreen(TrackerScreen):
    """A screen with an owner view: `owner` and `passphrase` are what reload() shows."""

    def __init__(self) -> None:
        super().__init__()
        self.owner = False
        self.passphrase: str | None = None
        self.idle: Timer | None = None

    def on_screen_suspend(self) -> None:
        # Leaving the screen (a form, another screen) hides the secrets again.
        self._hide()

    def _hide(self) -> None:
        self.owner, self.passphrase = False, None
        if self.idle is not None:
            self.idle.stop()
            self.idle = None

    def ask_owner_view(
        self, encrypted: bool, check: Callable[[str], object], title: str = "Owner view"
    ) -> None:
        """Show the owner view, asking for the passphrase when the side has one; `check`
        raises the service's refusal for a wrong one, inside the form, so nothing is shown."""
        if self.refuse_if_read_only():
            return
        if self.owner:
            self._hide()
            self.reload()
            return
        if not encrypted:
            self._show_owner(None)
            return

        def submit(values: dict[str, str]) -> str:
            check(values["passphrase"])
            return values["passphrase"]

        def done(passphrase: str | None) -> None:
            if passphrase:
                self._show_owner(passphrase)

        self.app.push_screen(
            FormScreen(title, [FieldSpec("passphrase", "Side's passphrase", password=True)],
                       submit), done)  # fmt: skip

    def _show_owner(self, passphrase: str | None) -> None:
        if self.refuse_if_read_only():
            return
        self.owner, self.passphrase = True, passphrase
        self.idle = self.set_timer(OWNER_IDLE_SECONDS, self._idle_hide)
        self.reload()

    def _idle_hide(self) -> None:
        self._hide()
        self.reload()
        self.notify("Owner view hidden after a minute idle.")

    def on_key(self) -> None:
        if self.idle is not None:
            self.idle.reset()
