"""Build a War at Sea fleet from the library's cards: search as you type, enter picks a card.

Each pick adds a unit at once (services.building.add_units: the card's values copied, the
unit's own state from then on, one journal entry), and the heading shows the fleet's points and
what is left of its budget, read back after each pick. A card that costs more than is left is
refused before anything is asked of the database, and the service refuses it again should
another player have spent the points meanwhile.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from tracker.screens import calls
from tracker.screens.calls import Call
from tracker.screens.picker import PickerScreen
from tracker.services import building, library
from tracker.services.building import Budget
from tracker.services.library import UnitCardRead
from tracker.widgets.tones import ALERT, GOOD_STRONG, toned

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory


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

    Dismissed with the number of units added.
    """

    COLUMNS = (("Card", 20), ("Nation", 10), ("Type", 10), ("Year", 4), ("Pts", 3), ("Spd", 3),
               ("A/VA/HP", 8))  # fmt: skip
    WHAT = "cards"
    EMPTY = "The library has no cards yet."

    def __init__(
        self, factory: SessionFactory, side_id: int, side_name: str, names: Collection[str]
    ) -> None:
        super().__init__(factory, f"Build {side_name}'s fleet from cards")
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

    def _read_budget(self) -> None:
        calls.run(self, Call(building.budget, self.factory, side_id=self.side_id),
                  then=self._budget)  # fmt: skip

    def _budget(self, budget: Budget) -> None:
        self.budget = budget
        self.show_heading()

    @property
    def left(self) -> int | None:
        """What is left of the budget once the picks on their way are added."""
        return None if self.budget is None else self.budget.left - self.pending

    def show_heading(self) -> None:
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
        self.say(toned(f"Added {name} ({card.points} points).", GOOD_STRONG))
        self._read_budget()

    def _refused(self, card: UnitCardRead, name: str, error: Exception) -> None:
        self.pending -= card.points
        self.taken.discard(name)
        self.say(toned(f"Not added: {calls.message(error)}", ALERT))
        self._read_budget()

    def action_close(self) -> None:
        self.dismiss(self.added)
