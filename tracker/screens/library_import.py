"""Read a card or class list into the library: a dry run first, its report, then the import.

The work runs in a thread worker (the one call path, screens.calls), so the keys keep
answering: the progress bar follows the rows checked, escape stops the work with nothing
written, and ctrl+b closes the dialog while the import goes on, a notification saying how it
ended. The call is queued on the screen the dialog was opened from, which stays in the app's
stack, so its outcome is heard even once the dialog is gone.
"""

from __future__ import annotations

import threading
from contextlib import suppress
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Label, ProgressBar, Static

from tracker.screens import calls
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.csv_import import CsvTree, FileDialog
from tracker.services import library, printing
from tracker.services.library import LibraryReport
from tracker.services.text_files import read_file
from tracker.widgets.tones import ALERT, CAUTION, GOOD_STRONG, toned

KEYS = ("enter on a file picks it · ctrl+s checks it (a dry run), then imports it · escape "
        "stops the work, or closes · ctrl+b closes and lets the import go on")  # fmt: skip


class LibraryTree(CsvTree):
    SUFFIXES = (*CsvTree.SUFFIXES, ".json")  # the files a library is read from


def report_text(report: LibraryReport) -> Text:
    """The report as the player reads it: what it does, then every problem and warning, then
    the entries it changes and adds."""
    text = Text()
    text.append(report.summary(), style=ALERT if report.problems else GOOD_STRONG)
    text.append(" ctrl+s again imports it.\n" if report.dry_run and not report.problems else "\n")
    listed = [("Problems:", report.problems, ALERT), ("Warnings:", report.warnings, CAUTION)]
    for outcome in report.outcomes:
        kind = outcome.kind.capitalize()
        listed += [
            (f"{kind} {title} ({len(names)}):", names, "bold") for title, names in outcome.listed()
        ]
    for heading, lines, tone in listed:
        if lines:
            text.append(f"{heading}\n", style=tone)
            text.append("".join(f"  {line}\n" for line in lines))
    return text


class LibraryImportScreen(FileDialog):
    """Pick a file; ctrl+s checks it, ctrl+s again imports it; escape stops the work."""

    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop or close"),
        Binding("ctrl+s", "check_or_import", "Check, then import"),
        Binding("ctrl+b", "background", "Close, import on"),
    ]
    PATH = "#library-path"

    def __init__(self, opener: TrackerScreen) -> None:
        super().__init__()
        self.opener = opener
        self.stop = threading.Event()  # set: the running work stops, writing nothing
        self.running = False
        self.hidden = False  # closed while the import goes on

    def compose(self) -> ComposeResult:
        with Vertical(id="library-import-dialog"):
            yield Label("Import cards or classes into the library", id="library-import-title")
            yield Static(f"Cards: {library.column_names('cards')}\nClasses: "
                         f"{library.column_names('classes')}", classes="caption",
                         markup=False)  # fmt: skip
            yield LibraryTree(printing.campaign_folder(self.opener.factory), id="library-tree")
            yield Input(placeholder="path of the .csv or .json file", id="library-path")
            yield Static(KEYS, classes="caption", markup=False)
            yield ProgressBar(id="library-progress", show_eta=False)
            with VerticalScroll(id="library-report-box"):
                yield Static("", id="library-report", markup=False)

    def on_mount(self) -> None:
        self.query_one("#library-progress").display = False
        # No report yet: its box takes no focus, so tab and shift+tab go from the path to the
        # files and back, never to a box that shows nothing.
        self.query_one("#library-report-box").can_focus = False
        self.query_one("#library-path", Input).focus()  # type the path, or tab to the files

    def _say(self, text: Text) -> None:
        self.query_one("#library-report", Static).update(text)
        self.query_one("#library-report-box").can_focus = bool(text.plain.strip())

    def action_check_or_import(self) -> None:
        path = self.typed_path()
        if path is None:
            self._say(toned("Pick a .csv or .json file first.", ALERT))
            return
        if self.running:
            self.notify("Still working on the file: escape stops it.", severity="warning")
            return
        read = Call(read_file, path, limit=library.MAX_BYTES, too_large=library.too_large)
        calls.read_then(self.opener, read, lambda raw: self._import(path, raw),
                  lambda said: self._say(toned(f"Cannot read {path}: {said}", ALERT)))  # fmt: skip

    def _import(self, path: Path, raw: bytes) -> None:
        if not self.is_attached:  # escape while the file was read
            return
        dry_run = self.checked != path
        self.stop.clear()
        self.running = True
        bar = self.query_one("#library-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = True
        self._say(Text(f"{'Checking' if dry_run else 'Importing'} {path.name}..."))
        call = Call(library.import_library, self.opener.factory, raw=raw,
                    json_file=path.suffix.lower() == ".json", dry_run=dry_run,
                    progress=self._progress_from_worker, cancelled=self.stop.is_set)  # fmt: skip
        calls.run(self.opener, call, then=lambda report: self._reported(path, dry_run, report),
                  refused=lambda error: self._refused(path, error))  # fmt: skip

    def _progress_from_worker(self, done: int, total: int) -> None:
        """Called in the worker's thread: the bar is moved on the app's."""
        with suppress(RuntimeError):  # the app is closing: no one to show it to
            self.app.call_from_thread(self._progress, done, total)

    def _progress(self, done: int, total: int) -> None:
        if self.is_attached and not self.hidden:  # a hidden dialog's widgets are going
            self.query_one("#library-progress", ProgressBar).update(total=total, progress=done)

    def _ended(self) -> bool:
        """The work is over; whether the dialog is still there to show how it ended."""
        self.running = False
        if self.is_attached and not self.hidden:
            self.query_one("#library-progress").display = False
            return True
        return False

    def _reported(self, path: Path, dry_run: bool, report: LibraryReport) -> None:
        if not self._ended():
            self.app.notify(f"{path.name}: {report.summary()}", title="Library import",
                            severity="error" if report.problems else "information",
                            timeout=15)  # fmt: skip
            return
        self._say(report_text(report))
        if dry_run:
            self.checked = path if not report.problems and report.rows else None

    def _refused(self, path: Path, error: Exception) -> None:
        if not self._ended():
            self.app.notify(f"{path.name}: {calls.message(error)}", title="Library import",
                            severity="warning", timeout=15)  # fmt: skip
            return
        self._say(toned(f"{path.name}: {calls.message(error)}", ALERT))

    def action_stop_or_close(self) -> None:
        if self.running:
            self.stop.set()
            self._say(toned("Stopping: nothing will be written...", CAUTION))
            return
        self.dismiss(None)

    def action_background(self) -> None:
        if self.running:
            self.hidden = True
            self.app.notify("The import goes on: a notification will say how it ended.",
                            title="Library import")  # fmt: skip
        self.dismiss(None)
