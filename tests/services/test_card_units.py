"""A War at Sea card becomes a roster unit whole (docs/RULES.md §Subs): each field a card
declares is a unit's too, copied at the pick and offered again when the card changes, unless it
is the printed card's alone (models.library.CARD_ONLY); the library's files and a campaign's
carry a unit's values both ways. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World
from sqlalchemy import text

from tracker.db import SessionFactory, session_scope
from tracker.models.fields import rule_of
from tracker.models.kinds import UnitType
from tracker.models.library import CARD_ONLY, UnitCard, UnitCardCreate
from tracker.models.roster import UnitCreate, WasUnit
from tracker.services import building, campaigns, exchange, history, library, library_export, roster
from tracker.services.visibility import HIDDEN, Viewer

SETTINGS = settings(
    max_examples=examples(15), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
# No cell starts with a sign a spreadsheet reads as a formula: these are a card's plain words.
NAME = (
    st.text("abcdefghij KLMNOPQ", min_size=1, max_size=20)
    .map(str.strip)
    .filter(lambda name: name[:1].isalpha())
)
WORDS = st.text("abcdefgh XYZ", max_size=12).map(str.strip)
DICE = st.lists(st.none() | st.integers(0, 20), min_size=4, max_size=4).filter(
    lambda dice: any(die is not None for die in dice)  # all "-" is no attack
)


@st.composite
def card_lists(draw: st.DrawFn, most: int = 5) -> list[dict[str, Any]]:
    """Cards with every field a card declares drawn, points within a fleet's budget of 100."""
    names = draw(st.lists(NAME, min_size=1, max_size=most, unique_by=str.casefold))
    ability = st.fixed_dictionaries({"name": NAME, "text": WORDS})
    return [
        {
            "name": name, "nation": draw(st.sampled_from(("Italia", "Japan", "USA"))),
            "unit_type": str(draw(st.sampled_from(tuple(UnitType)))),
            "year": draw(st.none() | st.integers(1900, 1950)),
            "points": draw(st.integers(0, 100 // most)), "armor": draw(st.integers(0, 30)),
            "vital_armor": draw(st.integers(0, 30)), "hull_points": draw(st.integers(1, 20)),
            "speed": draw(st.sampled_from(("1", "2", "3", "A", ""))),
            "air_to_air": draw(st.none() | st.integers(0, 20)),
            "flagship": draw(st.none() | st.integers(0, 9)),
            "plane_capacity": draw(st.none() | st.integers(0, 99)),
            **{key: draw(WORDS) for key in ("class_name", "alliance", "set_name", "set_number",
                                            "rarity", "back_text", "notes")},
            "attacks": draw(st.dictionaries(st.sampled_from(roster.ATTACK_ROWS), DICE,
                                            max_size=3)),
            "abilities": draw(st.lists(ability, max_size=3, unique_by=lambda a: a["name"])),
        }
        for name in names
    ]  # fmt: skip


def _clear(factory: SessionFactory) -> None:
    with session_scope(factory) as session:
        for table in ("wasunit", "unitcard"):
            session.connection().execute(text(f"DELETE FROM {table}"))


def _library_json(cards: list[dict[str, Any]]) -> bytes:
    return json.dumps({"format": library.FORMAT, "version": library.VERSION,
                       "cards": cards}).encode()  # fmt: skip


def _stored_cards(factory: SessionFactory) -> dict[str, dict[str, Any]]:
    return {card.name: card.model_dump(exclude={"id", "version"})
            for card in library.cards(factory)}  # fmt: skip


def _held(card: dict[str, Any]) -> dict[str, Any]:
    """What a unit built from the card holds: each value of the card but the printed card's own
    and the notes (the player's); its abilities by name alone."""
    held = {key: card[key] for key in UnitCardCreate.model_fields
            if key not in CARD_ONLY and key != "notes"}  # fmt: skip
    return {**held, "abilities": tuple(ability["name"] for ability in card["abilities"])}


def test_every_field_of_a_card_is_a_units_too_or_the_printed_cards_alone() -> None:
    for key in UnitCard.model_fields:
        assert (key in WasUnit.model_fields) != (key in CARD_ONLY), (
            f"{key}: declare it on the unit (models.roster.WasUnitBase, with a migration), or "
            "as the printed card's alone (models.library.CARD_ONLY)"
        )
    # A value both hold is bounded, labelled and left blank alike: the unit takes what the
    # card took. (The card's dice and abilities are held in a shape of their own.)
    for key in UnitCardCreate.model_fields.keys() - CARD_ONLY - {"attacks", "abilities"}:
        card, unit = UnitCardCreate.model_fields[key], UnitCreate.model_fields[key]
        assert rule_of(key, card) == rule_of(key, unit), key


@SETTINGS
@given(cards=card_lists())
def test_a_unit_picked_from_a_card_holds_every_value_of_the_card(
    factory: SessionFactory, world: World, cards: list[dict[str, Any]]
) -> None:
    _clear(factory)
    assert library.import_library(factory, raw=_library_json(cards), json_file=True).written
    ids = {card.name: card.id for card in library.cards(factory)}
    building.add_units(factory, side_id=world.red_id, picks=[(ids[c["name"]], "") for c in cards])
    units = {unit.name: unit for unit in roster.roster(factory, side_id=world.red_id).units}
    for card in cards:
        held = _held(card)
        assert {key: getattr(units[card["name"]], key) for key in held} == held
    # Built as the card is: nothing to bring up to the library.
    assert building.library_changes(factory, campaign_id=world.campaign_id) == ()


FOLGORE = {"name": "C.202 Folgore", "nation": "Italia", "unit_type": "fighter", "points": 9,
           "armor": 3, "vital_armor": 5, "speed": "A", "air_to_air": 2,
           "attacks": {"anti_air": [6, None, None, None]}}  # fmt: skip


def test_a_fighter_keeps_its_air_to_air_dice_and_a_later_change_of_the_card_is_offered(
    factory: SessionFactory, world: World
) -> None:
    library.import_library(factory, raw=_library_json([FOLGORE]), json_file=True)
    (card,) = library.cards(factory)
    (unit_id,) = building.add_units(factory, side_id=world.red_id, picks=[(card.id, "")])
    (unit,) = roster.roster(factory, side_id=world.red_id).units
    assert (unit.air_to_air, unit.attacks) == (2, {"anti_air": [6, None, None, None]})
    changed = {**FOLGORE, "air_to_air": 3, "flagship": 1, "plane_capacity": 0,
               "class_name": "Macchi"}  # fmt: skip
    library.import_library(factory, raw=_library_json([changed]), json_file=True)
    (drift,) = building.library_changes(factory, campaign_id=world.campaign_id)
    assert drift.differences == ("Air-to-air dice 2 -> 3", "Flagship rating - -> 1",
                                 "Plane capacity - -> 0", "Class blank -> Macchi")  # fmt: skip
    building.apply_library_changes(factory, campaign_id=world.campaign_id,
                                   chosen=[("unit", unit_id)])  # fmt: skip
    (unit,) = roster.roster(factory, side_id=world.red_id).units
    assert (unit.air_to_air, unit.flagship, unit.plane_capacity, unit.class_name) == (
        3, 1, 0, "Macchi",
    )  # fmt: skip
    history.undo_last(factory, campaign_id=world.campaign_id)
    (unit,) = roster.roster(factory, side_id=world.red_id).units
    assert (unit.air_to_air, unit.flagship, unit.plane_capacity, unit.class_name) == (
        2, None, None, "",
    )  # fmt: skip


# --- the files carry them ---------------------------------------------------------------------

NEW = ("air_to_air", "flagship", "plane_capacity", "class_name")  # a unit's since schema 0012


@SETTINGS
@given(cards=card_lists())
def test_the_library_exports_read_back_as_the_same_cards(
    factory: SessionFactory, cards: list[dict[str, Any]]
) -> None:
    _clear(factory)
    assert library.import_library(factory, raw=_library_json(cards), json_file=True).written
    stored = _stored_cards(factory)
    assert {name: [card[key] for key in NEW] for name, card in stored.items()} == {
        card["name"]: [card[key] for key in NEW] for card in cards
    }
    for exported, as_json in ((library_export.export_text(factory, kind="cards"), False),
                              (library_export.export_text(factory, kind=None), True)):  # fmt: skip
        _clear(factory)
        report = library.import_library(factory, raw=exported.encode(), json_file=as_json)
        assert report.written and _stored_cards(factory) == stored


def _units(factory: SessionFactory, side_id: int) -> list[dict[str, Any]]:
    return [unit.model_dump(exclude={"id", "version"})
            for unit in roster.roster(factory, side_id=side_id).units]  # fmt: skip


@SETTINGS
@given(cards=card_lists(most=4))
def test_a_campaign_exported_and_imported_keeps_every_value_its_units_took_from_cards(
    factory: SessionFactory, world: World, cards: list[dict[str, Any]]
) -> None:
    _clear(factory)
    library.import_library(factory, raw=_library_json(cards), json_file=True)
    ids = {card.name: card.id for card in library.cards(factory)}
    building.add_units(factory, side_id=world.red_id, picks=[(ids[c["name"]], "") for c in cards])
    document = exchange.export_campaign(factory, campaign_id=world.campaign_id)
    # The printed card's values are public: the opponent's view of the file holds them too.
    seen = exchange.view_of(json.loads(exchange.dumps(document)), Viewer.OPPONENT)
    assert all(row[key] != HIDDEN for row in seen["tables"]["wasunit"] for key in NEW)
    copies = [c.name for c in campaigns.list_campaigns(factory) if c.name.startswith("Copy")]
    copy_id = exchange.import_campaign(
        factory, document=exchange.read_document(exchange.dumps(document).encode()),
        name=f"Copy {len(copies)}",
    )  # fmt: skip
    names = {side_id: name for name, side_id in
             campaigns.side_names(factory, campaign_id=world.campaign_id)[1]}  # fmt: skip
    copied = dict(campaigns.side_names(factory, campaign_id=copy_id)[1])
    assert _units(factory, copied[names[world.red_id]]) == _units(factory, world.red_id)
