"""Setting a passphrase on the roster, as a player does, when a backup cannot be rewritten: the
player is told which backup still holds plain notes and may delete it (docs/RULES.md §Secrets)."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import fill_form, migrated_engine, press_to
from textual.widgets import Label

from tracker.app import TrackerApp
from tracker.db import list_backups, session_factory
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.form import FormScreen
from tracker.screens.roster import RosterScreen
from tracker.services import backups, campaigns, markers, roster
from tracker.services.roster import UnitFields


async def test_a_backup_that_still_holds_plain_notes_is_named_and_deleted_on_a_yes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "campaign.db"
    engine = migrated_engine(path)
    factory = session_factory(engine)
    campaign = campaigns.create_campaign(factory, name="Atlantic 1942").id
    side = campaigns.create_side(factory, campaign_id=campaign, name="Kriegsmarine").id
    unit = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-99", unit_type="submarine", points=10))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=["C4", "C5"])
    damaged = backups.back_up(factory, reason="closed-scenario-1").path
    kept = backups.back_up(factory, reason="closed-scenario-2").path
    assert damaged is not None and kept is not None
    with damaged.open("r+b") as file:  # a header SQLite cannot read: it cannot be rewritten
        file.write(b"not a database!!")
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "f", screen=RosterScreen)
        await press_to(pilot, "P", screen=FormScreen)
        await fill_form(pilot, {"passphrase": "Kretschmer", "again": "Kretschmer"})
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        question = str(confirm.query_one("#confirm-question", Label).render())
        assert damaged.name in question and "plain notes" in question
        await press_to(pilot, "y", screen=RosterScreen)
    assert not damaged.exists() and kept.exists()
    assert [b.path for b in list_backups(path)] == [kept]
    assert b"plain:" not in kept.read_bytes()
    engine.dispose()
