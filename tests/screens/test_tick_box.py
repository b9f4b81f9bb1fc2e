"""A checkbox of the app's forms shows ticked and unticked by its mark, not only by colour."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult

from tracker.widgets.tick_box import TICKED, UNTICKED, TickBox


class Ticks(App[None]):
    def compose(self) -> ComposeResult:
        yield TickBox("", value=False, id="off")
        yield TickBox("", value=True, id="on")


@given(presses=st.integers(0, 4))
@settings(max_examples=5)
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
