"""Counters and fuel on the record sheet as a player keys them: enter the counter, use fuel,
a refuel refused for fuel lost to mines, and the friendly-port repair that restores it."""

from __future__ import annotations

from pathlib import Path

from campaign_files import sample_app
from sqlmodel import col, update
from textual.widgets import Checkbox, DataTable, Label, Static

from tracker.app import TrackerApp
from tracker.db import session_scope
from tracker.models import Ship
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.repairs import RepairsScreen
from tracker.services import campaigns, mines, sheet
from tracker.services.common import SessionFactory


async def press(pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*keys)
    await pilot.pause()


async def open_sheet(pilot) -> RecordSheetScreen:  # type: ignore[no-untyped-def]
    """From the campaign screen, enter opens Force G (Exeter, Ajax, Achilles)."""
    await pilot.pause()
    await press(pilot, "enter")
    screen = pilot.app.screen
    assert isinstance(screen, RecordSheetScreen)
    return screen


def ship_ids(app: TrackerApp) -> dict[str, int]:
    overview = campaigns.get_overview(app.factory, campaign_id=app.open_campaign_id or 0)
    squadron_id = overview.sides[0].squadrons[0].id
    record = sheet.load_record_sheet(app.factory, squadron_id=squadron_id)
    return {ship.name: ship.id for ship in record.ships}


def panel(screen: RecordSheetScreen) -> str:
    return str(screen.query_one("#counter-panel", Static).render())


async def type_number(pilot, value: int | str) -> None:  # type: ignore[no-untyped-def]
    await press(pilot, "end", "ctrl+u", *str(value))


def mine_hits(factory: SessionFactory, campaign_id: int, ship_id: int, effects: str) -> None:
    """A minefield of the other side on a boundary, and the ship's task force runs into it."""
    sides = campaigns.get_overview(factory, campaign_id=campaign_id).sides
    boundary = mines.add_boundary(factory, campaign_id=campaign_id, area_a="A1", area_b="A2")
    field = mines.sow_minefield(factory, side_id=sides[1].id, laid_by="surface",
                                boundary_id=boundary, complete=True)  # fmt: skip
    check = mines.start_check(factory, minefield_id=field, ship_ids=[ship_id], speed=1, seed=1)
    mines.roll_mine(factory, check_id=check, roll=4, effects=effects)


async def test_counter_fuel_mine_loss_refuel_refused_then_port_repair(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=7)
    exeter = ship_ids(app)["Exeter"]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        assert not screen.query_one("#counter-panel").display  # no counters: SMR2 only
        await press(pilot, "u")
        assert isinstance(app.screen, FormScreen)
        await press(pilot, "enter", "down", "enter")  # counter size: long
        for value in (4, 0, 0, 6, 8, 0):  # speed, torpedoes, mines, hull, fuel full, empty
            await press(pilot, "tab")
            await type_number(pilot, value)
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, RecordSheetScreen)
        assert screen.query_one("#counter-panel").display
        assert "long counter · speed 4" in panel(screen)
        assert "■■■■■■■■ 8/0/0" in panel(screen)

        await press(pilot, "o")
        assert isinstance(app.screen, FormScreen)
        await type_number(pilot, 3)
        await press(pilot, "enter")
        assert isinstance(app.screen, RecordSheetScreen)
        assert "■■■■■□□□ 5/3/0" in panel(screen)

        # Between keys the task force runs into a minefield: two fuel factors lost to mines.
        mine_hits(app.factory, app.open_campaign_id or 0, exeter, "fuel-2")
        await press(pilot, "escape")
        screen = await open_sheet(pilot)
        assert "■■■□□□✕✕ 3/3/2" in panel(screen)
        assert "2 lost to mines" in panel(screen)

        await press(pilot, "O")  # refuel the 3 empty (blank: all): the lost 2 stay lost
        assert isinstance(app.screen, FormScreen)
        await press(pilot, "enter")
        assert "■■■■■■✕✕ 6/0/2" in panel(screen)
        await press(pilot, "O")
        form = app.screen
        assert isinstance(form, FormScreen)
        assert "2 lost to mines need a repair in a friendly port" in form.note
        await press(pilot, "enter")
        error = form.query_one("#error-factors", Label)
        assert not error.has_class("-hidden")
        assert "2 lost to mines need a repair in a friendly port" in str(error.render())
        await press(pilot, "escape", "escape")  # the form, then the sheet

        await press(pilot, "r")  # repairs between scenarios, Exeter first
        repairs = app.screen
        assert isinstance(repairs, RepairsScreen)
        table = repairs.query_one(DataTable)
        assert "Fuel✕" in [str(column.label) for column in table.columns.values()]
        assert "2" in [str(cell) for cell in table.get_row_at(0)]
        await press(pilot, "enter")
        assert isinstance(app.screen, FormScreen)
        await press(pilot, "tab", "tab", "space")  # untick "in a friendly port"
        # A ship with fuel lost to mines offers its restoring, ticked to start with.
        assert app.screen.query_one("#field-fuel", Checkbox).value is True
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, FormScreen)  # at sea: refused
        assert "only in a friendly port" in str(app.screen.query_one("#error-fuel").render())
        await press(pilot, "shift+tab", "space", "ctrl+s")  # in port again
        assert isinstance(app.screen, RepairsScreen)
        assert "2" not in [str(cell) for cell in table.get_row_at(0)]

        await press(pilot, "escape")
        screen = await open_sheet(pilot)
        assert "■■■■■■□□ 6/2/0" in panel(screen)
        await press(pilot, "O", "enter")
        assert "■■■■■■■■ 8/0/0" in panel(screen)
    counter = mines.counter(app.factory, ship_id=exeter)
    assert (counter.counter_size, counter.speed_rating, counter.hull_boxes) == ("long", 4, 6)
    assert (counter.fuel.full, counter.fuel.empty, counter.fuel.lost) == (8, 0, 0)


async def test_counter_errors_are_shown_beside_their_fields(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=7)
    exeter = ship_ids(app)["Exeter"]
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        await press(pilot, "u", "tab", "tab")  # size stays blank; on to torpedo factors
        await type_number(pilot, 2)
        await press(pilot, "tab")
        await type_number(pilot, 3)  # three minefields in place of two torpedo factors
        await press(pilot, "ctrl+s")
        form = app.screen
        assert isinstance(form, FormScreen)
        error = form.query_one("#error-mines_loaded", Label)
        assert "at most 2" in str(error.render())
        await press(pilot, "escape", "y")  # the typing discarded, once the player says so
        await press(pilot, "o")  # no fuel at all: use fuel is refused in the form
        assert isinstance(app.screen, FormScreen)
        await type_number(pilot, 1)
        await press(pilot, "ctrl+s")
        assert "no full fuel" in str(app.screen.query_one("#error-factors", Label).render())
    assert mines.counter(app.factory, ship_id=exeter).torpedo_factors == 0


async def test_the_panel_shows_crippled_speed_lost_and_sowing(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=7)
    ids = ship_ids(app)
    factory, campaign_id = app.factory, app.open_campaign_id or 0
    mines.save_counter(factory, ship_id=ids["Exeter"], counter_size="long", speed_rating=4,
                       hull_boxes=6, fuel_full=8)  # fmt: skip
    mine_hits(factory, campaign_id, ids["Exeter"], "speed-1 hull-2 crippled")
    mines.save_counter(factory, ship_id=ids["Ajax"], counter_size="small", speed_rating=3,
                       torpedo_factors=4, mines_loaded=2)  # fmt: skip
    # Ajax plays a submarine here: only a ship of a submarine's type (SS) sows as one.
    with session_scope(factory) as session:
        session.exec(update(Ship).where(col(Ship.id) == ids["Ajax"]).values(type_abbrev="SS"))
    side_id = campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].id
    boundary = mines.add_boundary(factory, campaign_id=campaign_id, area_a="B1", area_b="B2")
    field = mines.sow_minefield(factory, side_id=side_id, laid_by="submarine",
                                boundary_id=boundary, layer_ship_id=ids["Ajax"])  # fmt: skip
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        shown = panel(screen)
        assert "speed 3 (rated 4, 1 lost)" in shown
        assert "hull 2/6" in shown and "CRIPPLED" in shown
        await press(pilot, "down")
        shown = panel(screen)
        assert "small counter" in shown
        # In front of both players: how many torpedo factors carry mines is the owner's secret
        # (the ledger's owner view shows it); the public minefield it sows shows.
        assert "Torpedo factors ? of 4" in shown and "loaded" not in shown
        assert f"sowing: no torpedo attacks (minefield #{field})" in shown
        await press(pilot, "down")
        assert "Achilles has no counter values yet: press u" in panel(screen)
