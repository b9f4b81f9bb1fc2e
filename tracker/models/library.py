"""The library of a campaign file: SMR2 ship classes and War at Sea unit cards, as printed.

Shared by every campaign in the file and holding no game state: a ship or a unit built from an
entry copies its values and keeps its own state (docs/RULES.md §SMR2, §Subs). An entry is known
by its name and nation, which a re-import matches on. A bound a ship or a unit already declares
is read from that one declaration (`models.fields.same_as`), never restated.
"""

from sqlalchemy import Index, UniqueConstraint, text
from sqlmodel import Field

from tracker.models.base import Input, Model, Row
from tracker.models.fields import field, same_as
from tracker.models.fleet import ShipBase
from tracker.models.kinds import Stored, UnitType
from tracker.models.roster import WasUnitBase
from tracker.models.versioned import ShownRow, Versioned


def entry_key(name: object, nation: object) -> tuple[str, str]:
    """What a library entry (a class or a card) is known by, and a unit or ship matched to it:
    its name and nation in any case. Every key of an entry is this one; the database holds it
    too (`_any_case`), in the lower case SQLite knows (ASCII's): two names it finds the same
    this key finds the same, so the index never refuses what the services took for new."""
    return str(name).casefold(), str(nation).casefold()


def _any_case(table: str) -> tuple[UniqueConstraint, Index]:
    """An entry's name and nation are unique, in any case (migration 0015)."""
    lowered = (text("lower(name)"), text("lower(nation)"))
    return UniqueConstraint("name", "nation"), Index(
        f"ix_{table}_entry_any_case", *lowered, unique=True
    )


class ShipClassBase(Model):
    """An SMR2 ship class as its data sheet prints it: what a ship built from it starts with."""

    name: str = same_as(ShipBase, "class_name", label="Class")
    type_abbrev: str = same_as(ShipBase, "type_abbrev")
    nation: str = same_as(ShipBase, "nation")
    size_modifier: int = same_as(ShipBase, "size_modifier")
    speed_kn: int = same_as(ShipBase, "speed_kn")
    armour_class: str = same_as(ShipBase, "armour_class")
    structure: int = same_as(ShipBase, "structure_max", label="Structure")
    flotation: int = same_as(ShipBase, "flotation_max", label="Flotation")
    points: int = same_as(ShipBase, "points_base", label="Points")
    batteries: str = field("", label="Batteries (one per line)", max_length=2000)
    notes: str = same_as(ShipBase, "notes")


class ShipClass(Row, ShipClassBase, Versioned, table=True):
    __table_args__ = _any_case("shipclass")


class ShipClassCreate(ShipClassBase, Input):
    """A class as typed or read from a file; a class must be named."""


class ShipClassRead(ShownRow, ShipClassBase): ...


class Ability(Input):
    """One special ability of a card: its name and its text, which may span lines."""

    name: str = field(label="Ability", min_length=1, max_length=60)
    text: str = field("", label="Ability text", max_length=2000)


class UnitCardBase(Model):
    """A War at Sea unit card, front and back, each value declared once."""

    name: str = same_as(WasUnitBase, "name")
    nation: str = same_as(WasUnitBase, "nation")
    unit_type: Stored[UnitType] = same_as(WasUnitBase, "unit_type")
    year: int | None = same_as(WasUnitBase, "year")
    points: int = same_as(WasUnitBase, "points")
    armor: int = same_as(WasUnitBase, "armor")
    vital_armor: int = same_as(WasUnitBase, "vital_armor")
    hull_points: int = same_as(WasUnitBase, "hull_points")
    speed: str = same_as(WasUnitBase, "speed")
    air_to_air: int | None = same_as(WasUnitBase, "air_to_air")
    flagship: int | None = same_as(WasUnitBase, "flagship")
    plane_capacity: int | None = same_as(WasUnitBase, "plane_capacity")
    class_name: str = same_as(WasUnitBase, "class_name")
    alliance: str = field("", label="Alliance (Axis, Allies)", max_length=20)
    set_name: str = field("", label="Set", max_length=60)
    set_number: str = field("", label="Number in set", max_length=12)
    rarity: str = field("", label="Rarity", max_length=20)
    back_text: str = field("", label="Back of the card", max_length=4000)
    notes: str = same_as(WasUnitBase, "notes")


# A card's fields that a unit built from it does not hold: the printed card's alone, shown in
# the library (its set, number and rarity, the text of its back, the alliance of its nation).
# Every other field of a card is a unit's too, declared by the unit and copied at the pick
# (services.building); tests/services/test_card_units.py walks the card's fields to keep it so.
CARD_ONLY = frozenset({"alliance", "set_name", "set_number", "rarity", "back_text"})


class UnitCard(Row, UnitCardBase, Versioned, table=True):
    __table_args__ = _any_case("unitcard")
    # JSON {"main": [r0, r1, r2, r3], ...} as a unit's (models.roster): null where "-".
    attacks: str = Field(default="{}")
    # JSON [{"name": ..., "text": ...}, ...] in the card's order.
    abilities: str = Field(default="[]")


class UnitCardCreate(UnitCardBase, Input):
    """A card as typed or read from a file: its dice by row and its abilities as a list."""

    attacks: dict[str, list[int | None]] = Field(default_factory=dict)
    abilities: list[Ability] = Field(default_factory=list)


class UnitCardRead(ShownRow, UnitCardBase):
    attacks: str = "{}"
    abilities: str = "[]"
