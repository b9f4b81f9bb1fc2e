"""The record sheet printed to a file: an HTML page for A4 or Letter paper, or Markdown."""

from __future__ import annotations

from typing import Any

from tracker.publish import sheet_pages
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec, writing
from tracker.services import printing
from tracker.services.views import RecordSheet
from tracker.services.visibility import Viewer

NOTE = "The squadron as it stands now, with boxes and lines for pencil."


def print_sheet(screen: TrackerScreen, sheet: RecordSheet) -> None:
    """Ask for the format, the paper and the file (the campaign's folder by default), then
    write the sheet; the umpire's view prints what the umpire sees, to a new file only."""

    def where(fmt: str) -> Call[Any]:
        return Call(printing.default_sheet_path, screen.factory, squadron_id=sheet.squadron_id,
                    fmt=fmt)  # fmt: skip

    def form(html: Any) -> None:
        screen.call(
            where("markdown"), then=lambda md: _print_form(screen, sheet, str(html), str(md))
        )

    screen.call(where("html"), then=form)


def _print_form(screen: TrackerScreen, sheet: RecordSheet, html_path: str, md_path: str) -> None:
    def target(values: dict[str, Any]) -> str:
        # The default follows the format; a path the player typed is kept as typed.
        path = str(values.get("path") or "").strip()
        return md_path if values.get("fmt") == "markdown" and path == html_path else path

    def write(values: dict[str, Any]) -> Call[Any]:
        return writing("this sheet", lambda replace: Call(
            sheet_pages.write_sheet,
            screen.factory, squadron_id=sheet.squadron_id, path=target(values),
            fmt=values["fmt"], paper=values["paper"], replace=replace, new_only=screen.read_only,
            viewer=Viewer.UMPIRE if screen.read_only else Viewer.OWNER,
        ))  # fmt: skip

    def done(written: object) -> None:
        # Nothing on the sheet changed; the path is shown as typed, brackets and all.
        if written is not None:
            screen.notify(f"Record sheet written to {written}", markup=False)

    def preview(values: dict[str, Any]) -> str:
        paper = {"a4": " for A4 paper", "letter": " for Letter paper"}.get(values["paper"], "")
        return f"Writes {target(values) or '(no file)'}" + (
            "" if values.get("fmt") == "markdown" else paper
        )

    fields = [
        FieldSpec("fmt", "Format", kind="select", value="html",
                  options=[("HTML page to print", "html"), ("Markdown", "markdown")]),
        FieldSpec("paper", "Paper", kind="select", value="a4",
                  options=[("A4", "a4"), ("Letter", "letter")]),
        FieldSpec("path", "File", value=html_path),
    ]  # fmt: skip
    screen.open_form(f"Print {sheet.squadron_name}", fields, write, note=NOTE, preview=preview,
                     read_only_ok=True, done=done)  # fmt: skip
