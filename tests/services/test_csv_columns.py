"""The columns of the roster and fleet CSV files are their families' fields, named as the
models name them: a field added to a model is a column at once, and a file written with the
columns players use keeps importing, its columns in any order. On SQLite and PostgreSQL."""

from __future__ import annotations

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.models.fleet import CounterBase, PrintedCounter, ShipCreate
from tracker.models.roster import UnitCreate
from tracker.services import csv_import, fleet, mines, roster
from tracker.services.csv_import import COLUMNS


def _names(kind: str) -> list[str]:
    return [column.name for column in COLUMNS[kind]]


def test_a_unit_card_file_has_a_column_per_field_and_one_per_attack_row() -> None:
    attacks = [f"attack_{row}" for row in roster.ATTACK_ROWS]
    card = list(UnitCreate.model_fields)
    at = card.index("attacks")
    assert _names("units") == [*card[:at], *attacks, *card[at + 1 :]]


def test_a_ship_file_has_a_column_per_field_of_a_new_ship() -> None:
    assert _names("ships") == list(ShipCreate.model_fields)


def test_a_counter_file_gives_the_counter_as_printed_never_the_damage_mines_did() -> None:
    assert _names("counters") == ["ship", "side", *PrintedCounter.model_fields]
    damage = set(CounterBase.model_fields) - set(PrintedCounter.model_fields)
    assert damage and not damage & set(_names("counters"))


SETTINGS = settings(
    max_examples=examples(12), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
# What a player's file gives besides a unit's name and type (the required ones), in its column.
# Cheap enough for every example's unit to fit the side's budget.
UNIT_CELLS = {
    "nation": "Germany", "points": "2", "year": "1940", "speed": "2", "armor": "2",
    "vital_armor": "3", "hull_points": "2", "damage": "0", "attack_main": "3 2 1 -",
    "abilities": "Wolfpack", "extra_decoys": "1", "notes": "from a spreadsheet",
}  # fmt: skip


@SETTINGS
@given(columns=st.permutations(list(UNIT_CELLS)).flatmap(
    lambda order: st.integers(0, len(order)).map(lambda n: order[:n])))  # fmt: skip
def test_a_unit_file_with_the_players_columns_in_any_order_imports(
    factory: SessionFactory, world: World, columns: list[str]
) -> None:
    header = ["unit_type", *columns, "name"]
    name = f"U-{len(roster.roster(factory, side_id=world.red_id).units) + 1}"
    cells = {**UNIT_CELLS, "name": name, "unit_type": "submarine"}
    raw = (",".join(header) + "\n" + ",".join(cells[key] for key in header) + "\n").encode()
    report = csv_import.import_csv(factory, kind="units", raw=raw, target_id=world.red_id)
    assert not report.problems
    (unit,) = [unit for unit in roster.roster(factory, side_id=world.red_id).units
               if unit.name == name]  # fmt: skip
    for key in columns:
        if key in ("points", "year", "armor", "vital_armor", "hull_points", "extra_decoys"):
            assert getattr(unit, key) == int(UNIT_CELLS[key])
    if "attack_main" in columns:
        assert unit.attacks["main"] == [3, 2, 1, None]


def test_a_counter_file_with_every_printed_column_imports(
    factory: SessionFactory, world: World
) -> None:
    ship = fleet.create_ship(
        factory, squadron_id=world.raider_id,
        fields=fleet.ShipFields(name="Schiff 16", structure_max=9),
    )  # fmt: skip
    values = {
        "counter_size": "long", "speed_rating": "2", "torpedo_factors": "4",
        "mines_loaded": "2", "hull_boxes": "3", "fuel_full": "4", "fuel_empty": "1",
    }  # fmt: skip
    header = ["ship", *PrintedCounter.model_fields]
    raw = (",".join(header) + "\nSchiff 16," + ",".join(values[key] for key in header[1:])
           + "\n").encode()  # fmt: skip
    report = csv_import.import_csv(factory, kind="counters", raw=raw, target_id=world.campaign_id)
    assert not report.problems
    counter = mines.counter(factory, ship_id=ship)
    assert {key: str(getattr(counter, key)) for key in values} == values
