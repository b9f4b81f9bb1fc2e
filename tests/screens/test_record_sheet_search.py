"""The record sheet's ships searched and sorted: a hit, an undo, another player's change and the
sheet's own keys act on the ship under the cursor, and the cursor stays on its ship throughout."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import open_sheet, press_to, sample_app

from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import damage, sheet
from tracker.widgets.search_table import SearchTable

SHIPS = ("Exeter", "Ajax", "Achilles")  # the sample's Force G, in the sheet's order


def _name(screen: RecordSheetScreen, key: str | None) -> str:
    assert screen.record is not None
    return next(ship.name for ship in screen.record.ships if str(ship.id) == key)


def _names(screen: RecordSheetScreen, table: SearchTable) -> list[str]:
    return [_name(screen, key) for key in table.shown_keys]


@pytest.mark.parametrize("chosen", SHIPS)
async def test_a_hit_an_undo_and_a_reload_keep_the_cursor_on_its_ship(
    tmp_path: Path, chosen: str
) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        table = screen.query_one("#ship-table", SearchTable)
        screen.reload()  # read again once laid out: fitted to the table's width, not the window's
        await pilot.pause()
        assert screen.record is not None
        # At 120 columns every column up to Points is whole.
        widths = {str(column.label.plain): column.width for column in table.ordered_columns}
        assert widths["Nation"] >= max(len(ship.nation) for ship in screen.record.ships)
        assert widths["Class"] >= max(len(ship.class_name) for ship in screen.record.ships)
        await pilot.press("S")  # by name (o uses fuel on this sheet)
        assert _names(screen, table) == sorted(SHIPS)
        await pilot.press(*["up"] * 3, *["down"] * sorted(SHIPS).index(chosen))
        assert _name(screen, table.selected_key()) == chosen
        await press_to(pilot, "d", screen=DamageEntryScreen)
        await pilot.press(*f"{chosen.lower()} s3", "enter")
        await pilot.pause()
        await press_to(pilot, "escape", screen=RecordSheetScreen)
        # By Structure now, least first: the ship hit leads, the cursor on it.
        await pilot.press("right", "S")
        await pilot.pause()
        assert _names(screen, table)[0] == chosen
        assert _name(screen, table.selected_key()) == chosen
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert screen.record is not None
        assert all(ship.structure_now == ship.structure_max for ship in screen.record.ships)
        assert _name(screen, table.selected_key()) == chosen
        # Another player hits another ship: the sheet read again keeps the cursor on its ship.
        other = next(ship for ship in screen.record.ships if ship.name != chosen)
        damage.record_hit(app.factory, request=damage.HitRequest(ship_id=other.id, structure=5))
        screen.reload()
        await pilot.pause()
        assert _names(screen, table)[0] == other.name
        assert _name(screen, table.selected_key()) == chosen
        # Filtered to the ship: f and o act on it.
        await pilot.press("slash", *chosen[:3].lower(), "enter")
        assert _names(screen, table) == [n for n in SHIPS if chosen[:3].lower() in n.lower()]
        assert str(table.border_title).startswith("Ships · ")
        await pilot.press(*["up"] * 3, *["down"] * _names(screen, table).index(chosen))
        await pilot.press("f")
        await pilot.pause()
        ships = sheet.load_record_sheet(app.factory, squadron_id=screen.squadron_id).ships
        assert {ship.name: ship.fire_markers for ship in ships} == {
            name: int(name == chosen) for name in SHIPS
        }
        form = await press_to(pilot, "o", screen=FormScreen)
        assert form.form_title == f"{chosen} uses fuel"
