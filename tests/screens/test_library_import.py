"""The library import in the app (I on the campaign screen): a dry run and its report first,
then the import; the work runs in a worker with progress, escape stops it with nothing written,
and ctrl+b lets it go on behind the other screens, a notification saying how it ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from campaign_files import press_to, sample_app
from textual.widgets import Input, Static
from toasts import every_toast

from tracker.screens.campaign import CampaignScreen
from tracker.screens.library_import import LibraryImportScreen
from tracker.screens.roster import RosterScreen
from tracker.services import library

CARDS = Path(__file__).parents[1] / "library_files" / "cards-300.csv"


async def _open(pilot: Any) -> LibraryImportScreen:
    await pilot.pause()
    dialog = await press_to(pilot, "I", screen=LibraryImportScreen)
    dialog.query_one("#library-path", Input).value = str(CARDS)
    return dialog


def _report(dialog: LibraryImportScreen) -> str:
    return str(dialog.query_one("#library-report", Static).render())


def _on_first_progress(dialog: LibraryImportScreen, action: str) -> list[tuple[int, int]]:
    """At the first word of progress, the player presses the key of `action`: run on the UI
    thread while the worker waits, as a key pressed in the middle of the work."""
    told: list[tuple[int, int]] = []
    shown = dialog._progress

    def progress(done: int, total: int) -> None:
        if not told:
            getattr(dialog, f"action_{action}")()
        told.append((done, total))
        shown(done, total)

    dialog._progress = progress  # type: ignore[method-assign]
    return told


async def _import_pressing(
    pilot: Any, action: str
) -> tuple[LibraryImportScreen, list[tuple[int, int]]]:
    """The file checked whole, then imported with the key of `action` pressed at the import's
    first word of progress; the dialog, and the progress it heard."""
    dialog = await _open(pilot)
    await pilot.press("ctrl+s")
    told = _on_first_progress(dialog, action)
    await pilot.press("ctrl+s")
    return dialog, told


async def test_a_dry_run_reports_first_then_the_import_writes(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=1)
    assert app.factory is not None
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await _open(pilot)
        await pilot.press("ctrl+s")
        assert "300 added, 0 changed, 0 unchanged (dry run, nothing written)" in _report(dialog)
        assert library.cards(app.factory) == ()
        await pilot.press("ctrl+s")
        assert "300 added" in _report(dialog) and "(imported)" in _report(dialog)
    assert len(library.cards(app.factory)) == 300


async def test_escape_in_the_middle_stops_the_import_with_nothing_written(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=1)
    assert app.factory is not None
    async with app.run_test(size=(80, 24)) as pilot:
        dialog, told = await _import_pressing(pilot, "stop_or_close")
        assert told[:1] == [(25, 300)]
        assert told[-1][0] < 300
        assert "cancelled: nothing was written" in _report(dialog)
        assert app.screen is dialog, "escape while working stops the work, not the dialog"
        await pilot.press("escape")
        assert isinstance(app.screen, CampaignScreen)
    assert library.cards(app.factory) == ()


async def test_ctrl_b_lets_the_import_go_on_while_the_player_moves_on(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=1)
    assert app.factory is not None
    async with app.run_test(size=(120, 40)) as pilot:
        dialog, told = await _import_pressing(pilot, "background")
        assert told and not dialog.is_attached
        await press_to(pilot, "f", screen=RosterScreen)
        said = [notification.message for notification in every_toast(app)]
        assert any(
            message.startswith(f"{CARDS.name}: 300 rows read") and "(imported)" in message
            for message in said
        ), said
    assert len(library.cards(app.factory)) == 300


async def _cycle(pilot: Any, key: str) -> list[str]:
    """The widgets `key` gives the focus to, in turn, until it is back where it started; each
    one shows something (a box with nothing in it is no place for the focus)."""
    start = pilot.app.focused
    seen: list[str] = []
    for _ in range(10):
        await pilot.press(key)
        focused = pilot.app.focused
        if focused is start:
            return seen
        assert focused is not None and focused.region.area
        if focused.id == "library-report-box":
            assert _report(pilot.app.screen).strip()
        seen.append(str(focused.id))
    raise AssertionError(f"{key} never came back: {seen}")


async def test_shift_tab_goes_back_through_the_stops_tab_goes_through(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await _open(pilot)
        assert app.focused is dialog.query_one("#library-path", Input)
        forward = await _cycle(pilot, "tab")
        assert forward == ["library-tree"]  # from the path to the files and back
        assert await _cycle(pilot, "shift+tab") == forward[::-1]
        await pilot.press("ctrl+s")  # a report to read: its box joins the stops
        assert "dry run" in _report(dialog)
        forward = await _cycle(pilot, "tab")
        assert sorted(forward) == ["library-report-box", "library-tree"]
        assert await _cycle(pilot, "shift+tab") == forward[::-1]
