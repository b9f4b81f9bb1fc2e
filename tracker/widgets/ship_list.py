"""Damage entry's finder: the ships a typed name matches, to pick one with up, down and enter."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tracker.services.damage import ShipPick


class ShipList(OptionList):
    """A list of ships, each option's id the ship's.

    OptionList forgets every option it has drawn on any resize. Its lines only depend on the
    width they are wrapped to, so a list made shorter (when the result of the first hit appears
    above it) keeps them: it was drawn a second time, after the screen had already been drawn
    at the new size."""

    _drawn_width: int | None = None

    def __init__(self, *content: Any, **kwargs: Any) -> None:
        super().__init__(*content, **kwargs)
        self.listed: list[ShipPick] | None = []  # the ships listed (None: only some of them)

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width == self._drawn_width:
            event.prevent_default()  # OptionList's own handler, which forgets the lines
        self._drawn_width = width

    def show(self, picks: list[ShipPick]) -> None:
        """The ships found. The same ships (the damage typed after a name, a line after a hit)
        are left as they are, not filled and drawn again, as clearing the list would have left
        it."""
        if picks == self.listed:
            self.rewind()
            return
        self.set_options(
            Option(Text(f"{p.name}{'  (sunk)' if p.sunk else ''}  ·  {p.squadron}"), id=str(p.id))
            for p in picks
        )
        self.listed = picks

    def ask(self, picks: list[ShipPick]) -> None:
        """Only the ships a name matches alike, the cursor on the first, to pick one."""
        self.set_options(Option(Text(f"{p.name}  ·  {p.squadron}"), id=str(p.id)) for p in picks)
        self.listed = None
        self.highlighted = 0
        self.focus()

    def rewind(self) -> None:
        """No ship highlighted, the first in sight."""
        self.highlighted = None
        self.scroll_y = 0
