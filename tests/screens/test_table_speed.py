"""Faster at the table: a routine hit in 12 keys from the record sheet, the same hit on the next
ship in 4, lines recalled by Up across restarts, an ambiguous name asked about, the next turn
from the sheet and from damage entry, and the criticals in force on the sheet's row."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path
from unittest.mock import patch

from campaign_files import sample_app
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.widgets import Input, OptionList, Static

from tracker.app import TrackerApp
from tracker.db import SessionFactory, make_engine, session_factory
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns, damage_lines, fleet, scenarios, sheet
from tracker.services.fleet import ShipFields
from tracker.settings import DIR_ENV_VAR

ROUTINE = "s3 f1 fm+1"  # structure 3, flotation 1, a fire marker: the routine hit


def keys_of(text: str) -> list[str]:
    return ["space" if char == " " else char for char in text]


async def press(pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*keys)
    await pilot.pause()


def force_g(factory: SessionFactory) -> dict[str, tuple[int, int, int]]:
    """Force G's ships: (structure, flotation, fire markers) by name."""
    record = sheet.load_record_sheet(factory, squadron_id=1)
    return {s.name: (s.structure_now, s.flotation_now, s.fire_markers) for s in record.ships}


def text_of(app: TrackerApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_three_ships_by_repeat_then_by_history_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    app = sample_app(path, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "enter")  # Force G's record sheet, the cursor on Exeter
        assert isinstance(app.screen, RecordSheetScreen)
        routine = ["d", *keys_of(ROUTINE), "enter"]
        assert len(routine) == 12  # the goal: a routine hit in 12 keys from the sheet
        await press(pilot, *routine)
        assert isinstance(app.screen, DamageEntryScreen)
        # The line stays open, empty and focused, the result above it.
        field = app.screen.query_one("#shorthand", Input)
        assert field.value == "" and field.has_focus
        above = text_of(app, "#last-hit")
        assert "Exeter" in above and "or none for Exeter" in above
        # The same line on the next ships: ctrl+r, two letters of the name, Enter.
        for letters in ("aj", "ac"):
            repeat = ["ctrl+r", *letters, "enter"]
            assert len(repeat) == 4
            await press(pilot, *repeat)
        assert "Achilles" in text_of(app, "#last-hit")
        await press(pilot, "escape", "q")
    hit_once = {"Exeter": (9, 8, 1), "Ajax": (6, 7, 1), "Achilles": (6, 7, 1)}
    assert force_g(app.factory) == hit_once

    # Another start of the app: Up recalls the lines, newest first, each naming its ship.
    app = sample_app(path, seed=6)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "d")  # from the campaign screen: no ship chosen
        assert isinstance(app.screen, DamageEntryScreen)
        field = app.screen.query_one("#shorthand", Input)
        await press(pilot, "up")
        assert field.value == f"Achilles {ROUTINE}"
        await press(pilot, "up", "up")
        assert field.value == f"Exeter {ROUTINE}"
        await press(pilot, "up")  # the oldest stays
        assert field.value == f"Exeter {ROUTINE}"
        await press(pilot, "down", "down", "down")  # back to what was typed: nothing
        assert field.value == ""
        # Three hits by history: each recorded line becomes the newest.
        await press(pilot, "up", "up", "up", "enter")  # Exeter
        await press(pilot, "up", "up", "up", "enter")  # Ajax (Exeter now newest)
        await press(pilot, "up", "up", "up", "enter")  # Achilles
        await press(pilot, "escape", "q")
    assert force_g(app.factory) == {"Exeter": (6, 7, 2), "Ajax": (3, 6, 2), "Achilles": (3, 6, 2)}


async def test_repeat_on_the_ship_the_sheet_highlights(tmp_path: Path) -> None:
    """Pick the next ship on the sheet (down), d, ctrl+r, Enter: four keys for the same hit."""
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "enter")
        await press(pilot, "d", *keys_of(ROUTINE), "enter", "escape")
        next_ship = ["down", "d", "ctrl+r", "enter"]
        await press(pilot, *next_ship)
        assert "Ajax" in text_of(app, "#last-hit")
        await press(pilot, "escape", "q")
    assert force_g(app.factory)["Ajax"] == (6, 7, 1)


async def test_the_same_line_down_the_sheet_in_three_keys(tmp_path: Path) -> None:
    """ctrl+r (the last line's damage), ctrl+down (the sheet's next ship), Enter."""
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "enter")
        await press(pilot, "d", *keys_of(ROUTINE), "enter")
        for ship in ("Ajax", "Achilles"):
            await press(pilot, "ctrl+r", "ctrl+down")
            assert app.screen.query_one("#shorthand", Input).value == f"{ship} {ROUTINE}"
            await press(pilot, "enter")
            assert ship in text_of(app, "#last-hit")
        await press(pilot, *keys_of("s1"), "ctrl+up")  # a line typed: the ship before
        assert app.screen.query_one("#shorthand", Input).value == "Ajax s1"
        await press(pilot, "ctrl+up", "ctrl+up")  # round the sheet: Exeter, then Achilles
        assert app.screen.query_one("#shorthand", Input).value == "Achilles s1"
        await press(pilot, "ctrl+u", "escape", "q")
    assert force_g(app.factory) == {"Exeter": (9, 8, 1), "Ajax": (6, 7, 1), "Achilles": (6, 7, 1)}


def add_destroyers(factory: SessionFactory) -> None:
    for name in ("Hotspur", "Hostile", "Havock"):
        fleet.create_ship(factory, squadron_id=1, fields=ShipFields(name=name, structure_max=4,
                                                                   flotation_max=4))  # fmt: skip


async def test_an_ambiguous_name_asks_which_ship_before_it_records(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    add_destroyers(app.factory)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "d", *keys_of("ho s2"))
        assert "matches Hotspur, Hostile alike" in text_of(app, "#damage-preview")
        await press(pilot, "enter")
        assert force_g(app.factory)["Hotspur"] == force_g(app.factory)["Hostile"] == (4, 4, 0)
        finder = app.screen.query_one("#ship-candidates", OptionList)
        assert finder.has_focus and finder.option_count == 2  # Havock matches worse: not asked
        assert "Which ship?" in text_of(app, "#damage-preview")
        await press(pilot, "escape")  # back to the line, which keeps what was typed
        field = app.screen.query_one("#shorthand", Input)
        assert field.has_focus and field.value == "ho s2"
        await press(pilot, "enter", "down", "enter")  # asked again: the second, Hostile
        assert force_g(app.factory)["Hostile"] == (2, 4, 0)
        assert force_g(app.factory)["Hotspur"] == (4, 4, 0)
        await press(pilot, *keys_of("hots s1"), "enter")  # one ship begins with it: recorded
        assert force_g(app.factory)["Hotspur"] == (3, 4, 0)
        await press(pilot, "escape", "q")


async def test_next_turn_from_the_sheet_and_from_damage_entry(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    scenario = campaigns.get_overview(app.factory, campaign_id=1).scenarios[0].id
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "enter")
        await press(pilot, "n")  # no scenario in play yet: said, nothing changed
        assert "turn" not in text_of(app, "#sheet-heading")
        ships = [s.id for s in sheet.load_record_sheet(app.factory, squadron_id=1).ships]
        scenarios.set_participants(app.factory, scenario_id=scenario, ship_ids=ships)
        scenarios.start_scenario(app.factory, scenario_id=scenario)
        await press(pilot, "n")
        assert "turn 2" in text_of(app, "#sheet-heading")
        await press(pilot, "d")
        assert app.screen.sub_title == "Battle of the River Plate, turn 2"
        await press(pilot, "ctrl+n")
        assert app.screen.sub_title == "Battle of the River Plate, turn 3"
        await press(pilot, "escape")
        assert "turn 3" in text_of(app, "#sheet-heading")
        await press(pilot, "q")
    turn = scenarios.current_turn(app.factory, campaign_id=1)
    assert turn is not None and turn.turn == 3


async def test_lines_are_kept_per_campaign_and_not_in_the_umpires_view(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    app = sample_app(path, seed=5)
    other = campaigns.create_campaign(app.factory, name="Norway 1940").id
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "d", *keys_of(f"exeter {ROUTINE}"), "enter")
        await app.push_screen(DamageEntryScreen(other))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DamageEntryScreen) and screen.line.lines == []
        await press(pilot, "up")
        assert screen.query_one("#shorthand", Input).value == ""
        await press(pilot, "q")
    umpire = TrackerApp(app.factory, rng=random.Random(1), open_campaign_id=1, read_only=True)
    async with umpire.run_test(size=(120, 40)) as pilot:
        await umpire.push_screen(DamageEntryScreen(1))
        await pilot.pause()
        assert isinstance(umpire.screen, DamageEntryScreen) and umpire.screen.line.lines == []


@settings(max_examples=examples(25), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(lines=st.lists(st.sampled_from(["exeter s1", "ajax f2", "achilles fm+1", "s3"])
                      | st.integers(0, 150).map(lambda n: f"exeter s{n}"),
                      min_size=1, max_size=160))  # fmt: skip
def test_recalled_lines_are_the_recorded_ones_newest_last_without_repeats(
    lines: list[str], tmp_path: Path
) -> None:
    """The history as the screen reads it: each line once, at its last place, at most KEEP."""
    with tempfile.TemporaryDirectory(dir=tmp_path) as folder:
        factory = session_factory(make_engine(str(Path(folder) / "c.db")))
        with patch.dict(os.environ, {DIR_ENV_VAR: folder}):
            for line in lines:
                assert damage_lines.keep_line(factory, campaign_id=1, line=line) is None
            recalled = damage_lines.recall_lines(factory, campaign_id=1)
            assert damage_lines.recall_lines(factory, campaign_id=2) == []
    expected = list(dict.fromkeys(reversed(lines)))[::-1][-damage_lines.KEEP :]
    assert recalled == expected
