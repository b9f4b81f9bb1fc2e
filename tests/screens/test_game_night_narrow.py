"""A game night at 80x24 and 120x40: the record sheet keeps its ship rows under a counter, no
name or value is cut, the ship shows every battery, the history's y axis counts whole boxes,
the campaign's footer lists every key and shows which pane has the focus, and the scenario
marks Out of Command from the sheet's own reading."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest
from campaign_files import open_sheet, press_to, sample_engine
from game_night import game_night_campaign
from hypothesis import given
from hypothesis import strategies as st
from textual.pilot import Pilot
from textual.widgets import Footer
from textual.widgets._footer import FooterKey
from textual_plotext import PlotextPlot

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.screens.ship_detail import ShipDetailScreen
from tracker.screens.ship_history import MOST_TICKS, ShipHistoryScreen, whole_ticks
from tracker.services import campaigns, continuity, sheet
from tracker.widgets.counter_panel import CounterPanel
from tracker.widgets.plain import PlainTable
from tracker.widgets.search_table import SearchTable
from tracker.widgets.sheet_table import SheetTable

SMALL, LARGE = (80, 24), (120, 40)
ROWS_KEPT = 3  # the ship rows the record sheet keeps in sight at 80x24 under a counter


@pytest.fixture
def night(tmp_path: Path) -> tuple[TrackerApp, SessionFactory, int]:
    engine, campaign_id = sample_engine(tmp_path / "campaign.db", game_night_campaign)
    factory = session_factory(engine)
    app = TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id)
    return app, factory, campaign_id


def _inside(pilot: Pilot[None]) -> None:
    """Every widget of the screen lies inside the window: nothing is pushed below the footer."""
    screen = pilot.app.screen
    for widget in screen.query("*"):
        if widget.display and widget.region.area:
            assert screen.region.contains_region(widget.region), (widget, widget.region)


def _shown_text(table: PlainTable) -> list[str]:
    """Each row's cells' text, as the table holds them."""
    return [" ".join(str(cell) for cell in table.get_row_at(row)) for row in range(table.row_count)]


async def _cells_whole(table: PlainTable) -> None:
    """Each cell of each row on screen (its column left of the table's right edge) is whole:
    one line that fits its column, or a row tall enough for its words."""
    room = table.scrollable_content_region.width
    left = 0
    for column in table.ordered_columns:
        right = left + column.get_render_width(table)
        if right > room:
            break
        for row_key, row in table.rows.items():
            cell = table.get_cell(row_key, column.key)
            text = cell.plain if hasattr(cell, "plain") else str(cell)
            lines = -(-len(text) // column.width) if text else 1
            assert len(text) <= column.width or row.height >= min(lines, 2), (column.label, text)
        left = right


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_sheet_keeps_its_ships_in_sight_under_a_counter(night, size) -> None:  # type: ignore[no-untyped-def]
    app, _, _ = night
    async with app.run_test(size=size) as pilot:
        screen = await open_sheet(pilot)
        await pilot.pause()
        table, panel = screen.query_one(SheetTable), screen.query_one(CounterPanel)
        assert panel.display and "Exeter" in str(panel.border_title)
        header_and_borders = 3
        assert table.scrollable_content_region.height - 1 >= ROWS_KEPT  # past the heading
        assert table.region.height >= header_and_borders + ROWS_KEPT + 1
        _inside(pilot)
        await pilot.press("down")  # another ship: the panel follows, still inside the window
        await pilot.pause()
        assert "Ajax" in str(panel.border_title)
        _inside(pilot)


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_no_name_on_the_sheet_or_the_scenario_is_cut(night, size) -> None:  # type: ignore[no-untyped-def]
    app, _, _ = night
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "down")  # the Panzerschiff
        sheet_screen = await press_to(pilot, "enter", screen=RecordSheetScreen)
        await pilot.pause()
        table = sheet_screen.query_one(SheetTable)
        await _cells_whole(table)
        assert any("Prinz Eugen von Savoyen" in row for row in _shown_text(table))
        if size == LARGE:  # every column on screen, the ship's base the last
            assert table.virtual_size.width <= table.scrollable_content_region.width
        await pilot.press("escape")
        await pilot.pause()
        scenario = await press_to(pilot, "tab", "enter", screen=ScenarioScreen)
        await pilot.pause()
        participants = scenario.query_one(SearchTable)
        await _cells_whole(participants)
        # The Fate column on screen: the table no wider than its room.
        assert participants.virtual_size.width <= participants.scrollable_content_region.width


async def test_the_ship_shows_both_batteries_and_its_criticals_at_80x24(night) -> None:  # type: ignore[no-untyped-def]
    app, _, _ = night
    async with app.run_test(size=SMALL) as pilot:
        await open_sheet(pilot)
        ship = await press_to(pilot, "enter", screen=ShipDetailScreen)  # Exeter
        await pilot.pause()
        batteries = ship.query_one("#battery-table", PlainTable)
        criticals = ship.query_one("#critical-table", PlainTable)
        assert batteries.row_count == 2 and criticals.row_count == 2
        for table in (batteries, criticals):  # the heading and every row in sight
            assert table.scrollable_content_region.height >= 1 + table.row_count
        _inside(pilot)


async def test_the_history_counts_whole_boxes_and_its_legend_covers_no_point(night) -> None:  # type: ignore[no-untyped-def]
    app, _, _ = night
    async with app.run_test(size=SMALL) as pilot:
        await open_sheet(pilot)
        await press_to(pilot, "enter", screen=ShipDetailScreen)
        await pilot.pause()
        history = await press_to(pilot, "h", screen=ShipHistoryScreen)
        await pilot.pause()
        drawn = history.query_one(PlotextPlot).plt.build()
        plain = re.sub(r"\x1b\[[0-9;]*m", "", drawn)
        assert not re.search(r"\d\.\d", plain)  # no tick reads 12.5 or 7.5
        assert "Structure" not in plain.split("\n", 1)[1]  # no legend drawn over the points
        assert re.search(r"^\s*12┤", plain, re.MULTILINE)  # Exeter's full Structure, whole


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_campaign_footer_lists_every_key(night, size) -> None:  # type: ignore[no-untyped-def]
    app, _, _ = night
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, CampaignScreen)
        keys = list(screen.query_one(Footer).query(FooterKey))
        [palette] = [key for key in keys if key.has_class("-command-palette")]
        shown = [key for key in keys if key is not palette]
        assert all(key.region.right <= palette.region.x for key in shown)  # none hidden under it
        wanted = {b.action for b in CampaignScreen.BINDINGS if b.action != "app.focus_next"}
        assert wanted <= {key.action for key in shown}
        assert {"repairs", "roster", "damage", "ledger", "report"} <= {k.action for k in shown}


async def test_the_campaign_pane_with_the_focus_is_drawn_apart(night) -> None:  # type: ignore[no-untyped-def]
    app, _, _ = night
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        forces = screen.query_one("#campaign-forces")
        scenarios = screen.query_one("#campaign-scenarios")

        def edges() -> tuple[str, str]:
            return forces.styles.border_top[0], scenarios.styles.border_top[0]

        assert edges() == ("heavy", "round")
        await pilot.press("tab")
        await pilot.pause()
        assert edges() == ("round", "heavy")
        await press_to(pilot, "enter", screen=ScenarioScreen)  # what the heavy pane holds


def test_the_scenario_reads_out_of_command_as_the_sheet_does(night) -> None:  # type: ignore[no-untyped-def]
    _, factory, campaign_id = night
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    on_sheet = {
        ship.id: ship.out_of_command
        for side in overview.sides
        for squadron in side.squadrons
        for ship in sheet.load_record_sheet(factory, squadron_id=squadron.id).ships
    }
    detail = continuity.scenario_detail(factory, scenario_id=overview.scenarios[0].id)
    in_scenario = {ship.ship_id: ship.out_of_command for ship in detail.participants}
    assert in_scenario == on_sheet
    assert sum(in_scenario.values()) == 1  # HMS Cumberland, joined Force G this turn


@given(top=st.integers(1, 9999))
def test_the_history_ticks_are_whole_evenly_spaced_and_few(top: int) -> None:
    ticks = whole_ticks(top)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1
    assert ticks[0] == 0 and all(isinstance(tick, int) for tick in ticks)
    assert all(b - a == step for a, b in itertools.pairwise(ticks))
    assert len(ticks) <= MOST_TICKS + 1 and ticks[-1] > top - step  # the axis covered
