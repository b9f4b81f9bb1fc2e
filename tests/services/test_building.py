"""Fleets built from the library (tracker.services.building): "3 x Leander" adds three ships
with the class's values and their own state; War at Sea units picked from cards at the fleet's
budget, the total and what is left known before the pick; a pick of several is all or none."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World
from sqlalchemy import text

from tracker.db import SessionFactory, session_scope
from tracker.services import building, library, roster, sheet
from tracker.services.errors import InvalidInput

CLASSES = b"name,nation,type_abbrev,size_modifier,speed_kn,structure,flotation,points\n" + (
    b"Leander,Britain,CL,1,32,14,11,140\n"
)


def _class_id(factory: SessionFactory, name: str) -> int:
    return next(c.id for c in library.classes(factory) if c.name == name)


def test_three_ships_of_a_class_take_its_values_and_keep_their_own_state(
    factory: SessionFactory, world: World
) -> None:
    library.import_library(factory, raw=CLASSES)
    leander = _class_id(factory, "Leander")
    ids = building.add_ships(factory, squadron_id=world.alpha_id, class_id=leander,
                             names=["Leander", "Achilles", "Ajax"])  # fmt: skip
    ships = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships
    assert [s.id for s in ships] == list(ids)
    assert [(s.name, s.class_name, s.type_abbrev, s.structure_max, s.structure_now,
             s.flotation_max, s.speed_kn, s.points_base) for s in ships] == [
        (name, "Leander", "CL", 14, 14, 11, 32, 140) for name in ("Leander", "Achilles", "Ajax")
    ]  # fmt: skip
    # A later change to the library reaches no ship already built.
    library.import_library(factory, raw=CLASSES.replace(b",14,11,", b",20,11,"))
    assert [s.structure_max for s in sheet.load_record_sheet(
        factory, squadron_id=world.alpha_id).ships] == [14, 14, 14]  # fmt: skip


def test_a_refused_name_adds_none_of_the_ships_and_is_named(
    factory: SessionFactory, world: World
) -> None:
    library.import_library(factory, raw=CLASSES)
    leander = _class_id(factory, "Leander")
    building.add_ships(factory, squadron_id=world.alpha_id, class_id=leander, names=["Ajax"])
    with pytest.raises(InvalidInput) as refused:
        building.add_ships(factory, squadron_id=world.alpha_id, class_id=leander,
                           names=["Achilles", "Ajax", ""])  # fmt: skip
    assert list(refused.value.errors) == ["pick 2", "pick 3"]
    assert refused.value.errors["pick 2"].startswith("Ajax: ")
    assert [s.name for s in sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships] == [
        "Ajax"
    ]


def _cards(factory: SessionFactory, points: list[int]) -> list[int]:
    with session_scope(factory) as session:
        session.connection().execute(text("DELETE FROM unitcard"))
    rows = "".join(f"Card {n},Germany,destroyer,{p},2 1 - -\n" for n, p in enumerate(points))
    library.import_library(
        factory, raw=f"name,nation,unit_type,points,attack_main\n{rows}".encode()
    )
    by_name = {card.name: card.id for card in library.cards(factory)}
    return [by_name[f"Card {n}"] for n in range(len(points))]


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(points=st.lists(st.integers(1, 60), min_size=1, max_size=5))
def test_cards_are_picked_at_the_fleets_budget_all_or_none(
    factory: SessionFactory, world: World, points: list[int]
) -> None:
    with session_scope(factory) as session:
        session.connection().execute(text("DELETE FROM wasunit"))
    cards = _cards(factory, points)
    shown = building.budget(factory, side_id=world.red_id, card_ids=cards)
    assert (shown.points, shown.total, shown.budget) == (0, sum(points), 100)
    assert shown.left == 100 - sum(points)
    picks = [(card, "") for card in cards]
    if sum(points) <= 100:
        building.add_units(factory, side_id=world.red_id, picks=picks)
        units = roster.roster(factory, side_id=world.red_id).units
        assert [(u.name, u.points, u.attacks) for u in units] == [
            (f"Card {n}", p, {"main": [2, 1, None, None]}) for n, p in enumerate(points)
        ]
        assert building.budget(factory, side_id=world.red_id).left == 100 - sum(points)
    else:
        with pytest.raises(InvalidInput, match="the budget is 100"):
            building.add_units(factory, side_id=world.red_id, picks=picks)
        assert roster.roster(factory, side_id=world.red_id).units == ()


def test_a_card_picked_twice_takes_the_name_the_player_typed(
    factory: SessionFactory, world: World
) -> None:
    (card,) = _cards(factory, [10])
    building.add_units(factory, side_id=world.blue_id, picks=[(card, ""), (card, "Card 0 (2)")])
    assert [u.name for u in roster.roster(factory, side_id=world.blue_id).units] == [
        "Card 0", "Card 0 (2)",
    ]  # fmt: skip
