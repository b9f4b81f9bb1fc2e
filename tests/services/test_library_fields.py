"""The library's entries (models.library) take each bound a ship or a unit declares from that
one declaration: a value a ship's or a unit's form takes, a class's or a card's takes, and the
other way round; a card holds what a real card prints (plain aircraft, abilities over lines)."""

from __future__ import annotations

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tracker.models.fleet import ShipCreate
from tracker.models.library import ShipClassCreate, UnitCardCreate
from tracker.models.roster import UnitCreate
from tracker.services.errors import InvalidInput
from tracker.services.fields import checked

SETTINGS = settings(max_examples=examples(60), deadline=None, derandomize=True, database=None)
# (library model, its field, the ship's or unit's model, the field it takes the bound from)
SHARED = [
    (ShipClassCreate, "size_modifier", ShipCreate, "size_modifier"),
    (ShipClassCreate, "speed_kn", ShipCreate, "speed_kn"),
    (ShipClassCreate, "structure", ShipCreate, "structure_max"),
    (ShipClassCreate, "flotation", ShipCreate, "flotation_max"),
    (ShipClassCreate, "points", ShipCreate, "points_base"),
    (UnitCardCreate, "points", UnitCreate, "points"),
    (UnitCardCreate, "armor", UnitCreate, "armor"),
    (UnitCardCreate, "vital_armor", UnitCreate, "vital_armor"),
    (UnitCardCreate, "hull_points", UnitCreate, "hull_points"),
]
BASE = {ShipClassCreate: {"name": "Leander"}, UnitCardCreate: {"name": "Hood",
        "unit_type": "battleship"}, ShipCreate: {"name": "Ajax"},
        UnitCreate: {"name": "Hood", "unit_type": "battleship"}}  # fmt: skip


def _takes(model: type[BaseModel], key: str, value: object) -> bool:
    try:
        checked(model, {**BASE[model], key: value})
    except InvalidInput as exc:
        assert key in exc.errors
        return False
    return True


@pytest.mark.parametrize(
    "entry, key, source, source_key", SHARED, ids=lambda v: getattr(v, "__name__", str(v))
)
@SETTINGS
@given(value=st.integers(-(10**6), 10**6))
def test_a_library_bound_is_the_ships_or_units_own(
    entry: type[BaseModel], key: str, source: type[BaseModel], source_key: str, value: int
) -> None:
    assert _takes(entry, key, value) == _takes(source, source_key, value)


@SETTINGS
@given(
    abilities=st.lists(
        st.tuples(st.text("abcdefgh -", min_size=1, max_size=20).filter(str.strip),
                  st.text("abcdef .,\n", max_size=80)),
        max_size=5,
    )
)  # fmt: skip
def test_a_card_keeps_its_abilities_as_a_list_whose_text_may_span_lines(
    abilities: list[tuple[str, str]],
) -> None:
    card = checked(UnitCardCreate, {**BASE[UnitCardCreate], "unit_type": "aircraft",
                   "abilities": [{"name": n, "text": t} for n, t in abilities]})  # fmt: skip
    assert card.unit_type == "aircraft"
    assert [(a.name, a.text) for a in card.abilities] == [
        (n.strip(), t.strip()) for n, t in abilities
    ]


def test_a_card_holds_every_field_a_card_prints() -> None:
    card = checked(UnitCardCreate, {
        "name": "Akagi", "nation": "Japan", "unit_type": "carrier", "year": 1941, "points": 48,
        "armor": 4, "vital_armor": 8, "hull_points": 4, "speed": "2", "air_to_air": 1,
        "flagship": 1, "plane_capacity": 4, "class_name": "Akagi", "alliance": "Axis",
        "set_name": "Flank Speed", "set_number": "21/40", "rarity": "rare",
        "back_text": "Pearl Harbor", "attacks": {"anti_air": [3, 2, None, None]},
    })  # fmt: skip
    assert (card.air_to_air, card.flagship, card.plane_capacity, card.rarity) == (1, 1, 4, "rare")
    with pytest.raises(InvalidInput) as refused:
        checked(UnitCardCreate, {"name": "Akagi", "unit_type": "carrier", "flagship": 12})
    assert refused.value.errors == {"flagship": "must be 0..9, got 12"}
    assert _takes(UnitCreate, "unit_type", "aircraft")  # a roster's unit too
