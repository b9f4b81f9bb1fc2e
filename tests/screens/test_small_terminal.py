"""An 80x24 terminal: every dialog a screen's keys open fits the window, buttons reachable."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import sample_app
from textual.binding import Binding
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable

from tracker.screens.campaign import CampaignScreen

SMALL = (80, 24)
# Keys that move, leave or quit rather than open something: left to the walk below.
NOT_DIALOG_KEYS = {"escape", "tab", "down", "up", "enter", "q", "ctrl+z", "ctrl+y"}
# From the campaign screen, the keys that reach each screen whose own keys open dialogs.
SCREENS = (
    (),  # the campaign
    ("enter",),  # the record sheet of Force G
    ("enter", "d"),  # damage entry
    ("f",),  # the War at Sea fleet roster
    ("m",),  # the minefield ledger
    ("r",),  # repairs between scenarios
    ("tab", "enter"),  # the scenario
)


def _screen_keys(pilot: Pilot[None]) -> list[str]:
    """The first key of each of the screen's own bindings that is no move, exit or quit, and
    the help."""
    keys = ["question_mark"]
    for binding in type(pilot.app.screen).BINDINGS:
        if isinstance(binding, Binding):
            key = binding.key.split(",")[0]
            if key not in NOT_DIALOG_KEYS:
                keys.append(key)
    return keys


async def _check_dialog(pilot: Pilot[None], opened_by: str) -> None:
    """The dialog lies inside the window, its tables within its width, and each button can be
    scrolled into it."""
    screen = pilot.app.screen
    window = screen.region
    for child in screen.children:
        assert window.contains_region(child.region), (
            f"{type(screen).__name__} opened by {opened_by!r} is {child.region}, wider or "
            f"taller than the {window.width}x{window.height} window"
        )
    for table in screen.query(DataTable):  # the help's actions: wrapped, not cut at the edge
        assert table.virtual_size.width <= table.scrollable_content_region.width, (
            f"the table of {type(screen).__name__} opened by {opened_by!r} runs past its width"
        )
    for button in screen.query(Button):
        button.scroll_visible(animate=False, immediate=True)
        await pilot.pause()
        assert window.contains_region(button.region), (
            f"{button.label} of {type(screen).__name__} opened by {opened_by!r} is off screen"
        )


async def _back_to_campaign(pilot: Pilot[None]) -> None:
    for _ in range(6):
        if isinstance(pilot.app.screen, CampaignScreen):
            return
        await pilot.press("escape")
        await pilot.pause()
        if isinstance(pilot.app.screen, ModalScreen):  # "discard what you typed?"
            await pilot.press("y")
            await pilot.pause()
    raise AssertionError(f"stuck on {type(pilot.app.screen).__name__}")


@pytest.mark.slow
async def test_every_dialog_fits_an_80x24_terminal_with_its_buttons_reachable(
    tmp_path: Path,
) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=3)
    opened: list[str] = []
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        for path in SCREENS:
            await pilot.press(*path)
            await pilot.pause()
            host = app.screen
            for key in _screen_keys(pilot):
                await pilot.press(key)
                await pilot.pause()
                if isinstance(app.screen, ModalScreen):
                    opened.append(f"{type(host).__name__} {key}")
                    await _check_dialog(pilot, f"{type(host).__name__} {key}")
                for _ in range(4):  # a form may ask before it discards: escape answers no
                    if not isinstance(app.screen, ModalScreen):
                        break
                    await pilot.press("escape")
                    await pilot.pause()
                if app.screen is not host:  # a key that opened a whole screen
                    await pilot.press("escape")
                    await pilot.pause()
            await _back_to_campaign(pilot)
    # The walk opened the dialogs it was written for, not none of them.
    for expected in (
        "CampaignScreen s",
        "RecordSheetScreen a",
        "RosterScreen a",
        "LedgerScreen question_mark",
    ):
        assert expected in opened, opened
