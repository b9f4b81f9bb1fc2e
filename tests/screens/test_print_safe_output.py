"""The P dialog never writes over the campaign file, asks before replacing a file, and in the
umpire's view writes only new files: generated hostile paths typed into it as a player would."""

from __future__ import annotations

import asyncio
import contextlib
import errno
from pathlib import Path

import pytest
from depth import examples
from hostile_paths import (  # noqa: F401 (fixtures)
    NOTES,
    World,
    hostile_paths,
    reaches,
    sample_file_fixture,
    says_what_to_do,
    world_fixture,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Label
from toasts import every_toast

from tracker import safe_output
from tracker.app import TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns


def _app(world: World, *, umpire: bool = False) -> tuple[TrackerApp, object]:
    """The app on the world's campaign file, opened on its campaign screen."""
    engine = make_engine(str(world.campaign), read_only=umpire)
    factory = session_factory(engine)
    campaign_id = campaigns.list_campaigns(factory)[0].id
    app = TrackerApp(factory, open_campaign_id=campaign_id, read_only=umpire)
    return app, engine


async def _print_form(pilot) -> FormScreen:  # type: ignore[no-untyped-def]
    """Force G's record sheet, then P: the print form."""
    await pilot.pause()
    if not isinstance(pilot.app.screen, RecordSheetScreen):
        await pilot.press("enter")
        await pilot.pause()
    await pilot.press("P")
    await pilot.pause()
    form = pilot.app.screen
    assert isinstance(form, FormScreen) and form.form_title == "Print Force G"
    return form


async def _save(pilot, form: FormScreen, path: str) -> str:  # type: ignore[no-untyped-def]
    """Type path into the form's File field, save, and return what is said beside it."""
    form.query_one("#field-path", Input).value = path
    await pilot.press("ctrl+s")
    await pilot.pause()
    return str(form.query_one("#error-path", Label).render())


async def _try_paths(world: World, paths: list[tuple[str, str, str]], umpire: bool) -> None:
    app, engine = _app(world, umpire=umpire)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            form = await _print_form(pilot)
            for _kind, form_name, path in paths:
                said = await _save(pilot, form, path)
                # Refused beside the field, with no question asked and the form still open.
                assert app.screen is form, (path, type(app.screen).__name__)
                says_what_to_do(said, form_name)
    finally:
        engine.dispose()  # type: ignore[attr-defined]


@settings(
    max_examples=examples(4),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), umpire=st.booleans())
def test_the_print_dialog_refuses_every_path_to_a_protected_file(
    world: World, data: st.DataObject, umpire: bool
) -> None:
    """Each example types several generated paths into one dialog, in the campaign's folder
    (relative paths are taken from the current folder, as the command line takes them)."""
    before = world.fingerprint()
    with contextlib.chdir(world.folder):
        paths = []
        for _ in range(6):
            kind, form, path = data.draw(hostile_paths(world, keep_links=True))
            reaches(world, form, path, kind)
            paths.append((kind, form, path))
        asyncio.run(_try_paths(world, paths, umpire))
    assert world.fingerprint() == before


async def _asked(pilot, form: FormScreen, sheet: Path) -> ConfirmScreen:  # type: ignore[no-untyped-def]
    """Save the form to sheet, a file that exists: the question it asks first."""
    form.query_one("#field-path", Input).value = str(sheet)
    await pilot.press("ctrl+s")
    await pilot.pause()
    question = pilot.app.screen
    assert isinstance(question, ConfirmScreen)
    return question


async def test_an_existing_file_is_replaced_only_after_yes(world: World) -> None:
    sheet = world.players_file("notes.html")
    app, engine = _app(world)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            form = await _print_form(pilot)
            question = await _asked(pilot, form, sheet)
            assert question.question == f"{sheet} already exists. Replace it with this sheet?"
            await pilot.press("n")
            await pilot.pause()
            assert app.screen is form
            said = str(form.query_one("#error-path", Label).render())
            assert f"{sheet} was left as it was: choose another file name" in said
            assert sheet.read_text(encoding="utf-8") == NOTES
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            await pilot.pause()
            assert isinstance(app.screen, RecordSheetScreen)
            assert every_toast(app)[-1].message == f"Record sheet written to {sheet}"
    finally:
        engine.dispose()
    assert sheet.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in sheet.parent.iterdir()) == ["notes.html"]


async def test_the_umpire_dialog_writes_new_files_and_never_replaces_one(world: World) -> None:
    sheet = world.players_file("notes.html")
    fresh = world.folder / "sub" / "fresh.html"
    app, engine = _app(world, umpire=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            form = await _print_form(pilot)
            said = await _save(pilot, form, str(sheet))
            assert app.screen is form  # no question: the umpire's view cannot replace a file
            assert "umpire's read-only view writes only new files: choose another" in said
            form.query_one("#field-path", Input).value = str(fresh)
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, RecordSheetScreen)
    finally:
        engine.dispose()
    assert sheet.read_text(encoding="utf-8") == NOTES
    assert fresh.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


async def test_a_write_that_fails_is_said_beside_the_file_and_leaves_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    sheet = world.players_file("notes.html")

    def full(_: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_output.os, "fsync", full)
    app, engine = _app(world)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            form = await _print_form(pilot)
            await _asked(pilot, form, sheet)
            await pilot.press("y")  # replace it: the write then fails
            await pilot.pause()
            assert app.screen is form
            said = str(form.query_one("#error-path", Label).render())
            assert "No space left on device; nothing was changed" in said
    finally:
        engine.dispose()
    assert sheet.read_text(encoding="utf-8") == NOTES
    assert [p.name for p in sheet.parent.iterdir()] == ["notes.html"]
