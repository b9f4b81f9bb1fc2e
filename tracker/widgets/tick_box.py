"""A checkbox that shows ticked and unticked by a mark, not only by a colour."""

from __future__ import annotations

from typing import Any, TypeVar

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

T = TypeVar("T")

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


class TickList(SelectionList[T]):
    """A list to tick from, each line's box showing ✓ when ticked and empty when not (Textual's
    own shows the same X either way, in another colour)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != Checkbox.BUTTON_INNER:
            return strip
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        mark = TICKED if selection.value in self.selected else UNTICKED
        segments[1] = Segment(mark, segments[1].style)
        return Strip(segments, strip.cell_length)
