"""Fleets built from the library: War at Sea units from cards, SMR2 ships from a class.

A unit or a ship picked from the library copies the entry's values when it is picked and keeps
its own state from then on: a later change to the library reaches no ship in play. Every pick
goes through the service a form uses (roster.save_unit, fleet.create_ship), so it is checked
as typed input is, the fleet's budget included; a pick of several is one transaction: all of
them, or none, with every name that was refused said.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from tracker.db import SessionFactory, read_scope
from tracker.models import Campaign, Side
from tracker.models.library import ShipClass, UnitCard
from tracker.services import fleet, roster
from tracker.services.common import forget_names, get_row
from tracker.services.csv_import import one_transaction
from tracker.services.errors import InvalidInput, NotFound


@dataclass(frozen=True)
class Budget:
    """A side's War at Sea fleet as cards are picked: its points now, with the picks, the budget."""

    points: int  # the roster's, before the picks
    picked: int  # the picks' points
    budget: int

    @property
    def total(self) -> int:
        return self.points + self.picked

    @property
    def left(self) -> int:
        return self.budget - self.total


def _card_values(card: UnitCard, name: str) -> dict[str, Any]:
    """A card's values as a unit takes them: its dice, its abilities' names one per line."""
    abilities = "; ".join(ability["name"] for ability in json.loads(card.abilities or "[]"))
    dice = json.loads(card.attacks or "{}")
    return {
        "name": name or card.name, "unit_type": card.unit_type, "nation": card.nation,
        "points": card.points, "year": card.year, "speed": card.speed, "armor": card.armor,
        "vital_armor": card.vital_armor, "hull_points": card.hull_points,
        **{f"attack_{row}": " ".join("-" if d is None else str(d) for d in dice[row])
           for row in dice},
        "abilities": abilities,
    }  # fmt: skip


def budget(factory: SessionFactory, *, side_id: int, card_ids: Sequence[int] = ()) -> Budget:
    """The side's fleet points, what the picked cards add, and the campaign's budget."""
    with read_scope(factory) as session:
        side = get_row(session, Side, side_id)
        campaign = get_row(session, Campaign, side.campaign_id)
        cards = {card.id: card.points for card in session.exec(
            select(UnitCard).where(col(UnitCard.id).in_(set(card_ids))))}  # fmt: skip
        points = roster.fleet_points(session, side_id)
    missing = sorted(set(card_ids) - set(cards))
    if missing:
        raise NotFound(f"no card {missing[0]} in the library: it was removed meanwhile")
    return Budget(points, sum(cards[card] for card in card_ids), campaign.was_fleet_points)


def add_units(
    factory: SessionFactory, *, side_id: int, picks: Sequence[tuple[int, str]]
) -> tuple[int, ...]:
    """Units added to a side's roster from cards, each (card id, name; blank is the card's
    name), at the fleet's budget (docs/RULES.md §Subs); all of them or none."""
    with read_scope(factory) as session:
        cards = {card.id: card for card in session.exec(select(UnitCard))}
    return _all_or_none(
        factory,
        [(name or (cards[card].name if card in cards else ""), card) for card, name in picks],
        lambda inner, card, name: roster.save_unit(
            inner, side_id=side_id, fields=roster.unit_fields_from(_card_values(cards[card], name))
        ),
        cards,
        "card",
    )


def add_ships(
    factory: SessionFactory, *, squadron_id: int, class_id: int, names: Sequence[str]
) -> tuple[int, ...]:
    """Ships of a class added to a squadron, one for each name the player typed ("3 x
    Leander"), each an original member with the class's values (docs/RULES.md §SMR2)."""
    with read_scope(factory) as session:
        found = session.get(ShipClass, class_id)
    if found is None:
        raise NotFound(f"no class {class_id} in the library: it was removed meanwhile")
    if not [name for name in names if name.strip()]:
        raise InvalidInput({"names": "type a name for each ship, e.g. Leander, Achilles, Ajax"})
    values = {
        "class_name": found.name, "type_abbrev": found.type_abbrev, "nation": found.nation,
        "size_modifier": found.size_modifier, "speed_kn": found.speed_kn,
        "armour_class": found.armour_class, "structure_max": found.structure,
        "flotation_max": found.flotation, "points_base": found.points, "notes": found.notes,
    }  # fmt: skip
    return _all_or_none(
        factory,
        [(name, class_id) for name in names],
        lambda inner, _entry, name: fleet.create_ship(
            inner, squadron_id=squadron_id, fields={**values, "name": name}
        ),
        {class_id: found},
        "class",
    )


def _all_or_none(
    factory: SessionFactory, picks: list[tuple[str, int]], add: Any, known: dict[Any, Any],
    what: str,
) -> tuple[int, ...]:  # fmt: skip
    """Each pick added in one transaction; any refused and none is, every refusal said."""
    if not picks:
        raise InvalidInput({"names": f"pick at least one {what}"})
    added: list[int] = []
    errors: dict[str, str] = {}
    with one_transaction(factory, lambda: not errors) as (inner, connection):
        for number, (name, entry) in enumerate(picks, start=1):
            if entry not in known:
                errors[f"pick {number}"] = f"no {what} {entry} in the library"
                continue
            try:
                added.append(add(inner, entry, name))
            except InvalidInput as exc:
                forget_names(connection)  # the pick's savepoint, and any name it took, went
                said = "; ".join(exc.errors.values())
                errors[f"pick {number}"] = f"{name}: {said}"
    if errors:
        raise InvalidInput(errors)
    return tuple(added)
