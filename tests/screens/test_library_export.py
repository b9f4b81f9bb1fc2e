"""The library export in the app (e on the library screen): the file it writes is the one
`tracker library export` writes and the import reads back, the same cards in a fresh campaign
file; an existing file is replaced only once the player says yes; the campaign file and its
backups are never written; a refusal is said beside the path, the form kept open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from campaign_files import migrated_engine, press_to
from library_app import app_with_library
from textual.widgets import Input, Label, Select
from textual.widgets._footer import FooterKey
from toasts import every_toast

from tracker import paths
from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.form import FormScreen
from tracker.screens.help import HelpScreen
from tracker.screens.library import LibraryScreen
from tracker.services import library, library_export


@pytest.fixture
def library_app(tmp_path: Path) -> TrackerApp:
    return app_with_library(tmp_path / "campaign.db")


async def _export_form(pilot: Any) -> FormScreen:
    await pilot.pause()
    await press_to(pilot, "l", screen=LibraryScreen)
    form = await press_to(pilot, "e", screen=FormScreen)
    assert form.form_title == "Export the library"
    return form


async def _save(pilot: Any, form: FormScreen, path: Path | str, kind: str = "cards") -> str:
    """Type the path, choose what a CSV holds, save; what is said beside the path."""
    form.query_one("#field-path", Input).value = str(path)
    form.query_one("#field-kind", Select).value = kind
    await pilot.press("ctrl+s")
    await pilot.pause()
    return str(form.query_one("#error-path", Label).render()) if form.is_attached else ""


def _fresh(path: Path) -> Any:
    return session_factory(migrated_engine(path))


def _cards(factory: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in card.model_dump().items() if k != "id"}
            for card in library.cards(factory)]  # fmt: skip


@pytest.mark.parametrize(("name", "kind"), [("all.json", "cards"), ("cards.csv", "cards"),
                                            ("classes.csv", "classes")])  # fmt: skip
async def test_an_export_reads_back_into_a_fresh_campaign_file_the_same(
    library_app: TrackerApp, tmp_path: Path, name: str, kind: str
) -> None:
    factory = library_app.factory
    target = tmp_path / name
    async with library_app.run_test(size=(120, 40)) as pilot:
        form = await _export_form(pilot)
        assert await _save(pilot, form, target, kind) == ""
        assert isinstance(pilot.app.screen, LibraryScreen)  # the form closed on the write
        said = [str(n.message) for n in every_toast(pilot.app)]
    entries = {"cards": len(library.cards(factory)), "classes": len(library.classes(factory))}
    counts = (f"{entries['cards']} cards and {entries['classes']} classes" if name == "all.json"
              else f"{entries[kind]} {kind}")  # fmt: skip
    assert said[-1] == f"{counts.capitalize()} written to {target}"
    # The same bytes `tracker library export` writes.
    expected = (library_export.export_text(factory, kind=None) if name.endswith(".json")
                else library_export.export_text(factory, kind=kind))  # fmt: skip
    assert target.read_bytes().decode() == expected
    fresh = _fresh(tmp_path / "fresh.db")
    report = library.import_library(fresh, raw=target.read_bytes(),
                                    json_file=name.endswith(".json"))  # fmt: skip
    assert report.written and not report.problems
    if kind == "cards":
        assert _cards(fresh) == _cards(factory)
    if kind == "classes" or name.endswith(".json"):
        assert library.classes(fresh) != () and [c.name for c in library.classes(fresh)] == [
            c.name for c in library.classes(factory)
        ]


async def test_an_existing_file_is_replaced_only_once_the_player_says_yes(
    library_app: TrackerApp, tmp_path: Path
) -> None:
    target = tmp_path / "mine.csv"
    target.write_text("the player's own notes\n", encoding="utf-8")
    async with library_app.run_test(size=(80, 24)) as pilot:
        form = await _export_form(pilot)
        await _save(pilot, form, target)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("escape")  # no
        assert pilot.app.screen is form
        assert "was left as it was" in str(form.query_one("#error-path", Label).render())
        assert target.read_text(encoding="utf-8") == "the player's own notes\n"
        await pilot.press("ctrl+s")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(pilot.app.screen, LibraryScreen)
    assert target.read_bytes().decode() == library_export.export_text(
        library_app.factory, kind="cards"
    )


async def test_the_campaign_file_its_backups_and_a_name_of_no_format_are_refused_beside_the_path(
    library_app: TrackerApp, tmp_path: Path
) -> None:
    campaign = tmp_path / "campaign.db"
    before = campaign.read_bytes()
    backups = paths.backups_dir(campaign)
    backups.mkdir(parents=True, exist_ok=True)
    async with library_app.run_test(size=(120, 40)) as pilot:
        form = await _export_form(pilot)
        for typed, said in (
            (campaign, "it is the campaign file, which is never overwritten"),
            (tmp_path / "CAMPAIGN.db", "it is the campaign file"),
            (backups / "library.json", "it is in the backups folder"),
            (tmp_path / "library.txt", "end the file name with .csv"),
        ):
            assert said in await _save(pilot, form, typed), typed
            assert pilot.app.screen is form
    assert campaign.read_bytes()[:16] == before[:16]
    assert not (backups / "library.json").exists() and not (tmp_path / "library.txt").exists()


async def test_the_export_key_is_in_the_footer_and_the_help(library_app: TrackerApp) -> None:
    async with library_app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await press_to(pilot, "l", screen=LibraryScreen)
        footer = {key.key_display: key.description for key in screen.query(FooterKey)}
        assert footer.get("e") == "Export"
        help_screen = await press_to(pilot, "question_mark", screen=HelpScreen)
        assert dict(help_screen.keys)["e"].startswith("Write the library to a .csv")
