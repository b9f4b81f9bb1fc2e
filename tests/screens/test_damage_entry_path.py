"""Damage entry's reads and writes on the one call path: the preview of the newest keystroke
wins, Enter records exactly the line previewed, and a refused or unreachable database is said
while the line stays for another try."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from textual.widgets import Input, Select, Static
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.form import FormScreen
from tracker.screens.line_preview import LinePreview
from tracker.services import damage, history, sheet
from tracker.services.damage import HitRequest
from tracker.services.errors import ConnectionLost, InvalidInput


async def open_damage_entry(pilot) -> DamageEntryScreen:  # type: ignore[no-untyped-def]
    await pilot.pause()
    return await press_to(pilot, "d", screen=DamageEntryScreen)


def refusing(monkeypatch: pytest.MonkeyPatch, error: Exception) -> list[HitRequest]:
    """damage.record_hit raising `error`; the hits it was asked to record."""
    tries: list[HitRequest] = []

    def record_hit(factory: Any, *, request: HitRequest) -> Any:
        tries.append(request)
        raise error

    monkeypatch.setattr(damage, "record_hit", record_hit)
    return tries


async def until(condition: Callable[[], bool]) -> None:
    """Let the app handle its messages until `condition` holds (no time is asserted)."""
    while not condition():
        await asyncio.sleep(0.01)


def held_first_preview(
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[threading.Event, threading.Event, list[HitRequest]]:
    """damage.preview_hit, its first call held until released: (entered, release, asked)."""
    real = damage.preview_hit
    entered, release = threading.Event(), threading.Event()
    asked: list[HitRequest] = []

    def preview_hit(factory: Any, *, request: HitRequest) -> Any:
        asked.append(request)
        if len(asked) == 1:
            entered.set()
            release.wait(timeout=60)
        return real(factory, request=request)

    monkeypatch.setattr(damage, "preview_hit", preview_hit)
    return entered, release, asked


def shown_previews(monkeypatch: pytest.MonkeyPatch) -> list[HitRequest]:
    """Every request whose preview the screen shows, in order."""
    shown: list[HitRequest] = []
    real = LinePreview._show_preview

    def show(self: LinePreview, line: Any, ship: Any, request: HitRequest, result: Any) -> None:
        shown.append(request)
        real(self, line, ship, request, result)

    monkeypatch.setattr(LinePreview, "_show_preview", show)
    return shown


def exeter_now(app: TrackerApp) -> tuple[int, int]:
    record = sheet.load_record_sheet(app.factory, squadron_id=1)
    ship = next(s for s in record.ships if s.name == "Exeter")
    return ship.structure_now, ship.flotation_now


async def type_while_held(
    pilot: Any, screen: DamageEntryScreen, entered: threading.Event, first: str, second: str
) -> None:
    """`first` typed, its preview held on its way; then `second` typed before it is back."""
    field = screen.query_one("#shorthand", Input)
    field.value = first
    await asyncio.to_thread(entered.wait, 60)
    edits = screen.preview.edits
    field.value = second
    await until(lambda: screen.preview.edits > edits)


async def test_a_later_keystrokes_preview_wins_over_one_still_on_its_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release, asked = held_first_preview(monkeypatch)
    shown = shown_previews(monkeypatch)
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_damage_entry(pilot)
        await type_while_held(pilot, screen, entered, "exeter s3", "exeter s3 f1")
        release.set()
        await pilot.pause()
        preview = str(screen.query_one("#damage-preview", Static).render())
        # The older line's answer came back after the newer keystroke: never shown.
        assert [(r.structure, r.flotation) for r in shown] == [(3, 1)]
        assert [(r.structure, r.flotation) for r in asked] == [(3, 0), (3, 1)]
        assert "9/12" in preview and "8/9" in preview
        assert screen.preview.pending is not None and screen.preview.pending[0].flotation == 1


async def test_enter_while_the_preview_is_on_its_way_records_the_line_then_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release, _ = held_first_preview(monkeypatch)
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_damage_entry(pilot)
        await type_while_held(pilot, screen, entered, "exeter s3", "exeter s3 f1")
        screen.record()  # Enter, as the field's Submitted calls it, before any preview is back
        assert exeter_now(app) == (12, 9)  # nothing recorded before the line is previewed
        release.set()
        await pilot.pause()
        assert exeter_now(app) == (9, 8)  # s3 f1: the line typed last, recorded once
        entries = history.list_entries(app.factory, campaign_id=1)
        assert [e.kind for e in entries].count("damage") == 1
        assert screen.query_one("#shorthand", Input).value == ""


async def test_a_refused_hit_is_said_and_enter_may_try_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tries = refusing(monkeypatch, InvalidInput({"ship": "Exeter is not in the scenario in play"}))
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_damage_entry(pilot)
        await pilot.press(*"exeter s3", "enter")
        await pilot.pause()
        errors = [n.message for n in every_toast(app) if n.severity == "error"]
        assert errors == ["Exeter is not in the scenario in play"]
        assert screen.query_one("#shorthand", Input).value == "exeter s3"  # kept for a retry
        await pilot.press("enter")
        await pilot.pause()
        assert len(tries) == 2  # the refusal ended the first try: Enter asks again
        assert not any("Still recording" in n.message for n in every_toast(app))
    assert exeter_now(app) == (12, 9)


async def test_a_database_that_stops_answering_is_said_once_and_the_line_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lost = ConnectionLost("The database stopped answering: check the server, then try again.")
    tries = refusing(monkeypatch, lost)
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_damage_entry(pilot)
        await pilot.press(*"exeter s3", "enter")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        said = [n.message for n in every_toast(app) if n.title == "Database"]
        # Once, though Enter met it twice (the change watch may add that it answers again).
        assert said.count(lost.message) == 1
        assert len(tries) == 2
        assert app.is_running and app.crash is None and app.screen is screen
        assert screen.query_one("#shorthand", Input).value == "exeter s3"


async def test_a_preview_whose_read_fails_lets_the_next_keystroke_preview_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = damage.find_ships
    failing = [True]

    def find_ships(factory: Any, **kwargs: Any) -> Any:
        if failing[0]:
            raise ConnectionLost("The database stopped answering.")
        return real(factory, **kwargs)

    monkeypatch.setattr(damage, "find_ships", find_ships)
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_damage_entry(pilot)
        await pilot.press(*"exe")
        preview = screen.query_one("#damage-preview", Static)
        assert "stopped answering" in str(preview.render())
        failing[0] = False
        await pilot.press(*"ter s3")
        assert "9/12" in str(preview.render())


async def test_ctrl_f_opens_the_form_on_the_ship_the_line_names(tmp_path: Path) -> None:
    """Each line in turn on one damage entry: its form closed unchanged, the line erased."""
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_damage_entry(pilot)
        for typed in ("exeter", "aja", "achil", "graf", "spee"):
            await pilot.press(*typed, "space", "s", "2")
            named = screen.preview.pending[0].ship_id if screen.preview.pending else None
            picks = damage.find_ships(app.factory, campaign_id=1, query=typed)
            assert named == picks[0].id, typed
            await pilot.press("ctrl+f")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, FormScreen), typed
            assert form.query_one("#field-ship_id", Select).value == named, typed
            assert await press_to(pilot, "escape", screen=DamageEntryScreen) is screen
            await pilot.press(*["backspace"] * len(f"{typed} s2"))
            assert screen.line.value == "", typed


async def test_ctrl_f_on_an_empty_line_opens_the_form_on_the_last_ship_hit(
    tmp_path: Path,
) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_damage_entry(pilot)
        await pilot.press(*"ajax s1", "enter")
        await pilot.press("ctrl+f")
        form = app.screen
        assert isinstance(form, FormScreen)
        assert form.query_one("#field-ship_id", Select).value == screen.default_ship_id
        ajax = damage.find_ships(app.factory, campaign_id=1, query="ajax")[0].id
        assert screen.default_ship_id == ajax
