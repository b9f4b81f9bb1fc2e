"""Text whose new content lays the screen out again only when it needs another size."""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


class SteadyText(Static):
    """A Static that lays the screen out again only when its new text needs another height.

    Static.update lays out the whole screen on every new text, in case the widget's size
    follows it; on damage entry that was every key (the preview) and every hit (the result,
    the dice). Sized by its styles alone (`height: 1fr`), a new text only repaints the box;
    sized by its text (`height: auto`), the screen is laid out again when the text wraps to
    another number of lines at the width the box has now, and not otherwise. A width that
    follows the text (`width: auto`) lays out every time, as Static does.
    """

    def update(self, content: VisualType = "", *, layout: bool | None = None) -> None:
        height = self.content_size.height
        super().update(content, layout=False)
        if layout is None:
            layout = self._needs_layout(height)
        if layout:
            self.refresh(layout=True)

    def _needs_layout(self, height: int) -> bool:
        styles = self.styles
        if styles.width is not None and styles.width.is_auto:
            return True
        if styles.height is not None and not styles.height.is_auto:
            return False  # the styles fix the height (1fr, a number): the text does not
        width = self.content_size.width
        if not self.is_mounted or not self.display or not width:
            return True  # not laid out yet: the next layout measures it anyway
        # A text's height at a width (the container is not read for text): a min- or
        # max-height may make the box keep its height all the same, laid out once for nothing.
        return self.get_content_height(self.size, self.app.size, width) != height
