"""An edit of a stored row that gives only some of its fields changes those and keeps every
other one as it was, never the model's default: for every service that edits a row by its
fields (services.fields.edited)."""

from __future__ import annotations

from typing import Any

from service_helpers import World, get_row

from tracker.db import SessionFactory
from tracker.models import Battery, Ship, Squadron
from tracker.models.fleet import BatteryUpdate, CounterUpdate, ShipUpdate, SquadronUpdate
from tracker.services import fleet, mines

COUNTER = {"counter_size": "long", "speed_rating": 3, "torpedo_factors": 2, "hull_boxes": 3,
           "fuel_full": 6, "fuel_empty": 1}  # fmt: skip


def _stored(factory: SessionFactory, table: type, row_id: int, model: type) -> dict[str, Any]:
    editable = set(model.model_fields) - {"version"}
    row = get_row(factory, table, row_id)  # type: ignore[call-overload]
    return {key: getattr(row, key) for key in editable if hasattr(row, key)}


def _ship_edits(factory: SessionFactory, ajax: int) -> list[tuple[Any, ...]]:
    battery = fleet.save_battery(factory, ship_id=ajax, mount="turret", calibre="6in", guns=8)
    mines.save_counter(factory, ship_id=ajax, **COUNTER)

    def edit_ship(**fields: Any) -> None:
        fleet.update_ship(factory, ship_id=ajax, fields=fields)

    return [
        (Ship, ajax, ShipUpdate, edit_ship, [{"notes": "Refit"}, {"structure_max": 12}]),
        (Battery, battery, BatteryUpdate,
         lambda **f: fleet.save_battery(factory, ship_id=ajax, battery_id=battery, **f),
         [{"guns": 6}, {"notes": "B turret"}]),
        (Ship, ajax, CounterUpdate,
         lambda **f: mines.save_counter(factory, ship_id=ajax, **f),
         [{"fuel_full": 5}, {"speed_rating": 4}]),
    ]  # fmt: skip


def test_every_edit_keeps_the_fields_it_is_not_given(
    world: World, factory: SessionFactory, ajax: int
) -> None:
    edits = _ship_edits(factory, ajax)
    edits.append((Squadron, world.alpha_id, SquadronUpdate,
                  lambda **f: fleet.update_squadron(factory, squadron_id=world.alpha_id, **f),
                  [{"notes": "Home Fleet"}, {"air": True}]))  # fmt: skip
    for table, row_id, model, edit, changes in edits:
        for given in changes:
            before = _stored(factory, table, row_id, model)
            edit(**given)
            assert _stored(factory, table, row_id, model) == before | given, (model, given)
