"""Opening damage entry reads what it shows once: each critical table's die and the ships the
empty line offers, not once on mounting and again on its first showing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from textual.widgets import Input, Static

from tracker.screens.critical_tables import CriticalTablesScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import damage, rule_tables


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, asked: Counter[str]) -> None:
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        asked[name if name != "table_dice" else f"table_dice {','.join(kwargs['kinds'])}"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


async def test_opening_damage_entry_reads_its_tables_and_ships_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: Counter[str] = Counter()
    counting(monkeypatch, rule_tables, "table_dice", asked)
    counting(monkeypatch, damage, "find_ships", asked)
    app = sample_app(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "enter", screen=RecordSheetScreen)
        asked.clear()
        entry = await press_to(pilot, "d", screen=DamageEntryScreen)
        await pilot.pause()
        assert asked == {"table_dice structural,underwater": 1, "find_ships": 1}
        # What those reads are for is there: the line previews on the sheet's ship, and a
        # critical rolled on the campaign's table (`crit ?`) is offered only with a table read.
        assert set(entry.preview.table_dice) == {"structural", "underwater"}
        await pilot.press(*"s1")
        await pilot.pause()
        preview = str(entry.query_one("#damage-preview", Static).render())
        assert "→" in preview, preview
        assert entry.query_one("#shorthand", Input).value == "s1"
        # Back on the sheet and in again: the same reads again, once each.
        await press_to(pilot, "backspace", "backspace", "escape", screen=RecordSheetScreen)
        asked.clear()
        await press_to(pilot, "d", screen=DamageEntryScreen)
        await pilot.pause()
        assert asked == {"table_dice structural,underwater": 1, "find_ships": 1}


async def test_a_table_changed_meanwhile_is_read_again_on_coming_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Back from the tables' screen (ctrl+t), both dice are read again, in one read: a row
    typed there meanwhile (or by another player) gives the die `crit ?` rolls."""
    app = sample_app(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "enter", screen=RecordSheetScreen)
        entry = await press_to(pilot, "d", screen=DamageEntryScreen)
        before = dict(entry.preview.table_dice)
        highest = max((die or 0) for die in before.values()) + 7
        rule_tables.save_table_row(app.factory, campaign_id=entry.campaign_id, kind="underwater",
                                   low=highest, high=highest, effect="Shaft bent")  # fmt: skip
        asked: Counter[str] = Counter()
        counting(monkeypatch, rule_tables, "table_dice", asked)
        await press_to(pilot, "ctrl+t", screen=CriticalTablesScreen)
        await press_to(pilot, "escape", screen=DamageEntryScreen)
        await pilot.pause()
        assert asked == {"table_dice structural,underwater": 1}
        assert entry.preview.table_dice == {**before, "underwater": highest}
