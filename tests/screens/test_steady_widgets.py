"""Widgets that are not drawn again for nothing: a ship list made shorter keeps the options it
drew (redrawn only at a new width), and a text box is repainted without laying out the screen
again unless its new text needs another height. What they show is what the widgets they
replace show."""

from __future__ import annotations

import asyncio
from typing import Any

from depth import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tracker.widgets.ship_list import ShipList
from tracker.widgets.steady_text import SteadyText

# Names as players type them, long enough to wrap in a narrow list, with markup left as typed.
NAMES = st.lists(
    st.sampled_from(["Exeter", "Admiral Graf Spee", "[b]", "Hood", " ", "É", "Z 21", "x" * 30]),
    min_size=1, max_size=3,
).map(" ".join)  # fmt: skip


class ListApp(App[None]):
    CSS = """
    #above { height: auto; display: none; }
    #box { width: 40; height: 1fr; }
    #list { height: 1fr; }
    """

    def __init__(self, kind: type[OptionList], names: list[str]) -> None:
        super().__init__()
        self.kind, self.names = kind, names

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static("", id="above")
            yield self.kind(*(Option(Text(name), id=str(n)) for n, name in enumerate(self.names)),
                            id="list")  # fmt: skip


def drawn(widget: Any) -> list[str]:
    """The lines the widget shows now."""
    return [strip.text for strip in widget.render_lines(widget.size.region)]


async def shown_after(kind: type[OptionList], names: list[str], rows: int, width: int) -> Any:
    """The list's lines after `rows` lines appear above it and its box takes `width` columns,
    and how many options it drew again for each change."""
    app = ListApp(kind, names)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        options = app.query_one("#list", OptionList)
        redrawn: list[int] = []
        real = options._get_visual  # an option measured or drawn anew, not from its cache

        def get_visual(*args: Any, **kwargs: Any) -> Any:
            redrawn.append(1)
            return real(*args, **kwargs)

        options._get_visual = get_visual  # type: ignore[method-assign]
        drawn(options)
        counts = []
        for change in ("rows", "width"):
            redrawn.clear()
            before = options.size
            if change == "rows":
                above = app.query_one("#above", Static)
                above.update("\n".join(["result"] * rows))
                above.display = True  # as damage entry's first result
            else:
                app.query_one("#box").styles.width = width
            while options.size == before:  # laid out anew; then its resize is handled
                await pilot.pause()
            await pilot.pause()
            lines = drawn(options)
            counts.append(len(redrawn))
        return lines, counts


@settings(max_examples=examples(12), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(names=st.lists(NAMES, min_size=1, max_size=12), rows=st.integers(1, 6),
       width=st.integers(12, 39))  # fmt: skip
def test_a_shorter_ship_list_keeps_its_options_and_shows_what_an_option_list_shows(
    names: list[str], rows: int, width: int
) -> None:
    ours, (shorter, narrower) = asyncio.run(shown_after(ShipList, names, rows, width))
    theirs, (their_shorter, _) = asyncio.run(shown_after(OptionList, names, rows, width))
    assert ours == theirs
    # Made shorter, the list draws none of its options again (OptionList drew them all), unless
    # a scroll bar came with it and narrowed its lines; at a new width it draws them anew.
    assert their_shorter > 0
    assert shorter in (0, their_shorter)
    assert narrower > 0


class TextApp(App[None]):
    CSS = """
    #box { width: 1fr; border: round $primary; }
    #box.-fixed { height: 1fr; }
    #box.-auto { height: auto; }
    """

    def __init__(self, kind: type[Static], sizing: str) -> None:
        super().__init__()
        self.kind, self.sizing = kind, sizing

    def compose(self) -> ComposeResult:
        yield Static("above", id="above")
        yield self.kind("", id="box", classes=self.sizing, markup=False)
        yield Static("below", id="below")


async def laid_out(kind: type[Static], sizing: str, texts: list[str]) -> list[tuple[str, int, int]]:
    """Before the first text, then after each: the box's lines, its height, and how many times
    the screen was laid out for it."""
    app = TextApp(kind, sizing)
    async with app.run_test(size=(40, 24)) as pilot:
        await pilot.pause()
        box = app.query_one("#box", Static)
        reflows: list[int] = []
        real = Compositor.reflow

        def reflow(self: Compositor, *args: Any) -> Any:
            reflows.append(1)
            return real(self, *args)

        Compositor.reflow = reflow  # type: ignore[method-assign]
        try:
            shown = [("\n".join(drawn(box)), box.size.height, 0)]
            for text in texts:
                reflows.clear()
                box.update(Text(text))
                await pilot.pause()
                shown.append(("\n".join(drawn(box)), box.size.height, len(reflows)))
        finally:
            Compositor.reflow = real  # type: ignore[method-assign]
        return shown


# Texts of several lines, some long enough to wrap in the 38 columns the box has inside.
TEXTS = st.lists(st.lists(NAMES, max_size=8).map("\n".join), min_size=1, max_size=4)
BOXES = settings(max_examples=examples(10), deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


def shown_alike(sizing: str, texts: list[str]) -> tuple[list[Any], list[Any]]:
    """The steady box and a Static given the same texts (`laid_out` each): what the box shows,
    and the height it takes, are the Static's after every text."""
    ours = asyncio.run(laid_out(SteadyText, sizing, texts))
    theirs = asyncio.run(laid_out(Static, sizing, texts))
    assert [(lines, height) for lines, height, _ in ours] == [
        (lines, height) for lines, height, _ in theirs
    ]
    return ours, theirs


@BOXES
@given(texts=TEXTS)
def test_a_text_box_sized_by_its_styles_is_repainted_without_laying_out_the_screen(
    texts: list[str],
) -> None:
    ours, theirs = shown_alike("-fixed", texts)
    assert [layouts for *_, layouts in ours[1:]] == [0] * len(texts)
    assert all(layouts > 0 for *_, layouts in theirs[1:])


@BOXES
@given(texts=TEXTS)
@example(texts=["Exeter\nHood", "Ajax\nAchilles", "Exeter", "x" * 50])  # kept, fewer, wrapped
def test_a_text_box_sized_by_its_text_is_laid_out_only_when_its_height_changes(
    texts: list[str],
) -> None:
    ours, _ = shown_alike("-auto", texts)
    # The screen is laid out again exactly when the text needs another height.
    heights = [height for _, height, _ in ours]
    for step in range(1, len(ours)):
        layouts = ours[step][2]
        assert (layouts > 0) == (heights[step] != heights[step - 1]), (step, heights)
