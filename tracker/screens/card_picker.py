"""Build a War at Sea fleet from the library's cards: search as you type, enter picks a card.

Each pick adds a unit at once (services.building.add_units: the card's values copied, the
unit's own state from then on, one journal entry), and the heading shows the fleet's points and
what is left of its budget, read back after each pick. A card that costs more than is left is
refused before anything is asked of the database, and the service refuses it again should
another player have spent the points meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable, Input, Static

from tracker.screens import calls
from tracker.screens.calls import Call
from tracker.screens.confirm import confirm
from tracker.screens.picker import PickerScreen
from tracker.services import building, library
from tracker.services.building import Budget
from tracker.services.library import UnitCardRead
from tracker.widgets.tones import ALERT, GOOD_STRONG, toned

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory


# The orders the table can show, ctrl+o going from one to the next.
SORTS = ("name", "points", "type")
SORT_KEYS: dict[str, Callable[[UnitCardRead], Any]] = {
    "name": lambda card: (card.nation.casefold(), card.name.casefold()),
    "points": lambda card: (-card.points, card.name.casefold()),
    "type": lambda card: (str(card.unit_type), card.name.casefold()),
}


def free_name(name: str, taken: Collection[str]) -> str:
    """The card's name for a new unit, or `Name (2)`, `Name (3)`... when the fleet has it."""
    folded = {each.casefold() for each in taken}
    candidate, number = name, 1
    while candidate.casefold() in folded:
        number += 1
        candidate = f"{name} ({number})"
    return candidate


class CardPickerScreen(PickerScreen):
    """The library's cards; enter adds the highlighted one to the side's fleet as a unit.
    Dismissed with the number of units added."""

    COLUMNS = (("Card", 17), ("Nation", 9), ("Type", 14), ("Year", 4), ("Pts", 3), ("Spd", 3),
               ("A/VA/HP", 8))  # fmt: skip
    WHAT = "cards"
    EMPTY = "The library has no cards yet."
    BINDINGS = [
        Binding("ctrl+n", "all_nations", "All nations", tooltip="The cards of every nation, or "
                "of the side's nation again"),
        Binding("ctrl+o", "sort", "Sort", tooltip="Sort by name, points (most first), type"),
    ]  # fmt: skip

    def __init__(
        self, factory: SessionFactory, side_id: int, side_name: str, names: Collection[str],
        *, nation: str = "",
    ) -> None:  # fmt: skip
        super().__init__(factory, f"Build {side_name}'s fleet from cards")
        self.nation = nation.casefold()  # the side's: its cards first, ctrl+n shows all
        self.every_nation = not self.nation
        self.sort_by = SORTS[0]
        self.side_id = side_id
        self.taken = set(names)  # the fleet's unit names, and those of the picks on their way
        self.budget: Budget | None = None
        self.pending = 0  # the points of the picks asked for and not back yet
        self.added = 0

    def on_mount(self) -> None:
        # Textual runs PickerScreen's on_mount too (a handler of each class): not called here.
        self._read_budget()

    def entries_call(self) -> Call[Sequence[Any]]:
        return Call(library.cards, self.factory)

    def row(self, entry: UnitCardRead) -> list[Any]:
        return [
            Text(entry.name, style="bold", overflow="ellipsis", no_wrap=True), entry.nation,
            str(entry.unit_type), "" if entry.year is None else str(entry.year),
            str(entry.points), entry.speed,
            f"{entry.armor}/{entry.vital_armor}/{entry.hull_points}",
        ]  # fmt: skip

    def searched(self, entry: UnitCardRead) -> tuple[object, ...]:
        return entry.name, entry.nation, entry.unit_type, entry.year

    def kept(self, entry: UnitCardRead) -> bool:
        return self.every_nation or entry.nation.casefold() == self.nation

    def ordered(self, entries: list[UnitCardRead]) -> list[UnitCardRead]:
        return sorted(entries, key=SORT_KEYS[self.sort_by])

    def show_heading(self) -> None:
        self._budget_heading()
        nations = "every nation" if self.every_nation else "the side's nation (ctrl+n: all)"
        table = self.query_one("#picker-rows", DataTable)
        table.border_subtitle = f"{nations} · by {self.sort_by} (ctrl+o)"

    def action_all_nations(self) -> None:
        if self.nation:
            self.every_nation = not self.every_nation
            self._searched()

    def action_sort(self) -> None:
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self._searched()  # the list afresh, the cursor on its first card

    def _read_budget(self) -> None:
        calls.run(self, Call(building.budget, self.factory, side_id=self.side_id),
                  then=self._budget)  # fmt: skip

    def _budget(self, budget: Budget) -> None:
        self.budget = budget
        self.show_heading()

    @property
    def left(self) -> int | None:
        return None if self.budget is None else self.budget.left - self.pending

    def _budget_heading(self) -> None:
        if self.budget is None:
            return
        left = self.left or 0
        text = Text()
        text.append(f"Fleet: {self.budget.budget - left} of {self.budget.budget} points, ")
        text.append(f"{left} left", style=ALERT if left < 0 else GOOD_STRONG)
        card = self.highlighted()
        if card is not None:
            after = left - card.points
            text.append(f"   {card.name}: {card.points} points, ")
            text.append(f"{after} would be left" if after >= 0 else f"{-after} over the budget",
                        style="" if after >= 0 else ALERT)  # fmt: skip
        self.query_one("#picker-heading", Static).update(text)

    def picked(self, entry: UnitCardRead) -> None:
        left = self.left
        if left is not None and entry.points > left:
            self.say(toned(f"{entry.name} costs {entry.points} points and {left} are left of the "
                           f"fleet's {self.budget.budget if self.budget else '?'}: pick a "
                           "cheaper card, or delete a unit on the roster.", ALERT))  # fmt: skip
            return
        if entry.name.casefold() in {name.casefold() for name in self.taken}:
            copy = free_name(entry.name, self.taken)  # a second copy is asked for, never slipped in
            confirm(self, f"The fleet has {entry.name} already: add {copy} too?",
                    lambda: self._pick(entry), yes="Add")  # fmt: skip
            return
        self._pick(entry)

    def _pick(self, entry: UnitCardRead) -> None:
        name = free_name(entry.name, self.taken)
        self.taken.add(name)
        self.pending += entry.points
        calls.run(
            self,
            Call(building.add_units, self.factory, side_id=self.side_id, picks=[(entry.id, name)]),
            then=lambda _ids: self._added(entry, name),
            refused=lambda error: self._refused(entry, name, error),
        )
        self.show_heading()

    def _added(self, card: UnitCardRead, name: str) -> None:
        self.pending -= card.points
        self.added += 1
        self.query_one("#picker-search", Input).value = ""  # the next card is searched afresh
        self.say(toned(f"Added {name} ({card.points} points).", GOOD_STRONG))
        self._read_budget()

    def _refused(self, card: UnitCardRead, name: str, error: Exception) -> None:
        self.pending -= card.points
        self.taken.discard(name)
        self.say(toned(f"Not added: {calls.message(error)}", ALERT))
        self._read_budget()

    def action_close(self) -> None:
        self.dismiss(self.added)
