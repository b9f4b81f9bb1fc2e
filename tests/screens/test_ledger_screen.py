"""The minefield ledger as a player uses it, over three starts of the app on one file: a
boundary and three minefields, the campaign's mine table, a task force of 3 long and 5 small
counters drawn through them at speed 3, the halt, and the port repair that lets fuel back in."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import (
    FakeClock,
    fill_form,
    hides_on_the_second,
    migrated_engine,
    open_or_create,
    press_to,
    sample_app,
)
from textual.widgets import Input, SelectionList

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.rules import swwas
from tracker.screens.form import FormScreen
from tracker.screens.ledger import LedgerScreen
from tracker.screens.mine_check import MineCheckScreen
from tracker.screens.mine_table import MineTableScreen
from tracker.screens.participants import ParticipantsScreen
from tracker.screens.repairs import RepairsScreen
from tracker.services import campaigns, fleet, mines, scenarios
from tracker.services.fleet import ShipFields
from tracker.services.mines import CheckView

LONG = ("Hood", "Renown", "Sheffield")
SMALL = ("Faulknor", "Foresight", "Forester", "Fury", "Foxhound")
TABLE = (  # the players' own mine damage table, typed in row by row
    {"low": "1", "high": "6", "applies_to": "all", "effects": "none"},
    {"low": "7", "high": "8", "applies_to": "all", "effects": "fuel-2 speed-1"},
    {"low": "9", "high": "11", "applies_to": "all", "effects": "fuel-4 hull-2"},
)


def open_file(path: Path) -> tuple[SessionFactory, int]:
    return open_or_create(path, _north_sea)


def _north_sea(factory: SessionFactory) -> int:
    campaign_id = campaigns.create_campaign(factory, name="North Sea 1940").id
    navy = campaigns.create_side(factory, campaign_id=campaign_id, name="Royal Navy").id
    campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine")
    force = fleet.create_squadron(factory, side_id=navy, name="Force H")
    ships = []
    for name in LONG + SMALL:
        ship = fleet.create_ship(factory, squadron_id=force, fields=ShipFields(name=name))
        mines.save_counter(factory, ship_id=ship, counter_size="long" if name in LONG else
                           "small", speed_rating=3, hull_boxes=4, fuel_full=3,
                           fuel_empty=1)  # fmt: skip
        ships.append(ship)
    battle = campaigns.add_scenario(factory, campaign_id=campaign_id, title="Skagerrak")
    scenarios.set_participants(factory, scenario_id=battle.id, ship_ids=ships)
    scenarios.start_scenario(factory, scenario_id=battle.id)
    return campaign_id


def app_on(path: Path, seed: int) -> tuple[TrackerApp, SessionFactory, int]:
    factory, campaign_id = open_file(path)
    return TrackerApp(factory, rng=random.Random(seed), open_campaign_id=campaign_id), factory, \
        campaign_id  # fmt: skip


async def roll(pilot, d6: int) -> CheckView:  # type: ignore[no-untyped-def]
    screen = pilot.app.screen
    assert isinstance(screen, MineCheckScreen)
    await press_to(pilot, "r", screen=FormScreen)
    await fill_form(pilot, {"roll": d6})
    assert isinstance(pilot.app.screen, MineCheckScreen), "the roll form should have closed"
    assert screen.view is not None
    return screen.view


@pytest.mark.slow
async def test_a_task_force_through_three_minefields_with_restarts(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    app, factory, campaign_id = app_on(path, seed=3)
    kms = campaigns.get_overview(factory, campaign_id=campaign_id).sides[1].id
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        await press_to(pilot, "b", screen=FormScreen)
        await fill_form(pilot, {"area_a": "Skagerrak", "area_b": "North Sea"})
        assert (
            ledger.view is not None and ledger.view.boundaries[0].label == "North Sea | Skagerrak"
        )
        boundary = ledger.view.boundaries[0].id
        for layer in ("Roland", "Cobra", "Roland"):
            await pilot.press("n")
            await pilot.pause()
            await fill_form(pilot, {"side_id": kms, "boundary": boundary, "layer_name": layer,
                                    "complete": True})  # fmt: skip
            assert isinstance(app.screen, LedgerScreen), "the sow form should have closed"
        assert [f.count_here for f in ledger.view.minefields] == [3, 3, 3]
        assert {f.status for f in ledger.view.minefields} == {"active"}
        await press_to(pilot, "t", screen=MineTableScreen)
        for row in TABLE:
            await pilot.press("a")
            await pilot.pause()
            await fill_form(pilot, row)
            assert isinstance(app.screen, MineTableScreen), "the row form should have closed"
        await pilot.press("a")  # a row overlapping 7-8 is refused in the form
        await pilot.pause()
        await fill_form(pilot, {"low": "8", "high": "8", "applies_to": "long", "effects": "sunk"})
        assert isinstance(app.screen, FormScreen)
        assert "overlaps" in str(app.screen.query_one("#error-low").render())
        await pilot.press("escape", "y", "escape")  # the typed row discarded, then the table
        await pilot.press("q")
    assert len(mines.mine_table(factory, campaign_id=campaign_id).rows) == 3

    # Second start: the task force enters the minefield; two draws, then the app is closed.
    app, factory, campaign_id = app_on(path, seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        chooser = await press_to(pilot, "m", "m", screen=ParticipantsScreen)
        chooser.query_one(SelectionList).select_all()
        setup = await press_to(pilot, "ctrl+s", screen=FormScreen)
        preview = str(setup.query_one("#form-preview").render())
        assert "Give the speed" in preview
        await fill_form(pilot, {"speed": "3", "first_cup": "long"})
        check = app.screen
        assert isinstance(check, MineCheckScreen) and check.view is not None
        assert check.view.drm.total == 4 and check.view.size == 8 and check.view.halt_at == 2
        assert check.view.left == {"long": 3, "small": 5}
        first = await roll(pilot, 1)  # 1 + 4 = 5: none
        assert [d.cup for d in first.draws if d.drawn] == ["long"]
        second = await roll(pilot, 4)  # 4 + 4 = 8: fuel-2 speed-1
        assert [d.cup for d in second.draws if d.drawn] == ["long", "small"]
        assert second.status == "in_progress" and second.struck == 1
        await pilot.press("q")

    # Third start: the same check resumes from the ledger; the next strike halts it.
    app, factory, campaign_id = app_on(path, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        check = await press_to(pilot, "m", "m", screen=MineCheckScreen)
        assert check.view is not None and check.view.drawn == 2 and check.view.next is not None
        assert check.view.next.cup == "long"  # the cups go on alternating
        third = await roll(pilot, 6)  # 6 + 4 = 10: fuel-4 hull-2, the second strike
        assert third.status == "halted" and third.struck == 2 and third.drawn == 3
        message = str(app.screen.query_one("#check-message").render())
        assert "STOP" in message and "replots" in message
        assert third.next is None
        await pilot.press("q")

    struck = {d.name: d for d in third.draws if d.drawn and d.struck}
    heavy, light = (next(n for n, d in struck.items() if key in d.effects)
                    for key in ("hull", "speed"))  # fmt: skip
    fuel = {c.name: c.fuel for c in mines.counter_ships(factory, campaign_id=campaign_id)}
    assert (fuel[light].full, fuel[light].empty, fuel[light].lost) == (1, 1, 2)  # full first
    assert (fuel[heavy].full, fuel[heavy].empty, fuel[heavy].lost) == (0, 0, 4)  # then empty
    untouched = [c for c in mines.counter_ships(factory, campaign_id=campaign_id)
                 if c.name not in {d.name for d in third.draws if d.drawn}]  # fmt: skip
    assert len(untouched) == 5 and all(c.fuel.lost == 0 for c in untouched)

    # The scenario ends; between scenarios the port repair turns the lost fuel empty again.
    battle = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios[0].id
    scenarios.close_scenario(factory, scenario_id=battle, outcome="Force H turns back")
    app, factory, campaign_id = app_on(path, seed=7)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        repairs = await press_to(pilot, "r", screen=RepairsScreen)
        row = next(i for i, r in enumerate(repairs.rows) if r.name == heavy)
        repairs.query_one("#since-table").move_cursor(row=row)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        await fill_form(pilot, {"fuel": True, "in_port": True})
        assert isinstance(app.screen, RepairsScreen), "the repair form should have closed"
        await pilot.press("q")
    ship_id = next(c.ship_id for c in mines.counter_ships(factory, campaign_id=campaign_id)
                   if c.name == heavy)  # fmt: skip
    assert mines.counter(factory, ship_id=ship_id).fuel == swwas.Fuel(0, 4, 0)
    mines.refuel_ship(factory, ship_id=ship_id)
    assert mines.counter(factory, ship_id=ship_id).fuel == swwas.Fuel(4, 0, 0)


async def test_enter_draws_the_next_ship_as_the_hint_says(tmp_path: Path) -> None:
    app, factory, campaign_id = app_on(tmp_path / "campaign.db", seed=3)
    navy = campaigns.get_overview(factory, campaign_id=campaign_id).sides[1].id
    boundary = mines.add_boundary(factory, campaign_id=campaign_id, area_a="A", area_b="B")
    field = mines.sow_minefield(factory, side_id=navy, laid_by="surface", boundary_id=boundary,
                                complete=True)  # fmt: skip
    ships = [ship.ship_id for ship in mines.counter_ships(factory, campaign_id=campaign_id)]
    check_id = mines.start_check(factory, minefield_id=field, ship_ids=ships, speed=1, seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.push_screen(MineCheckScreen(campaign_id, check_id))
        await pilot.pause()
        check = app.screen
        assert isinstance(check, MineCheckScreen)
        assert "enter: draw the next ship" in str(check.query_one("#check-message").render())
        for number, d6 in enumerate((1, 2), start=1):
            form = await press_to(pilot, "enter", screen=FormScreen)
            assert form.form_title.startswith(f"Draw {number}:")
            await fill_form(pilot, {"roll": d6, "effects": "none"})
            assert isinstance(app.screen, MineCheckScreen) and check.view is not None
            assert check.view.drawn == number
        await pilot.press("q")


async def test_the_app_rolls_a_forms_die_once(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=9)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # Force G's record sheet
        form = await press_to(pilot, "r", screen=FormScreen)  # roll or buy the commander
        await pilot.press("ctrl+r")
        await pilot.pause()
        field = form.query_one(f"#field-{form.dice_field}", Input)
        first = field.value
        assert first.isdigit()
        await pilot.press("ctrl+r", "ctrl+r")
        await pilot.pause()
        assert field.value == first  # no second roll until the die suits
        assert len(app.dice.log) == 1
        await pilot.press("escape", "y", "q")  # the roll typed in: discarded once asked


async def test_the_ledgers_owner_view_hides_after_the_campaigns_idle_time(tmp_path: Path) -> None:
    """The ledger's owner view keeps to the campaign's option, as the roster's does (RULES.md
    §Subs, owner view): open through 89.5 s without a key, hidden at 90."""
    engine = migrated_engine(tmp_path / "c.db")
    factory = session_factory(engine)
    campaign_id = campaigns.create_campaign(factory, name="Faroes", owner_idle_seconds=90).id
    kms = campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine").id
    mines.sow_minefield(factory, side_id=kms, laid_by="surface", sector="F6", complete=True,
                        secret=True, notes="FaroesNorth")  # fmt: skip
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        ledger = await press_to(pilot, "m", screen=LedgerScreen)
        clock = FakeClock()
        ledger.clock = clock
        await press_to(pilot, "v", screen=FormScreen)
        await fill_form(pilot, {})
        await pilot.pause()
        assert ledger.owner and "FaroesNorth" in app.export_screenshot()
        await hides_on_the_second(pilot, ledger, clock, 90, "FaroesNorth")
