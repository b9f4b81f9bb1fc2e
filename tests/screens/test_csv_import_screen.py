"""`I` on the record sheet, the roster and the minefield ledger, as a player uses it: pick or type
a CSV file, ctrl+s checks every row (writing nothing), ctrl+s again imports all of them; a file
with problems shows each one and writes nothing; escape cancels. Real files throughout."""

from __future__ import annotations

import asyncio
import html
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from campaign_files import table_rows as rows
from settle import keys_do_not_wait, settle
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, LoadingIndicator, Static
from toasts import every_toast

from tracker import paths
from tracker.app import TrackerApp
from tracker.screens.csv_import import STILL_WORKING, CsvImportScreen, CsvTree
from tracker.screens.ledger import LedgerScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.roster import RosterScreen
from tracker.services import campaigns, csv_import, roster, sheet

SHIPS = "name,class_name,type_abbrev,structure_max,flotation_max\n"
GOOD_SHIPS = SHIPS + "Cumberland,County,CA,12,11\nDorsetshire,County,CA,12,11\n"
BAD_SHIPS = (
    SHIPS
    + "Cumberland,County,CA,12,11\n"
    + "Dorsetshire,County,CA,twelve,11\n"  # row 3
    + "Ajax,Leander,CL,10,9\n"  # row 4: Force G has an Ajax
)
SAMPLE_SHIPS = ["Exeter", "Ajax", "Achilles"]  # Force G, the first squadron of the sample


def force_g(app: TrackerApp) -> list[str]:
    campaign_id = campaigns.list_campaigns(app.factory)[0].id
    squadron = campaigns.get_overview(app.factory, campaign_id=campaign_id).sides[0].squadrons[0]
    return [
        ship.name for ship in sheet.load_record_sheet(app.factory, squadron_id=squadron.id).ships
    ]


def report_of(dialog: CsvImportScreen) -> str:
    return str(dialog.query_one("#csv-report", Static).content)


def shown(app: TrackerApp) -> str:
    """The screen's text as a player reads it."""
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


async def type_path(pilot: Pilot[Any], path: Path | str) -> None:
    """Click the path box, clear it, and type the file's path, key by key."""
    await pilot.click("#csv-path")
    await pilot.press("end", "ctrl+u", *str(path))
    await pilot.pause()
    assert pilot.app.screen.query_one("#csv-path", Input).value == str(path)


async def check(pilot: Pilot[Any], dialog: CsvImportScreen, path: Path | str | None = None) -> str:
    """ctrl+s in the dialog (after typing `path`, if given), and the report it shows then."""
    if path is not None:
        await type_path(pilot, path)
    await pilot.press("ctrl+s")
    await pilot.pause()
    return report_of(dialog)


async def open_dialog(pilot: Pilot[Any], *keys: str) -> CsvImportScreen:
    """From the campaign screen: `keys` to the screen, then `I`."""
    await pilot.pause()
    await pilot.press(*keys)
    await pilot.pause()
    return await press_to(pilot, "I", screen=CsvImportScreen)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The player's home folder, so a short `~/file.csv` can be typed."""
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Path("~").expanduser() == tmp_path
    return tmp_path


@pytest.fixture
def saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tracker installed outside a checkout and run from tmp_path: the picker starts in its
    saves/ folder."""
    monkeypatch.setattr(paths, "PACKAGE_DIR", tmp_path / "site-packages" / "tracker")
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "saves"
    folder.mkdir()
    assert paths.default_saves_dir() == folder
    return folder


# --- the record sheet: ships ---------------------------------------------------------------------


async def test_ships_from_a_typed_path_are_checked_then_imported(tmp_path: Path) -> None:
    db = tmp_path / "campaign.db"
    source = tmp_path / "my files" / "county class.csv"
    source.parent.mkdir()
    source.write_text(GOOD_SHIPS, encoding="utf-8")
    app = sample_app(db, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        await type_path(pilot, source)
        before = rows(db)
        report = await check(pilot, dialog)
        assert app.screen is dialog, "the check keeps the dialog open"
        assert report == (
            "2 of 2 rows are ready (CSV, UTF-8, comma-separated). ctrl+s again imports them all."
        )
        assert "2 of 2 rows are ready (CSV, UTF-8, comma-separated)." in shown(app)
        assert rows(db) == before, "the check writes nothing"
        sheet_screen = await press_to(pilot, "ctrl+s", screen=RecordSheetScreen)
        assert sheet_screen.query_one(DataTable).row_count == 5
    assert force_g(app) == [*SAMPLE_SHIPS, "Cumberland", "Dorsetshire"]


async def test_a_long_import_shows_progress_and_the_dialog_answers_keys_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "campaign.db"
    source = tmp_path / "county class.csv"
    source.write_text(GOOD_SHIPS, encoding="utf-8")
    started, release = threading.Event(), threading.Event()
    importing = csv_import.import_csv

    def slow(*args: Any, **kwargs: Any) -> csv_import.Report:
        started.set()
        assert release.wait(60), "the test never let the import finish"
        return importing(*args, **kwargs)

    app = sample_app(db, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        await check(pilot, dialog, source)
        monkeypatch.setattr(csv_import, "import_csv", slow)
        # Keys from here on do not wait for the import: the player's don't either.
        with keys_do_not_wait():
            await pilot.press("ctrl+s")
            assert await asyncio.to_thread(started.wait, 60)
            await pilot.pause()
            box = dialog.query_one("#csv-report-box")
            # Textual draws a loading widget over the box (its cover, outside the DOM).
            assert box.loading and isinstance(box._cover_widget, LoadingIndicator)
            typed_in = app.focused
            await pilot.press("tab")
            assert app.focused is not typed_in, "tab moves on while the import runs"
            await pilot.press("escape")
            assert app.screen is dialog, "escape does not hide an import half seen"
            assert STILL_WORKING in [n.message for n in every_toast(app)]
            assert force_g(app) == SAMPLE_SHIPS, "nothing written before the import runs"
        release.set()
        await settle(app)
        await pilot.pause()
        assert isinstance(app.screen, RecordSheetScreen)
        assert not box.loading and box._cover_widget is None
    assert force_g(app) == [*SAMPLE_SHIPS, "Cumberland", "Dorsetshire"]


async def test_a_file_picked_in_the_tree_is_imported(tmp_path: Path, saves: Path) -> None:
    (saves / "force_g.csv").write_text(GOOD_SHIPS, encoding="utf-8")
    (saves / "notes.md").write_text("not a CSV file", encoding="utf-8")
    (saves / "unicode text.txt").write_text(GOOD_SHIPS.replace(",", "\t"), encoding="utf-16")
    app = sample_app(saves / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        await pilot.pause()
        tree = dialog.query_one(CsvTree)
        # Only CSV files, a spreadsheet's "Unicode text" too (and folders) are offered; the
        # campaign file itself is not.
        assert [str(node.label) for node in tree.root.children] == [
            "force_g.csv",
            "unicode text.txt",
        ]
        await pilot.press("down", "enter")
        await pilot.pause()
        path_box = dialog.query_one("#csv-path", Input)
        assert path_box.value == str(saves / "force_g.csv")
        assert app.focused is path_box
        assert "rows are ready" in await check(pilot, dialog)
        await press_to(pilot, "ctrl+s", screen=RecordSheetScreen)
    assert force_g(app) == [*SAMPLE_SHIPS, "Cumberland", "Dorsetshire"]


async def test_a_bad_file_shows_every_problem_and_nothing_is_written(
    tmp_path: Path, home: Path
) -> None:
    db = tmp_path / "campaign.db"
    source = tmp_path / "bad.csv"
    source.write_text(BAD_SHIPS, encoding="utf-8")
    app = sample_app(db, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        await type_path(pilot, f"~/{source.name}")
        before = rows(db)
        expected = (
            "2 problems; nothing was written:\n"
            "  row 3, structure_max: 'twelve' is not a whole number\n"
            "  row 4, name: this side already has a ship named 'Ajax': choose another name\n"
        )
        for _ in range(2):  # a second ctrl+s checks again: a file with problems never imports
            report = await check(pilot, dialog)
            assert app.screen is dialog
            assert report == expected
        screen_text = shown(app)
        assert "row 3, structure_max: 'twelve' is not a whole number" in screen_text
        assert "row 4, name: this side already has a ship named 'Ajax'" in screen_text
        assert rows(db) == before
        # Fixed on disk, the same path is checked again and then imported.
        source.write_text(GOOD_SHIPS, encoding="utf-8")
        assert "2 of 2 rows are ready" in await check(pilot, dialog)
        assert rows(db) == before
        await press_to(pilot, "ctrl+s", screen=RecordSheetScreen)
    assert force_g(app) == [*SAMPLE_SHIPS, "Cumberland", "Dorsetshire"]


async def test_a_long_report_scrolls_to_its_last_problem(tmp_path: Path, home: Path) -> None:
    source = tmp_path / "bad.csv"
    # A different problem on each row: the same one on many rows would be one line.
    source.write_text(SHIPS + "".join(f"Ship {n},County,CA,{-n},1\n" for n in range(60)))
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        assert (await check(pilot, dialog, f"~/{source.name}")).startswith(
            "119 problems; nothing was written:"
        )
        assert "row 61, structure_now" not in shown(app)  # below the fold
        # The file tree is still usable beside the report.
        assert dialog.query_one(CsvTree).size.height >= 3
        await pilot.press("tab", "end")  # to the report, and down to its end
        await pilot.pause()
        assert "row 61, structure_now: must be 0 or more, got -59" in shown(app)
        await press_to(pilot, "escape", screen=RecordSheetScreen)
    assert force_g(app) == SAMPLE_SHIPS


async def test_escape_cancels_even_after_a_clean_check(tmp_path: Path, home: Path) -> None:
    db = tmp_path / "campaign.db"
    source = tmp_path / "ships.csv"
    source.write_text(GOOD_SHIPS, encoding="utf-8")
    app = sample_app(db, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        before = rows(db)
        assert "rows are ready" in await check(pilot, dialog, f"~/{source.name}")
        sheet_screen = await press_to(pilot, "escape", screen=RecordSheetScreen)
        assert sheet_screen.query_one(DataTable).row_count == 3
        assert rows(db) == before
        # Opened again, the dialog starts over: its first ctrl+s is a check, not the import.
        dialog = await press_to(pilot, "I", screen=CsvImportScreen)
        assert "rows are ready" in await check(pilot, dialog, f"~/{source.name}")
        assert rows(db) == before
        await press_to(pilot, "escape", screen=RecordSheetScreen)
    assert force_g(app) == SAMPLE_SHIPS


async def test_another_path_after_a_clean_check_is_checked_first(
    tmp_path: Path, home: Path
) -> None:
    db = tmp_path / "campaign.db"
    good = tmp_path / "good.csv"
    good.write_text(GOOD_SHIPS, encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text(GOOD_SHIPS.replace("12,11", "12,0"), encoding="utf-8")
    app = sample_app(db, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        before = rows(db)
        assert "rows are ready" in await check(pilot, dialog, f"~/{good.name}")
        assert (await check(pilot, dialog, f"~/{bad.name}")).startswith(
            "1 problem; nothing was written:\n  rows 2-3 (2 rows), flotation_max: "
        )
        assert app.screen is dialog
        assert rows(db) == before


async def test_no_path_a_missing_file_and_files_that_are_not_csv_say_so(
    tmp_path: Path, home: Path
) -> None:
    db = tmp_path / "campaign.db"
    files = {
        "latin1.csv": ("name,structure_max,flotation_max\nÉmile Bertin,9,8\n".encode("latin-1"),
                       "1 of 1 rows are ready (CSV, cp1252 (Windows; the file is not UTF-8), "
                       "comma-separated)."),
        "utf16.csv": (GOOD_SHIPS.encode("utf-16"),
                      "2 of 2 rows are ready (CSV, UTF-16, comma-separated)."),
        "utf16le.csv": (GOOD_SHIPS.encode("utf-16-le"), "utf16le.csv: holds NUL bytes: "),
        "empty.csv": (b"", "empty.csv: is empty: the first line names the columns"),
        "quote.csv": (b'name\n"Hood\n', "quote.csv: line 2 is not CSV: unexpected end of data"),
    }  # fmt: skip
    for name, (content, _) in files.items():
        (tmp_path / name).write_bytes(content)
    app = sample_app(db, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "enter")
        before = rows(db)
        assert await check(pilot, dialog) == "Pick a .csv file first."  # nothing typed yet
        assert await check(pilot, dialog, "~/missing.csv") == (
            f"Cannot read {tmp_path / 'missing.csv'}: No such file or directory"
        )
        for name, (_, message) in files.items():
            assert (await check(pilot, dialog, f"~/{name}")).startswith(message), name
            assert app.screen is dialog
        assert rows(db) == before


# --- the roster: units; the ledger: counters -----------------------------------------------------


async def test_units_are_imported_into_the_roster(tmp_path: Path, home: Path) -> None:
    source = tmp_path / "units.csv"
    source.write_text(
        "name,unit_type,points,attack_main,attack_anti_air,abilities\n"
        "Exeter,cruiser,20,4 4 3 -,2 - - -,Radar\n"
        "Ajax,cruiser,16,3 3 2 -,,Radar; Night Fighting\n",
        encoding="utf-8",
    )
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "f")  # the roster of the side under the cursor
        assert (
            await check(pilot, dialog, f"~/{source.name}")
            == "2 of 2 rows are ready (CSV, UTF-8, comma-separated). ctrl+s again imports them all."
        )
        roster_screen = await press_to(pilot, "ctrl+s", screen=RosterScreen)
        assert roster_screen.view is not None
        assert [unit.name for unit in roster_screen.view.units] == ["Exeter", "Ajax"]
        side_id = roster_screen.side_id
    units = roster.roster(app.factory, side_id=side_id).units
    assert units[0].attacks == {"main": [4, 4, 3, None], "anti_air": [2, None, None, None]}
    assert units[1].abilities == ("Radar", "Night Fighting")


async def test_counters_are_imported_from_the_ledger_by_ship_name(
    tmp_path: Path, home: Path
) -> None:
    db = tmp_path / "campaign.db"
    source = tmp_path / "counters.csv"
    source.write_text(
        "ship,counter_size,speed_rating,torpedo_factors,fuel_full\n"
        "EXETER,long,3,2,6\n"
        "admiral graf spee,long,2,2,9\n"
        "Bismarck,long,2,0,9\n",  # not in the campaign
        encoding="utf-8",
    )
    app = sample_app(db, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot, "m")
        await type_path(pilot, f"~/{source.name}")
        before = rows(db)
        assert await check(pilot, dialog) == (
            "1 problem; nothing was written:\n"
            "  row 4, ship: no ship named 'Bismarck' in this campaign\n"
        )
        assert rows(db) == before
        source.write_text("\n".join(source.read_text().splitlines()[:3]) + "\n")
        assert (await check(pilot, dialog)).startswith(
            "2 of 2 rows are ready (CSV, UTF-8, comma-separated)."
        )
        await press_to(pilot, "ctrl+s", screen=LedgerScreen)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute(
            "SELECT name, counter_size, speed_rating, torpedo_factors, fuel_full FROM ship "
            "WHERE counter_size != '' ORDER BY name"
        ).fetchall() == [("Admiral Graf Spee", "long", 2, 2, 9), ("Exeter", "long", 3, 2, 6)]
    finally:
        conn.close()
