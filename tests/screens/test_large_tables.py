"""A campaign of hundreds of minefields and markers: the ledger and the roster open with only the
rows in sight built, yet End and page down reach the last row, the filter and the sort take
every row, the count counts them all, and the ledger's # column shows each number whole."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from campaign_files import press_to
from rich.text import Text

from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens.ledger import LedgerScreen
from tracker.screens.roster import RosterScreen
from tracker.widgets.plain import PlainTable
from tracker.widgets.search_table import SearchTable

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:  # the benchmark's seeded generator lives beside the package
    sys.path.insert(0, str(ROOT))
from bench.generate import Built, Sizes, generate  # noqa: E402

SIZES = Sizes(ships=40, squadrons=8, scenarios=3, journal=100, markers=300, minefields=300,
              boundaries=3)  # fmt: skip


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return generate(tmp_path_factory.mktemp("large") / "campaign.db", SIZES, seed=4)


def app_on(built: Built) -> TrackerApp:
    factory = session_factory(make_engine(str(built.path)))
    return TrackerApp(factory, rng=random.Random(2), open_campaign_id=built.campaign_id)


def text(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


async def test_the_ledger_opens_with_the_rows_in_sight_and_reaches_every_minefield(
    large: Built,
) -> None:
    app = app_on(large)
    async with app.run_test(size=(120, 40)) as pilot:
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        assert ledger.view is not None
        table = ledger.query_one("#minefield-table", SearchTable)
        ids = [str(field.id) for field in ledger.view.minefields]
        assert table.rows_held == table.total == len(ids) == 300
        # Only the rows in sight built: the table's height, or the terminal's when the rows
        # came before the screen was laid out.
        assert table.row_count <= app.size.height < len(ids)
        await pilot.press("end")
        assert table.selected_key() == ids[-1]
        # The last minefield's number whole in its column ("#300", not "#30").
        number = text(table.get_row_at(table.cursor_row)[0])
        assert number == f"#{ids[-1]}" and table.ordered_columns[0].width >= len(number)
        await pilot.press("slash", *f"#{ids[-1]}", "enter")
        assert table.shown_keys == [ids[-1]]
        assert str(table.border_title) == f"Minefields · 1 of {len(ids)}"
        await pilot.press("slash", "escape", "o", "o")  # by number (#99 before #300), highest first
        assert table.shown_keys == sorted(ids, key=int, reverse=True)
        counters = ledger.query_one("#counter-table", PlainTable)
        assert counters.rows_held == len(ledger.view.counters)


async def test_the_roster_reaches_its_last_unit_and_marker_by_page_down(large: Built) -> None:
    app = app_on(large)
    async with app.run_test(size=(80, 24)) as pilot:
        roster = await press_to(pilot, "f", screen=RosterScreen)
        assert roster.view is not None
        units = roster.query_one("#unit-table", SearchTable)
        markers = roster.query_one("#marker-table", PlainTable)
        assert units.rows_held == len(roster.view.units) > units.row_count
        assert markers.rows_held == len(roster.view.markers) > markers.row_count
        for _ in range(len(roster.view.units)):
            await pilot.press("pagedown")
            if units.selected_key() == str(roster.view.units[-1].id):
                break
        assert units.selected_key() == str(roster.view.units[-1].id)
        await pilot.press("tab")
        assert markers.has_focus
        for _ in range(len(roster.view.markers)):
            await pilot.press("pagedown")
            if markers.cursor_row == len(roster.view.markers) - 1:
                break
        assert text(markers.get_row_at(markers.cursor_row)[0]) == roster.view.markers[-1].code
