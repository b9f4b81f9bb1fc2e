"""`d` on any ship of a record sheet, then a line without a name, hits that ship: however far
down the campaign's ships it is (the empty line offered the campaign's first eight ships, and a
line on the ninth or later recorded nothing)."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import migrated_engine, open_sheet, press_to
from textual.widgets import DataTable

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.services import campaigns, fleet, sheet
from tracker.services.fleet import ShipFields


async def test_a_line_without_a_name_hits_the_ship_damage_entry_was_opened_on(
    tmp_path: Path,
) -> None:
    factory = session_factory(migrated_engine(tmp_path / "c.db"))
    campaign = campaigns.create_campaign(factory, name="Twelve")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue", nation="Britain")
    squadron = fleet.create_squadron(factory, side_id=side.id, name="Flotilla")
    for number in range(12):
        fleet.create_ship(factory, squadron_id=squadron,
                          fields=ShipFields(name=f"Destroyer {number:02}", structure_max=6,
                                            flotation_max=6))  # fmt: skip
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign.id)
    async with app.run_test(size=(120, 40)) as pilot:
        for row in (11, 8, 2):  # beyond the first eight, and within them
            sheet_screen = await open_sheet(pilot)
            sheet_screen.query_one("#ship-table", DataTable).move_cursor(row=row)
            await pilot.pause()
            await press_to(pilot, "d", screen=DamageEntryScreen)
            await pilot.press("s", "1", "enter")
            await pilot.pause()
            await pilot.press("escape", "escape")
            await pilot.pause()
        ships = sheet.load_record_sheet(factory, squadron_id=squadron).ships
        hit = {ship.name: ship.structure_now for ship in ships if ship.structure_now < 6}
        assert hit == {"Destroyer 11": 5, "Destroyer 08": 5, "Destroyer 02": 5}
