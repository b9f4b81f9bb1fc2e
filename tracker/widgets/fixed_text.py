"""Text in a box whose size the styles fix, not the text."""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


class FixedText(Static):
    """A Static sized by its styles alone (`width: 1fr; height: 1fr`): a new text repaints
    the box without laying out the whole screen again (Static.update does, in case its size
    follows its text), which damage entry's preview did on every key."""

    def update(self, content: VisualType = "", *, layout: bool = False) -> None:
        super().update(content, layout=layout)
