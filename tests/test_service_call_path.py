"""Every service call a screen makes goes through the one path (tracker/screens/calls.py), so a
new screen or key that calls a service on the UI thread, outside the path's outcome handler,
fails here.

The scan reads the source (ast), not the running program: in tracker/screens/**,
tracker/widgets/** and the app (tracker/app.py), a call of a
function that a tracker.services module defines (`fleet.create_ship(...)`, or a name imported from
one) is refused; handing the function to the path (`Call(fleet.create_ship, ...)`) is the way.
A printed page's functions (tracker.publish) read through the services: the same holds for them.
Classes from services (read models, requests, errors) may be built anywhere.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from typing import Any

PACKAGES = ("tracker.services", "tracker.publish")
TRACKER = Path(__file__).resolve().parents[1] / "tracker"
# Where the player's keys run: every service call from here goes through the path. (The change
# watch, tracker/watch.py, reads in a worker of its own.)
SCANNED = [*(TRACKER / "screens").rglob("*.py"), *(TRACKER / "widgets").rglob("*.py"),
           TRACKER / "app.py"]  # fmt: skip

# Service functions a screen may call itself, each pure (no database, no file): and why.
PURE = {
    "tracker.services.errors.bad_name_character": "checks typed text, character by character",
    "tracker.services.errors.character_problem": "says what is wrong with a typed character",
    "tracker.services.csv_import.column_names": "the CSV columns of a kind, from a table",
    "tracker.services.library.column_names": "the library's CSV columns, from a table",
    "tracker.services.damage.describe": "words for a result already read",
    "tracker.services.sheet.crew_how": "words for a crew already read",
    "tracker.services.roster.unit_fields_from": "a form's values as the service's input",
    "tracker.services.roster.dice_text": "an attack row's dice as the card prints them",
    "tracker.services.printing.campaign_folder": "the engine's URL, no connection",
    "tracker.services.backups.database_key": "the engine's URL, no connection",
    "tracker.publish.sheet_pages.heading": "words for a sheet already read",
}


def _imported(tree: ast.Module) -> dict[str, Any]:
    """The names a screen's module binds to tracker.services modules or their functions."""
    bound: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGES):
            module = importlib.import_module(node.module or "")
            for alias in node.names:
                value = getattr(module, alias.name, None)
                if value is None:  # a submodule: from tracker.services import fleet
                    value = importlib.import_module(f"{node.module}.{alias.name}")
                bound[alias.asname or alias.name] = value
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGES) and alias.asname:
                    bound[alias.asname] = importlib.import_module(alias.name)
    return bound


def _service_function(func: ast.expr, bound: dict[str, Any]) -> str | None:
    """The dotted name of the tracker.services function a call's target is, or None."""
    if isinstance(func, ast.Name):
        target = bound.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        module = bound.get(func.value.id)
        target = getattr(module, func.attr, None) if inspect.ismodule(module) else None
    else:
        return None
    if not inspect.isfunction(target) or not target.__module__.startswith(PACKAGES):
        return None
    return f"{target.__module__}.{target.__qualname__}"


def direct_calls(source: str) -> list[tuple[int, str]]:
    """(line, service function) for each service function the source calls itself."""
    tree = ast.parse(source)
    bound = _imported(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _service_function(node.func, bound)
            if name is not None and name not in PURE:
                found.append((node.lineno, name))
    return sorted(found)


def _all_direct_calls() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(SCANNED):
        relative = path.relative_to(TRACKER).as_posix()
        for line, name in direct_calls(path.read_text(encoding="utf-8")):
            found.setdefault((relative, name), []).append(line)
    return found


def test_screens_call_services_only_through_the_path() -> None:
    outside = _all_direct_calls()
    assert not outside, (
        "a screen calls a service itself, on the UI thread: hand it to the path instead, "
        "self.call(Call(service, ...), then=...) (tracker/screens/calls.py):\n"
        + "\n".join(f"  {file}:{lines} {name}" for (file, name), lines in sorted(outside.items()))
    )


def test_the_pure_exceptions_are_still_services() -> None:
    for dotted in PURE:
        module, _, name = dotted.rpartition(".")
        assert inspect.isfunction(getattr(importlib.import_module(module), name)), dotted


SAMPLE = """
from tracker.services import fleet
from tracker.services.fleet import create_ship as adding
from tracker.services.views import ShipView
from tracker.screens.calls import Call

class S:
    def whatever_name(self):
        fleet.create_ship(self.factory, name="x")
    def on_key(self):
        adding(self.factory)
    def fine(self):
        self.call(Call(fleet.create_ship, self.factory, name="x"))
        ShipView
"""


def test_the_scan_sees_direct_calls_by_module_and_by_name_in_any_method() -> None:
    assert direct_calls(SAMPLE) == [
        (9, "tracker.services.fleet.create_ship"),
        (11, "tracker.services.fleet.create_ship"),
    ]


def test_the_scan_sees_a_printed_page_made_outside_the_path() -> None:
    # A page reads the campaign through the services: writing one is a call like theirs.
    source = (
        "from tracker.publish import sheet_pages\n"
        "from tracker.publish.report_pages import write_report\n"
        "sheet_pages.write_sheet(factory, squadron_id=1, path='x.html')\n"
        "write_report(factory, campaign_id=1, path='y.html')\n"
        "from tracker.services import sheet\n"
        "sheet.crew_how(crew)\n"
    )
    assert direct_calls(source) == [
        (3, "tracker.publish.sheet_pages.write_sheet"),
        (4, "tracker.publish.report_pages.write_report"),
    ]
