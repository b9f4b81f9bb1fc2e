"""A table of hundreds of rows opens with a screenful of them built and builds the rest as the
player comes near them; everything the player does with it still reaches every row: End,
ctrl+end and page down go to the last row, the filter and the sort take every row, the count
counts them all, the scrollbar is as long as all of them, and a reload keeps the cursor on its
row however far down it is."""

from __future__ import annotations

from typing import Any

from depth import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult

from tracker.widgets.plain import PlainTable
from tracker.widgets.search_table import SearchTable
from tracker.widgets.tables import refill

SIZE = (80, 24)
SCREENFUL = SIZE[1]  # the most rows a table can show at once: the terminal's height
SETTINGS = settings(max_examples=examples(3), deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
COUNTS = st.integers(0, 400)


def rows(count: int) -> list[tuple[str, list[Any]]]:
    """Ships named by number; the last one's name is the only one with "Last" in it, and its
    tonnage is the largest."""
    return [(str(n), [Text("Last ship" if n == count - 1 else f"Ship {n:03}"), n * 10])
            for n in range(count)]  # fmt: skip


class Tables(App[None]):
    def __init__(self, count: int) -> None:
        super().__init__()
        self.rows = rows(count)

    def compose(self) -> ComposeResult:
        yield SearchTable(id="ships", title="Ships")

    def on_mount(self) -> None:
        table = self.query_one(SearchTable)
        table.add_columns("Name", "Tons")
        table.show(self.rows)
        table.focus()


def last_key(count: int) -> str | None:
    return str(count - 1) if count else None


async def opened(app: Tables, pilot: Any, count: int) -> SearchTable:
    await pilot.pause()
    table = app.query_one(SearchTable)
    assert table.rows_held == count
    assert table.row_count == min(count, SCREENFUL)  # only a screenful built on opening
    return table


@SETTINGS
@given(count=COUNTS)
@example(count=0)
@example(count=SCREENFUL)
@example(count=SCREENFUL + 1)
@example(count=400)
async def test_end_and_ctrl_end_reach_the_last_row_however_many_there_are(count: int) -> None:
    for key in ("end", "ctrl+end"):
        app = Tables(count)
        async with app.run_test(size=SIZE) as pilot:
            table = await opened(app, pilot, count)
            await pilot.press(key)
            assert table.selected_key() == last_key(count)
            assert table.row_count == count
            await pilot.press("home")
            assert table.selected_key() == (str(0) if count else None)


@SETTINGS
@given(count=COUNTS)
@example(count=SCREENFUL + 1)
@example(count=400)
async def test_page_down_reaches_the_last_row_and_builds_only_what_it_passes(count: int) -> None:
    app = Tables(count)
    async with app.run_test(size=SIZE) as pilot:
        table = await opened(app, pilot, count)
        await pilot.press("pagedown")
        passed = table.cursor_row
        # Built: what the page passed and no more than two screenfuls past it.
        assert min(count, passed + 1) <= table.row_count <= passed + 2 * SCREENFUL + 1
        for _ in range(count // max(passed, 1) + 1):
            await pilot.press("pagedown")
        assert table.selected_key() == last_key(count)
        assert table.row_count == count


@SETTINGS
@given(count=COUNTS)
@example(count=1)
@example(count=400)
async def test_the_filter_the_sort_and_the_count_take_every_row(count: int) -> None:
    app = Tables(count)
    async with app.run_test(size=SIZE) as pilot:
        table = await opened(app, pilot, count)
        await pilot.press("slash", *"last")
        assert table.shown_keys == ([last_key(count)] if count else [])
        assert str(table.border_title) == f"Ships · {min(count, 1)} of {count}"
        await pilot.press("escape", "right", "o", "o")  # tons, largest first
        assert table.shown_keys == [str(n) for n in reversed(range(count))]
        assert table.selected_key() == last_key(count)  # the cursor followed its row
        if count:
            assert table.get_row_at(0) == [Text("Last ship"), (count - 1) * 10]
        await pilot.press("ctrl+end")
        assert table.selected_key() == (str(0) if count else None)


class Markers(App[None]):
    def compose(self) -> ComposeResult:
        yield PlainTable(id="markers", cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(PlainTable)
        table.add_columns("Marker", "Identity")
        refill(table, self.marker_rows(300))
        table.focus()

    @staticmethod
    def marker_rows(count: int, first: int = 0) -> list[tuple[str, list[Any]]]:
        # The widest identity is the last marker's: its column is as wide from the start.
        return [(str(n), [f"M{n}", "submarine?" if n < count - 1 else "the widest identity"])
                for n in range(first, count)]  # fmt: skip


async def test_a_reload_keeps_the_cursor_on_a_row_far_down_and_the_same_rows_stay_built() -> None:
    app = Markers()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(PlainTable)
        assert table.row_count == SCREENFUL and table.rows_held == 300
        # The scrollbar is as long as every row, and the widest cell sets its column.
        assert table.virtual_size.height == 300 + 1  # the header's line too
        assert table.ordered_columns[1].content_width == len("the widest identity")
        table.move_cursor(row=250)
        await pilot.pause()
        assert table.row_count > 250
        built = table.row_count
        refill(table, Markers.marker_rows(300))  # the same rows: left as they are
        assert table.row_count == built and table.cursor_row == 250
        refill(table, [("new", ["M-new", "decoy"]), *Markers.marker_rows(300)])
        await pilot.pause()
        assert table.rows_held == 301 and table.cursor_row == 251
        assert str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value) == "250"
        refill(table, Markers.marker_rows(300, first=100))  # the rows above it gone
        await pilot.pause()
        assert table.cursor_row == 150 and table.rows_held == 200


async def test_scrolling_builds_the_rows_it_brings_into_sight() -> None:
    app = Markers()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(PlainTable)
        table.scroll_to(y=200, animate=False)
        await pilot.pause()
        assert table.scroll_y == 200
        assert table.row_count >= 200 + table.size.height
        assert table.row_count < 300


async def laid_out(pilot: Any, table: PlainTable, height: int) -> None:
    """Wait until the table is laid out at that height (a loaded machine may take a few turns
    of the loop)."""
    for _ in range(200):
        if table.size.height == height:
            return
        await pilot.pause()
    assert table.size.height == height


class ShortTable(App[None]):
    CSS = "PlainTable { height: 8; }"

    def compose(self) -> ComposeResult:
        yield PlainTable(cursor_type="row")

    def on_mount(self) -> None:
        self.query_one(PlainTable).add_columns("Marker", "Identity")


async def test_a_table_shorter_than_the_terminal_builds_its_own_height_and_more_when_taller() -> (
    None
):
    app = ShortTable()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(PlainTable)
        await laid_out(pilot, table, 8)
        refill(table, Markers.marker_rows(300))  # the rows read once the screen is laid out
        assert table.row_count == 8
        table.styles.height = 20
        await laid_out(pilot, table, 20)
        assert 20 <= table.row_count < 300
