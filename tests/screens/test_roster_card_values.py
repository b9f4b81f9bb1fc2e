"""The roster shows what a unit took from its card: its air-to-air dice before its attack dice,
its flagship rating and plane capacity beside its type; the unit form asks every field the
unit's model declares, in the model's order, with the unit's values."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tracker.models.roster import UnitCreate
from tracker.screens.roster_forms import unit_fields
from tracker.screens.roster_rows import UNIT_COLUMNS, unit_row
from tracker.services.roster import ATTACK_ROWS, UnitView


def _unit(**values: Any) -> UnitView:
    return UnitView.model_validate({"id": 1, "name": "Akagi", "unit_type": "carrier", "damage": 0,
                                    "crippled": False, "destroyed": False, **values})  # fmt: skip


def _cell(unit: UnitView, column: str) -> str:
    cell = unit_row(unit)[UNIT_COLUMNS.index(column)]
    return cell.plain if isinstance(cell, Text) else str(cell)


def test_a_units_air_to_air_dice_flagship_rating_and_plane_capacity_show_in_its_row() -> None:
    akagi = _unit(flagship=1, plane_capacity=4, attacks={"anti_air": [3, 2, None, None]})
    assert (_cell(akagi, "Type"), _cell(akagi, "Attacks")) == (
        "carrier, flagship 1, planes 4", "AA 3 2 - -",
    )  # fmt: skip
    folgore = _unit(name="C.202 Folgore", unit_type="fighter", air_to_air=2,
                    attacks={"anti_air": [6, None, None, None]})  # fmt: skip
    assert (_cell(folgore, "Type"), _cell(folgore, "Attacks")) == ("fighter", "Air 2, AA 6 - - -")
    # None of them when the card has none; an air-to-air of 0 is still said.
    assert (_cell(_unit(), "Type"), _cell(_unit(air_to_air=0), "Attacks")) == ("carrier", "Air 0")


def test_the_unit_form_asks_every_field_of_the_model_in_its_order_with_the_units_values() -> None:
    keys = [spec.key for spec in unit_fields(None)]
    declared = list(UnitCreate.model_fields)
    at = declared.index("attacks")
    assert keys == [*declared[:at], *(f"attack_{row}" for row in ATTACK_ROWS), *declared[at + 1 :]]
    akagi = _unit(class_name="Akagi", air_to_air=1, flagship=1, plane_capacity=4)
    values = {spec.key: spec.value for spec in unit_fields(akagi)}
    assert [values[key] for key in ("class_name", "air_to_air", "flagship", "plane_capacity")] == [
        "Akagi", 1, 1, 4,
    ]  # fmt: skip
    assert unit_fields(_unit())[keys.index("flagship")].value == ""  # blank: none
