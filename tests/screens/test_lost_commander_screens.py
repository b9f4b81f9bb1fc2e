"""A flagship lost, on the screens: the replacement's form opens blank, the record sheet and the
scenario mark every ship owing a morale test, and a test's toast names the ship tested
(docs/RULES.md §SMR2 "A ship lost, and the commander aboard", "Who takes a morale test")."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import fill_form, open_sheet, press_to, sample_engine
from textual.widgets import Input, Select, Static
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import campaigns, command, damage, scenarios, sheet
from tracker.widgets.search_table import SearchTable


def _in_battle(tmp_path: Path) -> tuple[TrackerApp, SessionFactory, int, dict[str, int]]:
    """The River Plate sample with every ship in its battle, Harwood aboard Exeter."""
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    force_g = overview.sides[0].squadrons[0].id
    ships = {
        ship.name: ship.id
        for side in overview.sides
        for squadron in side.squadrons
        for ship in sheet.load_record_sheet(factory, squadron_id=squadron.id).ships
    }
    command.set_commander_ship(factory, squadron_id=force_g, ship_id=ships["Exeter"])
    battle = overview.scenarios[0].id
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=list(ships.values()))
    scenarios.start_scenario(factory, scenario_id=battle)
    app = TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id)
    return app, factory, force_g, ships


def _sink(factory: SessionFactory, ship_id: int) -> None:
    damage.record_hit(factory, request=damage.HitRequest(ship_id, structure=99))
    damage.confirm_condition(factory, ship_id=ship_id, outcome="Sunk")


async def test_the_replacement_s_form_opens_blank_and_saved_as_opened_brings_no_one_back(
    tmp_path: Path,
) -> None:
    app, factory, force_g, ships = _in_battle(tmp_path)
    _sink(factory, ships["Exeter"])
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        form = await press_to(pilot, "r", screen=FormScreen)
        assert form.form_title == "Replacement commander: roll or buy"
        assert form.query_one("#field-name", Input).value == ""
        assert form.query_one("#field-roll", Input).value == ""
        await pilot.press("ctrl+s")  # saved as it opened: the d10 is asked for
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
    commander = sheet.load_record_sheet(factory, squadron_id=force_g).commander
    assert commander is not None and (commander.name, commander.status) == ("Cdre Harwood", "lost")


def _morale(table: SearchTable, ship_id: int, column: str) -> str:
    labels = [str(c.label) for c in table.columns.values()]
    return str(table.get_row(str(ship_id))[labels.index(column)])


async def test_the_sheet_and_the_scenario_mark_every_ship_owing_a_morale_test(
    tmp_path: Path,
) -> None:
    app, factory, _, ships = _in_battle(tmp_path)
    for name in ("Exeter", "Ajax"):  # Force G: 1 of 3 original ships afloat, Harwood lost
        _sink(factory, ships[name])
    spee = ships["Admiral Graf Spee"]
    structure = sheet.load_ship(factory, ship_id=spee)[0].structure_max
    damage.record_hit(factory, request=damage.HitRequest(spee, structure=structure - 1))
    async with app.run_test(size=(120, 40)) as pilot:
        sheet_screen = await open_sheet(pilot)
        table = sheet_screen.query_one(SearchTable)
        assert _morale(table, ships["Achilles"], "Morale") == "½ OoC"
        assert _morale(table, ships["Exeter"], "Morale") == "SUNK"
        await pilot.press("escape")
        scenario = await press_to(pilot, "tab", "enter", screen=ScenarioScreen)
        table = scenario.query_one(SearchTable)
        marks = {name: _morale(table, ship_id, "Morale") for name, ship_id in ships.items()}
        assert marks == {"Exeter": "", "Ajax": "", "Achilles": "½ OoC", "Admiral Graf Spee": "S⅓"}


async def test_a_test_s_toast_names_the_ship_tested(tmp_path: Path) -> None:
    app, _, _, _ = _in_battle(tmp_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_sheet(pilot)
        await press_to(pilot, "k", screen=FormScreen)
        await fill_form(pilot, {"subject": "commander", "roll": 1})
        assert isinstance(app.screen, RecordSheetScreen)
        said = every_toast(app)[-1].message
        assert said.startswith("Test of Force G's commander Cdre Harwood aboard Exeter FAILED")
        await pilot.press("down")  # Ajax: her crew tests
        await press_to(pilot, "k", screen=FormScreen)
        await fill_form(pilot, {"subject": "crew", "roll": 1})
        assert every_toast(app)[-1].message.startswith("Test of Ajax's crew FAILED")


async def test_a_lost_commanders_forms_say_so_as_they_open(tmp_path: Path) -> None:
    """SMR2 §3.4: a lost commander neither tests nor is reduced nor restored until replaced. The
    test opens on the crew, and its preview for the commander says why he may not; the
    reductions reach the crew alone; the restoration is refused before anything is typed. Each
    says it in the words the service refuses with."""
    app, factory, force_g, ships = _in_battle(tmp_path)
    _sink(factory, ships["Exeter"])
    why = sheet.load_record_sheet(factory, squadron_id=force_g).commander_refusal
    assert why == (
        "Force G's commander Cdre Harwood was lost with Exeter: type his replacement first (r)"
    )
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_sheet(pilot)
        form = await press_to(pilot, "k", screen=FormScreen)
        subject = form.query_one("#field-subject", Select)
        assert subject.value == "crew"
        subject.value = "commander"
        await pilot.pause()
        assert str(form.query_one("#form-preview", Static).render()) == why
        await pilot.press("escape", "y")  # the form was changed: leave it unsaved
        form = await press_to(pilot, "m", screen=FormScreen)
        assert [spec.key for spec in form.fields] == ["crew_by"]
        assert why in str(form.query_one("#form-note", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("M")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        assert every_toast(app)[-1].message == why
