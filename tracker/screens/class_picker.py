"""Build an SMR2 squadron from a ship class of the library: "3 x Leander", the names typed.

Enter on a class asks how many ships and their names; the ships are added to the squadron in
one transaction (services.building.add_ships), each an original member with the class's values
and its own state from then on (docs/RULES.md §SMR2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from tracker.rules.words import plural
from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec, FormScreen
from tracker.screens.picker import PickerScreen
from tracker.services import building, library
from tracker.services.errors import InvalidInput
from tracker.services.library import ShipClassRead

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory

MOST_SHIPS = 20  # one pick: a squadron's worth, not a navy's


def ship_names(typed: str) -> list[str]:
    return [name.strip() for name in typed.split(",") if name.strip()]


def count_fields(name: str) -> list[FieldSpec]:
    return [
        FieldSpec("count", "How many ships", kind="int", value=1, low=1, high=MOST_SHIPS),
        FieldSpec("names", "Their names, separated by commas",
                  placeholder=f"{name}, ..."),
    ]  # fmt: skip


def squadron_preview(entry: ShipClassRead, values: dict[str, Any]) -> str:
    """`3 x Leander: Leander, Achilles, Ajax`, or what is still to type."""
    count, names = values.get("count"), ship_names(values.get("names") or "")
    if not count:
        return f"How many ships of the {entry.name} class? (1..{MOST_SHIPS})"
    if len(names) != count:
        return f"{count} x {entry.name}: type {plural(count, 'name')}, {len(names)} typed"
    return f"{count} x {entry.name}: {', '.join(names)}"


class ClassPickerScreen(PickerScreen):
    """The library's ship classes; enter asks how many ships of it, and their names.
    Dismissed with the new ships' ids, or None."""

    COLUMNS = (("Class", 16), ("Type", 4), ("Nation", 9), ("Sz", 3), ("Kn", 3), ("Armour", 6),
               ("Str", 4), ("Flot", 4), ("Pts", 5))  # fmt: skip
    WHAT = "classes"
    SEARCHED = "class, type, nation"
    EMPTY = "The library has no ship classes yet."

    def __init__(self, factory: SessionFactory, squadron_id: int) -> None:
        super().__init__(factory, "Add ships to the squadron from a class")
        self.squadron_id = squadron_id

    def entries_call(self) -> Call[Sequence[Any]]:
        return Call(library.classes, self.factory)

    def row(self, entry: ShipClassRead) -> list[Any]:
        return [
            Text(entry.name, style="bold", overflow="ellipsis", no_wrap=True), entry.type_abbrev,
            entry.nation, f"{entry.size_modifier:+d}", str(entry.speed_kn), entry.armour_class,
            str(entry.structure), str(entry.flotation), str(entry.points),
        ]  # fmt: skip

    def searched(self, entry: ShipClassRead) -> tuple[object, ...]:
        return entry.name, entry.type_abbrev, entry.nation

    def picked(self, entry: ShipClassRead) -> None:
        def submit(values: dict[str, Any]) -> Call[tuple[int, ...]]:
            names = ship_names(values["names"])
            if len(names) != values["count"]:
                said = f"{plural(values['count'], 'ship')}, {plural(len(names), 'name')} typed"
                raise InvalidInput({"names": f"{said}: type one name for each, separated by "
                                    "commas"})  # fmt: skip
            return Call(building.add_ships, self.factory, squadron_id=self.squadron_id,
                        class_id=entry.id, names=names)  # fmt: skip

        def done(ids: tuple[int, ...] | None) -> None:
            if ids:
                self.dismiss(ids)

        form = FormScreen(
            f"Ships of the {entry.name} class ({entry.nation or 'no nation'})",
            count_fields(entry.name),
            submit,
            note=f"Each ship starts with the class's values: Structure {entry.structure}, "
            f"Flotation {entry.flotation}, {entry.points} points, and its batteries (a line "
            "not like '4 x 6in turret' goes to its notes), and keeps its own state: a later "
            "change to the class is never applied to it by itself.",
            preview=lambda values: squadron_preview(entry, values),
        )
        self.app.push_screen(form, done)
