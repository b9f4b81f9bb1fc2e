"""The War at Sea card list players share, read as it is (services.library_community): nations
with their units, each unit's fields in the list's own words. The cards here are written by this
test in that shape; no card of the list itself is kept in the repository."""

from __future__ import annotations

import json
from typing import Any

from tracker.db import SessionFactory
from tracker.services import library


def _unit(name: str, kind: str, **fields: Any) -> dict[str, Any]:
    """A unit as the list writes one: every band present, empty when the card has none."""
    bands = ("main_gunnery_attack", "aircraft_gunnery_attack", "secondary_gunnery_attack",
             "tertiary_gunnery_attack", "anti_aircraft_attack", "anti_submarine_attack",
             "torpedo_attack", "bomb_attack")  # fmt: skip
    return {"name": name, "flagship": None, "points": 10, "year": 1941, "type": kind,
            "speed": "2", "planes": None, **{band: [] for band in bands}, "armor": 3,
            "vital_armor": 6, "hull_points": 2, "special_abilities": {}, "set": "Test Set",
            "set_number": "1/40", "rarity": "Common", "class": "", "back_text": "",
            "blue_print_settings": {}, **fields}  # fmt: skip


LIST = [
    {"name": "Testland", "alliance": 1, "units": [
        _unit("Escort A", "Ship - Destroyer", main_gunnery_attack=["6", "5", "5", "-"],
              torpedo_attack=["1", "1", "1", "-"], flagship=1, **{"class": "Testclass"},
              special_abilities={"Close Escort": "Three ships in its sector.", "Sub Hunter": ""}),
        _unit("Carrier B", "Ship - Carrier", planes=3, speed="1"),
    ]},
    {"name": "Otherland", "alliance": 0, "units": [
        _unit("Fighter C", "Aircraft - Fighter", speed="A",
              aircraft_gunnery_attack=["2", "-", "-", "-"]),
        _unit("Boat D", "Submarine"),
    ]},
]  # fmt: skip


def test_the_shared_card_list_is_read_as_it_is_every_field_mapped(
    factory: SessionFactory,
) -> None:
    raw = json.dumps(LIST).encode()
    report = library.import_library(factory, raw=raw, json_file=True)
    assert report.written and report.source == "JSON, a War at Sea card list"
    assert report.outcomes[0].added == ("Escort A (Testland)", "Carrier B (Testland)",
                                        "Fighter C (Otherland)", "Boat D (Otherland)")  # fmt: skip
    cards = {card.name: card for card in library.cards(factory)}
    escort = cards["Escort A"]
    assert (escort.unit_type, escort.alliance, escort.flagship, escort.class_name) == (
        "destroyer", "Allies", 1, "Testclass")  # fmt: skip
    assert json.loads(escort.attacks) == {"main": [6, 5, 5, None], "torpedo": [1, 1, 1, None]}
    assert [a["name"] for a in json.loads(escort.abilities)] == ["Close Escort", "Sub Hunter"]
    assert (escort.set_name, escort.set_number, escort.rarity, escort.year, escort.points) == (
        "Test Set", "1/40", "Common", 1941, 10)  # fmt: skip
    assert (cards["Carrier B"].plane_capacity, cards["Carrier B"].speed) == (3, "1")
    fighter = cards["Fighter C"]
    assert (fighter.unit_type, fighter.air_to_air, fighter.alliance, fighter.speed) == (
        "fighter", 2, "Axis", "A")  # fmt: skip
    assert cards["Boat D"].unit_type == "submarine"
    # Read again: the same list changes nothing.
    again = library.import_library(factory, raw=raw, json_file=True)
    assert len(again.outcomes[0].unchanged) == 4 and not again.outcomes[0].changed


def test_a_unit_of_the_list_that_is_wrong_is_named_by_its_nation_and_place(
    factory: SessionFactory,
) -> None:
    broken = json.loads(json.dumps(LIST))
    broken[1]["units"][1]["main_gunnery_attack"] = ["x", "-", "-", "-"]
    broken[1]["units"][0]["type"] = "Aircraft - Zeppelin"
    report = library.import_library(factory, raw=json.dumps(broken).encode(), json_file=True)
    assert not report.written and library.cards(factory) == ()
    assert any(line.startswith("Otherland, unit 2, attack_main: ") for line in report.problems)
    assert any(line.startswith("Otherland, unit 1, unit_type: ") for line in report.problems)
