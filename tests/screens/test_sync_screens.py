"""Copies played apart, from the app: y on the campaign screen packs for the other copy or
merges its packet, k on the journal decides an entry held (docs/FILES.md "Copies that play
apart")."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from campaign_files import fill_form, migrated_engine, press_to, sample_app
from settle import settle
from sqlmodel import select
from toasts import every_toast

from tracker.db import read_scope, session_factory
from tracker.models import Ship
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.form import FormScreen
from tracker.screens.journal import JournalScreen
from tracker.services import exchange, fleet, history, sync_pack
from tracker.widgets.search_table import SearchTable


def _speed(factory: object, speed: int) -> None:
    with read_scope(factory) as session:  # type: ignore[arg-type]
        exeter = session.exec(select(Ship).where(Ship.name == "Exeter")).one()
    fleet.update_ship(factory, ship_id=exeter.id or 0, fields={"speed_kn": speed})  # type: ignore[arg-type]


async def test_a_keeper_merges_a_packet_and_decides_its_conflict_in_the_app(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "keeper.db", seed=3)
    # The other copy: the same campaign in another file, where Exeter's speed was edited to 28.
    engine = migrated_engine(tmp_path / "laptop.db")
    laptop = session_factory(engine)
    document = json.loads(exchange.dumps(exchange.export_campaign(app.factory, campaign_id=1)))
    other = exchange.import_campaign(laptop, document=document)
    _speed(laptop, 28)
    packet = tmp_path / "tonight.json"
    sync_pack.write_packet(laptop, campaign_id=other, path=packet)
    engine.dispose()
    _speed(app.factory, 30)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await press_to(pilot, "y", screen=FormScreen)
        assert str(form.query_one("#field-path").value).endswith("river-plate-packet.json")
        await fill_form(pilot, {"act": "merge", "path": str(packet)})
        await pilot.pause()
        lines = [view.summary for view in history.list_entries(app.factory, campaign_id=1)]
        held = (f"Edited Exeter · recorded in laptop.db on {socket.gethostname()} · held, not "
                "written: this copy changed ship Exeter speed_kn too")  # fmt: skip
        assert any(line.startswith(held) for line in lines)
        assert any("Held #" in toast.message for toast in every_toast(app))

        journal = await press_to(pilot, "j", screen=JournalScreen)
        table = journal.query_one("#journal-table", SearchTable)
        number = next(e.id for e in journal.entries if e.summary.startswith(held))
        await pilot.press(*["down"] * [e.id for e in journal.entries].index(number))
        assert table.selected_key() == str(number)
        form = await press_to(pilot, "k", screen=FormScreen)
        assert "ship Exeter speed_kn: was 32, this copy 30, the other 28" in str(
            form.query_one("#form-note").render()
        )
        await fill_form(pilot, {"keep": "theirs"})
        await pilot.pause()
    with read_scope(app.factory) as session:
        assert session.exec(select(Ship).where(Ship.name == "Exeter")).one().speed_kn == 28
    lines = [view.summary for view in history.list_entries(app.factory, campaign_id=1)]
    assert "Edited Exeter · a conflict, decided" in lines
    assert any(line.startswith("Decided Edited Exeter: ship Exeter speed_kn 28") for line in lines)


async def test_the_packet_goes_to_a_new_file_and_replaces_one_only_when_asked(
    tmp_path: Path,
) -> None:
    app = sample_app(tmp_path / "keeper.db", seed=3)
    kept = tmp_path / "kept.json"
    kept.write_text("a player's notes")
    async with app.run_test(size=(120, 40)) as pilot:
        await press_to(pilot, "y", screen=FormScreen)
        await fill_form(pilot, {"act": "pack", "path": str(kept)})
        await pilot.pause()
        assert kept.read_text() == "a player's notes"  # asked first: replace it?
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # no: the file stays, the form is back
        await settle(app)
        assert isinstance(app.screen, FormScreen)
        await pilot.press("escape", "y")  # the form typed in: leave it, yes
        await settle(app)
        fresh = tmp_path / "fresh.json"
        await pilot.press("y")
        await settle(app)  # the form opens once the campaign's folder is read
        assert isinstance(app.screen, FormScreen)
        await fill_form(pilot, {"act": "pack", "path": str(fresh)})
        await pilot.pause()
    packet = json.loads(fresh.read_text())
    assert packet["format"] == "tracker-packet" and packet["entries"]
    assert fresh.stat().st_mode & 0o777 == 0o600  # the owner's: a side's secrets in it
