"""Widgets' text shown as typed: a str given to a DataTable, a Select or a SelectionList is
read as markup by Textual, and these show names players typed. Tables of hundreds of rows build
them as the player comes near them (PlainTable.add_rows_later)."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Self

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.coordinate import Coordinate
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import CellType, ColumnKey, RowKey

from tracker import compat

if TYPE_CHECKING:
    from tracker.widgets.tables import Fit


def plain(value: Any, *, wrap: bool = False) -> Any:
    """A str as plain Text, wrapped or not as DataTable wraps its own; a Text of a wrapped row
    wrapped too, where it was cut; anything else (numbers, None) as it is."""
    if isinstance(value, str):
        return Text(value, no_wrap=not wrap, end="")
    if wrap and isinstance(value, Text) and value.no_wrap and value.overflow == "ellipsis":
        value = value.copy()
        value.no_wrap, value.overflow = False, "fold"
    return value


def plain_options(options: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    return [(plain(prompt), value) for prompt, value in options]


def blank_line(cell: Any) -> Any:
    """An empty cell as one blank line: a row whose height follows its cells measures each
    cell's first line, which an empty text has not."""
    text = cell.plain if isinstance(cell, Text) else cell
    return Text(" ", end="") if text in ("", None) else cell


def wrapped(cell: Any) -> Any:
    """A cell that shows its text on as many lines as the column needs, never cut."""
    cell = blank_line(cell)
    if isinstance(cell, Text):
        cell = cell.copy()
        cell.no_wrap, cell.overflow = False, "fold"
        return cell
    return plain(cell, wrap=True)


def cell_text(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else "" if cell is None else str(cell)


def widest(texts: Iterable[str]) -> int:
    """The cells the widest line of these texts takes on screen, as a table measures it."""
    return max((cell_len(line) for text in texts for line in text.split("\n")), default=0)


# Textual measures the rows added since the table's last idle, and widens its columns to fit
# them, only then: the lines drawn before are dropped, so it is drawn again as measured.
@compat.redraws_after_measuring(lambda table: table.measured())
class PlainTable(DataTable[Any]):
    """DataTable parses markup in a str cell (Text.from_markup), so a ship named `Crash[/]`
    would break a table and one named `[u]` would show empty: every str given here is
    shown as typed. Styles come in as Text, as they always did.

    Rows given to `add_rows_later` are built a screenful at a time as the cursor or the scroll
    comes near them: Textual builds and measures every row it is given at once, which made a
    screen of a thousand rows open twice as slowly as one of ten. The table's scrollbar, End,
    page down and ctrl+end count the rows not built yet; `rows_held` counts them all."""

    def __init__(self, *args: Any, wrap_rows: bool = False, **kwargs: Any) -> None:
        """`wrap_rows`: a row whose text does not fit its fixed-width columns is drawn on as
        many lines as it needs, its text wrapped, never cut (set_widths narrows them)."""
        super().__init__(*args, **kwargs)
        self.wrap_rows = wrap_rows
        # Rows not built yet: key, cells, and which of them wrap (None: as given).
        self._later: deque[tuple[str | None, Sequence[Any], Sequence[bool] | None]] = deque()
        self._building = False
        self.fit: Fit | None = None  # tables.fit_columns: the columns fit the room
        self._fitted_room = 0

    # -- rows built as the player comes near them --------------------------------------------

    @property
    def rows_held(self) -> int:
        """Every row the table holds: those built and those it builds when they are neared."""
        return self.row_count + len(self._later)

    def add_rows_later(
        self, rows: Iterable[tuple[str | None, Sequence[Any]]], *, showing: int = 0
    ) -> None:
        """Rows after the last one, each with its key: those up to a screenful past row
        `showing` built at once, the rest as the player comes near them."""
        rows = list(rows)
        wraps: list[bool] | None = None  # the columns whose cells wrap, as each row is built
        if self.fit is not None and (room := self._room()):
            self._fitted_room = room
            labels = [column.label.plain for column in self.ordered_columns]
            wraps = [label in self.fit.wrap for label in labels]
            self.set_widths(self.fit.widths(labels, [cells for _, cells in rows], room))
            # A heading wider than its column is read on two lines, or more.
            console, columns = self.app.console, self.ordered_columns
            lines = [len(column.label.wrap(console, column.width)) for column in columns]
            self.header_height = max([1, *lines])
        if wraps is not None and not any(wraps):
            wraps = None
        self._later.extend((key, cells, wraps) for key, cells in rows)
        self._build(showing + self._screenful())
        self._fit_columns(self._later)  # (Textual measures those built)
        compat.measure_at_idle(self)
        self.check_idle()

    def build_to(self, row: int) -> None:
        """Row `row` built and, when it comes within a screenful of the last row built,
        another screenful past it."""
        screenful = self._screenful()
        if self._later and row + screenful > self.row_count:
            self._build(row + 2 * screenful)

    def build_all(self) -> None:
        self._build(self.rows_held)

    def _screenful(self) -> int:
        """As many rows as the table shows at once: its height once laid out, or the
        terminal's, which bounds a table sized by its rows."""
        height = self.styles.height
        if self.size.height and height is not None and not height.is_auto:
            return self.size.height
        return max(self.app.size.height, 1)

    def _build(self, rows: int) -> None:
        if self._building:
            return
        self._building = True
        try:
            height = None if self.fit is not None and self.fit.wrap else 1
            while self._later and self.row_count < rows:
                key, cells, wraps = self._later.popleft()
                cells = cells if wraps is None else self._wrapping(cells, wraps)
                self.add_row(*cells, key=key, height=height)
        finally:
            self._building = False

    def _fit_columns(self, rows: Collection[tuple[str | None, Sequence[Any], Any]]) -> None:
        """Each column that fits its cells as wide as those of rows not built yet too, as
        Textual makes it once it has measured them: the columns do not widen as they come."""
        for at, column in enumerate(self.ordered_columns):
            if column.auto_width:
                texts = {cell_text(cells[at]) for _, cells, _ in rows if at < len(cells)}
                column.content_width = max(column.content_width, widest(texts))

    def clear(self, columns: bool = False) -> Self:
        self._later.clear()
        return super().clear(columns)

    def validate_cursor_coordinate(self, value: Coordinate) -> Coordinate:
        self.build_to(value.row)
        return super().validate_cursor_coordinate(value)

    def move_cursor(
        self,
        *,
        row: int | None = None,
        column: int | None = None,
        animate: bool = False,
        scroll: bool = True,
    ) -> None:
        if row is not None:  # built before Textual decides how to scroll to it
            self.build_to(row)
        super().move_cursor(row=row, column=column, animate=animate, scroll=scroll)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._build(int(new_value) + self.size.height)  # the rows scrolled into sight

    def on_resize(self, _: events.Resize) -> None:
        """A taller table builds the rows it now shows (DataTable's own handler runs too); a
        table whose columns fit its room fits them to its new width."""
        if self.fit is not None and self._room() not in (0, self._fitted_room):
            self._fit_again()
        self._build(int(self.scroll_y) + self.size.height)

    @staticmethod
    def _wrapping(cells: Sequence[Any], wraps: Sequence[bool]) -> list[Any]:
        """A row's cells, those of wrapping columns `wrapped`, the empty ones a blank line."""
        return [
            wrapped(cell) if wrap else blank_line(cell)
            for cell, wrap in zip(cells, wraps, strict=False)
        ]

    def _room(self) -> int:
        """The cells the columns share: the table's width inside its border and padding, less
        a vertical scrollbar's (held for it, so that one coming or going moves no column)."""
        width = self.region.width - self.styles.gutter.width
        return max(width - self.styles.scrollbar_size_vertical, 0) if self.region.width else 0

    def _fit_again(self) -> None:
        """Every row again, in columns fitted to the table's width now, the cursor on its row."""
        columns = self.ordered_columns
        built = [
            (row.key.value, [self._data[row.key][column.key] for column in columns])
            for row in self.ordered_rows
        ]
        later = [(key, cells) for key, cells, _ in self._later]
        rows, cursor = [*built, *later], self.cursor_row
        self.clear()
        self.add_rows_later(rows, showing=max(cursor, 0))
        if rows and cursor >= 0:
            self.move_cursor(row=min(cursor, len(rows) - 1), animate=False)

    def set_widths(self, widths: Sequence[int]) -> None:
        for column, width in zip(self.ordered_columns, widths, strict=False):
            column.width, column.auto_width = width, False

    def action_page_down(self) -> None:
        self.build_to(self.cursor_row + self._screenful())
        super().action_page_down()

    def action_scroll_bottom(self) -> None:
        self.build_all()
        super().action_scroll_bottom()

    def action_scroll_end(self) -> None:
        """End: the last row, in a table whose cursor is a row (Textual's scrolls right)."""
        if self.cursor_type == "row" and self.show_cursor:
            self.action_scroll_bottom()
        else:
            super().action_scroll_end()

    def action_scroll_home(self) -> None:
        """Home: the first row, in a table whose cursor is a row (Textual's scrolls left)."""
        if self.cursor_type == "row" and self.show_cursor:
            self.action_scroll_top()
        else:
            super().action_scroll_home()

    # -- every str shown as typed ----------------------------------------------------------

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

    def add_sized_columns(self, columns: Iterable[tuple[str, int]]) -> Self:
        for label, width in columns:
            self.add_column(label, width=width)
        return self

    def add_row(
        self,
        *cells: CellType,
        height: int | None = 1,
        key: str | None = None,
        label: Any = None,
    ) -> RowKey:
        if self._later and not self._building:  # after every row given before it
            self.build_all()
        if height == 1 and self.wrap_rows and not self.fits(cells):
            height = None  # as many lines as its widest cell wraps to
        wrap = height != 1  # as DataTable's own formatter decides
        texts = (plain(cell, wrap=wrap) for cell in cells)
        return super().add_row(*texts, height=height, key=key, label=plain(label, wrap=True))

    def fits(self, cells: Sequence[Any]) -> bool:
        """Whether each cell's text fits on one line of its column, as wide as it is now."""
        return all(
            column.auto_width or widest((cell_text(cell),)) <= column.width
            for column, cell in zip(self.ordered_columns, cells, strict=False)
        )

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: CellType,
        *,
        update_width: bool = False,
    ) -> None:
        super().update_cell(row_key, column_key, plain(value), update_width=update_width)

    def measured(self) -> None:
        """Textual has measured the rows added since the table's last idle: the rows not built
        yet are one line each (add_rows_later's callers), in the scrollbar's height too."""
        if self._later:
            width, height = self.virtual_size
            self.virtual_size = Size(width, height + len(self._later))
