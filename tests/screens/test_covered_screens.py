"""A screen covered by an opaque one is not drawn through it: a change to the covered screen
(Textual refreshes the screen it covers on every push) no longer paints the top screen again.
A dialog, whose screen is translucent, still shows the screen beneath and follows its changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from textual.screen import ModalScreen, Screen
from textual.widgets import Input

from tracker.app import TrackerApp
from tracker.screens.campaign import CampaignScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.help import HelpScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.ship_detail import ShipDetailScreen


def paints_of(app: TrackerApp) -> list[Screen[Any]]:
    """Each screen the app sends to the terminal from now on, one entry per paint."""
    painted: list[Screen[Any]] = []
    display = app._display

    def counted(screen: Screen[Any], renderable: Any) -> None:
        painted.append(screen)
        display(screen, renderable)

    app._display = counted  # type: ignore[method-assign]
    return painted


async def top_paints_after_covered_change(pilot: Any) -> int:
    """How many times the top screen is painted when the screen under it changes."""
    app: TrackerApp = pilot.app
    top, covered = app.screen_stack[-1], app.screen_stack[-2]
    await pilot.pause()
    painted = paints_of(app)
    covered.refresh()
    for widget in covered.query("*"):
        widget.refresh()
    await pilot.pause()
    return painted.count(top)


def shown_through(app: TrackerApp) -> list[Screen[Any]]:
    background: list[Screen[Any]] = app._background_screens
    return background


async def test_an_opaque_screen_hides_the_screens_under_it_and_a_dialog_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The line's cursor would paint damage entry on its own every half second.
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    app = sample_app(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        walk = [
            ("enter", RecordSheetScreen),
            ("question_mark", HelpScreen),
            ("escape", RecordSheetScreen),
            ("d", DamageEntryScreen),
            ("escape", RecordSheetScreen),
            ("enter", ShipDetailScreen),
            ("escape", RecordSheetScreen),
            ("escape", CampaignScreen),
        ]
        seen = {"opaque": 0, "dialog": 0}
        for key, kind in walk:
            top = await press_to(pilot, key, screen=kind)
            if len(app.screen_stack) < 2:
                continue
            if isinstance(top, ModalScreen):
                assert top.styles.background.a < 1
                assert shown_through(app)[-1] is app.screen_stack[-2]
                assert await top_paints_after_covered_change(pilot) > 0, key
                seen["dialog"] += 1
            else:
                assert top.styles.background.a == 1
                assert shown_through(app) == []
                assert await top_paints_after_covered_change(pilot) == 0, key
                seen["opaque"] += 1
        assert seen == {"opaque": len(walk) - 1, "dialog": 1}  # every step, a screen under it
