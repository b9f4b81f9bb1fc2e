"""A unit built from a card keeps its abilities' names; their text is read from the library card
it is of (tracker.services.building.unit_abilities): a copy `Name (2)` is of the card too, an
ability the card does not have and a unit of no card keep their names alone."""

from __future__ import annotations

import csv
import io

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World
from sqlalchemy import text

from tracker.db import SessionFactory, session_scope
from tracker.services import building, library, library_export, roster
from tracker.services.building import Ability

SETTINGS = settings(
    max_examples=examples(15), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
# Words a card's text holds, markup and all: shown as typed, never read as markup.
WORDS = st.text("abcdefgh [/]", min_size=1, max_size=20).map(str.strip).filter(bool)
ABILITY_NAMES = st.text("ABCDEFGHabcdefgh ", min_size=1, max_size=16).map(str.strip).filter(bool)


def _clear(factory: SessionFactory) -> None:
    with session_scope(factory) as session:
        for table in ("wasunit", "unitcard"):
            session.connection().execute(text(f"DELETE FROM {table}"))


def _card_file(name: str, nation: str, abilities: list[tuple[str, str]]) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(["name", "nation", "unit_type", "points", "abilities"])
    cell = library_export.abilities_text({"name": n, "text": t} for n, t in abilities)
    writer.writerow([name, nation, "cruiser", 10, cell])
    return out.getvalue().encode()


@SETTINGS
@given(
    abilities=st.lists(st.tuples(ABILITY_NAMES, st.lists(WORDS, max_size=3).map("\n".join)),
                       min_size=1, max_size=4, unique_by=lambda a: a[0].casefold()),
    own=ABILITY_NAMES,
    nation=st.sampled_from(["Germany", "Österreich", ""]),
)  # fmt: skip
def test_a_units_abilities_take_their_text_from_its_card(
    factory: SessionFactory, world: World, abilities: list[tuple[str, str]], own: str,
    nation: str,
) -> None:  # fmt: skip
    _clear(factory)
    library.import_library(factory, raw=_card_file("Emden", nation, abilities))
    (card,) = library.cards(factory)
    first, copy = building.add_units(factory, side_id=world.blue_id,
                                     picks=[(card.id, ""), (card.id, "Emden (2)")])  # fmt: skip
    expected = tuple(Ability(name, words) for name, words in abilities)
    assert building.unit_abilities(factory, unit_id=first) == expected
    assert building.unit_abilities(factory, unit_id=copy) == expected
    # An ability the player gave the unit, which the card does not have: its name alone.
    mine = own if own.casefold() not in {n.casefold() for n, _ in abilities} else f"{own} x"
    unit = next(u for u in roster.roster(factory, side_id=world.blue_id).units if u.id == first)
    fields = {"name": unit.name, "nation": unit.nation, "unit_type": str(unit.unit_type),
              "points": str(unit.points), "hull_points": str(unit.hull_points),
              "abilities": "; ".join([*unit.abilities, mine]), "version": unit.version}  # fmt: skip
    roster.save_unit(factory, side_id=world.blue_id, unit_id=first,
                     fields=roster.unit_fields_from(fields))  # fmt: skip
    assert building.unit_abilities(factory, unit_id=first) == (*expected, Ability(mine, ""))


def test_a_unit_of_no_card_keeps_its_abilities_names_alone(
    factory: SessionFactory, world: World
) -> None:
    _clear(factory)
    library.import_library(factory, raw=_card_file("Emden", "Germany", [("Radar", "at night")]))
    # The same name under another nation is another card's unit.
    unit_id = roster.save_unit(factory, side_id=world.blue_id, fields=roster.unit_fields_from(
        {"name": "Emden", "nation": "Japan", "unit_type": "cruiser", "points": "10",
         "abilities": "Radar; Flagship"}))  # fmt: skip
    assert building.unit_abilities(factory, unit_id=unit_id) == (
        Ability("Radar", ""),
        Ability("Flagship", ""),
    )
