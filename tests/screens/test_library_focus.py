"""The library's focus: it opens on the unit cards, the table on top, so a filter typed at once
filters the cards; tab moves down to the ship classes and back, and the table the keys go to is
the one marked."""

from __future__ import annotations

from pathlib import Path

from library_app import app_with_library

from tracker.screens.library import LibraryScreen
from tracker.widgets.search_table import SearchTable


def _border(table: SearchTable) -> object:
    return table.styles.border_top[1]  # its colour


async def test_the_library_opens_on_the_cards_and_tab_moves_to_the_classes(
    tmp_path: Path,
) -> None:
    app = app_with_library(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("l", "slash", *"japan", "enter")
        screen = app.screen
        assert isinstance(screen, LibraryScreen)
        cards = screen.query_one("#card-table", SearchTable)
        classes = screen.query_one("#class-table", SearchTable)
        assert cards.has_focus and cards.query_text == "japan"
        assert cards.region.y < classes.region.y  # the table typed into is the one on top
        marked, unmarked = _border(cards), _border(classes)
        assert marked != unmarked
        await pilot.press("tab", "slash", *"class 7", "enter")
        assert classes.has_focus and classes.query_text == "class 7"
        assert (_border(classes), _border(cards)) == (marked, unmarked)  # the mark moved
        await pilot.press("tab")
        assert cards.has_focus and _border(cards) == marked
