"""A table refilled with the rows it already shows is left as it is: a reload that found
nothing new neither clears it nor draws its columns at their headings' widths while it measures
the rows again; any change in a row, its key or the order fills it anew, the cursor kept."""

from __future__ import annotations

from typing import Any

from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from tracker.widgets.tables import refill

ROWS = st.lists(
    st.tuples(st.sampled_from(["Ajax", "Exeter", "[b]x[/b]", ""]), st.integers(0, 12)),
    min_size=1,
    max_size=6,
)


class OneTable(App[None]):
    def compose(self) -> ComposeResult:
        table: DataTable[Any] = DataTable(cursor_type="row")
        table.add_columns("Ship", "Structure")
        yield table


def _rows(drawn: list[tuple[str, int]]) -> list[tuple[str, list[Any]]]:
    return [(str(n), [Text(name), f"{left}/12"]) for n, (name, left) in enumerate(drawn)]


@settings(max_examples=examples(25), deadline=None)
@given(first=ROWS, second=ROWS)
async def test_the_same_rows_leave_the_table_as_it_is_and_others_fill_it_anew(
    first: list[tuple[str, int]], second: list[tuple[str, int]]
) -> None:
    app = OneTable()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        cleared: list[int] = []
        clear = table.clear

        def counted(*args: Any, **kwargs: Any) -> Any:
            cleared.append(1)
            return clear(*args, **kwargs)

        table.clear = counted  # type: ignore[method-assign]
        refill(table, _rows(first))
        await pilot.pause()
        table.move_cursor(row=len(first) - 1)
        refill(table, _rows(first))
        assert len(cleared) == 1 and table.cursor_row == len(first) - 1
        refill(table, _rows(second))
        assert len(cleared) == (1 if _rows(second) == _rows(first) else 2)
        shown = [[table.get_cell_at((r, c)) for c in range(2)] for r in range(table.row_count)]
        assert shown == [cells for _, cells in _rows(second)]
        assert table.cursor_row == min(len(first), len(second)) - 1
