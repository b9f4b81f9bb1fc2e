"""Damage entry is composed once per campaign and opened again on every later `d`: each opening
starts as a new screen does (an empty line on the ship it was opened on, no result or preview of
the last opening, Up recalling the campaign's lines), whichever screen it is opened from."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from textual import events
from textual.widgets import Input, OptionList, Static

from tracker.app import TrackerApp
from tracker.screens import calls
from tracker.screens import damage_entry as entry_screen
from tracker.screens.campaign import CampaignScreen
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.screens.ship_detail import ShipDetailScreen
from tracker.services import damage, damage_entry, scenarios

# What an opening holds that the player sees or the next key acts on, by where it is held
# (edits and previewing only count the previews on their way: none once the screen settled).
STATE = {
    "screen": ("default_ship_id", "sheet", "asking", "recording"),
    "preview": (
        "picks",
        "picks_for",
        "pending",
        "ambiguous",
        "chosen",
        "enter_for",
        "table_dice",
        "named",
    ),
    "line": ("lines", "recall_at", "draft"),
}


def opening(screen: DamageEntryScreen) -> dict[str, Any]:
    """The screen as the player finds it, and the state its next key starts from."""
    field = screen.query_one("#shorthand", Input)
    last = screen.query_one("#last-hit", Static)
    preview = screen.query_one("#damage-preview", Static)
    ships = screen.query_one("#ship-candidates", OptionList)
    return {
        "line": (field.value, field.cursor_position, field.has_focus),
        "last hit": (last.display, sorted(last.classes), str(last.render())),
        "preview": (str(preview.render()), sorted(preview.classes)),
        "ships": ([str(option.prompt) for option in ships.options], ships.highlighted),
        "dice": str(screen.query_one("#dice-log", Static).render()),
        "header": (screen.title, screen.sub_title),
        "classes": sorted(screen.classes),
        **{
            f"{where}.{name}": getattr(holder, name)
            for where, holder in (
                ("screen", screen),
                ("preview", screen.preview),
                ("line", screen.line),
            )
            for name in STATE[where]
        },
    }


@asynccontextmanager
async def on_damage_entry(
    tmp_path: Path,
) -> AsyncIterator[tuple[TrackerApp, Any, DamageEntryScreen]]:
    """The sample campaign's app, damage entry opened from Force G's sheet (on Exeter)."""
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "enter", screen=RecordSheetScreen)
        yield app, pilot, await press_to(pilot, "d", screen=DamageEntryScreen)


async def as_new(pilot: Any, kept: DamageEntryScreen) -> dict[str, Any]:
    """What a damage entry composed anew shows, opened as `kept` was (then closed again)."""
    app: TrackerApp = pilot.app
    fresh = DamageEntryScreen(kept.campaign_id, kept.default_ship_id, kept.sheet)
    await app.push_screen(fresh)
    await pilot.pause()
    assert app.screen is fresh
    seen = opening(fresh)
    await press_to(pilot, "escape", screen=type(app.screen_stack[-2]))
    return seen


async def leave_busy(pilot: Any, entry: DamageEntryScreen, hit: str, back_to: type[Any]) -> str:
    """Leave damage entry with a hit recorded, the line recalled and broken, an error shown;
    the line the hit was kept as."""
    await pilot.press(*hit, "enter")
    await pilot.pause()
    assert not entry.query_one("#last-hit", Static).has_class("-empty")
    kept = entry.line.lines[-1]
    await pilot.press("ctrl+r", "up", "up", *" zz s-3")
    await pilot.pause()
    assert entry.query_one("#damage-preview", Static).has_class("-error")
    await press_to(pilot, "escape", screen=ConfirmScreen)
    await press_to(pilot, "y", screen=back_to)
    return kept


async def test_each_opening_starts_as_a_new_screen_does(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        sheet = await press_to(pilot, "enter", screen=RecordSheetScreen)  # Force G, on Exeter
        assert sheet.record is not None
        first = await press_to(pilot, "d", screen=DamageEntryScreen)
        assert first.default_ship_id == sheet.record.ships[0].id
        hits = iter(("exeter s1", "ajax f1", "achilles s1", "exeter f1", "ajax s1", "achilles f1"))
        # Twice from the same sheet, on another ship each time; then the other squadron's sheet,
        # the campaign screen, the scenario and the ship detail, each after a busy opening.
        routes: list[tuple[str, tuple[str, ...], type[Any], str | None]] = [
            ("the sheet's second ship", ("down",), RecordSheetScreen, "Ajax"),
            ("the sheet's third ship", ("down",), RecordSheetScreen, "Achilles"),
            ("the other squadron", ("escape", "down", "down", "enter"), RecordSheetScreen,
             "Admiral Graf Spee"),
            ("the campaign screen", ("escape",), CampaignScreen, None),
            ("the scenario", ("tab", "enter"), ScenarioScreen, None),
            ("the ship detail", ("escape", "shift+tab", "up", "up", "enter", "enter"),
             ShipDetailScreen, "Exeter"),
        ]  # fmt: skip
        entry, back_to = first, RecordSheetScreen
        for where, keys, kind, ship in routes:
            kept = await leave_busy(pilot, entry, next(hits), back_to)
            await press_to(pilot, *keys, screen=kind)
            again = await press_to(pilot, "d", screen=DamageEntryScreen)
            assert again is first, f"from {where}: damage entry was composed again"
            seen = opening(again)
            assert seen == await as_new(pilot, again), where
            # The ship it was opened on, and nothing of the last opening.
            ships = {pick.id: pick.name for pick in again.preview.picks}
            assert (ships.get(again.default_ship_id) if ship else again.default_ship_id) == ship
            assert seen["line"] == ("", 0, True)
            assert seen["last hit"] == (True, ["-empty"], entry_screen.NO_RESULT)
            assert seen["preview"][1] == [] and "zz" not in seen["preview"][0]
            if kind is RecordSheetScreen:
                on_sheet = app.screen_stack[-2]
                assert isinstance(on_sheet, RecordSheetScreen) and on_sheet.record is not None
                assert [pick.name for pick in again.sheet] == [
                    s.name for s in on_sheet.record.ships if not s.sunk
                ]
            else:
                assert again.sheet == ()
            # Up recalls the campaign's lines, the newest first.
            await pilot.press("up")
            await pilot.pause()
            assert again.query_one("#shorthand", Input).value == kept, where
            await pilot.press("down")
            await pilot.pause()
            entry, back_to = again, kind
        await pilot.press("escape", "q")


async def test_a_window_resized_while_it_was_closed_gives_the_narrow_layout(
    tmp_path: Path,
) -> None:
    async with on_damage_entry(tmp_path) as (_app, pilot, first):
        assert first.has_class("-wide")
        await press_to(pilot, "escape", screen=RecordSheetScreen)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        again = await press_to(pilot, "d", screen=DamageEntryScreen)
        assert again is first and again.has_class("-narrow") and not again.has_class("-wide")
        assert opening(again) == await as_new(pilot, again)


async def test_an_opening_whose_read_is_still_on_its_way_leaves_a_new_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Escape while the preview's read is held, then d: the answer belongs to the opening
    left, so the next one is a screen of its own, and the kept one is used once it is back."""
    real = damage.find_ships
    entered, release = threading.Event(), threading.Event()

    def find_ships(*args: Any, **kwargs: Any) -> Any:
        if kwargs["query"] == "zz":
            entered.set()
            release.wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(damage, "find_ships", find_ships)
    async with on_damage_entry(tmp_path) as (app, pilot, first):
        first.query_one("#shorthand", Input).value = "zz"
        await asyncio.to_thread(entered.wait, 60)
        # Keys as the terminal sends them: the pilot's own wait for the held read would
        # outlast it.
        for key, then in (("escape", ConfirmScreen), ("y", RecordSheetScreen),
                          ("d", DamageEntryScreen)):  # fmt: skip
            event = events.Key(key, key if len(key) == 1 else None)
            event.set_sender(app)
            app.post_message(event)
            while not isinstance(app.screen, then):
                await asyncio.sleep(0.01)
        other = app.screen
        assert other is not first
        release.set()
        await pilot.pause()
        assert opening(other) == await as_new(pilot, other)
        await press_to(pilot, "escape", screen=RecordSheetScreen)
        again = await press_to(pilot, "d", screen=DamageEntryScreen)
        assert again is first and opening(again) == await as_new(pilot, again)


def counted_finds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queries damage.find_ships is asked, in order."""
    real, asked = damage.find_ships, []

    def find_ships(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs["query"])
        return real(*args, **kwargs)

    monkeypatch.setattr(damage, "find_ships", find_ships)
    return asked


async def test_a_hit_recorded_previews_the_next_line_without_finding_the_ships_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = counted_finds(monkeypatch)
    async with on_damage_entry(tmp_path) as (_app, pilot, entry):
        for line in ("s1", "exeter f1"):
            await pilot.press(*line)
            await pilot.pause()
            asked.clear()
            await pilot.press("enter")
            await pilot.pause()
            assert "#" in str(entry.query_one("#last-hit", Static).render())
            assert asked == ([] if line == "s1" else [""]), line  # the line typed no name: none
            assert str(entry.query_one("#damage-preview", Static).render()).startswith(
                "Exeter: now type what it took"
            )
            listed = entry.query_one("#ship-candidates", OptionList).options
            assert [str(option.prompt).split("  ·")[0] for option in listed][:3] == [
                "Exeter", "Ajax", "Achilles"
            ]  # fmt: skip


async def test_the_same_ships_found_again_leave_the_list_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = counted_finds(monkeypatch)
    async with on_damage_entry(tmp_path) as (_app, pilot, entry):
        ships = entry.query_one("#ship-candidates", OptionList)
        listed = list(ships.options)
        # Down into the list, a ship highlighted, then back to the line: the ships are found
        # again (as on every return to the line), the same ones.
        await pilot.press("down", "down")
        await pilot.pause()
        assert ships.has_focus and ships.highlighted is not None
        asked.clear()
        await pilot.press("escape")
        await pilot.pause()
        assert asked == [""]
        assert all(a is b for a, b in zip(ships.options, listed, strict=True))
        assert ships.highlighted is None and ships.scroll_y == 0  # as a list filled anew
        # Other ships found: the list is filled with them.
        await pilot.press(*"graf")
        await pilot.pause()
        assert str(ships.options[0].prompt).startswith("Admiral Graf Spee")


async def test_an_opening_reads_what_it_shows_in_one_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    real = calls.run

    def run(screen: Any, call: Any, **options: Any) -> None:
        asked.append(repr(call))
        real(screen, call, **options)

    monkeypatch.setattr(calls, "run", run)
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "enter", screen=RecordSheetScreen)
        for _ in range(2):  # composed, then opened again
            asked.clear()
            entry = await press_to(pilot, "d", screen=DamageEntryScreen)
            assert asked == ["Call('read_opening')"]
            # What the reads were for is shown: the turn, the tables' dice, the line's ship.
            turn = scenarios.current_turn(app.factory, campaign_id=entry.campaign_id)
            assert turn is not None and entry.sub_title == turn.label
            assert set(entry.preview.table_dice) == {"structural", "underwater"}
            preview = str(entry.query_one("#damage-preview", Static).render())
            assert preview.startswith("Exeter: now type what it took")
            await press_to(pilot, "escape", screen=RecordSheetScreen)


def held_opening(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Damage entry's opening read held: the first event is set once it is asked, and it is
    answered once the second is."""
    real = damage_entry.read_opening
    entered, release = threading.Event(), threading.Event()

    def read_opening(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        release.wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(entry_screen, "read_opening", read_opening)
    return entered, release


async def test_a_line_typed_before_the_opening_is_read_is_previewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = held_opening(monkeypatch)
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        sheet = await press_to(pilot, "enter", screen=RecordSheetScreen)
        entered.clear()
        sheet.action_damage()
        await asyncio.to_thread(entered.wait, 60)
        entry = app.screen
        assert isinstance(entry, DamageEntryScreen) and entry.preview.picks == []  # not read yet
        entry.query_one("#shorthand", Input).value = "ajax s2"
        release.set()
        await pilot.pause()
        preview = str(entry.query_one("#damage-preview", Static).render())
        assert preview.startswith("Ajax") and "→" in preview, preview
        assert entry.preview.pending is not None and entry.preview.pending[0].structure == 2


async def test_the_next_lines_preview_is_shown_with_the_result_and_the_watch_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = counted_finds(monkeypatch)
    seen: list[str] = []
    real = DamageEntryScreen._recorded

    def recorded(self: DamageEntryScreen, result: Any) -> None:
        real(self, result)
        seen.append(str(self.query_one("#damage-preview", Static).render()))

    monkeypatch.setattr(DamageEntryScreen, "_recorded", recorded)
    async with on_damage_entry(tmp_path) as (app, pilot, entry):
        await pilot.press(*"s1", "enter")
        await pilot.pause()
        # The empty line's preview was there when the result was, not drawn after it.
        assert len(seen) == 1 and seen[0].startswith("Exeter: now type what it took")
        # The change watch sees the hit: the screen already shows it, nothing is read again.
        asked.clear()
        app.change_watch.check()
        await pilot.pause()
        assert asked == [] and entry.is_current


@pytest.mark.parametrize("meanwhile", ["escape", "a dialog"])
async def test_a_screen_left_before_the_opening_is_read_opens_nothing_over_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, meanwhile: str
) -> None:
    """d, then escape (or another screen opened) before damage entry's read is back: it is not
    shown over what the player went to, and the next d opens it as before."""
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        sheet = await press_to(pilot, "enter", screen=RecordSheetScreen)
        first = await press_to(pilot, "d", screen=DamageEntryScreen)
        await press_to(pilot, "escape", screen=RecordSheetScreen)
        entered, release = held_opening(monkeypatch)
        sheet.action_damage()
        await asyncio.to_thread(entered.wait, 60)
        assert app.screen is sheet  # not shown before its read is back
        if meanwhile == "escape":
            sheet.dismiss()
        else:
            await app.push_screen(ConfirmScreen("Another question?"))
        release.set()
        await pilot.pause()
        assert not isinstance(app.screen, DamageEntryScreen) and first not in app.screen_stack
        monkeypatch.undo()
        if meanwhile == "escape":
            assert isinstance(app.screen, CampaignScreen)
        else:
            await press_to(pilot, "n", screen=RecordSheetScreen)
        again = await press_to(pilot, "d", screen=DamageEntryScreen)
        assert again is first
