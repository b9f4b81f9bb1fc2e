"""Widgets' text shown as typed: a str given to a DataTable, a Select or a SelectionList is
read as markup by Textual, and these show names players typed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellType, ColumnKey, RowKey


def plain(value: Any, *, wrap: bool = False) -> Any:
    """A str as plain Text, wrapped or not as DataTable wraps its own; anything else (Text,
    numbers, None) as it is."""
    return Text(value, no_wrap=not wrap, end="") if isinstance(value, str) else value


def plain_options(options: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """A Select's (prompt, value) options with every str prompt as plain Text."""
    return [(plain(prompt), value) for prompt, value in options]


class PlainTable(DataTable[Any]):
    """DataTable parses markup in a str cell (Text.from_markup), so a ship named `Crash[/]`
    would break a table and one named `[u]` would show empty: every str given here is
    shown as typed. Styles come in as Text, as they always did."""

    def add_column(
        self,
        label: Any = None,
        *,
        width: int | None = None,
        key: str | None = None,
        default: CellType | None = None,
    ) -> ColumnKey:
        return super().add_column(
            plain(label, wrap=True), width=width, key=key, default=plain(default)
        )

    def add_row(
        self,
        *cells: CellType,
        height: int | None = 1,
        key: str | None = None,
        label: Any = None,
    ) -> RowKey:
        wrap = height != 1  # as DataTable's own formatter decides
        texts = (plain(cell, wrap=wrap) for cell in cells)
        return super().add_row(*texts, height=height, key=key, label=plain(label, wrap=True))

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: CellType,
        *,
        update_width: bool = False,
    ) -> None:
        super().update_cell(row_key, column_key, plain(value), update_width=update_width)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Textual measures the rows added since the table's last idle, and widens its columns
        to fit them, only then; a repaint that came first drew those rows at the columns' old
        widths (a column's heading's, after a refill) and kept the lines it drew, which the
        table then showed at the new widths ("conce" for "concealed") until something else
        repainted it. Those lines are dropped here, so it is drawn again as measured."""
        super()._update_dimensions(new_rows)
        self._clear_caches()
        self.refresh()
