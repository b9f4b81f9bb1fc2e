"""Tables at a game night's terminals (80x24 and 120x40) on a crowded campaign: the names and
values a player reads stay on screen, long text wraps onto more lines rather than being cut,
the table the keys go to shows it, and enter on a row that opens nothing says what the keys are."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from campaign_files import press_to, sample_app
from crowded_campaign import AREAS, crowded_app
from hypothesis import given
from hypothesis import strategies as st
from toasts import every_toast

from tracker.screens.journal import JournalScreen
from tracker.screens.ledger import LedgerScreen
from tracker.screens.mine_check import MineCheckScreen
from tracker.screens.mine_table import EFFECT_WORDS, MineTableScreen
from tracker.screens.repairs import RepairsScreen
from tracker.services import mines
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import CELL_PADDING, Fit

SMALL, LARGE = (80, 24), (120, 40)


def screen_lines(app: Any) -> list[str]:
    """The screen as the player sees it, a line of text per row of cells."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def _column(table: PlainTable, label: str) -> tuple[int, int]:
    """Where a column's cells lie on screen: their first x and their width."""
    x = table.content_region.x - int(table.scroll_x)
    for column in table.ordered_columns:
        if column.label.plain.rstrip(" ▲▼") == label:
            return x + table.cell_padding, column.width
        x += column.get_render_width(table)
    raise AssertionError(f"no column {label}")


def on_screen(table: PlainTable, label: str) -> bool:
    """Whether the whole column is in sight, no scrolling needed."""
    x, width = _column(table, label)
    region = table.scrollable_content_region
    return region.x <= x and x + width <= region.right


def column_text(app: Any, table: PlainTable, label: str) -> str:
    """What a player reads down a column: its cells' lines on screen, joined."""
    x, width = _column(table, label)
    region = table.scrollable_content_region
    lines = screen_lines(app)[region.y + table.header_height : region.bottom]
    return re.sub(r"\s+", " ", " ".join(line[x : x + width] for line in lines))


async def table_of(pilot: Any, key: str, screen: type[Any]) -> PlainTable:
    """The table of the screen `key` opens from the campaign screen."""
    return (await press_to(pilot, key, screen=screen)).query_one(PlainTable)


async def test_at_80x24_the_journals_dice_stay_on_screen(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=SMALL) as pilot:
        table = await table_of(pilot, "j", JournalScreen)
        for label in ("#", "Turn", "Kind", "What happened", "Dice"):
            assert on_screen(table, label), label
        # A summary is read whole, on as many lines as it needs.
        assert pilot.app.screen.entries[0].summary in column_text(pilot.app, table, "What happened")
        await pilot.press("slash", *"roll", "enter")
        assert "roll" in column_text(pilot.app, table, "Dice")


async def test_a_narrower_window_fits_the_columns_again(tmp_path: Path) -> None:
    """The cursor stays on its row."""
    async with crowded_app(tmp_path / "campaign.db").run_test(size=LARGE) as pilot:
        table = await table_of(pilot, "j", JournalScreen)
        await pilot.press("down", "down", "down")
        chosen = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        await pilot.resize_terminal(*SMALL)
        await pilot.pause()
        assert on_screen(table, "Dice")
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key == chosen


async def test_at_80x24_repairs_show_outstanding_and_crits(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=SMALL) as pilot:
        table = await table_of(pilot, "r", RepairsScreen)
        for label in ("Ship", "Now S/F", "Outstanding", "Crits", "Fuel✕"):
            assert on_screen(table, label), label
        assert "2/1" in column_text(pilot.app, table, "Outstanding")
        await pilot.press("down", "down", "down")  # the long name's row, scrolled into sight
        assert "HMS Achilles of the New Zealand Division" in column_text(pilot.app, table, "Ship")


async def test_at_120x40_repairs_and_the_ledger_cut_nothing(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=LARGE) as pilot:
        table = await table_of(pilot, "r", RepairsScreen)
        assert all(on_screen(table, column.label.plain) for column in table.ordered_columns)
        assert "HMS Achilles of the New Zealand Division" in column_text(pilot.app, table, "Ship")
        battle = "The pursuit to Montevideo, second night"
        assert battle in column_text(pilot.app, table, "Last battle")
        await pilot.press("escape")
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        for table in ledger.query(PlainTable):
            labels = [column.label.plain.rstrip(" ▲▼") for column in table.ordered_columns]
            assert all(on_screen(table, label) for label in labels), table.id


async def test_the_ledger_reads_each_sea_areas_whole_name(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=LARGE) as pilot:
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        table = ledger.query_one("#minefield-table", PlainTable)
        where = column_text(pilot.app, table, "Where")
        for area_a, area_b in AREAS:
            low, high = sorted((area_a, area_b), key=str.lower)
            assert f"{low} | {high}" in where
        notes = column_text(pilot.app, table, "Notes")
        assert "Laid at dusk across the northern channel, two rows deep" in notes


async def test_at_80x24_the_ledger_keeps_where_turns_notes_and_state(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=SMALL) as pilot:
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        fields = ledger.query_one("#minefield-table", PlainTable)
        for label in ("#", "Owner", "Where", "Status", "Turns", "Notes"):
            assert on_screen(fields, label), label
        counters = ledger.query_one("#counter-table", PlainTable)
        for label in ("Ship", "Fuel", "State", "Speed"):
            assert on_screen(counters, label), label


async def test_the_no_counter_line_is_read_whole(tmp_path: Path) -> None:
    async with sample_app(tmp_path / "campaign.db", seed=3).run_test(size=LARGE) as pilot:
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        counters = ledger.query_one("#counter-table", PlainTable)
        said = "No ship has a Second World War at Sea counter yet: u on a record sheet enters one."
        assert said in column_text(pilot.app, counters, "Ship")


async def test_at_80x24_the_mine_table_lists_every_effect_word(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=SMALL) as pilot:
        await press_to(pilot, "m", screen=LedgerScreen)
        await press_to(pilot, "t", screen=MineTableScreen)
        shown = " ".join(screen_lines(pilot.app))
        for word, _meaning in EFFECT_WORDS:
            assert f"{word}:" in shown, word


async def test_the_table_the_keys_go_to_has_its_frame_lit(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=SMALL) as pilot:
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        fields = ledger.query_one("#minefield-table", PlainTable)
        counters = ledger.query_one("#counter-table", PlainTable)
        accent = pilot.app.theme_variables["accent"]

        def lit(table: PlainTable) -> bool:
            return table.styles.border_top[1].hex.lower() == accent.lower()

        assert (fields.has_focus, lit(fields), lit(counters)) == (True, True, False)
        await pilot.press("tab")
        assert (counters.has_focus, lit(fields), lit(counters)) == (True, False, True)


async def test_enter_on_a_row_that_opens_nothing_says_the_keys(tmp_path: Path) -> None:
    async with crowded_app(tmp_path / "campaign.db").run_test(size=SMALL) as pilot:
        await press_to(pilot, "m", screen=LedgerScreen)
        await pilot.press("tab", "enter")
        said = [str(toast.message) for toast in every_toast(pilot.app)]
        assert any(s.startswith("Enter opens nothing here. Keys: ") and "n Sow" in s for s in said)
        await pilot.press("tab", "enter")  # the minefields: enter reads the one chosen whole
        said = [str(toast.message) for toast in every_toast(pilot.app)]
        assert said[-1].startswith("#1 A | B") and not said[-2].startswith("#1")
        await press_to(pilot, "j", screen=JournalScreen)
        await pilot.press("enter")  # the journal's enter is its own: no keys said
        assert [str(toast.message) for toast in every_toast(pilot.app)][len(said) :] == [
            "That entry is not about one ship."
        ]


@given(
    held=st.lists(st.integers(1, 60), min_size=1, max_size=8),
    floors=st.lists(st.integers(1, 20), min_size=8, max_size=8),
    room=st.integers(0, 200),
)
def test_columns_give_way_down_to_their_floor_and_fit_when_they_can(
    held: list[int], floors: list[int], room: int
) -> None:
    labels = [f"c{at}" for at in range(len(held))]
    rows = [["x" * width for width in held]]
    fit = Fit(tuple(zip(labels, floors, strict=False)), frozenset())
    widths = fit.widths(labels, rows, room)
    natural = [max(was, len("c0")) for was in held]  # the widest cell, or the heading
    for width, was, floor in zip(widths, natural, floors, strict=False):
        assert min(was, floor) <= width <= was  # never below the width named
    least = sum(min(was, floor) for was, floor in zip(natural, floors, strict=False))
    if least + CELL_PADDING * len(held) <= room:
        assert sum(widths) + CELL_PADDING * len(held) <= room


async def test_at_80x24_the_mine_check_shows_each_result_and_the_fuel_left(
    tmp_path: Path,
) -> None:
    app = crowded_app(tmp_path / "campaign.db")
    # Exeter (1) given a counter beside Ajax's (2), both into the Denmark Strait field (3).
    mines.save_counter(app.factory, ship_id=1, counter_size="long", speed_rating=2, fuel_full=9)
    check = mines.start_check(app.factory, minefield_id=3, ship_ids=[1, 2], speed=2, seed=4)
    mines.roll_mine(app.factory, check_id=check, roll=6)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.app.push_screen(MineCheckScreen(1, check))
        await pilot.pause()
        table = pilot.app.screen.query_one(PlainTable)
        for label in ("Ship", "d6", "Total", "Result", "Fuel now"):
            assert on_screen(table, label), label
        assert "fuel-2 hull-2" in column_text(pilot.app, table, "Result")  # the row of 5-6
