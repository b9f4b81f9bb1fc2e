"""A checkbox that shows ticked and unticked by a mark, not only by a colour."""

from __future__ import annotations

from typing import Any

from textual.widgets import Checkbox

TICKED = "✓"
UNTICKED = " "


class TickBox(Checkbox):
    """Textual's checkbox shows the same X ticked or not, in another colour: a player who does
    not tell the colours apart (or a terminal without them) cannot see which it is. This one
    shows ✓ when ticked and an empty box when not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.BUTTON_INNER = TICKED if self.value else UNTICKED

    def watch_value(self) -> None:
        self.BUTTON_INNER = TICKED if self.value else UNTICKED
        super().watch_value()
        self.refresh()
