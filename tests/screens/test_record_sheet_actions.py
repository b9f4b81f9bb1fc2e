"""The record sheet's keys, the palette and the help screen, checked against the database."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import open_sheet, sample_engine, workers_end
from textual.command import CommandPalette
from textual.widgets import DataTable
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.rules import smr
from tracker.screens.form import FormScreen
from tracker.screens.help import HelpScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns, command, continuity, damage, fleet, scenarios, sheet
from tracker.widgets.sheet_blocks import crew_block


def sample(tmp_path: Path, seed: int = 11) -> tuple[TrackerApp, SessionFactory, int]:
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    squadron_id = campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].squadrons[0].id
    app = TrackerApp(factory, rng=random.Random(seed), open_campaign_id=campaign_id)
    return app, factory, squadron_id


async def test_fire_markers_and_a_rolled_commander(tmp_path: Path) -> None:
    app, factory, squadron_id = sample(tmp_path)
    expected_roll = smr.roll_d10(random.Random(11))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        await pilot.press("f", "f", "F")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        await pilot.press("ctrl+r", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    assert record.ships[0].fire_markers == 1
    assert record.commander is not None
    assert record.commander.roll == expected_roll
    assert record.commander.grade == smr.grade_from_roll(4, expected_roll)


async def test_transfer_in_battle_marks_the_ship_out_of_command(tmp_path: Path) -> None:
    app, factory, squadron_id = sample(tmp_path)
    side_id = sheet.load_record_sheet(factory, squadron_id=squadron_id).side_id
    other = fleet.create_squadron(factory, side_id=side_id, name="Force K")
    battle = campaigns.get_overview(factory, campaign_id=1).scenarios[0].id
    ships = [s.id for s in sheet.load_record_sheet(factory, squadron_id=squadron_id).ships]
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=ships)
    scenarios.start_scenario(factory, scenario_id=battle)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        await pilot.press("down", "t")  # Ajax
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        assert app.screen.query_one(DataTable).row_count == 2
    moved = sheet.load_record_sheet(factory, squadron_id=other)
    assert [(ship.name, ship.out_of_command) for ship in moved.ships] == [("Ajax", True)]
    # Force K has no crew rating; Ajax sails with the Veteran crew it took along (SMR2 §3.2).
    assert crew_block(moved).endswith("\nAjax: own crew Veteran +1")
    assert [ship.points_total for ship in moved.ships] == [440]
    home = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    assert (home.original_count, home.original_afloat) == (3, 3)


async def test_palette_lists_the_screen_actions_and_runs_them(tmp_path: Path) -> None:
    app, _, _ = sample(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"roll or buy the crew")
        await workers_end(pilot)  # the palette's search
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        assert app.screen.form_title == "Crew: roll or buy"


async def test_help_lists_every_key_of_the_sheet(tmp_path: Path) -> None:
    app, _, _ = sample(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        sheet_screen = await open_sheet(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        described = {description for _, description in app.screen.keys}
        wanted = {b.tooltip for b in sheet_screen.BINDINGS if not isinstance(b, tuple)}
        assert wanted <= described


async def test_markup_in_a_ship_name_is_shown_as_typed(tmp_path: Path) -> None:
    app, factory, squadron_id = sample(tmp_path)
    fleet.create_ship(factory, squadron_id=squadron_id, fields=fleet.ShipFields(name="[b]X[/b]"))
    campaign_id = sheet.load_record_sheet(factory, squadron_id=squadron_id).campaign_id
    campaigns.update_campaign(
        factory, campaign_id=campaign_id, name="[red]Plate[/red]", notes="",
        model_scale="1/2400", crew_roll_adds_commander=False,
    )  # fmt: skip
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        screen_text = app.export_screenshot()
        await pilot.press("escape", "escape")
        await pilot.pause()
        welcome_text = app.export_screenshot()
    assert "[b]X[/b]" in screen_text
    assert "[red]Plate[/red]" in welcome_text


async def test_deleting_a_ship_that_fought_retires_it_and_ctrl_z_brings_it_back(
    tmp_path: Path,
) -> None:
    app, factory, squadron_id = sample(tmp_path)
    battle = campaigns.get_overview(factory, campaign_id=1).scenarios[0].id
    before = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=[s.id for s in before.ships])
    scenarios.start_scenario(factory, scenario_id=battle)
    scenarios.close_scenario(factory, scenario_id=battle)
    closed = continuity.scenario_detail(factory, scenario_id=battle)
    # A ship added since, that never fought: deleted for good, and ctrl+z puts it back.
    spare = fleet.create_ship(
        factory, squadron_id=squadron_id, fields=fleet.ShipFields(name="Spare")
    )
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_sheet(pilot)
        await pilot.press("x")  # the first ship, which fought the closed scenario
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        first = before.ships[0]
        assert every_toast(app)[-1].message.startswith(f"Retired {first.name}")
        table = app.screen.query_one(DataTable)
        assert table.row_count == len(before.ships)  # the others and Spare
        assert continuity.scenario_detail(factory, scenario_id=battle) == closed
        await pilot.press("ctrl+z")
        await pilot.pause()
        names = [s.name for s in sheet.load_record_sheet(factory, squadron_id=squadron_id).ships]
        assert names[0] == first.name
        assert table.row_count == len(before.ships) + 1
        table.move_cursor(row=len(before.ships))  # Spare
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert every_toast(app)[-1].message.startswith("Deleted Spare")
        await pilot.press("ctrl+z")
        await pilot.pause()
        ids = [s.id for s in sheet.load_record_sheet(factory, squadron_id=squadron_id).ships]
        assert ids[-1] == spare
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert table.row_count == len(before.ships)
    assert spare not in [
        s.id for s in sheet.load_record_sheet(factory, squadron_id=squadron_id).ships
    ]


async def test_g_puts_the_commander_aboard_and_his_loss_asks_for_the_rulebook_s_replacement(
    tmp_path: Path,
) -> None:
    app, factory, squadron_id = sample(tmp_path)
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    if record.commander is None:
        command.set_commander(
            factory, squadron_id=squadron_id, name="Harwood", training=3, acquisition="direct"
        )
    first = record.ships[0]
    battle = campaigns.get_overview(factory, campaign_id=1).scenarios[0].id
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=[s.id for s in record.ships])
    scenarios.start_scenario(factory, scenario_id=battle)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_sheet(pilot)
        await pilot.press("g")
        await pilot.pause()
        assert every_toast(app)[-1].message.endswith(f"aboard {first.name}")
        block = str(screen.query_one("#commander-block").render())
        assert f"aboard {first.name}" in block
        await pilot.press("escape")
        await pilot.pause()
        damage.record_hit(factory, request=damage.HitRequest(first.id, structure=99))
        damage.confirm_condition(factory, ship_id=first.id, outcome="Sunk")
        screen = await open_sheet(pilot)
        block = str(screen.query_one("#commander-block").render())
        assert f"LOST with {first.name}" in block
        assert "SMR2 §10.3 is not in this tracker:\nr types your rulebook's replacement" in block
        assert "Out of Command" in block


async def test_ctrl_z_names_what_it_cannot_undo_and_undoes_the_older_change_when_pressed_again(
    tmp_path: Path,
) -> None:
    app, factory, squadron_id = sample(tmp_path)
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    exeter = record.ships[0]
    damage.record_hit(factory, request=damage.HitRequest(exeter.id, structure=2))
    spare_squadron = fleet.create_squadron(factory, side_id=record.side_id, name="Spare")
    spare = fleet.create_ship(
        factory, squadron_id=spare_squadron, fields=fleet.ShipFields(name="Hostile")
    )
    damage.record_hit(factory, request=damage.HitRequest(spare, fire_delta=1))
    fleet.delete_squadron(factory, squadron_id=spare_squadron)  # Hostile goes with it
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_sheet(pilot)
        await pilot.press("ctrl+z")
        await pilot.pause()
        said = every_toast(app)[-1].message
        assert "Hostile" in said and "cannot be undone" in said
        assert "Press ctrl+z again to undo" in said and "Exeter" in said
        assert sheet.load_ship(factory, ship_id=exeter.id)[0].structure_now == 10  # not yet
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert sheet.load_ship(factory, ship_id=exeter.id)[0].structure_now == 12


async def test_a_sister_ship_is_copied_under_her_own_name_and_takes_the_cursor(
    tmp_path: Path,
) -> None:
    app, factory, squadron_id = sample(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        first = screen._ship()
        assert first is not None
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        await pilot.press(*"Sister", "ctrl+s")
        await workers_end(pilot)
        assert app.screen is screen
        copied = screen._ship()
        assert copied is not None and copied.name == "Sister"
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    sister = next(ship for ship in record.ships if ship.name == "Sister")
    assert (sister.class_name, sister.structure_max) == (first.class_name, first.structure_max)
