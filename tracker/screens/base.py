"""What every tracker screen shares: the session factory and the dice of the running app."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from textual.screen import Screen

from tracker.rules.dice import Dice
from tracker.services.common import SessionFactory
from tracker.services.errors import NotFound


class TrackerScreen(Screen[Any]):
    """A screen that reads and writes through services, with the app's factory and dice."""

    # Keys a widget of the screen handles (enter on a table row): listed in help too.
    HELP_EXTRA: ClassVar[list[tuple[str, str]]] = []

    @property
    def factory(self) -> SessionFactory:
        factory: SessionFactory = getattr(self.app, "factory")  # noqa: B009 (app type lives above)
        return factory

    @property
    def rng(self) -> random.Random:
        rng: random.Random = getattr(self.app, "rng")  # noqa: B009
        return rng

    @property
    def dice(self) -> Dice:
        dice: Dice = getattr(self.app, "dice")  # noqa: B009
        return dice

    def current_campaign_id(self) -> int | None:
        """The campaign the screen shows: undo and redo (ctrl+z, ctrl+y) act on it."""
        campaign_id = getattr(self, "campaign_id", None)
        return campaign_id if isinstance(campaign_id, int) else None

    def on_screen_resume(self) -> None:
        try:
            self.reload()
        except NotFound as exc:
            self.notify(f"{exc}: going back", severity="error")
            self.dismiss()

    def reload(self) -> None:
        """Read the screen's data again from the services and redraw it."""
