"""Damage entry as a player uses it: type a hit, read the preview, Enter, undo, restart, redo."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import sample_app
from textual.widgets import Input, Static
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.form import FormScreen
from tracker.screens.journal import JournalScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns, history, sheet


def start(path: Path) -> TrackerApp:
    return sample_app(path, seed=5)


async def press(pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    """Press keys, then let the app settle."""
    await pilot.press(*keys)
    await pilot.pause()


async def open_damage_entry(pilot) -> None:  # type: ignore[no-untyped-def]
    """From the campaign screen (or a record sheet), press d for damage entry."""
    await pilot.pause()
    await press(pilot, "d")
    assert isinstance(pilot.app.screen, DamageEntryScreen)


def exeter(app: TrackerApp) -> tuple[int, int]:
    screen = app.screen
    assert isinstance(screen, RecordSheetScreen)
    assert screen.record is not None
    ship = screen.record.ships[0]
    return ship.structure_now, ship.flotation_now


async def test_record_a_hit_undo_restart_redo(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    app = start(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "enter")  # Force G
        assert exeter(app) == (12, 9)
        await open_damage_entry(pilot)
        await press(pilot, *"exeter s3 f1")
        preview = str(app.screen.query_one("#damage-preview", Static).render())
        assert "Exeter" in preview and "9/12" in preview and "8/9" in preview
        await press(pilot, "enter")
        assert app.screen.query_one("#shorthand", Input).value == ""
        await press(pilot, "escape")
        assert exeter(app) == (9, 8)
        await press(pilot, "ctrl+z")
        assert exeter(app) == (12, 9)
        await pilot.press("q")

    app = start(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "enter")
        assert exeter(app) == (12, 9)
        await press(pilot, "ctrl+y")
        assert exeter(app) == (9, 8)
    kinds = [e.kind for e in history.list_entries(app.factory, campaign_id=1)[:3]]
    assert kinds == ["redo", "undo", "damage"]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("exeter s3 zz", "'zz' is not a shorthand word"),
        # A typo: the nearest names are offered, none taken for it.
        ("exteer s2", "No ship matches 'exteer': did you mean Exeter?"),
    ],
)
async def test_a_line_that_does_not_read_says_why_and_nothing_is_written(
    tmp_path: Path, line: str, said: str
) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_damage_entry(pilot)
        await press(pilot, *line)
        preview = str(app.screen.query_one("#damage-preview", Static).render())
        assert said in preview
        await press(pilot, "enter")
    entries = history.list_entries(app.factory, campaign_id=1)
    assert all(entry.kind != "damage" for entry in entries)


async def test_zero_structure_asks_what_happened_and_sinks(tmp_path: Path) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_damage_entry(pilot)
        await press(pilot, *"ajax s20", "enter")
        assert isinstance(app.screen, FormScreen)
        entry = app.screen_stack[-2]
        asked = str(entry.query_one("#last-hit", Static).render())
        await press(pilot, "ctrl+s")  # the first outcome: Sunk
        assert isinstance(app.screen, DamageEntryScreen)
        # Above the line, the outcome stands where the question stood.
        told = str(app.screen.query_one("#last-hit", Static).render())
        assert "Ajax: Structure at zero: confirm what happened" in asked
        assert "confirm what happened" not in told and "! Ajax: Sunk" in told
        assert told.splitlines()[0] == asked.splitlines()[0]  # the same hit
    overview = campaigns.get_overview(app.factory, campaign_id=1)
    ships = sheet.load_record_sheet(app.factory, squadron_id=overview.sides[0].squadrons[0].id)
    ajax = next(ship for ship in ships.ships if ship.name == "Ajax")
    assert (ajax.structure_now, ajax.sunk, ajax.condition) == (0, True, "Sunk")
    assert ships.original_afloat == 2


async def test_journal_filters_by_ship_and_undoes_an_entry(tmp_path: Path) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_damage_entry(pilot)
        await press(pilot, *"exeter s2", "enter")
        await press(pilot, *'ajax fm+1 crit "Radar out"', "enter")
        await press(pilot, "escape", "j")
        journal = app.screen
        assert isinstance(journal, JournalScreen)
        assert journal.entries[0].summary.startswith("Ajax")
        await press(pilot, "enter")  # service record of Ajax
        assert {entry.ship for entry in journal.entries} == {"Ajax"}
        await press(pilot, "u")
        assert journal.entries[0].kind == "undo"
        assert journal.entries[1].undone


async def test_leaving_with_an_unrecorded_line_asks_first(tmp_path: Path) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_damage_entry(pilot)
        await press(pilot, *"exeter s3", "escape")
        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "n")
        assert isinstance(app.screen, DamageEntryScreen)
        assert app.screen.query_one("#shorthand", Input).value == "exeter s3"
        await press(pilot, "escape", "y")
        assert not isinstance(app.screen, DamageEntryScreen | ConfirmScreen)


async def test_a_bad_word_right_after_the_name_and_an_ambiguous_name_are_explained(
    tmp_path: Path,
) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_damage_entry(pilot)
        await press(pilot, *"exeter s-3")
        preview = str(app.screen.query_one("#damage-preview", Static).render())
        assert "'s-3' is not a shorthand word" in preview
        field = app.screen.query_one("#shorthand", Input)
        field.value = "a s2"
        await pilot.pause()  # the edit starts the preview's read of the ships: the next waits
        await pilot.pause()
        preview = str(app.screen.query_one("#damage-preview", Static).render())
        # Ajax, Achilles and Admiral Graf Spee all begin with "a": none is meant over the others.
        assert "Ajax" in preview and "alike: Enter asks which" in preview and "Achilles" in preview


async def test_a_hit_before_the_first_scenario_begins_says_it_is_carried_into_it(
    tmp_path: Path,
) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await open_damage_entry(pilot)
        await press(pilot, *"exeter s3")
        preview = str(app.screen.query_one("#damage-preview", Static).render())
        assert "Exeter begins the first scenario with this damage" in preview
        await press(pilot, "enter")
        toast = every_toast(app)[-1].message
        assert toast.endswith("\nExeter begins the first scenario with this damage")


async def test_a_hit_undone_on_damage_entry_says_so_above_the_line(tmp_path: Path) -> None:
    """ctrl+z on damage entry: the hit shown above the line is struck through and says it was
    undone, never left as if the campaign still held it."""
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_damage_entry(pilot)
        await press(pilot, *"exeter s3", "enter")
        last = app.screen.query_one("#last-hit", Static)
        assert str(last.render()).startswith("#")
        await press(pilot, "ctrl+z")
        shown = str(last.render())
        assert "\nUndone: " in shown and "Exeter" in shown
        assert "Next line" not in shown  # no ship is named as the one a bare line hits


async def test_ctrl_r_repeats_the_newest_hit_still_in_force(tmp_path: Path) -> None:
    """ctrl+r repeats the last line's damage for the next ship, never a hit that was undone:
    after `exeter s3`, `ajax f1` and an undo of Ajax's, it brings back Exeter's s3."""
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_damage_entry(pilot)
        await press(pilot, *"exeter s3", "enter")
        await press(pilot, *"ajax f1", "enter")
        await press(pilot, "ctrl+z")
        await press(pilot, "ctrl+r")
        assert app.screen.query_one("#shorthand", Input).value == " s3"
