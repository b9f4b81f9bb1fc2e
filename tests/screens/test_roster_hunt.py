"""The hunt on the fleet roster as players play it (docs/RULES.md §Subs): markers in
their own sectors, search then attack the marker under the cursor, a destroyed sub, the two
kinds of re-concealment, the night torpedo rule, and the owner view's idle time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from campaign_files import FakeClock, fill_form, hides_on_the_second, migrated_engine, press_to
from textual.widgets import DataTable, Input, Label

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.screens.form import FormScreen
from tracker.screens.roster import RosterScreen
from tracker.services import campaigns, fleet, history, hunt, markers, mines, roster, scenarios
from tracker.services.fleet import ShipFields
from tracker.services.hunt import SearchParty
from tracker.services.roster import MarkerView, UnitFields


def _atlantic(path: Path, idle: int = 60) -> tuple[SessionFactory, int, dict[str, int]]:
    """A War at Sea side with U-66 (2 hull points) and U-552 (1), a scenario in play."""
    engine = migrated_engine(path)
    factory = session_factory(engine)
    campaign = campaigns.create_campaign(factory, name="Atlantic 1942", owner_idle_seconds=idle)
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Kriegsmarine").id
    allies = campaigns.create_side(factory, campaign_id=campaign.id, name="Royal Navy").id
    units = {
        name: roster.save_unit(factory, side_id=side, fields=UnitFields(
            name=name, unit_type="submarine", points=12, hull_points=hull))
        for name, hull in (("U-66", 2), ("U-552", 1))
    }  # fmt: skip
    escort = fleet.create_squadron(factory, side_id=allies, name="B3")
    ship = fleet.create_ship(factory, squadron_id=escort, fields=ShipFields(name="Harvester"))
    scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title="HX-229")
    scenarios.set_participants(factory, scenario_id=scenario.id, ship_ids=[ship])
    scenarios.start_scenario(factory, scenario_id=scenario.id)
    return factory, side, units


async def _roster(app: TrackerApp, pilot, side: int) -> RosterScreen:  # type: ignore[no-untyped-def]
    await pilot.pause()
    app.push_screen(RosterScreen(side))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, RosterScreen)
    return screen


def _cursor_marker(screen: RosterScreen) -> MarkerView:
    table = screen.query_one("#marker-table", DataTable)
    assert screen.view is not None
    return screen.view.markers[table.cursor_row]


async def _on_marker(pilot, screen: RosterScreen, code: str) -> None:  # type: ignore[no-untyped-def]
    table = screen.query_one("#marker-table", DataTable)
    table.focus()
    assert screen.view is not None
    table.move_cursor(row=[m.code for m in screen.view.markers].index(code))
    await pilot.pause()


async def test_two_markers_in_two_sectors_then_search_and_attack_the_second(
    tmp_path: Path,
) -> None:
    factory, side, _ = _atlantic(tmp_path / "c.db")
    app = TrackerApp(factory, rng=random.Random(8))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _roster(app, pilot, side)
        screen.query_one("#unit-table", DataTable).move_cursor(row=1)  # U-552
        form = await press_to(pilot, "m", screen=FormScreen)
        assert "Markers for U-552" in str(form.query_one("#form-title").render())
        await fill_form(pilot, {"real": "1", "sector_1": "D2", "sector_2": "F6"})
        assert isinstance(app.screen, RosterScreen)
        # The unit table's cursor stayed on U-552 through the reload.
        assert screen.query_one("#unit-table", DataTable).cursor_row == 1
        placed = {m.sector: m for m in roster.roster(factory, side_id=side, owner=True).markers}
        assert set(placed) == {"D2", "F6"} and placed["D2"].real and not placed["F6"].real
        second = placed["F6"].code
        await _on_marker(pilot, screen, second)
        form = await press_to(pilot, "s", screen=FormScreen)
        assert second in str(form.query_one("#form-title").render())
        await fill_form(pilot, {"searcher": "surface", "roll": "6"})
        assert _cursor_marker(screen).code == second  # the cursor stays on its row
        # The opponent's view (the roster opens on it): the marker found, not yet known.
        table = screen.query_one("#marker-table", DataTable)
        row = [str(cell) for cell in table.get_row(str(placed["F6"].id))]
        assert row[2:4] == ["found", "submarine?"]
        form = await press_to(pilot, "t", screen=FormScreen)
        assert f"Attack on {second}" in str(form.query_one("#form-title").render())
        await fill_form(pilot, {"success": True})
        assert _cursor_marker(screen).code == second
        states = {m.code: m.state for m in screen.view.markers}  # type: ignore[union-attr]
        assert states == {placed["D2"].code: "concealed", second: "removed"}
        # Removed as a decoy, as the attack said: the opponent reads it so, never whose.
        row = [str(cell) for cell in table.get_row(str(placed["F6"].id))]
        assert row[2:4] == ["removed", "decoy"]


async def test_search_attack_destroyed_sub_leaves_play(tmp_path: Path) -> None:
    factory, side, units = _atlantic(tmp_path / "c.db")
    assignment = markers.assign_markers(factory, unit_id=units["U-66"], real=2,
                                       sectors=["C4", "C5"], rng=random.Random(3))  # fmt: skip
    app = TrackerApp(factory, rng=random.Random(8))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _roster(app, pilot, side)
        await _on_marker(pilot, screen, assignment.real_code)
        await press_to(pilot, "t", screen=FormScreen)  # not searched for: refused, says why
        await fill_form(pilot, {"success": True, "damage": "2"})
        assert isinstance(app.screen, FormScreen)
        assert "search" in str(app.screen.query_one("#error-form").render())
        await pilot.press("escape", "y")  # what was typed discarded
        await pilot.pause()
        await press_to(pilot, "s", screen=FormScreen)
        await fill_form(pilot, {"searcher": "patrol_bomber", "roll": "5"})
        await press_to(pilot, "t", screen=FormScreen)
        await fill_form(pilot, {"success": True, "damage": "2"})
        assert isinstance(app.screen, RosterScreen)
        assert {m.state for m in screen.view.markers} == {"removed"}  # type: ignore[union-attr]
        rendered = app.export_screenshot().replace("&#160;", " ")
        assert "destroyed" in rendered


async def test_reconceal_by_fog_gives_one_marker_and_getting_away_two(tmp_path: Path) -> None:
    factory, side, units = _atlantic(tmp_path / "c.db")
    real = markers.assign_markers(factory, unit_id=units["U-66"], real=1, sectors=["C4", "C5"],
                                 rng=random.Random(3)).real_code  # fmt: skip
    marker = next(m for m in roster.roster(factory, side_id=side).markers if m.code == real)
    hunt.record_search(factory, marker_id=marker.id, party=SearchParty("aircraft"), roll=6)
    hunt.attack_marker(factory, marker_id=marker.id, success=True)
    markers.move_marker(factory, marker_id=marker.id, sector="C6", turn=1)
    app = TrackerApp(factory, rng=random.Random(8))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _roster(app, pilot, side)
        screen.query_one("#unit-table", DataTable).focus()
        form = await press_to(pilot, "c", screen=FormScreen)
        assert "Re-conceal U-66" in str(form.query_one("#form-title").render())
        await fill_form(pilot, {"cause": "moved_into_weather"})
        live = [m for m in screen.view.markers if m.state != "removed"]  # type: ignore[union-attr]
        assert [(m.state, m.sector) for m in live if m.sector == "C6"] == [("concealed", "C6")]
        # Revealed again, it moves, and this time it gets away: two markers.
        fog = next(m for m in live if m.sector == "C6")
        hunt.record_search(factory, marker_id=fog.id, party=SearchParty("aircraft"), roll=6)
        hunt.attack_marker(factory, marker_id=fog.id, success=True)
        markers.move_marker(factory, marker_id=fog.id, sector="C7", turn=1)
        form = await press_to(pilot, "c", screen=FormScreen)
        # Which marker is real is the owner's to say: no default, and two need it said.
        assert form.query_one("#field-real", Input).value == ""
        await fill_form(pilot, {"cause": "got_away", "sector_1": "C7", "sector_2": "D7"})
        assert isinstance(app.screen, FormScreen)
        assert "which of the 2" in str(app.screen.query_one("#error-real", Label).render())
        await fill_form(pilot, {"real": "2"})
        assert isinstance(app.screen, RosterScreen)
    owner = roster.roster(factory, side_id=side, owner=True).markers
    assert sorted((m.sector, m.state, m.real) for m in owner if m.sector in ("C7", "D7")) == [
        ("C7", "concealed", False), ("C7", "removed", True), ("D7", "concealed", True)]  # fmt: skip


async def test_the_night_torpedo_rule_from_the_roster(tmp_path: Path) -> None:
    factory, side, units = _atlantic(tmp_path / "c.db")
    real = markers.assign_markers(factory, unit_id=units["U-552"], real=1, sectors=["A1", "A2"],
                                 rng=random.Random(5)).real_code  # fmt: skip
    app = TrackerApp(factory, rng=random.Random(8))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _roster(app, pilot, side)
        await _on_marker(pilot, screen, real)
        form = await press_to(pilot, "k", screen=FormScreen)
        assert f"{real} attacks" in str(form.query_one("#form-title").render())
        await fill_form(pilot, {"same_sector": False, "torpedo_dice": "5 6 3", "night": True,
                                "target_hit_earlier": True})  # fmt: skip
        assert isinstance(app.screen, RosterScreen)
        assert _cursor_marker(screen).code == real
        await press_to(pilot, "k", screen=FormScreen)
        await fill_form(pilot, {"same_sector": False, "torpedo_dice": "5 6 3", "night": True,
                                "target_hit_earlier": False})  # fmt: skip
    journal = [entry.summary for entry in _journal(factory)]
    assert any(line.endswith("torpedo rolls 5 6 3: 2 hits on 5+ (night, target hit earlier "
                             "this turn)") for line in journal)  # fmt: skip
    assert any(line.endswith("torpedo rolls 5 6 3: 1 hit on 6") for line in journal)


def _journal(factory: SessionFactory) -> list[Any]:
    return list(history.list_entries(factory, campaign_id=1))


async def test_the_owner_view_stays_open_30_s_idle_and_hides_after_the_campaigns_time(
    tmp_path: Path,
) -> None:
    factory, side, units = _atlantic(tmp_path / "c.db", idle=90)
    markers.assign_markers(factory, unit_id=units["U-552"], real=1, sectors=["A1", "A2"])
    app = TrackerApp(factory, rng=random.Random(8))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _roster(app, pilot, side)
        clock = FakeClock()
        screen.clock = clock
        await pilot.press("v")
        await pilot.pause()
        assert screen.owner and "REAL" in app.export_screenshot()
        marker = screen.view.markers[0]  # type: ignore[union-attr]
        await _on_marker(pilot, screen, marker.code)
        await press_to(pilot, "g", screen=FormScreen)  # a move: the owner at work
        clock.now += 7
        screen.hide_if_idle()
        await fill_form(pilot, {"sector": "B1"})
        assert screen.owner, "a move of the owner's own must not hide the owner view"
        clock.now += 30
        screen.hide_if_idle()
        await pilot.pause()
        assert screen.owner and "REAL" in app.export_screenshot()
        await hides_on_the_second(pilot, screen, clock, 60, "REAL")  # 90 s since the last key


async def test_a_subs_mine_die_stays_out_of_the_dice_log_every_screen_may_show(
    tmp_path: Path,
) -> None:
    """The mine roll is kept secret (RULES.md §Subs ¶12): its typed d6 goes into the journal
    sealed, and not into the app's dice log, which damage entry shows to the whole table."""
    factory, side, _ = _atlantic(tmp_path / "c.db")
    campaign = campaigns.list_campaigns(factory)[0].id
    royal_navy = next(s.id for s in campaigns.get_overview(factory, campaign_id=campaign).sides
                      if s.name == "Royal Navy")  # fmt: skip
    mines.sow_minefield(factory, side_id=royal_navy, laid_by="surface", sector="C4",
                        complete=True)  # fmt: skip
    app = TrackerApp(factory, rng=random.Random(8))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _roster(app, pilot, side)
        table = screen.query_one("#unit-table", DataTable)
        table.focus()
        table.move_cursor(row=[u.name for u in screen.view.units].index("U-66"))  # type: ignore[union-attr]
        await press_to(pilot, "n", screen=FormScreen)
        await fill_form(pilot, {"sector": "C4", "roll": "2"})
        await pilot.pause()
        assert isinstance(app.screen, RosterScreen), "the mine roll form should have closed"
    u66 = next(
        u for u in roster.roster(factory, side_id=side, owner=True).units if u.name == "U-66"
    )
    assert u66.damage == 2
    assert [roll for roll in app.dice.log if "minefield" in str(roll)] == []
