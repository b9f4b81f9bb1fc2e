"""Every dialog where the player names a file (the record sheet's P, the library's export, the
library import, the CSV import) says beside the path why a path naming no usable file is
refused (a name too long for the system, a folder, a FIFO, a loop of links, ...): the dialog
stays open, the app never ends. Generated paths, several typed into one dialog."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from depth import examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from textual.screen import Screen
from textual.widgets import Input, Static
from unusable_paths import unusable_paths

from tracker.app import TrackerApp
from tracker.screens.csv_import import CsvImportScreen
from tracker.screens.form import FormScreen
from tracker.screens.library import LibraryScreen
from tracker.screens.library_import import LibraryImportScreen
from tracker.screens.record_sheet import RecordSheetScreen

Opener = Callable[[Any], Awaitable[Screen[Any]]]


async def _print_dialog(pilot: Any) -> Screen[Any]:
    await press_to(pilot, "enter", screen=RecordSheetScreen)
    return await press_to(pilot, "P", screen=FormScreen)


async def _export_dialog(pilot: Any) -> Screen[Any]:
    await press_to(pilot, "l", screen=LibraryScreen)
    return await press_to(pilot, "e", screen=FormScreen)


async def _library_import(pilot: Any) -> Screen[Any]:
    return await press_to(pilot, "I", screen=LibraryImportScreen)


async def _csv_import(pilot: Any) -> Screen[Any]:
    await press_to(pilot, "enter", screen=RecordSheetScreen)
    return await press_to(pilot, "I", screen=CsvImportScreen)


# Each dialog: how it is opened, its path box, and where it says what it refused.
DIALOGS: dict[str, tuple[Opener, str, str]] = {
    "print": (_print_dialog, "#field-path", "#error-path"),
    "library export": (_export_dialog, "#field-path", "#error-path"),
    "library import": (_library_import, "#library-path", "#library-report"),
    "csv import": (_csv_import, "#csv-path", "#csv-report"),
}


def _said(dialog: Screen[Any], where: str) -> str:
    return str(dialog.query_one(where, Static).render())


async def _try(app: TrackerApp, name: str, paths: list[tuple[str, str]]) -> None:
    opener, box, where = DIALOGS[name]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        dialog = await opener(pilot)
        for kind, path in paths:
            dialog.query_one(box, Input).value = path
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is dialog, (kind, type(app.screen).__name__)
            said = _said(dialog, where)
            assert len(said) > 20 and ("file" in said.casefold() or "folder" in said), said
        assert app.crash is None and app.is_running


# Paths typed into each dialog of an example: five for each of three examples at depth 1
# (tests/depth.py), typed into one dialog of one app (an app's start costs more than the paths it
# is shown); a deeper run also draws more examples.
PATHS = 5 * examples(3)


@pytest.mark.parametrize("name", sorted(DIALOGS))
@settings(
    max_examples=examples(1), deadline=None, derandomize=True, database=None,
    phases=[Phase.generate],  # an app per example: a failure is shown as drawn
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
@given(data=st.data())
def test_a_dialog_refuses_a_path_naming_no_usable_file_beside_it(
    tmp_path: Path, name: str, data: st.DataObject
) -> None:
    folder = tmp_path / "files"
    folder.mkdir(exist_ok=True)
    paths = [data.draw(unusable_paths(folder)) for _ in range(PATHS)]
    app = sample_app(tmp_path / f"campaign-{len(list(tmp_path.iterdir()))}.db", seed=3)
    asyncio.run(_try(app, name, paths))
