"""Snapshots of the fleet roster (both views), each SVG looked at; the search helper's target."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from campaign_files import migrated_engine
from rich.text import Text
from textual.widgets import Checkbox, DataTable, Input, Select, Static

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.services import campaigns, fleet, hunt, markers, roster, scenarios, secrets
from tracker.services.fleet import ShipFields
from tracker.services.hunt import SearchParty
from tracker.services.roster import UnitFields

SIZE = (120, 40)


@pytest.fixture
def fleet_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TrackerApp:
    # Salts are random in play; fixed here so the seals in the pictures do not change.
    salts = iter(f"{n:032x}" for n in range(1, 100))
    monkeypatch.setattr(secrets, "new_salt", lambda: next(salts))
    engine = migrated_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    campaign_id = campaigns.create_campaign(factory, name="Atlantic 1942").id
    side = campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine").id
    u66 = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-66", unit_type="submarine", nation="Germany", points=12, speed="1", armor=3,
        vital_armor=6, hull_points=2, extra_decoys=1, abilities="Elusive Quarry\nWolfpack",
        attacks={"torpedo": [3, 3, 2, None]}))  # fmt: skip
    u552 = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-552", unit_type="submarine", nation="Germany", points=13, speed="1", armor=4,
        vital_armor=5, hull_points=1, attacks={"torpedo": [3, 2, 2, None]}))  # fmt: skip
    roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="Z 20 Karl Galster", unit_type="destroyer", nation="Germany", points=8, speed="2",
        armor=2, vital_armor=7, hull_points=2, abilities="Chase the Salvoes\nClose Escort",
        attacks={"main": [3, 2, 1, None], "asw": [4, None, None, None]}))  # fmt: skip
    dice = random.Random(2)  # the markers' public codes are drawn at random
    markers.assign_markers(factory, unit_id=u66, real=2, sectors=["C4", "D5", "B3"], rng=dice)
    markers.assign_markers(factory, unit_id=u552, real=1, sectors=["F7", "G6"], rng=dice)
    # The hunt is played in a scenario: one in play, with a ship of the record sheets in it.
    escort = fleet.create_squadron(factory, side_id=side, name="Escort")
    ship = fleet.create_ship(factory, squadron_id=escort, fields=ShipFields(name="Z 23"))
    scenario = campaigns.add_scenario(factory, campaign_id=campaign_id, title="Biscay")
    scenarios.set_participants(factory, scenario_id=scenario.id, ship_ids=[ship])
    scenarios.start_scenario(factory, scenario_id=scenario.id)
    decoy = next(m for m in roster.roster(factory, side_id=side).markers if m.sector == "B3")
    hunt.record_search(factory, marker_id=decoy.id, party=SearchParty("surface"), roll=6)
    hunt.attack_marker(factory, marker_id=decoy.id, success=True)  # a decoy: removed
    return TrackerApp(factory, rng=random.Random(6), open_campaign_id=campaign_id)


def test_roster_opponent_view(snap_compare, fleet_app: TrackerApp) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(fleet_app, terminal_size=SIZE, press=["f"])


def test_roster_owner_view(snap_compare, fleet_app: TrackerApp) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(fleet_app, terminal_size=SIZE, press=["f", "v"])


async def test_search_for_a_marker_shows_the_final_target_only(fleet_app: TrackerApp) -> None:
    async with fleet_app.run_test(size=SIZE) as pilot:
        await pilot.press("f", "s")
        await pilot.pause()
        screen = pilot.app.screen
        screen.query_one("#field-searcher", Select).value = "patrol_bomber"
        # PBY + Javelin (Sub Hunter) + Fletcher, then a Z-20 and a Bf-110 arrive: 4+ (¶4),
        # 5+ against the Elusive Quarry of U-66, whose marker is under the cursor: only 5+ shows.
        for key, value in (("extra_asw_units", "2"), ("sub_hunters", "1"), ("enemy_units", "2"),
                           ("roll", "4")):  # fmt: skip
            screen.query_one(f"#field-{key}", Input).value = value
        screen.query_one("#field-night_or_weather", Checkbox).value = False
        await pilot.pause()  # the edits ask the target of the service: the next pause waits
        await pilot.pause()
        preview = str(screen.query_one("#form-preview", Static).render())
    # The final target only: no 4+ before the Elusive Quarry, and the d6 read against 5+.
    assert preview.splitlines() == ["Target: 5+", "roll 4: not found"]


def _fitted(table: DataTable[Any]) -> bool:
    """Every column of the table is as wide as its widest cell (its widths are worked out after
    a refill, once the table is idle)."""
    for index, column in enumerate(table.ordered_columns):
        cells = [table.get_row_at(row)[index] for row in range(table.row_count)]
        widest = max((Text(c).cell_len if isinstance(c, str) else c.cell_len for c in cells),
                     default=0)  # fmt: skip
        if column.get_render_width(table) - 2 * table.cell_padding < widest:
            return False
    return True


def test_roster_filtered(snap_compare, fleet_app: TrackerApp) -> None:  # type: ignore[no-untyped-def]
    # The U-boats only, by any column's text: "2 of 3" above the table, the filter below it.
    async def filter_units(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("f", "slash", *"u-", "enter")
        marker_table = pilot.app.screen.query_one("#marker-table", DataTable)
        for _ in range(100):  # the picture is of the markers as the player reads them
            if _fitted(marker_table):
                break
            await pilot.pause(0.05)
        assert _fitted(marker_table)

    assert snap_compare(fleet_app, terminal_size=SIZE, run_before=filter_units)
