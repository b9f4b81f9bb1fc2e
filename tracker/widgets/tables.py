"""Refilling a table without losing the player's place in it, and fitting its columns."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from rich.cells import cell_len
from textual.widgets import DataTable

from tracker.widgets.plain import PlainTable, cell_text, widest

T = TypeVar("T")
CELL_PADDING = 2  # one cell each side of every column

# The rows each table was last filled with by refill (its only filler).
_SHOWN: WeakKeyDictionary[DataTable[Any], list[tuple[str, tuple[Any, ...]]]] = WeakKeyDictionary()


def content_widths(
    labels: Sequence[str], rows: Iterable[Sequence[Any]]
) -> tuple[list[int], list[int]]:
    """Each column as wide as its label and its widest cell, and as its longest word (the
    narrowest it wraps to without breaking a word)."""
    widths = [max(1, cell_len(label)) for label in labels]
    words = [max(map(cell_len, label.split()), default=0) for label in labels]
    # Each text measured once: a column repeats most of its texts (a side, "+0/+0").
    texts: list[set[str]] = [set() for _ in labels]
    for cells in rows:
        for seen, cell in zip(texts, cells, strict=False):
            seen.add(cell_text(cell))
    for at, seen in enumerate(texts):
        widths[at] = max(widths[at], widest(seen))
        longest = (cell_len(word) for text in seen for word in text.split())
        words[at] = max(words[at], max(longest, default=0))
    return widths, words


def give_way(
    widths: list[int], labels: Sequence[str], order: Sequence[tuple[str, int]], room: int
) -> list[int]:
    """The widths, narrowed to fit `room` cells: each column of `order` in turn gives way
    down to the width named, until they fit or none can give more."""
    widths = list(widths)
    over = sum(widths) + CELL_PADDING * len(widths) - room
    for label, low in order:
        if label not in labels:  # a column some tables show (Fuel✕ once there is fuel)
            continue
        at = labels.index(label)
        give = max(0, min(over, widths[at] - low))
        widths[at] -= give
        over -= give
    return widths


def fits(widths: Sequence[int], room: int) -> bool:
    return sum(widths) + CELL_PADDING * len(widths) <= room


def fit_or_scroll(
    widths: list[int],
    labels: Sequence[str],
    order: Sequence[tuple[str, int]],
    room: int,
    grow: str,
    words: Sequence[int] = (),
) -> list[int]:
    """The widths, narrowed by `give_way` to fit `room` cells, never below a column's longest
    word of `words` (a row wraps whole words). When even at their narrowest
    they do not all fit, the columns that can be on screen give way among themselves (but
    `grow`), those that cannot keep their widths (whole when the cursor scrolls to them), and
    column `grow` takes the cells left at the edge, so that no column shows cut there."""
    if words:
        order = [(label, max(low, words[labels.index(label)])) for label, low in order]
    narrowed = give_way(widths, labels, order, room)
    if fits(narrowed, room):
        return narrowed
    order = [step for step in order if step[0] != grow]  # scrolling, it keeps its width
    narrowest = give_way(widths, labels, order, 0)
    shown = max((n for n in range(1, len(widths) + 1) if fits(narrowest[:n], room)), default=1)
    head = list(labels[:shown])
    kept = give_way(widths[:shown], head, [step for step in order if step[0] in head], room)
    if grow in head:
        kept[head.index(grow)] += max(0, room - sum(kept) - CELL_PADDING * shown)
    return kept + widths[shown:]


@dataclass(frozen=True)
class Fit:
    """How a table's columns share the room it has: each column as wide as its widest cell (its
    heading at least), so that nothing is cut while the table has room; when they do not all
    fit, the columns of `give` give way in that order, each down to the width named, and a
    column of `wrap` shows its text on as many lines as it needs (the row grows), never cut."""

    give: tuple[tuple[str, int], ...]
    wrap: frozenset[str] = frozenset()

    def widths(
        self, labels: Sequence[str], rows: Collection[Sequence[Any]], room: int
    ) -> list[int]:
        held, words = content_widths(labels, rows)
        # A wrapping column breaks its text between words, never inside one.
        order = [
            (
                label,
                max(low, words[labels.index(label)])
                if label in self.wrap and label in labels
                else low,
            )
            for label, low in self.give
        ]
        return give_way(held, labels, order, room)


def fit_columns(
    table: PlainTable, give: Sequence[tuple[str, int]], wrap: Iterable[str] = ()
) -> PlainTable:
    """The table's columns fitted to its width from now on, whenever it is filled or resized
    (Fit): `give` (label, narrowest) in the order they give way, `wrap` the labels whose text
    wraps."""
    table.fit = Fit(tuple(give), frozenset(wrap))
    return table


def under_cursor(table: DataTable[Any], rows: Sequence[T]) -> T | None:
    """The one of `rows` (the table's, in its order) the cursor is on; None when there is none."""
    return rows[min(max(table.cursor_row, 0), len(rows) - 1)] if rows else None


def forget(table: DataTable[Any]) -> None:
    """The table's columns changed (their widths): the next refill fills it anew, so the table
    measures itself again, even with the same rows."""
    _SHOWN.pop(table, None)


def refill(table: DataTable[Any], rows: Iterable[tuple[str, Sequence[Any]]]) -> None:
    """Replace a table's rows (each with its key), keeping the cursor on the row it was on.

    A key of the row's own thing (a marker's id) follows it wherever it lands after the reload;
    when that row is gone, the cursor stays at the same height, so the next key never acts on
    a row the player did not choose. A PlainTable builds the rows around the cursor's and
    the rest as the player comes near them.
    """
    given = [(key, tuple(cells)) for key, cells in rows]
    held = table.rows_held if isinstance(table, PlainTable) else table.row_count
    if _SHOWN.get(table) == given and held == len(given):
        # The same rows again (a reload that found nothing new): left as they are, not
        # cleared and added back, which drew the columns at their headings' widths until
        # the table had measured the rows again.
        return
    _SHOWN[table] = given
    before, index = None, table.cursor_row
    if table.row_count and index >= 0:
        before = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
    table.clear()
    keys = [key for key, _ in given]
    target = keys.index(before) if before in keys else min(max(index, 0), len(keys) - 1)
    if isinstance(table, PlainTable):
        table.add_rows_later(given, showing=target)
    else:
        for key, cells in given:
            table.add_row(*cells, key=key)
    if keys and target != table.cursor_row:  # clear() put it on the first row
        table.move_cursor(row=target, animate=False)
