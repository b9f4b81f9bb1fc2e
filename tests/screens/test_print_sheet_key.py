"""P on the Squadron Record Sheet: a form for format, paper and file, then the file and a toast."""

from __future__ import annotations

from pathlib import Path

from campaign_files import press_to, sample_app
from textual.widgets import Input, Label, Select, Static
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen


def _app(tmp_path: Path) -> TrackerApp:
    return sample_app(tmp_path / "campaign.db", seed=3)


async def _open_form(pilot) -> FormScreen:  # type: ignore[no-untyped-def]
    await pilot.pause()
    await press_to(pilot, "enter", screen=RecordSheetScreen)  # Force G's record sheet
    return await press_to(pilot, "P", screen=FormScreen)


async def test_p_prints_the_sheet_beside_the_campaign_file(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_form(pilot)
        assert form.form_title == "Print Force G"
        assert form.query_one("#field-path", Input).value == str(tmp_path / "Force-G.html")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        assert [n.message for n in every_toast(app)] == [
            f"Record sheet written to {tmp_path / 'Force-G.html'}"
        ]
    page = (tmp_path / "Force-G.html").read_text(encoding="utf-8")
    assert "@page { size: A4;" in page and "<h3>Exeter</h3>" in page


async def test_markdown_follows_the_default_path_and_letter_is_kept(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_form(pilot)
        form.query_one("#field-fmt", Select).value = "markdown"
        await pilot.pause()
        preview = str(form.query_one("#form-preview", Static).render())
        assert f"Writes {tmp_path / 'Force-G.md'}" in preview
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        form = await _reopen(pilot)
        form.query_one("#field-paper", Select).value = "letter"
        form.query_one("#field-path", Input).value = str(tmp_path / "[red]letter.html")
        await pilot.press("ctrl+s")
        await pilot.pause()
        # A path with markup in it is shown as typed.
        assert every_toast(app)[-1].message.endswith("[red]letter.html")
    assert (tmp_path / "Force-G.md").read_text(encoding="utf-8").startswith("# Force G")
    letter = tmp_path / "[red]letter.html"
    assert "@page { size: Letter;" in letter.read_text(encoding="utf-8")
    assert not (tmp_path / "Force-G.html").exists()


async def _reopen(pilot) -> FormScreen:  # type: ignore[no-untyped-def]
    await pilot.press("P")
    await pilot.pause()
    assert isinstance(pilot.app.screen, FormScreen)
    return pilot.app.screen


async def test_a_folder_that_does_not_exist_is_shown_beside_the_path(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_form(pilot)
        form.query_one("#field-path", Input).value = str(tmp_path / "nowhere" / "g.html")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form
        error = str(form.query_one("#error-path", Label).render())
        assert "does not exist" in error
    assert not (tmp_path / "nowhere").exists()
