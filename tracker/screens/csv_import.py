"""Pick a CSV file, see every problem in it (a dry run), then import all of its rows or none."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Input, Label, Static

from tracker.rules.words import plural
from tracker.screens import calls
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.services import csv_import, printing
from tracker.services.csv_import import Report
from tracker.services.text_files import read_file
from tracker.widgets.tones import ALERT, GOOD_STRONG, toned

STILL_WORKING = (
    "Still working on the file: all of its rows are written or none; its report comes when "
    "it is done."
)
Runner = Callable[[bytes, bool], Call[Report]]


class CsvTree(DirectoryTree):
    """Folders and the files an import reads: a spreadsheet's CSV, or its "Unicode text"
    (.txt, tab-separated UTF-16), which every CSV import reads alike."""

    SUFFIXES: tuple[str, ...] = (".csv", ".txt")

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [path for path in paths if path.is_dir() or path.suffix.lower() in self.SUFFIXES]


def report_text(report: Report) -> Text:
    text = Text()
    if report.problems:
        text.append(f"{plural(len(report.problems), 'problem')}; "
                    "nothing was written:\n", style=ALERT)  # fmt: skip
        text.append("".join(f"  {line}\n" for line in report.problems))
    elif report.dry_run:
        text.append(
            f"{report.valid} of {report.rows} rows are ready ({report.source}). ", style=GOOD_STRONG
        )
        text.append("ctrl+s again imports them all.")
    else:
        text.append(f"Imported {report.written} rows.", style=GOOD_STRONG)
    return text


class FileDialog(ModalScreen[Any]):
    """A file picked in the tree (or its path typed), checked by a dry run, then read in: what
    the CSV and the library imports share. `PATH` is the id of its path's field."""

    PATH = ""

    def __init__(self) -> None:
        super().__init__()
        self.checked: Path | None = None  # the file whose dry run came back clean

    @on(DirectoryTree.FileSelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        self.query_one(self.PATH, Input).value = str(event.path)
        self.query_one(self.PATH, Input).focus()

    @on(Input.Changed)
    def _changed(self) -> None:
        self.checked = None

    def typed_path(self) -> Path | None:
        typed = self.query_one(self.PATH, Input).value.strip()
        return Path(typed).expanduser() if typed else None


class CsvImportScreen(FileDialog):
    """enter on a file (or type its path); ctrl+s checks it, and once clean, imports it."""

    # A long report scrolls in its own box (tab to it) rather than pushing the last problems,
    # and the file tree, off the screen.
    DEFAULT_CSS = """
    CsvImportScreen #csv-tree { height: 1fr; min-height: 5; }
    CsvImportScreen #csv-report-box { height: auto; max-height: 50%; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "check_or_import", "Check, then import"),
    ]
    PATH = "#csv-path"

    def __init__(self, title: str, columns: str, start: Path, run: Runner) -> None:
        super().__init__()
        self.heading = title
        self.columns = columns
        self.start = start
        self.run = run

    def compose(self) -> ComposeResult:
        with Vertical(id="csv-dialog"):
            yield Label(self.heading, id="csv-title", markup=False)
            yield Static(f"Columns: {self.columns}", classes="caption", markup=False)
            yield CsvTree(self.start, id="csv-tree")
            yield Input(placeholder="path of the .csv file", id="csv-path")
            yield Static("enter on a file picks it · ctrl+s checks it, then imports it · "
                         "escape cancels", classes="caption")  # fmt: skip
            with VerticalScroll(id="csv-report-box"):
                yield Static("", id="csv-report", markup=False)

    def action_check_or_import(self) -> None:
        path = self.typed_path()
        report_box = self.query_one("#csv-report", Static)
        if path is None:
            report_box.update(toned("Pick a .csv file first.", ALERT))
            return
        if calls.busy(self):
            # A second ctrl+s while the rows are written would import them twice.
            self.notify(STILL_WORKING, severity="warning")
            return
        dry_run = self.checked != path

        def unreadable(said: str) -> None:
            report_box.update(toned(f"Cannot read {path}: {said}", ALERT))

        def check(raw: bytes) -> None:
            calls.run(self, self.run(raw, dry_run),
                      then=lambda report: self._reported(path, dry_run, report),
                      refused=lambda error: self._refused(path, error),
                      busy=self.query_one("#csv-report-box"))  # fmt: skip

        calls.read_then(self, Call(read_file, path, limit=csv_import.MAX_BYTES), check, unreadable)

    def _refused(self, path: Path, error: Exception) -> None:
        said = calls.message(error, "; ")
        self.query_one("#csv-report", Static).update(toned(f"{path.name}: {said}", ALERT))

    def _reported(self, path: Path, dry_run: bool, report: Report) -> None:
        self.query_one("#csv-report", Static).update(report_text(report))
        if dry_run:
            self.checked = path if report.ok and report.valid else None
        elif report.ok:
            self.dismiss(report)

    def action_cancel(self) -> None:
        if calls.busy(self):
            # The rows are written all or none: closing now would hide which it was.
            self.notify(STILL_WORKING, severity="warning")
            return
        self.dismiss(None)


TITLES = {
    "ships": "Import ships into this squadron",
    "units": "Import War at Sea units into this roster",
    "counters": "Import Second World War at Sea counters",
}


def open_csv_import(screen: TrackerScreen, kind: str, target_id: int) -> None:
    """Push the CSV import for `kind` (see services.csv_import) into `target_id`; the screen
    reloads once rows are written."""

    def run(raw: bytes, dry_run: bool) -> Call[Report]:
        return Call(csv_import.import_csv, screen.factory, kind=kind, raw=raw,
                    target_id=target_id, dry_run=dry_run)  # fmt: skip

    screen.app.push_screen(
        CsvImportScreen(
            TITLES[kind],
            csv_import.column_names(kind),
            printing.campaign_folder(screen.factory),
            run,
        ),
        lambda report: screen.reload() if report else None,
    )
