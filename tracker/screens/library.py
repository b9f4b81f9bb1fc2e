"""The library of the campaign file: its SMR2 ship classes and War at Sea unit cards, searched.

Both tables filter as the player types (/) and sort by any column (o); enter opens an entry
whole; e writes the library to a file. Read only: entries come in by import (`tracker library
import`) and are picked into a fleet or a squadron from the roster and the record sheet.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.card_detail import CardDetailScreen, attacks_line
from tracker.screens.form import FieldSpec, writing
from tracker.services import library, library_export, printing
from tracker.services.library import ShipClassRead, UnitCardRead
from tracker.widgets.search_table import SEARCH_KEYS, SearchTable
from tracker.widgets.tables import fit_columns

CARD_COLUMNS = (("Unit", 20), ("Nation", 9), ("Type", 10), ("Year", 4), ("Pts", 3),
                ("A/VA/HP", 8), ("Spd", 3), ("Attacks (r0 r1 r2 r3)", 24),
                ("Abilities", 13))  # fmt: skip
# When the columns do not all fit, they give way in this order, their text wrapping.
CARD_GIVE = (("Abilities", 12), ("Attacks (r0 r1 r2 r3)", 16), ("Unit", 14), ("Type", 8),
             ("Abilities", 9), ("Attacks (r0 r1 r2 r3)", 12), ("Unit", 10))  # fmt: skip
CARD_WRAP = ("Unit", "Type", "Attacks (r0 r1 r2 r3)", "Abilities")
CLASS_GIVE = (("Batteries", 16), ("Class", 14), ("Nation", 8), ("Batteries", 10))
CLASS_COLUMNS = (("Class", 22), ("Type", 4), ("Nation", 10), ("Size", 4), ("Kn", 3),
                 ("Armour", 6), ("Str", 3), ("Flot", 4), ("Pts", 4), ("Batteries", 30))  # fmt: skip


def _cut(text: str) -> Text:
    return Text(" · ".join(line for line in text.splitlines() if line.strip()),
                overflow="ellipsis", no_wrap=True)  # fmt: skip


def card_row(card: UnitCardRead) -> list[Any]:
    """A card's row: what tells cards apart at a glance, its dice as the card prints them."""
    dice = attacks_line(json.loads(card.attacks or "{}"), card.air_to_air)
    abilities = [ability["name"] for ability in json.loads(card.abilities or "[]")]
    return [
        Text(card.name, style="bold"), card.nation, str(card.unit_type),
        "" if card.year is None else card.year, card.points,
        f"{card.armor}/{card.vital_armor}/{card.hull_points}", card.speed,
        _cut(dice), _cut("\n".join(abilities)),
    ]  # fmt: skip


def class_row(ship_class: ShipClassRead) -> list[Any]:
    c = ship_class
    return [Text(c.name, style="bold"), c.type_abbrev, c.nation, f"{c.size_modifier:+d}",
            c.speed_kn, c.armour_class, c.structure, c.flotation, c.points,
            _cut(c.batteries)]  # fmt: skip


class LibraryScreen(TrackerScreen):
    """Unit cards above, ship classes below; it opens on the cards, tab moves between them,
    enter opens an entry."""

    HELP_EXTRA = [("enter", "Open the card or class under the cursor: every field"), *SEARCH_KEYS]
    EXPORT_NOTE = ("The library as `tracker library export` writes it, and as the import reads "
                   "it back: .json holds it all, .csv the kind chosen.")  # fmt: skip
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the campaign"),
        Binding("tab", "app.focus_next", "Table", tooltip="Switch between classes and cards"),
        Binding("e", "export", "Export",
                tooltip="Write the library to a .csv (cards or classes) or .json (all) file"),
    ]  # fmt: skip
    # Focused as the screen opens, before any key: a focus() in on_mount lands later, after
    # Textual has focused the first table, so a key pressed at once could go to either.
    AUTO_FOCUS = "#card-table"

    def __init__(self) -> None:
        super().__init__()
        # Each table's entries by their row's key: "card-table", "class-table".
        self.entries: dict[str, dict[str, UnitCardRead | ShipClassRead]] = {}

    def body(self) -> ComposeResult:
        yield Static("", id="library-heading", markup=False)
        yield SearchTable(
            id="card-table", title="War at Sea unit cards", zebra_stripes=True, classes="keys-here"
        )
        yield SearchTable(
            id="class-table", title="SMR2 ship classes", zebra_stripes=True, classes="keys-here"
        )

    def on_mount(self) -> None:
        self.title = "Library"
        classes = self.query_one("#class-table", SearchTable).add_sized_columns(CLASS_COLUMNS)
        fit_columns(classes, CLASS_GIVE, wrap=("Class", "Nation", "Batteries"))
        cards = self.query_one("#card-table", SearchTable).add_sized_columns(CARD_COLUMNS)
        fit_columns(cards, CARD_GIVE, wrap=CARD_WRAP)

    def reload(self) -> None:
        self.load(
            Call(library.classes, self.factory), partial(self._show, "class-table", class_row)
        )
        self.load(Call(library.cards, self.factory), partial(self._show, "card-table", card_row))

    def _show(self, table: str, row: Callable[[Any], list[Any]], entries: Sequence[Any]) -> None:
        shown = self.entries[table] = {str(entry.id): entry for entry in entries}
        self.query_one(f"#{table}", SearchTable).show((key, row(e)) for key, e in shown.items())
        self._heading()

    def _heading(self) -> None:
        classes, cards = (
            len(self.entries.get(table, ())) for table in ("class-table", "card-table")
        )
        heading = Text()
        heading.append(f"{classes} ship classes, {cards} unit cards", style="bold")
        heading.append(
            "   / filters, o sorts by the column under the cursor, enter opens, e exports"
        )
        if not classes and not cards:
            heading.append("\nThe library is empty: tracker library import FILE adds entries.")
        self.query_one("#library-heading", Static).update(heading)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        entry = self.entries.get(event.data_table.id or "", {}).get(str(event.row_key.value))
        if entry is not None:
            self.app.push_screen(CardDetailScreen(entry))

    def action_export(self) -> None:
        """Ask for a file and write the library to it, as `tracker library export` does."""
        self.call(Call(printing.campaign_folder, self.factory), then=self._export_form)

    def _export_form(self, folder: Path) -> None:
        def write(values: dict[str, Any]) -> Call[Any]:
            return writing("the library", lambda replace: Call(
                library_export.write_export, self.factory, path=values["path"],
                classes=values["kind"] == "classes", replace=replace))  # fmt: skip

        def preview(values: dict[str, Any]) -> str:
            suffix = Path(str(values.get("path") or "").strip()).suffix.lower()
            if suffix == ".json":
                return "Writes the whole library, cards and classes, as JSON"
            if suffix == ".csv":
                kind = "ship classes" if values.get("kind") == "classes" else "unit cards"
                return f"Writes the {kind} as CSV (UTF-8, commas)"
            return "The file name ends with .csv or .json"

        def done(written: library_export.Exported | None) -> None:
            if written is not None:  # the path as typed, brackets and all
                self.notify(written.summary().capitalize(), title="Library export",
                            markup=False)  # fmt: skip

        fields = [
            FieldSpec("path", "File", value=str(folder / "library.json")),
            FieldSpec("kind", "CSV holds", kind="select", value="cards",
                      options=[("Unit cards", "cards"), ("Ship classes", "classes")]),
        ]  # fmt: skip
        self.open_form(
            "Export the library", fields, write, done=done, note=self.EXPORT_NOTE, preview=preview
        )
