"""The campaign's mine damage table as a player types it in: add, edit, delete, overlaps, gaps."""

from __future__ import annotations

from pathlib import Path

from campaign_files import sample_app
from textual.widgets import DataTable, Label, Static

from tracker.app import TrackerApp
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.form import FormScreen
from tracker.screens.mine_table import MineTableScreen
from tracker.services import mines


async def press(pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*keys)
    await pilot.pause()


async def open_table(pilot, app: TrackerApp) -> MineTableScreen:  # type: ignore[no-untyped-def]
    """The ledger and the mine check push the screen; here the test pushes it itself."""
    await pilot.pause()
    assert app.open_campaign_id is not None
    await app.push_screen(MineTableScreen(app.open_campaign_id))
    await pilot.pause()
    assert isinstance(app.screen, MineTableScreen)
    return app.screen


async def type_row(  # type: ignore[no-untyped-def]
    pilot, low: int, high: int, effects: str, applies_downs: int = 0, note: str = ""
) -> None:
    """Fill the open row form field by field with tab, as a player does, then ctrl+s."""
    assert isinstance(pilot.app.screen, FormScreen)
    await press(pilot, "end", "ctrl+u", *str(low), "tab")
    await press(pilot, "end", "ctrl+u", *str(high), "tab")
    if applies_downs:  # the Select: open it, go down to long (1) or small (2), choose
        await press(pilot, "enter", *["down"] * applies_downs, "enter")
    await press(pilot, "tab", "end", "ctrl+u", *effects, "tab")
    await press(pilot, *note, "ctrl+s")


def gaps(screen: MineTableScreen) -> Static:
    return screen.query_one("#mine-gaps", Static)


async def test_add_rows_then_gaps_then_a_full_table(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_table(pilot, app)
        assert "No rows yet" in str(gaps(screen).render())
        assert gaps(screen).has_class("-warning")
        await press(pilot, "a")
        await type_row(pilot, 1, 3, "none")
        await press(pilot, "a")
        await type_row(pilot, 4, 5, "fuel-2, speed-1", applies_downs=1, note="Variant table")
        assert isinstance(app.screen, MineTableScreen)
        assert screen.query_one(DataTable).row_count == 2
        shown = str(gaps(screen).render())
        assert "long counters: no row for 6-11" in shown
        assert "small counters: no row for 4-11" in shown
        assert "a roll in a gap asks you for the result" in shown.lower()
        assert gaps(screen).has_class("-warning")
        await press(pilot, "a")
        await type_row(pilot, 4, 11, "sunk", applies_downs=2)
        await press(pilot, "a")
        await type_row(pilot, 6, 11, "crippled hull-2", applies_downs=1)
        assert "Every modified roll" in str(gaps(screen).render())
        assert not gaps(screen).has_class("-warning")
    table = mines.mine_table(app.factory, campaign_id=app.open_campaign_id or 0)
    assert [(r.low, r.high, r.applies_to, r.effect) for r in table.rows] == [
        (1, 3, "all", "none"),
        (4, 5, "long", "speed-1 fuel-2"),
        (4, 11, "small", "sunk"),
        (6, 11, "long", "hull-2 crippled"),
    ]
    assert table.rows[1].note == "Variant table"
    assert table.gaps == ()


async def test_an_overlapping_row_is_refused_beside_its_field(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=3)
    campaign_id = app.open_campaign_id or 0
    mines.save_mine_row(app.factory, campaign_id=campaign_id, low=1, high=3, effects="none")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_table(pilot, app)
        await press(pilot, "a")
        await type_row(pilot, 3, 5, "fuel-2", applies_downs=2)
        form = app.screen
        assert isinstance(form, FormScreen)
        error = form.query_one("#error-low", Label)
        assert not error.has_class("-hidden")
        assert "overlaps the row 1-3 (all)" in str(error.render())
        await press(pilot, "escape", "y")  # the typed row discarded
        assert isinstance(app.screen, MineTableScreen)
        await press(pilot, "a")
        await type_row(pilot, 2, 2, "speed-x")
        assert isinstance(app.screen, FormScreen)
        assert "speed-x" in str(app.screen.query_one("#error-effects", Label).render())
    rows = mines.mine_table(app.factory, campaign_id=campaign_id).rows
    assert [(r.low, r.high) for r in rows] == [(1, 3)]


async def test_edit_with_enter_and_delete_with_confirm(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=3)
    campaign_id = app.open_campaign_id or 0
    for low, high, effects in ((1, 3, "none"), (4, 6, "fuel-1"), (7, 11, "sunk")):
        mines.save_mine_row(app.factory, campaign_id=campaign_id, low=low, high=high,
                            effects=effects)  # fmt: skip
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_table(pilot, app)
        await press(pilot, "down", "enter")  # the 4-6 row
        assert isinstance(app.screen, FormScreen)
        assert app.screen.form_title == "Edit mine damage table row"
        await type_row(pilot, 4, 5, "fuel-2 gunnery-1")
        assert isinstance(app.screen, MineTableScreen)
        assert "6" in str(gaps(screen).render())  # 6 is now a gap for both cups
        await press(pilot, "down", "x")  # the 7-11 row
        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "n")
        assert screen.query_one(DataTable).row_count == 3
        await press(pilot, "x")
        assert isinstance(app.screen, ConfirmScreen)
        assert "7-11" in app.screen.question
        await press(pilot, "y")
        assert isinstance(app.screen, MineTableScreen)
        assert screen.query_one(DataTable).row_count == 2
    table = mines.mine_table(app.factory, campaign_id=campaign_id)
    assert [(r.low, r.high, r.effect) for r in table.rows] == [
        (1, 3, "none"),
        (4, 5, "gunnery-1 fuel-2"),
    ]
    assert table.gaps == ("long counters: no row for 6-11", "small counters: no row for 6-11")
