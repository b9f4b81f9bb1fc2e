"""Other players on the same database: their changes reach the open screen by themselves, an
edit made on an out-of-date form is refused, and a lost server is said and then recovered."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import Any

import pg_cluster
import pytest
from campaign_files import open_sheet, press_to, watch_looks
from textual.widgets import DataTable, Input

from tracker.app import TrackerApp
from tracker.db import SessionFactory, make_engine, migrate, session_factory
from tracker.screens import calls
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns, damage, demo, fleet, sheet
from tracker.services.damage import HitRequest

WATCH = 0.2  # seconds between looks at the database, instead of the app's 2
# What a player is told when the server does not answer (db.errors.database_error).
DOWN = re.compile(r"(cannot reach|lost the connection to) the database \(")


def _app_and_other(target: str, watch: float = WATCH) -> tuple[NotedApp, SessionFactory, int]:
    """The app on the sample campaign, and a second program's own engine on the same database
    (`watch`: seconds between the app's looks at it)."""
    engine = make_engine(target)
    migrate(engine)
    factory = session_factory(engine)
    campaign_id = demo.create_sample_campaign(factory)
    squadron_id = campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].squadrons[0].id
    app = NotedApp(factory, rng=random.Random(3), open_campaign_id=campaign_id,
                   watch_seconds=watch)  # fmt: skip
    return app, session_factory(make_engine(target)), squadron_id


async def _wait_for(pilot: Any, condition: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the screen did not change in time")


def _structure(screen: RecordSheetScreen) -> int:
    return screen.record.ships[0].structure_now


def _first_row_text(screen: RecordSheetScreen) -> str:
    table = screen.query_one(DataTable)
    return " ".join(str(cell) for cell in table.get_row_at(0))


async def test_a_hit_recorded_by_another_player_appears_without_a_key(tmp_path: Path) -> None:
    app, other, _squadron_id = _app_and_other(str(tmp_path / "campaign.db"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        ship = screen.record.ships[0]
        damage.record_hit(other, request=HitRequest(ship_id=ship.id, structure=2))
        await watch_looks(pilot)
        assert screen.record.ships[0].structure_now == ship.structure_now - 2
        shown = f"{ship.structure_now - 2}/{ship.structure_max}"
        assert shown in _first_row_text(screen)


async def test_a_fire_marker_added_keeps_those_another_player_put_on_unseen(
    tmp_path: Path,
) -> None:
    """f adds one marker to the ship as it is in the database, not to the count the sheet
    shows: the other player's markers, put on before the sheet looked again, are kept."""
    app, other, _squadron_id = _app_and_other(str(tmp_path / "campaign.db"), watch=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        ship = screen.record.ships[0]
        fleet.add_fire_markers(other, ship_id=ship.id, delta=2)  # not seen: no look before f
        await pilot.press("f")
        await pilot.pause()
        assert screen.record.ships[0].fire_markers == ship.fire_markers + 3
    assert sheet.load_ship(other, ship_id=ship.id)[0].fire_markers == ship.fire_markers + 3


async def test_an_edit_on_a_form_the_other_player_overtook_is_refused(tmp_path: Path) -> None:
    app, other, squadron_id = _app_and_other(str(tmp_path / "campaign.db"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        ship = screen.record.ships[0]
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FormScreen)
        form.query_one("#field-notes", Input).value = "Engine trouble"
        damage.record_hit(other, request=HitRequest(ship_id=ship.id, structure=3))  # meanwhile
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form  # still open, saying why
        error = str(form.query_one("#error-form").render())
        assert f"{ship.name} was changed by another player" in error
        await pilot.press("escape", "y")  # the typed notes discarded
        await watch_looks(pilot)
        assert screen.record.ships[0].structure_now == ship.structure_now - 3
    fresh = sheet.load_record_sheet(other, squadron_id=squadron_id).ships[0]
    assert (fresh.notes, fresh.structure_now) == (ship.notes, ship.structure_now - 3)


class NotedApp(TrackerApp):
    """The app, keeping every notification it shows, as the player reads them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.noted: list[str] = []

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.noted.append(message)
        super().notify(message, **kwargs)


def _noted(app: TrackerApp) -> str:
    return "\n".join(getattr(app, "noted", []))


needs_server = pytest.mark.skipif(
    not os.environ.get("TRACKER_TEST_PG_DIR"), reason="needs tests/pg_cluster.py"
)


@needs_server
async def test_the_app_says_when_the_server_is_lost_and_when_it_is_back() -> None:
    folder = Path(os.environ["TRACKER_TEST_PG_DIR"])
    with pg_cluster.new_database(os.environ["TRACKER_TEST_PG"]) as target:
        app, _other, _squadron = _app_and_other(target)
        async with app.run_test(size=(120, 40)) as pilot:
            await open_sheet(pilot)
            pg_cluster.stop(folder)
            try:
                await _wait_for(pilot, lambda: "cannot reach the database" in _noted(app))
            finally:
                pg_cluster.start_server(folder)
            await _wait_for(pilot, lambda: "The database answers again" in _noted(app))
            await pilot.press("f")  # a change goes through again
            await pilot.pause()
            assert app.screen.record.ships[0].fire_markers == 1  # type: ignore[attr-defined]


@needs_server
async def test_enter_on_a_damage_line_with_the_server_down_says_so_and_records_once_it_is_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The line's preview could not read the database: Enter names the database (not "nothing
    to record"), and once the server answers again the same Enter records the hit."""
    monkeypatch.setattr(calls, "SAY_AGAIN_AFTER", 0)  # each telling heard, not only the first
    folder = Path(os.environ["TRACKER_TEST_PG_DIR"])
    with pg_cluster.new_database(os.environ["TRACKER_TEST_PG"]) as target:
        app, other, _squadron = _app_and_other(target)
        async with app.run_test(size=(120, 40)) as pilot:
            ship = (await open_sheet(pilot)).record.ships[0]
            await press_to(pilot, "d", screen=DamageEntryScreen)
            pg_cluster.stop(folder)
            try:
                await pilot.press("s", "1")  # the ship damage entry was opened on
                await pilot.pause()
                told = len(app.noted)
                await pilot.press("enter")
                await pilot.pause()
                said = app.noted[told:]
                assert said and all(DOWN.match(message) for message in said), said
            finally:
                pg_cluster.start_server(folder)
            await _wait_for(pilot, lambda: "The database answers again" in _noted(app))
            await pilot.press("enter")
            await pilot.pause()
        hit = sheet.load_ship(other, ship_id=ship.id)[0]
        assert hit.structure_now == ship.structure_now - 1
