"""The minefield ledger searched: the minefield under the cursor is the one the filter shows,
whatever row it had before, and the keys act on it."""

from __future__ import annotations

from pathlib import Path

from campaign_files import fill_form, press_to
from test_ledger_screen import app_on
from textual.widgets import Static

from tracker.screens.form import FormScreen
from tracker.screens.ledger import LedgerScreen
from tracker.services import campaigns
from tracker.widgets.search_table import SearchTable


async def test_the_filter_picks_the_minefield_the_keys_act_on(tmp_path: Path) -> None:
    app, factory, campaign_id = app_on(tmp_path / "campaign.db", seed=3)
    kms = campaigns.get_overview(factory, campaign_id=campaign_id).sides[1].id
    async with app.run_test(size=(120, 40)) as pilot:
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        await press_to(pilot, "b", screen=FormScreen)
        await fill_form(pilot, {"area_a": "Kattegat", "area_b": "Skagerrak"})
        assert ledger.view is not None
        sown = {"side_id": kms, "boundary": ledger.view.boundaries[0].id, "complete": True}
        for layer in ("Roland", "Cobra", "Wespe"):
            await press_to(pilot, "n", screen=FormScreen)
            await fill_form(pilot, {**sown, "layer_name": layer})
        cobra = next(f.id for f in ledger.view.minefields if f.layer == "Cobra")
        table = ledger.query_one("#minefield-table", SearchTable)
        await pilot.press("slash", *"cobra", "enter")
        assert table.shown_keys == [str(cobra)]
        assert str(table.border_title) == "Minefields · 1 of 3"
        detail = str(ledger.query_one("#minefield-detail", Static).render())
        assert detail.startswith(f"#{cobra} ")
        form = await press_to(pilot, "w", screen=FormScreen)  # its status form: Cobra's
        assert form.form_title == f"Minefield #{cobra}"


async def test_the_no_minefield_line_is_no_row_of_the_count(tmp_path: Path) -> None:
    app, _factory, _campaign_id = app_on(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        table = ledger.query_one("#minefield-table", SearchTable)
        assert "No minefield yet" in table.get_row_at(0)[2].plain  # the line is still there
        for typed in ("no", "zz"):  # a filter its words hold, and one they do not
            await pilot.press("slash", *typed, "enter")
            assert (table.total, table.shown_keys) == (0, [])
            assert str(table.border_title) == "Minefields · 0 of 0"
            assert "No minefield yet" in table.get_row_at(0)[2].plain
            await pilot.press("slash", "escape")
