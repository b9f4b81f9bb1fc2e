"""Damage entry as a player uses it: type a hit, read the preview, Enter, undo, restart, redo."""

from __future__ import annotations

import random
from pathlib import Path

from textual.widgets import Input, Static

from tracker.app import TrackerApp
from tracker.db import make_engine, migrate, session_factory
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.form import FormScreen
from tracker.screens.journal import JournalScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns, demo, history, sheet


def start(path: Path) -> TrackerApp:
    engine = make_engine(str(path))
    migrate(engine)
    factory = session_factory(engine)
    campaign_id = demo.create_sample_campaign(factory)
    return TrackerApp(factory, rng=random.Random(5), open_campaign_id=campaign_id)


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
        await pilot.press("enter")  # Force G
        await pilot.pause()
        assert exeter(app) == (12, 9)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DamageEntryScreen)
        await pilot.press(*"exeter s3 f1")
        await pilot.pause()
        preview = str(app.screen.query_one("#damage-preview", Static).render())
        assert "Exeter" in preview and "9/12" in preview and "8/9" in preview
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one("#shorthand", Input).value == ""
        await pilot.press("escape")
        await pilot.pause()
        assert exeter(app) == (9, 8)
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert exeter(app) == (12, 9)
        await pilot.press("q")

    app = start(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert exeter(app) == (12, 9)
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert exeter(app) == (9, 8)
    kinds = [e.kind for e in history.list_entries(app.factory, campaign_id=1)[:3]]
    assert kinds == ["redo", "undo", "damage"]


async def test_a_word_that_does_not_parse_is_pointed_at_and_nothing_written(
    tmp_path: Path,
) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press(*"exeter s3 zz")
        await pilot.pause()
        preview = str(app.screen.query_one("#damage-preview", Static).render())
        assert "'zz' is not a shorthand word" in preview
        await pilot.press("enter")
        await pilot.pause()
    entries = history.list_entries(app.factory, campaign_id=1)
    assert all(entry.kind != "damage" for entry in entries)


async def test_zero_structure_asks_what_happened_and_sinks(tmp_path: Path) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press(*"ajax s20", "enter")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        await pilot.press("ctrl+s")  # the first outcome: Sunk
        await pilot.pause()
        assert isinstance(app.screen, DamageEntryScreen)
    overview = campaigns.get_overview(app.factory, campaign_id=1)
    ships = sheet.load_record_sheet(app.factory, squadron_id=overview.sides[0].squadrons[0].id)
    ajax = next(ship for ship in ships.ships if ship.name == "Ajax")
    assert (ajax.structure_now, ajax.sunk, ajax.condition) == (0, True, "Sunk")
    assert ships.original_afloat == 2


async def test_journal_filters_by_ship_and_undoes_an_entry(tmp_path: Path) -> None:
    app = start(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press(*"exeter s2", "enter")
        await pilot.pause()
        await pilot.press(*'ajax fm+1 crit "Radar out"', "enter")
        await pilot.pause()
        await pilot.press("escape", "j")
        await pilot.pause()
        journal = app.screen
        assert isinstance(journal, JournalScreen)
        assert journal.entries[0].summary.startswith("Ajax")
        await pilot.press("enter")  # service record of Ajax
        await pilot.pause()
        assert {entry.ship for entry in journal.entries} == {"Ajax"}
        await pilot.press("u")
        await pilot.pause()
        assert journal.entries[0].kind == "undo"
        assert journal.entries[1].undone
