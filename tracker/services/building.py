"""Fleets built from the library: War at Sea units from cards, SMR2 ships from a class.

A pick copies the entry's values and keeps its own state from then on, through the service a
form uses (roster.save_unit, fleet.create_ship), checked as typed input is; a pick of several
is all or none. A later change to the library is offered, never applied by itself
(`library_changes`, `apply_library_changes`). A ship is of the class its Class and Nation
name; a unit of the card of its name and nation (`Name (2)`, a second unit of a card, too).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from tracker.db import SessionFactory, read_scope
from tracker.models import Campaign, Ship, Side, WasUnit
from tracker.models.fields import rule_of
from tracker.models.fleet import MOUNTS, ShipBase
from tracker.models.kinds import JournalKind
from tracker.models.library import ShipClass, UnitCard, entry_key
from tracker.models.roster import WasUnitBase
from tracker.services import fleet, journal, roster
from tracker.services.common import act, forget_names, get_row, rows_where, side_and_campaign
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


def _card_fields(card: UnitCard) -> dict[str, Any]:
    """A card's values as a unit built from it holds them (FROM_CARD): its dice by row, its
    abilities' names one a line (a unit keeps the names alone; docs/GUIDE.md "The library")."""
    values = {key: getattr(card, key) for key in FROM_CARD}
    values["attacks"] = json.loads(card.attacks or "{}")
    values["abilities"] = "\n".join(ability["name"]
                                    for ability in json.loads(card.abilities or "[]"))  # fmt: skip
    return values


def budget(factory: SessionFactory, *, side_id: int, card_ids: Sequence[int] = ()) -> Budget:
    """The side's fleet points, what the picked cards add, and the campaign's budget."""
    with read_scope(factory) as session:
        _, campaign = side_and_campaign(session, side_id)
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
            inner,
            side_id=side_id,
            fields={"name": name, "nation": cards[card].nation, **_card_fields(cards[card])},
        ),
        cards,
        "card",
    )


# A class's battery line as the library holds it: "4 x 6in turret", "2 x 4in DP AA only" (guns,
# calibre, one of the mounts, and what follows as the battery's notes).
_BATTERY = re.compile(
    r"^\s*(\d{1,2})\s*[x\u00d7]\s*(\S+)\s+(" + "|".join(MOUNTS) + r")\b\s*(.*?)\s*$", re.IGNORECASE
)


def battery_lines(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """A class's batteries, one a line: those in the form "N x CALIBRE MOUNT [notes]" as a
    ship's batteries take them, and the lines in no such form, as typed (docs/FILES.md)."""
    mounts = {mount.lower(): mount for mount in MOUNTS}
    read, unread = [], []
    for line in filter(None, (line.strip() for line in text.splitlines())):
        found = _BATTERY.match(line)
        if found is None:
            unread.append(line)
            continue
        guns, calibre, mount, notes = found.groups()
        read.append({"guns": int(guns), "calibre": calibre, "mount": mounts[mount.lower()],
                     "notes": notes})  # fmt: skip
    return read, unread


def add_ships(
    factory: SessionFactory, *, squadron_id: int, class_id: int, names: Sequence[str]
) -> tuple[int, ...]:
    """Ships of a class added to a squadron, one per name typed ("3 x Leander"), each an original
    member with the class's values and batteries: a class line "N x CALIBRE MOUNT" is a battery,
    any other kept in the ship's notes (docs/RULES.md §SMR2)."""
    with read_scope(factory) as session:
        found = session.get(ShipClass, class_id)
    if found is None:
        raise NotFound(f"no class {class_id} in the library: it was removed meanwhile")
    if not [name for name in names if name.strip()]:
        raise InvalidInput({"names": "type a name for each ship, e.g. Leander, Achilles, Ajax"})
    batteries, unread = battery_lines(found.batteries)
    notes = "\n".join([found.notes, *(f"Battery: {line}" for line in unread)]).strip()
    values = {"class_name": found.name, "nation": found.nation, **_class_values(found),
              "notes": notes}  # fmt: skip

    def add(inner: SessionFactory, _entry: int, name: str) -> int:
        ship_id = fleet.create_ship(inner, squadron_id=squadron_id, fields={**values, "name": name})
        for battery in batteries:
            fleet.save_battery(inner, ship_id=ship_id, **battery)
        return ship_id

    return _all_or_none(factory, [(name, class_id) for name in names], add, {class_id: found},
                        "class")  # fmt: skip


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


# A ship's value from its class's (ship's key: class's key); name, nation and notes are the ship's.
FROM_CLASS = {
    "type_abbrev": "type_abbrev", "size_modifier": "size_modifier", "speed_kn": "speed_kn",
    "armour_class": "armour_class", "structure_max": "structure", "flotation_max": "flotation",
    "points_base": "points",
}  # fmt: skip
# A unit's values from its card's: every field the card and the unit both declare (the card's
# other fields are the printed card's alone: models.library.CARD_ONLY), but for the unit's own:
# its name and nation (the card it is of) and its notes (the player's), and the rows' bookkeeping.
UNIT_OWN = frozenset({"name", "nation", "notes", "id", "version"})
FROM_CARD = tuple(key for key in UnitCard.model_fields
                  if key in WasUnit.model_fields and key not in UNIT_OWN)  # fmt: skip
_COPY = re.compile(r"(.*) \((\d+)\)")  # "Prinz Eugen (2)": a second unit of the card


def _class_values(found: ShipClass) -> dict[str, Any]:
    return {key: getattr(found, source) for key, source in FROM_CLASS.items()}


def _card_stored(card: UnitCard) -> dict[str, Any]:
    """A card's values as a unit built from it stores them."""
    stored = _card_fields(card)
    stored["attacks"] = roster.attacks_json(stored["attacks"], {})
    stored["unit_type"] = str(stored["unit_type"])
    return stored


@dataclass(frozen=True)
class Drift:
    """A ship or unit whose values differ from its class's or card's now."""

    kind: str  # "ship" or "unit"
    row_id: int
    name: str
    source: str  # "Leander class (Britain)", "card Prinz Eugen (Germany)"
    differences: tuple[str, ...]  # "Structure max 14 -> 20", in the model's words


def _said(model: type[Any], key: str, before: Any, after: Any) -> str:
    """A difference in the form's words: `Hull points 4 -> 5`, `Main 5 4 - - -> 6 4 - -`."""
    if key == "attacks":
        old, new = json.loads(before or "{}"), json.loads(after or "{}")
        dice = roster.dice_said
        return ", ".join(f"{label} {dice(old.get(row))} -> {dice(new.get(row))}"
                         for row, label in roster.ATTACK_LABELS.items()
                         if old.get(row) != new.get(row))  # fmt: skip
    shown = {None: "-", "": "blank"}
    label = rule_of(key, model.model_fields[key]).label
    return f"{label} {shown.get(before, before)} -> {shown.get(after, after)}"


def _card_of(cards: dict[tuple[str, str], UnitCard], unit: WasUnit) -> UnitCard | None:
    """The card a unit is of: its name and nation, or the card's name of a copy's `Name (2)`."""
    copy = _COPY.fullmatch(unit.name)
    return cards.get(entry_key(unit.name, unit.nation)) or (
        cards.get(entry_key(copy.group(1), unit.nation)) if copy else None
    )


@dataclass(frozen=True)
class Ability:
    """A unit's ability as its card words it; `text` is blank when the card has none."""

    name: str
    text: str


def unit_abilities(factory: SessionFactory, *, unit_id: int) -> tuple[Ability, ...]:
    """A unit's abilities, each with its text from the card the unit is of (a unit keeps the names
    alone; docs/GUIDE.md "The library"); an ability its card lacks keeps its name alone."""
    with read_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        # Every card, matched here: SQLite's lower() knows no letter beyond ASCII (Österreich).
        card = _card_of(
            {entry_key(c.name, c.nation): c for c in session.exec(select(UnitCard))}, unit
        )
    texts: dict[str, str] = {}
    for ability in json.loads(card.abilities or "[]") if card is not None else []:
        texts.setdefault(str(ability.get("name", "")).strip().casefold(),
                         str(ability.get("text") or ""))  # fmt: skip
    names = [line.strip() for line in unit.abilities.splitlines() if line.strip()]
    return tuple(Ability(name, texts.get(name.casefold(), "")) for name in names)


def _drift(
    kind: str, row: Ship | WasUnit, model: type[Any], values: dict[str, Any], source: str
) -> list[tuple[Drift, Ship | WasUnit, dict[str, Any]]]:
    """The row's drift from the library's values, if it has drifted."""
    said = tuple(_said(model, key, getattr(row, key), value) for key, value in values.items()
                 if getattr(row, key) != value)  # fmt: skip
    return [(Drift(kind, row.id or 0, row.name, source, said), row, values)] if said else []


def _drifts(
    session: Session, campaign_id: int
) -> list[tuple[Drift, Ship | WasUnit, dict[str, Any]]]:
    """Each drifted ship or unit of the campaign, with the library's values for it."""
    classes = {entry_key(c.name, c.nation): c for c in session.exec(select(ShipClass))}
    cards = {entry_key(c.name, c.nation): c for c in session.exec(select(UnitCard))}
    sides = [side.id for side in session.exec(select(Side).where(Side.campaign_id == campaign_id))]
    found: list[tuple[Drift, Ship | WasUnit, dict[str, Any]]] = []
    for ship in rows_where(session, Ship, col(Ship.side_id).in_(sides)):
        entry = classes.get(entry_key(ship.class_name, ship.nation))
        if entry is None or ship.sunk:
            continue
        label = f"{entry.name} class" + (f" ({entry.nation})" if entry.nation else "")
        found += _drift("ship", ship, ShipBase, _class_values(entry), label)
    for unit in rows_where(session, WasUnit, col(WasUnit.side_id).in_(sides)):
        card = _card_of(cards, unit)
        if card is None:
            continue
        label = f"card {card.name}" + (f" ({card.nation})" if card.nation else "")
        found += _drift("unit", unit, WasUnitBase, _card_stored(card), label)
    return found


def library_changes(factory: SessionFactory, *, campaign_id: int) -> tuple[Drift, ...]:
    """The campaign's ships and units whose values differ from their class or card now."""
    with read_scope(factory) as session:
        get_row(session, Campaign, campaign_id)
        return tuple(drift for drift, _row, _values in _drifts(session, campaign_id))


def _kept_damage(now: int, old_max: int, new_max: int) -> int:
    """A track's value under a new max: the damage already taken stays taken."""
    return max(0, new_max - (old_max - now))


def apply_library_changes(
    factory: SessionFactory, *, campaign_id: int, chosen: Sequence[tuple[str, int]]
) -> int:
    """The chosen ships and units (("ship", id), ("unit", id)) brought up to their class or
    card, in one journal entry that undo reverses; returns how many changed."""
    if not chosen:
        raise InvalidInput({"chosen": "tick at least one ship or unit to bring up to the library"})
    with act(factory, Campaign, campaign_id) as a:
        campaign, session = a.row, a.session
        drifted = {(d.kind, d.row_id): (d, row, values)
                   for d, row, values in _drifts(session, campaign_id)}  # fmt: skip
        gone = [f"{kind} {row_id}" for kind, row_id in chosen if (kind, row_id) not in drifted]
        if gone:
            raise InvalidInput({"chosen": f"{', '.join(gone)} no longer differs from the library "
                                "(changed meanwhile): look again"})  # fmt: skip
        changes = []
        errors: dict[str, str] = {}
        for key in dict.fromkeys(chosen):
            drift, row, values = drifted[key]
            before = journal.row_state(row)
            if isinstance(row, Ship):
                row.structure_now = _kept_damage(row.structure_now, row.structure_max,
                                                 values["structure_max"])  # fmt: skip
                row.flotation_now = _kept_damage(row.flotation_now, row.flotation_max,
                                                 values["flotation_max"])  # fmt: skip
            elif row.damage > values["hull_points"]:
                errors[drift.name] = (f"{drift.name} has taken {row.damage} hull damage, more "
                                      f"than the card's {values['hull_points']} hull points: "
                                      "edit it by hand")  # fmt: skip
            for name, value in values.items():
                setattr(row, name, value)
            session.add(row)
            table = "ship" if isinstance(row, Ship) else "wasunit"
            changes.append(journal.row_change(table, drift.row_id, before, journal.row_state(row)))
        session.flush()
        for side_id in {
            row.side_id for _d, row, _v in drifted.values() if isinstance(row, WasUnit)
        }:
            total = roster.fleet_points(session, side_id)
            if total > campaign.was_fleet_points:
                side = get_row(session, Side, side_id)
                errors[side.name] = (f"{side.name}'s fleet would cost {total} points; the budget "
                                     f"is {campaign.was_fleet_points}")  # fmt: skip
        if errors:
            raise InvalidInput(errors)
        names = [drifted[key][0].name for key in dict.fromkeys(chosen)]
        ships = [key for key in chosen if key[0] == "ship"]
        a.log(
            JournalKind.SHIP if ships else JournalKind.ROSTER,
            f"Brought up to the library: {', '.join(names)}",
            ship_id=ships[0][1] if len(ships) == 1 else None,
            changes=tuple(changes),
        )
        return len(changes)
