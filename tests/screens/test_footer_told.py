"""The footer rebuilds its keys only when what it shows changed: opening damage entry builds
its footer once (it was four times, and the record sheet's under it once more), typing a hit
leaves it as it is, a narrower window gives it the keys that fit."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.record_sheet import RecordSheetScreen


def shown_keys(footer: Footer) -> list[str]:
    return [key.description for key in footer.query(FooterKey) if key.description]


async def test_the_footer_is_built_once_on_opening_kept_while_typing_and_rebuilt_to_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rebuilt: Counter[int] = Counter()
    real = Footer.recompose

    async def recompose(self: Footer) -> Any:
        rebuilt[id(self)] += 1
        return await real(self)

    monkeypatch.setattr(Footer, "recompose", recompose)
    app = sample_app(tmp_path / "campaign.db", seed=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        sheet = await press_to(pilot, "enter", screen=RecordSheetScreen)
        await pilot.pause()
        rebuilt.clear()
        entry = await press_to(pilot, "d", screen=DamageEntryScreen)
        await pilot.pause()
        footer = entry.query_one(Footer)
        # Opening the screen builds its footer's keys once, and the sheet's, under it, not at all.
        assert rebuilt == {id(footer): 1}, (rebuilt, id(footer), id(sheet.query_one(Footer)))
        wide = shown_keys(footer)
        assert "Back" in wide and "Crit tables" in wide
        before = rebuilt[id(footer)]
        for key in ["s", "3", "space", "f", "1", "space", "f", "m", "+", "1"]:
            await pilot.press(key)
            await pilot.pause()
        assert "→" in str(entry.query_one("#damage-preview").render())
        assert rebuilt[id(footer)] == before
        # Fewer columns: fewer keys fit, and the footer says so.
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        narrow = shown_keys(footer)
        assert rebuilt[id(footer)] > before
        assert "Back" in narrow and len(narrow) < len(wide)
        assert set(narrow) <= set(wide)
