"""Fleets built from the library (tracker.services.building): "3 x Leander" adds three ships
with the class's values and their own state; War at Sea units picked from cards at the fleet's
budget, the total and what is left known before the pick; a pick of several is all or none."""

from __future__ import annotations

from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World
from sqlalchemy import text

from tracker.db import SessionFactory, session_scope
from tracker.models.fleet import ShipUpdate
from tracker.services import building, fleet, history, library, roster, sheet
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


@settings(max_examples=examples(20), deadline=None, derandomize=True, database=None,
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


# --- a later change to the library: offered, never applied by itself --------------------------

CARD = (
    b"name,nation,unit_type,points,hull_points,attack_main\nHipper,Germany,cruiser,30,4,5 4 - -\n"
)


@settings(max_examples=examples(10), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(structure=st.integers(1, 40), damage=st.integers(0, 13))
def test_a_changed_class_is_listed_and_applied_to_the_chosen_ship_only(
    factory: SessionFactory, world: World, structure: int, damage: int
) -> None:
    with session_scope(factory) as session:
        session.connection().execute(text("DELETE FROM ship"))
        session.connection().execute(text("DELETE FROM shipclass"))
    library.import_library(factory, raw=CLASSES)
    leander = _class_id(factory, "Leander")
    first, second = building.add_ships(factory, squadron_id=world.alpha_id, class_id=leander,
                                       names=["Leander", "Achilles"])  # fmt: skip
    ship = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships[0]
    fleet.update_ship(factory, ship_id=first, fields={
        **{k: getattr(ship, k) for k in fleet_fields()}, "structure_now": 14 - damage,
    })  # fmt: skip
    assert building.library_changes(factory, campaign_id=world.campaign_id) == ()
    library.import_library(factory, raw=CLASSES.replace(b",14,11,", f",{structure},11,".encode()))
    listed = building.library_changes(factory, campaign_id=world.campaign_id)
    if structure == 14:
        assert listed == ()
        return
    assert [(d.kind, d.row_id, d.name, d.differences) for d in listed] == [
        ("ship", first, "Leander", (f"Structure max 14 -> {structure}",)),
        ("ship", second, "Achilles", (f"Structure max 14 -> {structure}",)),
    ]
    # Nothing changed by the listing: the ships keep their own values until applied.
    assert [s.structure_max for s in _ships(factory, world)] == [14, 14]
    building.apply_library_changes(factory, campaign_id=world.campaign_id, chosen=[("ship", first)])
    leander_now, achilles = _ships(factory, world)
    assert (leander_now.structure_max, leander_now.structure_now) == (
        structure, max(0, structure - damage),
    )  # fmt: skip
    assert (achilles.structure_max, achilles.structure_now) == (14, 14)
    assert [d.row_id for d in building.library_changes(factory, campaign_id=world.campaign_id)] == [
        second
    ]
    history.undo_last(factory, campaign_id=world.campaign_id)
    undone, _ = _ships(factory, world)
    assert (undone.structure_max, undone.structure_now) == (14, 14 - damage)


def fleet_fields() -> list[str]:
    return [key for key in ShipUpdate.model_fields if key != "version"]


def _ships(factory: SessionFactory, world: World) -> list[Any]:
    return list(sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships)


def test_a_changed_card_reaches_its_units_when_chosen_within_the_budget(
    factory: SessionFactory, world: World
) -> None:
    library.import_library(factory, raw=CARD)
    (card,) = [c.id for c in library.cards(factory) if c.name == "Hipper"]
    building.add_units(factory, side_id=world.red_id, picks=[(card, ""), (card, "Hipper (2)")])
    hipper, copy = roster.roster(factory, side_id=world.red_id).units
    library.import_library(factory, raw=CARD.replace(b",30,4,5 4", b",45,5,6 4"))
    listed = building.library_changes(factory, campaign_id=world.campaign_id)
    assert [(d.name, d.differences) for d in listed] == [
        (name, ("Points 30 -> 45", "Hull points 4 -> 5", "Main guns 5 4 - - -> 6 4 - -"))
        for name in ("Hipper", "Hipper (2)")
    ]
    # The first alone: the other keeps the card as it was.
    building.apply_library_changes(factory, campaign_id=world.campaign_id,
                                   chosen=[("unit", hipper.id)])  # fmt: skip
    units = roster.roster(factory, side_id=world.red_id).units
    assert [(u.points, u.hull_points, u.attacks) for u in units] == [
        (45, 5, {"main": [6, 4, None, None]}), (30, 4, {"main": [5, 4, None, None]}),
    ]  # fmt: skip
    library.import_library(factory, raw=CARD.replace(b",30,4,5 4", b",71,5,6 4"))
    with pytest.raises(InvalidInput, match="budget is 100"):
        building.apply_library_changes(factory, campaign_id=world.campaign_id,
                                       chosen=[("unit", copy.id)])  # fmt: skip
    assert [u.points for u in roster.roster(factory, side_id=world.red_id).units] == [45, 30]
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert [u.points for u in roster.roster(factory, side_id=world.red_id).units] == [30, 30]


def test_applying_nothing_or_what_no_longer_differs_is_refused(
    factory: SessionFactory, world: World
) -> None:
    with pytest.raises(InvalidInput, match="tick at least one"):
        building.apply_library_changes(factory, campaign_id=world.campaign_id, chosen=[])
    with pytest.raises(InvalidInput, match="no longer differs"):
        building.apply_library_changes(factory, campaign_id=world.campaign_id,
                                       chosen=[("ship", 999)])  # fmt: skip


TIMES = st.sampled_from(["x", "X", "\u00d7"])  # the multiplication sign too
MOUNT_WORDS = st.sampled_from(["turret", "TURRET", "DP", "dp", "casemate", "SRAA", "open"])


@st.composite
def battery_line(draw: st.DrawFn) -> tuple[str, tuple[int, str, str, str] | None]:
    """A class's battery line, and the battery it is read as (None: kept as a note)."""
    if draw(st.booleans()):
        note = draw(st.sampled_from(["A twin 40mm on the quarterdeck", "6in guns", "4 x 6in",
                                     "x 6in turret"]))  # fmt: skip
        return note, None
    guns, calibre = draw(st.integers(0, 99)), draw(st.sampled_from(["6in", "15cm", "40mm"]))
    mount, extra = draw(MOUNT_WORDS), draw(st.sampled_from(["", "AA only", "aft"]))
    line = f"{guns} {draw(TIMES)} {calibre} {mount} {extra}".strip()
    canonical = {"turret": "turret", "dp": "DP", "casemate": "casemate", "sraa": "SRAA",
                 "open": "open"}[mount.lower()]  # fmt: skip
    return line, (guns, calibre, canonical, extra)


@settings(max_examples=examples(12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(lines=st.lists(battery_line(), max_size=5))
def test_a_ship_built_from_a_class_has_its_batteries_and_keeps_any_other_line_in_its_notes(
    factory: SessionFactory, world: World, lines: list[tuple[str, tuple[int, str, str, str] | None]]
) -> None:
    batteries = "\n".join(line for line, _ in lines)
    raw = CLASSES.replace(b",points\n", b",points,batteries\n").replace(
        b",140\n", b',140,"' + batteries.encode() + b'"\n'
    )
    library.import_library(factory, raw=raw)
    leander = _class_id(factory, "Leander")
    name = f"Ship {len(sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships)}"
    (ship_id,) = building.add_ships(factory, squadron_id=world.alpha_id, class_id=leander,
                                    names=[name])  # fmt: skip
    ship = next(s for s in sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships
                if s.id == ship_id)  # fmt: skip
    assert [(b.guns, b.calibre, b.mount, b.notes) for b in ship.batteries] == [
        read for _, read in lines if read is not None
    ]
    kept = [line for line, read in lines if read is None]
    assert [line for line in ship.notes.splitlines() if line.startswith("Battery: ")] == [
        f"Battery: {line}" for line in kept
    ]
