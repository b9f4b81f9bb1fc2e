"""The search table: `/` filters as the player types, literally and in any column; `o` sorts
by the column under the cursor, numbers as numbers; the cursor stays on its row throughout."""

from __future__ import annotations

import asyncio
from typing import Any

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult

from tracker.widgets.search_table import SearchTable, SortAs

# Names with what markup, SQL LIKE and glob patterns read as special, and letters in two cases.
NAMES = st.lists(
    st.sampled_from(["[", "]", "[/]", "[b]", "%", "_", "*", "\\", "?", "Ex", "ex", "É", " ", "1"]),
    min_size=1, max_size=4,
).map("".join)  # fmt: skip
# What a player types into the filter line: pieces of the same.
QUERIES = st.lists(
    st.sampled_from(["[", "]", "%", "_", "*", "\\", "e", "X", "é", "1", "b"]),
    min_size=1,
    max_size=3,
).map("".join)


class TableApp(App[None]):
    def __init__(self, rows: list[tuple[str, list[Any]]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield SearchTable(id="t", title="Units")

    def on_mount(self) -> None:
        table = self.query_one(SearchTable)
        table.add_columns("Name", "Nation", "Pts")
        table.show(self.rows)
        table.focus()


def _shown(table: SearchTable) -> list[str]:
    return [str(row.value) for row in table.rows]


def _names(table: SearchTable) -> list[str]:
    return [table.get_cell_at((n, 0)).plain for n in range(table.row_count)]


async def _type(pilot: Any, text: str) -> None:
    for character in text:
        await pilot.press(character)


@settings(max_examples=examples(15), suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NAMES, min_size=1, max_size=8), query=QUERIES)
def test_the_filter_keeps_the_rows_holding_the_typed_text_in_any_column(
    names: list[str], query: str
) -> None:
    rows = [(str(n), [name, "UK" if n % 2 else "Japan", n]) for n, name in enumerate(names)]
    wanted = [
        key for key, cells in rows
        if any(query.casefold() in str(cell).casefold() for cell in cells)
    ]  # fmt: skip

    async def run() -> None:
        app = TableApp(rows)
        async with app.run_test() as pilot:
            table = app.query_one(SearchTable)
            await pilot.press("slash")
            await _type(pilot, query)
            assert table.query_text == query
            assert _shown(table) == wanted
            # Each name shown as typed, markup and wildcards alike.
            assert _names(table) == [names[int(key)] for key in wanted]
            assert str(table.border_title) == f"Units · {len(wanted)} of {len(rows)}"
            await pilot.press("escape")
            assert _shown(table) == [key for key, _ in rows]
            assert not table.filtering and table.border_subtitle is None

    asyncio.run(run())


@settings(max_examples=examples(15))
@given(points=st.lists(st.integers(-50, 500), min_size=1, max_size=12), as_text=st.booleans())
def test_o_sorts_numbers_as_numbers_and_again_reverses(points: list[int], as_text: bool) -> None:
    rows = [(f"u{n}", [f"Unit {n}", "UK", Text(str(p)) if as_text else p])
            for n, p in enumerate(points)]  # fmt: skip
    ascending = [key for key, cells in sorted(rows, key=lambda row: int(str(row[1][2])))]

    async def run() -> None:
        app = TableApp(rows)
        async with app.run_test() as pilot:
            table = app.query_one(SearchTable)
            await pilot.press("right", "right", "o")
            assert [int(str(table.get_cell_at((n, 2)))) for n in range(len(rows))] == sorted(points)
            assert _shown(table) == ascending  # equal points keep their order
            await pilot.press("o")
            assert [int(str(table.get_cell_at((n, 2)))) for n in range(len(rows))] == sorted(
                points, reverse=True
            )

    asyncio.run(run())


async def test_the_cursor_stays_on_its_row_through_a_filter_a_sort_and_a_reload() -> None:
    rows = [("1", ["Hood", "UK", 30]), ("2", ["Bismarck", "Germany", 32]),
            ("3", ["Prinz Eugen", "Germany", 19]), ("4", ["Exeter", "UK", 14])]  # fmt: skip
    app = TableApp(rows)
    async with app.run_test() as pilot:
        table = app.query_one(SearchTable)
        await pilot.press("down", "down")
        assert table.selected_key() == "3"
        await pilot.press("slash", "g", "e", "r")
        assert _shown(table) == ["2", "3"]
        assert table.selected_key() == "3"
        await pilot.press("enter")  # the filter stays; keys act on the table again
        assert not table.filtering and table.query_text == "ger"
        await pilot.press("right", "right", "o")
        assert _shown(table) == ["3", "2"]
        assert table.selected_key() == "3"
        # A reload (an edit, another player's change) with a row added keeps filter and place.
        table.show([*rows, ("5", ["Graf Spee", "Germany", 20])])
        await pilot.pause()
        assert _shown(table) == ["3", "5", "2"]
        assert table.selected_key() == "3"
        await pilot.press("slash", "escape")
        assert table.selected_key() == "3"
        assert len(_shown(table)) == 5


async def test_keys_typed_into_the_filter_line_do_not_reach_the_screen() -> None:
    app = TableApp([("1", ["q", "a", 1])])
    async with app.run_test() as pilot:
        table = app.query_one(SearchTable)
        await pilot.press("slash", "q", "o")
        assert app.is_running
        assert table.query_text == "qo"
        assert table.sorted_by is None


async def test_a_burst_of_keys_after_the_slash_lands_in_the_filter_line() -> None:
    rows = [("1", ["Hood", "UK", 30]), ("2", ["Bismarck", "Germany", 32])]
    app = TableApp(rows)
    async with app.run_test() as pilot:
        table = app.query_one(SearchTable)
        # Posted at once, as a terminal delivers a fast typist's keys (or a paste).
        for key, character in (("slash", "/"), ("g", "g"), ("e", "e"), ("enter", "\r")):
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        assert table.query_text == "ge"
        assert _shown(table) == ["2"]
        assert not table.filtering


class OwnKeyApp(App[None]):
    """A screen whose own `o` means something else: its table sorts with another key."""

    BINDINGS = [("o", "own", "Own")]

    def __init__(self, rows: list[tuple[str, list[Any]]]) -> None:
        super().__init__()
        self.rows = rows
        self.owned = 0

    def compose(self) -> ComposeResult:
        yield SearchTable(id="t", title="Ships", sort_key="S")

    def on_mount(self) -> None:
        table = self.query_one(SearchTable)
        table.add_column("Ship", width=10)
        table.add_column("Structure", width=12)
        table.show(self.rows)
        table.focus()

    def action_own(self) -> None:
        self.owned += 1


@settings(max_examples=examples(15))
@given(left=st.lists(st.integers(0, 30), min_size=1, max_size=10))
def test_a_cell_shown_one_way_sorts_by_its_value_with_the_tables_own_sort_key(
    left: list[int],
) -> None:
    # Shown as a bar whose text would sort otherwise (a full box before an empty one, 9 after 10).
    rows = [(f"s{n}", [f"Ship {n}", SortAs(Text("█" * (30 - v) + f" {v}"), v)])
            for n, v in enumerate(left)]  # fmt: skip
    ascending = [key for key, _ in sorted(zip([k for k, _ in rows], left, strict=True),
                                          key=lambda pair: pair[1])]  # fmt: skip

    async def run() -> None:
        app = OwnKeyApp(rows)
        async with app.run_test() as pilot:
            table = app.query_one(SearchTable)
            await pilot.press("right", "o")
            assert app.owned == 1 and table.sorted_by is None  # the screen's o, not a sort
            await pilot.press("S")
            assert _shown(table) == ascending
            assert table.get_cell_at((0, 1)).plain.endswith(f" {min(left)}")
            await pilot.press("S")
            assert [left[int(key[1:])] for key in _shown(table)] == sorted(left, reverse=True)
            assert app.owned == 1
            assert "S" in table._bindings.key_to_bindings
            assert "o" not in table._bindings.key_to_bindings

    asyncio.run(run())


async def test_widths_the_screen_sets_are_kept_through_a_sort_and_a_reload() -> None:
    rows = [("1", ["Hood", 30]), ("2", ["Bismarck", 32])]
    app = OwnKeyApp(rows)
    async with app.run_test() as pilot:
        table = app.query_one(SearchTable)
        table.set_widths([20, 14])
        await pilot.press("S")  # by Ship: its heading takes an arrow
        table.show(rows)
        await pilot.pause()
        assert [column.width for column in table.ordered_columns] == [20, 14]
        table.set_widths([7, 11])
        table.show(rows)
        await pilot.pause()
        assert [column.width for column in table.ordered_columns] == [7, 11]


@settings(max_examples=examples(15))
@given(tracks=st.lists(st.tuples(st.integers(0, 40), st.integers(1, 40)), min_size=1, max_size=10))
def test_a_damage_track_written_now_over_max_sorts_by_what_is_left(
    tracks: list[tuple[int, int]],
) -> None:
    rows = [(f"s{n}", [f"Ship {n}", f"{now}/{most}"]) for n, (now, most) in enumerate(tracks)]
    # By what is left; equal ones by the rest as text.
    order = sorted(enumerate(tracks), key=lambda pair: (pair[1][0], f"/{pair[1][1]}"))
    ascending = [f"s{n}" for n, _ in order]

    async def run() -> None:
        app = OwnKeyApp(rows)
        async with app.run_test() as pilot:
            table = app.query_one(SearchTable)
            await pilot.press("right", "S")
            assert _shown(table) == ascending

    asyncio.run(run())


@settings(max_examples=examples(10), suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NAMES, max_size=4), query=st.none() | QUERIES)
def test_an_empty_tables_placeholder_line_is_never_a_row_of_the_count(
    names: list[str], query: str | None
) -> None:
    rows = [(str(n), [name, "UK", n]) for n, name in enumerate(names)]

    async def run() -> None:
        app = TableApp([])
        async with app.run_test() as pilot:
            table = app.query_one(SearchTable)
            table.show(rows, empty=["No unit yet", "", ""])
            if query is not None:
                table.set_filter(query)
            await pilot.pause()
            assert table.total == len(rows)
            assert len(table.shown_keys) <= len(rows)
            if query is not None:
                assert str(table.border_title) == f"Units · {len(table.shown_keys)} of {len(rows)}"
            # The line is drawn only while the table holds no row, whatever the filter.
            placeholder = [str(table.get_cell_at((n, 0))) for n in range(table.row_count)]
            assert ("No unit yet" in placeholder) == (not rows)

    asyncio.run(run())
