"""A table the player filters by typing and sorts by any column, the cursor kept on its row.

`/` opens the filter line (in the table's lower border) and every key typed narrows the rows
to those with the text in any column: the text is literal (`%`, `_`, `[` and `*` match
themselves) and case does not matter. Escape clears and closes it; enter closes it and keeps
the filter. `o` sorts by the column under the cursor (left and right move it), again reverses;
a screen whose own `o` means something else gives the table another sort key.
The upper border says how many rows are shown of how many ("Units · 12 of 275").

A screen gives every row with its key (`show`) and asks which row is selected by key
(`selected_key`), never by position: the rows on screen are a filtered, sorted view.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.widgets.data_table import ColumnKey

from tracker import compat
from tracker.widgets.plain import PlainTable, cell_text
from tracker.widgets.tables import forget, refill

NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
# Blank cells ("", "-") sort after every value, whichever way the column is sorted.
BLANKS = frozenset({"", "-", "—"})


class Keyed(Protocol):
    @property
    def id(self) -> int: ...


K = TypeVar("K", bound=Keyed)


@dataclass(frozen=True)
class SortAs:
    """A cell shown as `shown` and sorted by `value`: a damage track by the boxes left."""

    shown: Any
    value: Any


def sort_key(cell: Any) -> tuple[int, float, str]:
    """How a cell sorts: numbers by value (9 before 10), before text, case ignored; a text
    that begins with a number by that number first (`9/12` before `12/12`)."""
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        return (0, float(cell), "")
    text = cell_text(cell).strip()
    number = NUMBER.match(text)
    if number:
        return (0, float(number.group()), text[number.end() :].casefold())
    return (1, 0.0, text.casefold())


def matches(query: str, texts: Sequence[str]) -> bool:
    """Whether a row (its cells' texts, case-folded) holds the query as typed, literally."""
    wanted = query.casefold()
    return any(wanted in text for text in texts)


def search_keys(sort: str = "o") -> list[tuple[str, str]]:
    """The table's own keys, as a screen's help lists them (HELP_EXTRA)."""
    return [
        ("/", "Filter the table: type any column's text; enter keeps the filter, escape clears it"),
        (sort, "Sort by the column under the cursor (left and right choose it); again reverses"),
        ("end", "The last row (ctrl+end too); home the first; page down and up page through all"),
    ]


SEARCH_KEYS = search_keys()


class _Row:
    """A row as given, and what the filter and the sort read of it, each worked out when it is
    first asked for: a thousand rows' texts and sort keys made on opening cost about as much as
    building the rows, and most tables are opened without a filter or a sort."""

    __slots__ = ("_sorts", "_texts", "also", "cells", "given", "key")

    def __init__(self, key: str, given: Sequence[Any], also: str = "") -> None:
        self.key = key
        self.given = tuple(given)
        self.cells = tuple(cell.shown if isinstance(cell, SortAs) else cell for cell in given)
        self.also = also
        self._texts: tuple[str, ...] | None = None
        self._sorts: dict[int, tuple[bool, tuple[int, float, str]]] = {}

    @property
    def texts(self) -> tuple[str, ...]:
        """Each cell's text and the `also` text, case-folded, for the filter."""
        if self._texts is None:
            texts = (*(cell_text(cell) for cell in self.cells), self.also)
            self._texts = tuple(text.casefold() for text in texts)
        return self._texts

    def sorted_as(self, column: int) -> tuple[bool, tuple[int, float, str]]:
        """Whether the row's cell in `column` is blank (or missing), and its sort key."""
        if column not in self._sorts:
            if column >= len(self.cells):
                self._sorts[column] = (True, (1, 0.0, ""))
            else:
                cell = self.given[column]
                blank = cell_text(self.cells[column]).strip() in BLANKS
                value = cell.value if isinstance(cell, SortAs) else cell
                self._sorts[column] = (blank, sort_key(value))
        return self._sorts[column]


EMPTY_KEY = "none"  # the key of an empty table's placeholder line: no row's own


class SearchTable(PlainTable):
    """A row table with a filter line and a sort key; every str shown as typed."""

    BINDINGS = [
        Binding("slash", "filter", "Filter", key_display="/",
                tooltip="Filter the rows: type any column's text; escape clears"),
        Binding("o", "sort", "Sort",
                tooltip="Sort by the column under the cursor (left, right); again reverses"),
    ]  # fmt: skip

    def __init__(self, *args: Any, title: str = "", sort_key: str = "o", **kwargs: Any) -> None:
        kwargs.setdefault("cursor_type", "row")
        super().__init__(*args, **kwargs)
        self.sort_key = sort_key
        if sort_key != "o":  # this table's own bindings: the class's are shared by every table
            keys = self._bindings.key_to_bindings
            keys[sort_key] = [replace(binding, key=sort_key) for binding in keys.pop("o")]
        self.heading = title
        self.pointed = False  # the player chose a column: its heading is marked
        self.query_text = ""
        self.filtering = False
        self.pointer = 0  # the column `o` sorts by (the cursor's column in a row table)
        self.sorted_by: int | None = None
        self.descending = False
        self._rows: list[_Row] = []
        self._labels: dict[ColumnKey, Text] = {}  # each heading as the screen gave it
        self._widths: dict[ColumnKey, int] = {}
        self.shown_keys: list[str] = []
        self._empty: tuple[Any, ...] | None = None  # the placeholder line of an empty table

    # -- what the screen gives and asks ---------------------------------------------------

    def on_mount(self) -> None:
        self._show_titles()

    def show(
        self,
        rows: Iterable[tuple[str, Sequence[Any]]],
        also: Mapping[str, str] | None = None,
        *,
        empty: Sequence[Any] | None = None,
    ) -> None:
        """Every row the table holds, each with its key; the filter and sort are kept. `also`
        gives, by key, more text the filter finds a row by (a unit's nation and year, which
        its columns do not show). `empty` is the line drawn while the table holds no row
        ("No minefield yet"): a placeholder, never counted, filtered or sorted."""
        also = also or {}
        self._rows = [_Row(key, cells, also.get(key, "")) for key, cells in rows]
        self._empty = None if empty is None else tuple(empty)
        self._apply()

    @property
    def total(self) -> int:
        return len(self._rows)

    def selected_key(self) -> str | None:
        if not self.row_count or self.cursor_row < 0:
            return None
        value = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return str(value) if value is not None else None

    def selected(self, items: Iterable[K]) -> K | None:
        """The one of `items` shown in the row under the cursor (a row's key is its id)."""
        key = self.selected_key()
        return next((item for item in items if str(item.id) == key), None)

    def select_key(self, key: str) -> None:
        if key in self.shown_keys:
            self.move_cursor(row=self.shown_keys.index(key), animate=False)

    def set_widths(self, widths: Sequence[int]) -> None:
        """Each column's width, as the screen fits them to the window (the sort arrow may
        widen one)."""
        for column, width in zip(self.ordered_columns, widths, strict=False):
            if column.width != width:
                forget(self)
            self._widths[column.key] = column.width = width
        self._mark_columns()

    def set_filter(self, text: str) -> None:
        self.query_text = text
        self._apply()

    # -- the filter line --------------------------------------------------------------------

    def action_filter(self) -> None:
        self.filtering = True
        self._show_titles()

    def _close(self, *, clear: bool) -> None:
        self.filtering = False
        if clear:
            self.query_text = ""
        self._apply()

    def help_keys(self) -> list[tuple[str, str]]:
        return [
            *search_keys(self.sort_key),
            ("escape", "While filtering: clear the filter"),
            ("enter", "While filtering: keep the filter"),
            ("backspace", "While filtering: the filter's last character off"),
            ("ctrl+u", "While filtering: the whole filter text off"),
        ]

    def on_key(self, event: events.Key) -> None:
        # Taken here, not left to the bindings: a binding runs once the key has bubbled up to
        # the app, after the keys typed next (a burst, a paste) reached the table.
        acts: dict[str, Callable[[], None]] = {
            "slash": self.action_filter,
            self.sort_key: self.action_sort,
        }
        if self.filtering:  # up, down, page keys move the cursor while the line is open
            acts = {
                "escape": lambda: self._close(clear=True),
                "enter": lambda: self._close(clear=False),
                "backspace": lambda: self.set_filter(self.query_text[:-1]),
                "ctrl+u": lambda: self.set_filter(""),
            }
            if event.is_printable and event.character:
                typed = self.query_text + event.character
                acts.setdefault(event.key, lambda: self.set_filter(typed))
        if (act := acts.get(event.key)) is not None:
            act()
            event.stop()
            event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        if self.filtering:
            self.set_filter(self.query_text + " ".join(event.text.splitlines()))
            event.stop()

    # -- sorting ------------------------------------------------------------------------------

    def action_sort(self) -> None:
        if not self.columns:
            return
        self.pointed = True
        if self.sorted_by == self.pointer:
            self.descending = not self.descending
        else:
            self.sorted_by, self.descending = self.pointer, False
        self._apply()

    def _point(self, step: int, move: Callable[[], None]) -> None:
        if self.cursor_type != "row":
            move()
            self.pointer = self.cursor_column
            return
        self.pointed = True
        self.pointer = min(max(self.pointer + step, 0), len(self.columns) - 1)
        self._mark_columns()
        if self.pointer < len(self.columns):
            region = compat.column_region(self, self.pointer)
            self.scroll_to_region(region, animate=False, force=True)

    def action_cursor_left(self) -> None:
        self._point(-1, super().action_cursor_left)

    def action_cursor_right(self) -> None:
        self._point(1, super().action_cursor_right)

    # -- drawing ------------------------------------------------------------------------------

    def _ordered(self) -> list[_Row]:
        query = self.query_text
        rows = [row for row in self._rows if matches(query, row.texts)] if query else self._rows
        column = self.sorted_by
        if column is None or column >= len(self.columns):
            return list(rows)
        values = [row for row in rows if not row.sorted_as(column)[0]]
        blanks = [row for row in rows if row.sorted_as(column)[0]]
        values.sort(key=lambda row: row.sorted_as(column)[1], reverse=self.descending)
        return values + blanks

    def _apply(self) -> None:
        rows = self._ordered()
        self.shown_keys = [row.key for row in rows]
        if not self._rows and self._empty is not None:
            refill(self, [(EMPTY_KEY, self._empty)])
        else:
            refill(self, ((row.key, row.cells) for row in rows))
        self._mark_columns()
        self._show_titles()

    def _show_titles(self) -> None:
        counted = self.heading
        if self.query_text or self.filtering:
            shown = f"{len(self.shown_keys)} of {len(self._rows)}"
            counted = f"{self.heading} · {shown}" if self.heading else shown
        self.border_title = Content(counted) if counted else None
        line = ""
        if self.filtering:
            line = f"/{self.query_text}▏ enter keeps, esc clears"
        elif self.query_text:
            line = f"/{self.query_text}  (/ to change)"
        self.border_subtitle = Content(line) if line else None

    def _mark_columns(self) -> None:
        """The sorted column's heading with its arrow, the one `o` would sort by underlined."""
        for index, column in enumerate(self.ordered_columns):
            label = self._labels.setdefault(column.key, column.label.copy()).copy()
            if index == self.sorted_by:
                label.append(" ▼" if self.descending else " ▲")
            if index == self.pointer and self.pointed and len(self.columns) > 1:
                label.stylize("underline")
            column.label = label
            if column.auto_width:
                column.content_width = max(column.content_width, label.cell_len)
            else:  # a fixed width grows to show the arrow, and shrinks back without it
                width = self._widths.setdefault(column.key, column.width)
                column.width = max(width, label.cell_len) if index == self.sorted_by else width
        compat.drop_drawn_lines(self)
        self.refresh()
