"""Pick an entry of the library: a search line over a table, enter picks the highlighted row.

The library's card and class pickers (card_picker.py, class_picker.py) share it: the search is
literal text in any case, every word of it in one of the entry's searched texts, and the keys
are the same (type to search, up and down choose, enter picks, escape closes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from tracker.screens import calls
from tracker.screens.calls import Call
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import refill, under_cursor
from tracker.widgets.tones import ALERT, toned

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory


def search_words(query: str) -> list[str]:
    """The words of a search, each matched as typed (any case): `%`, `_` and `[` are letters."""
    return query.casefold().split()


def matches(words: Iterable[str], *texts: object) -> bool:
    """Whether every word is in one of the texts (a card's name, nation, type, year)."""
    joined = " ".join("" if text is None else str(text) for text in texts).casefold()
    return all(word in joined for word in words)


class PickerScreen(ModalScreen[Any]):
    """The library's entries (`entries()`), searched by `searched(entry)`; enter calls
    `picked(entry)` on the highlighted one."""

    # (label, width): the widths fit the table in an 80-column window; longer text is cut.
    COLUMNS: ClassVar[tuple[tuple[str, int], ...]] = ()
    WHAT: ClassVar[str] = "entries"  # the table's title: "Cards: 12 of 300"
    SEARCHED: ClassVar[str] = "name, nation, type, year"
    EMPTY: ClassVar[str] = "The library is empty."
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("down", "cursor(1)", "Next", show=False),
        Binding("up", "cursor(-1)", "Previous", show=False),
        Binding("pagedown", "cursor(10)", "Ten down", show=False),
        Binding("pageup", "cursor(-10)", "Ten up", show=False),
    ]

    def __init__(self, factory: SessionFactory, title: str) -> None:
        super().__init__()
        self.factory = factory
        self.heading = title
        self.entries: Sequence[Any] = ()
        self.shown: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog"):
            yield Label(self.heading, id="picker-title", markup=False)
            yield Static("", id="picker-heading", markup=False)
            yield Input(placeholder=f"search: {self.SEARCHED}", id="picker-search")
            yield PlainTable(id="picker-rows", cursor_type="row", zebra_stripes=True)
            yield Static("", id="picker-said", markup=False)
            yield Static(f"type to search ({self.SEARCHED}) · ↑↓ choose · enter picks · "
                         "escape closes", classes="caption", markup=False)  # fmt: skip

    def on_mount(self) -> None:
        table = self.query_one("#picker-rows", PlainTable).add_sized_columns(self.COLUMNS)
        table.border_title = self.WHAT.capitalize()
        self.query_one("#picker-search", Input).focus()
        calls.run(self, self.entries_call(), then=self._entries, busy=table)

    def entries_call(self) -> Call[Sequence[Any]]:
        """The service call that reads the entries."""
        raise NotImplementedError

    def row(self, entry: Any) -> list[Any]:
        """The entry's cells."""
        raise NotImplementedError

    def searched(self, entry: Any) -> tuple[object, ...]:
        """The entry's texts a search looks in."""
        raise NotImplementedError

    def picked(self, entry: Any) -> None:
        """Enter on the entry."""
        raise NotImplementedError

    def show_heading(self) -> None:
        """The line above the search: what the pick would do (the budget, say)."""

    def _entries(self, entries: Sequence[Any]) -> None:
        self.entries = entries
        if not entries:
            self.say(toned(f"{self.EMPTY} Import one first (tracker library import FILE).",
                           ALERT))  # fmt: skip
        self._filter()

    @on(Input.Changed, "#picker-search")
    def _searched(self) -> None:
        """A new search highlights its first match: Enter never picks a row the cursor kept
        from the search before, lower down the new list."""
        self._filter()
        if self.shown:
            self.query_one("#picker-rows", DataTable).move_cursor(row=0, animate=False)
            self.show_heading()

    def kept(self, entry: Any) -> bool:
        """Whether the entry is offered before any search (all of them, unless a picker narrows
        the list: the card picker to the side's nation)."""
        return True

    def ordered(self, entries: list[Any]) -> list[Any]:
        """The entries in the order the table shows them (as read, unless a picker sorts)."""
        return entries

    def _filter(self) -> None:
        words = search_words(self.query_one("#picker-search", Input).value)
        found = [entry for entry in self.entries if self.kept(entry)]
        self.shown = self.ordered(
            [entry for entry in found if matches(words, *self.searched(entry))]
        )
        table = self.query_one("#picker-rows", DataTable)
        refill(table, ((str(entry.id), self.row(entry)) for entry in self.shown))
        table.border_title = f"{self.WHAT.capitalize()}: {len(self.shown)} of {len(self.entries)}"
        self.show_heading()

    @on(DataTable.RowHighlighted, "#picker-rows")
    def _highlight_moved(self) -> None:
        self.show_heading()

    def highlighted(self) -> Any | None:
        return under_cursor(self.query_one("#picker-rows", DataTable), self.shown)

    def action_cursor(self, rows: int) -> None:
        table = self.query_one("#picker-rows", DataTable)
        if self.shown:
            table.move_cursor(row=min(max(table.cursor_row + rows, 0), len(self.shown) - 1))

    @on(Input.Submitted, "#picker-search")
    @on(DataTable.RowSelected, "#picker-rows")
    def action_pick(self) -> None:
        entry = self.highlighted()
        if entry is None:
            typed = self.query_one("#picker-search", Input).value
            self.say(toned(f"Nothing matches {typed!r}: change the search." if self.entries
                           else f"Nothing to pick: {self.EMPTY}", ALERT))  # fmt: skip
            return
        self.picked(entry)

    def say(self, text: Text) -> None:
        """A word under the table: what a pick did, or why it was refused."""
        self.query_one("#picker-said", Static).update(text)

    def action_close(self) -> None:
        self.dismiss(None)
