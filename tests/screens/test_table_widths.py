"""A table shows its rows at the widths it measured for them, even when a repaint drew them
before it had measured them: Textual measures the rows added since a table's last idle only
then, and kept the lines drawn before at the columns' old widths (the roster's markers showed
"conce" for "concealed" after a refill, until something repainted them)."""

from __future__ import annotations

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult

from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import refill

LETTERS = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=1, max_size=12)


class OneTable(App[None]):
    # A table of a fixed size, as the roster's markers are: rows that come in do not resize
    # it (a resize made Textual draw every row again).
    CSS = "PlainTable { height: 8; width: 100; }"

    def compose(self) -> ComposeResult:
        yield PlainTable()


def shown(app: App[None]) -> str:
    """The screen as it is drawn now, through every cache a repaint goes through (an SVG)."""
    return app.export_screenshot()


@settings(max_examples=examples(8), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(headings=st.lists(LETTERS, min_size=1, max_size=3, unique=True), data=st.data())
async def test_rows_drawn_before_the_table_measured_them_show_whole_once_it_has(
    headings: list[str], data: st.DataObject
) -> None:
    # Cells longer than their headings (and the whole within the table's 120 columns).
    rows = [
        (str(key), [data.draw(LETTERS, label="cell") * 2 for _ in headings]) for key in range(3)
    ]
    app = OneTable()
    async with app.run_test(size=(120, 12)) as pilot:
        table = app.query_one(PlainTable)
        table.add_columns(*headings)
        await pilot.pause()
        refill(table, rows)
        shown(app)  # a repaint before the table's idle: the rows at the headings' widths
        await pilot.pause()
        drawn = shown(app)
        for _, cells in rows:
            for cell in cells:
                assert cell in drawn, cell
