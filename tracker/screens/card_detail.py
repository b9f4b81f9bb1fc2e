"""A library entry opened from the library (a War at Sea unit card or an SMR2 ship class), or a
unit opened from the roster, whole.

Every field the entry declares, with its label; a card's attack dice as the card prints them
(main, secondary, tertiary, AA, ASW, torpedo, bombs: docs/RULES.md §Subs) and its abilities,
each with its text, line breaks kept. A unit keeps only its abilities' names: their text is
read from the library card it was built from (services.building.unit_abilities).
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.services import building
from tracker.services.building import Ability
from tracker.services.fields import rules
from tracker.services.library import ShipClassRead, UnitCardRead
from tracker.services.roster import ATTACK_LABELS, UnitView, dice_text

# Shown elsewhere on the view (dice, abilities; a unit's damage says crippled or destroyed) or
# not the player's (the row's id and version).
NOT_LISTED = frozenset({"id", "version", "attacks", "abilities", "crippled", "destroyed"})
Entry = UnitCardRead | ShipClassRead | UnitView
RANGES = ("r0", "r1", "r2", "r3")
# Short names of the attack rows for a table cell; the card's order is ATTACK_LABELS'.
SHORT = {"main": "Main", "secondary": "Sec", "tertiary": "Ter", "anti_air": "AA",
         "asw": "ASW", "torpedo": "Torp", "bomb": "Bomb"}  # fmt: skip


def fields_text(entry: Entry) -> Text:
    """Each declared field as `Label  value`, a blank shown in the declaration's words."""
    text = Text()
    shown = [rule for rule in rules(type(entry)) if rule.key not in NOT_LISTED]
    width = max(len(rule.label) for rule in shown)
    for rule in shown:
        value = getattr(entry, rule.key)
        text.append(f"{rule.label:<{width}}  ", style="bold")
        if value is None or value == "":
            text.append(rule.blank or "-", style="dim")
        else:  # each line of the value under the first
            text.append(("\n" + " " * (width + 2)).join(str(value).splitlines()))
        text.append("\n")
    text.rstrip()
    return text


def attacks_line(attacks: dict[str, list[int | None]], air_to_air: int | None = None) -> str:
    """A card's attack rows on one line, in the card's order, an aircraft's air-to-air dice
    first: `Air 2, Bomb - 3 - -`, `Main 3 2 1 -, ASW 4 - - -`."""
    rows = [f"{SHORT[row]} {dice_text(attacks[row])}" for row in ATTACK_LABELS if attacks.get(row)]
    return ", ".join(([] if air_to_air is None else [f"Air {air_to_air}"]) + rows)


def type_text(entry: UnitCardRead | UnitView) -> str:
    """A card's type with what only some cards print: `carrier, flagship 1, planes 4`."""
    parts = [str(entry.unit_type)]
    if entry.flagship is not None:
        parts.append(f"flagship {entry.flagship}")
    if entry.plane_capacity is not None:
        parts.append(f"planes {entry.plane_capacity}")
    return ", ".join(parts)


def attacks_text(attacks: dict[str, list[int | None]]) -> Text:
    """The attack dice by range, one row per weapon in the card's order; "-" where it has none."""
    text = Text()
    rows = [row for row in ATTACK_LABELS if attacks.get(row)]
    if not rows:
        return Text("No attacks", style="dim")
    width = max(len(ATTACK_LABELS[row]) for row in rows)
    text.append(f"{'Attack':<{width}}  " + "  ".join(f"{r:>2}" for r in RANGES), style="bold")
    for row in rows:
        dice = list(attacks[row]) + [None] * (len(RANGES) - len(attacks[row]))
        cells = "  ".join(f"{'-' if d is None else d:>2}" for d in dice[: len(RANGES)])
        text.append(f"\n{ATTACK_LABELS[row]:<{width}}  {cells}")
    return text


def abilities_text(abilities: list[dict[str, str]]) -> Text:
    """Each ability's name, then its text indented, its own line breaks kept."""
    if not abilities:
        return Text("No special abilities", style="dim")
    text = Text()
    for n, ability in enumerate(abilities):
        if n:
            text.append("\n")
        text.append(ability.get("name", ""), style="bold")
        for line in (ability.get("text") or "").splitlines():
            text.append("\n  " + line)
    return text


class CardDetailScreen(TrackerScreen):
    """One library entry, or one unit, read only: its fields on the left, dice and abilities on
    the right."""

    BINDINGS = [Binding("escape", "back", "Back", tooltip="Back to where it was opened")]

    def __init__(self, entry: Entry) -> None:
        super().__init__()
        self.entry = entry

    def body(self) -> ComposeResult:
        with Horizontal(id="card-body"):
            with VerticalScroll(id="card-fields"):
                yield Static(fields_text(self.entry), markup=False)
            if not isinstance(self.entry, ShipClassRead):
                attacks = (self.entry.attacks if isinstance(self.entry, UnitView)
                           else self._json("attacks", {}))  # fmt: skip
                abilities = (self._named(tuple(Ability(n, "") for n in self.entry.abilities))
                             if isinstance(self.entry, UnitView)
                             else self._json("abilities", []))  # fmt: skip
                with VerticalScroll(id="card-play"):
                    yield Static(attacks_text(attacks), id="card-attacks", markup=False)
                    yield Static(abilities_text(abilities), id="card-abilities", markup=False)

    def _json(self, key: str, empty: Any) -> Any:
        return json.loads(getattr(self.entry, key) or "null") or empty

    @staticmethod
    def _named(abilities: tuple[Ability, ...]) -> list[dict[str, str]]:
        return [{"name": ability.name, "text": ability.text} for ability in abilities]

    def reload(self) -> None:
        if isinstance(self.entry, UnitView):  # the names it keeps, worded as its card words them
            self.load(Call(building.unit_abilities, self.factory, unit_id=self.entry.id),
                      self._show_abilities)  # fmt: skip

    def _show_abilities(self, abilities: tuple[Ability, ...]) -> None:
        self.query_one("#card-abilities", Static).update(abilities_text(self._named(abilities)))

    def on_mount(self) -> None:
        kind = ("Unit" if isinstance(self.entry, UnitView) else
                "Unit card" if isinstance(self.entry, UnitCardRead) else "Ship class")  # fmt: skip
        self.title = f"{kind}: {self.entry.name}" + (f" ({self.entry.nation})"
                                                     if self.entry.nation else "")  # fmt: skip
        self.query_one("#card-fields").border_title = kind
        if not isinstance(self.entry, ShipClassRead):
            self.query_one("#card-play").border_title = "Attack dice by range, abilities"
