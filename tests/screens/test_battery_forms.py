"""The ship's battery forms: a new battery is added to the ship, and an edit saved on a form
another player overtook is refused, saying so, rather than overwriting their change."""

from __future__ import annotations

from pathlib import Path

from campaign_files import fill_form, open_sheet, press_to, sample_app
from textual.widgets import Static

from tracker.screens.form import FormScreen
from tracker.screens.ship_detail import ShipDetailScreen
from tracker.services import fleet, sheet


async def test_a_battery_is_added_and_an_overtaken_edit_is_refused(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        detail = await press_to(pilot, "enter", screen=ShipDetailScreen)
        before = sheet.load_ship(app.factory, ship_id=detail.ship_id)[0].batteries
        await press_to(pilot, "a", screen=FormScreen)
        await fill_form(pilot, {"calibre": "4in", "guns": 2})
        await pilot.pause()
        added = sheet.load_ship(app.factory, ship_id=detail.ship_id)[0].batteries
        assert len(added) == len(before) + 1
        assert app.screen is detail

        battery = added[0]
        form = await press_to(pilot, "e", screen=FormScreen)
        fleet.save_battery(
            app.factory,
            ship_id=detail.ship_id,
            battery_id=battery.id,
            version=battery.version,
            notes="changed meanwhile",
        )
        await fill_form(pilot, {"notes": "mine"})
        assert app.screen is form  # still open, saying why
        assert "changed by another player" in str(form.query_one("#error-form", Static).render())
    kept = sheet.load_ship(app.factory, ship_id=detail.ship_id)[0].batteries
    assert next(b for b in kept if b.id == battery.id).notes == "changed meanwhile"
