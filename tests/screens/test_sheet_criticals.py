"""The record sheet's row shows the critical hits in force: how many, and the newest one."""

from __future__ import annotations

from pathlib import Path

from campaign_files import sample_app


def keys_of(text: str) -> list[str]:
    return ["space" if char == " " else char for char in text]


async def press(pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*keys)
    await pilot.pause()


async def test_the_sheet_row_shows_the_criticals_in_force(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "enter")
        await press(pilot, "d", *keys_of('crit "B turret out"'), "enter")
        await press(pilot, *keys_of('ucrit "Flooding aft"'), "enter", "escape")
        table = app.screen.query_one("#ship-table")
        row = [str(cell) for cell in table.get_row_at(0)]  # type: ignore[attr-defined]
        assert "2 Flooding aft" in row
        await press(pilot, "d", *keys_of("fix 2"), "enter", "escape")
        row = [str(cell) for cell in table.get_row_at(0)]  # type: ignore[attr-defined]
        assert "1 B turret out" in row
        await press(pilot, "q")
