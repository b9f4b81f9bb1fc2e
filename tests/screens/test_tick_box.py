"""A checkbox of the app's forms shows ticked and unticked by its mark, not only by colour."""

from __future__ import annotations

from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult

from tracker.widgets.tick_box import TICKED, UNTICKED, TickBox, TickList


class Ticks(App[None]):
    def compose(self) -> ComposeResult:
        yield TickBox("", value=False, id="off")
        yield TickBox("", value=True, id="on")


@given(presses=st.integers(0, 4))
@settings(max_examples=examples(5))
async def test_a_tick_box_shows_ticked_and_unticked_by_its_mark(presses: int) -> None:
    async with Ticks().run_test() as pilot:
        for box_id, start in (("#off", False), ("#on", True)):
            box = pilot.app.query_one(box_id, TickBox)
            box.focus()
            for _ in range(presses):
                await pilot.press("space")
            await pilot.pause()
            ticked = start ^ (presses % 2 == 1)
            assert box.value is ticked
            assert str(box.render())[:3] == f"▐{TICKED if ticked else UNTICKED}▌"


class Picks(App[None]):
    def compose(self) -> ComposeResult:
        yield TickList[int](("Exeter", 1, True), ("Ajax", 2, False), ("Achilles", 3, True))


@given(toggled=st.sets(st.integers(0, 2), max_size=3))
@settings(max_examples=examples(5))
async def test_a_tick_list_shows_each_line_ticked_or_not_by_its_mark(toggled: set[int]) -> None:
    async with Picks().run_test() as pilot:
        picks = pilot.app.query_one(TickList)
        for index in toggled:
            picks.toggle(index + 1)
        await pilot.pause()
        for index, value in enumerate((1, 2, 3)):
            line = picks.render_line(index).text
            mark = TICKED if value in picks.selected else UNTICKED
            assert line.startswith(f"▐{mark}▌ "), line
        assert (1 in picks.selected) is (0 not in toggled)
