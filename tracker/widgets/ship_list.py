"""A list of options that is drawn again on a resize only when its lines' width changed."""

from __future__ import annotations

from textual import events
from textual.widgets import OptionList


class ShipList(OptionList):
    """OptionList forgets every option it has drawn on any resize. Its lines only depend on
    the width they are wrapped to, so a list made shorter (damage entry's finder, when the
    result of the first hit appears above it) keeps them: it was drawn a second time, after the
    screen had already been drawn at the new size."""

    _drawn_width: int | None = None

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width == self._drawn_width:
            event.prevent_default()  # OptionList's own handler, which forgets the lines
        self._drawn_width = width
