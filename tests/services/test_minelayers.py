"""The minelayer of a minefield: one of the owner's own ships, or a War at Sea submarine of the
owner's roster (RULES.md §Mines, submarines as minelayers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Refused, World

from tracker.db import SessionFactory
from tracker.models.kinds import UnitType
from tracker.services import mines, roster
from tracker.services.roster import UnitFields


def _unit(factory: SessionFactory, side_id: int, name: str, unit_type: str) -> int:
    return roster.save_unit(factory, side_id=side_id, fields=UnitFields(
        name=name, unit_type=unit_type, points=10))  # fmt: skip


def _sow(factory: SessionFactory, world: World, **options: Any) -> Callable[[], int]:
    """The sowing, for Red across one boundary (made here, before the call is tried)."""
    boundaries = mines.ledger(factory, campaign_id=world.campaign_id).boundaries
    boundary = (
        boundaries[0].id
        if boundaries
        else mines.add_boundary(
            factory, campaign_id=world.campaign_id, area_a="North Sea", area_b="Skagerrak"
        )
    )
    return lambda: mines.sow_minefield(factory, side_id=world.red_id, boundary_id=boundary,
                                       **options)  # fmt: skip


def test_a_war_at_sea_submarine_of_the_owners_roster_lays_a_minefield(
    factory: SessionFactory, world: World
) -> None:
    sub = _unit(factory, world.red_id, "U-32", "submarine")
    field_id = _sow(factory, world, laid_by="submarine", layer_unit_id=sub)()
    field = next(f for f in mines.ledger(factory, campaign_id=world.campaign_id).minefields
                 if f.id == field_id)  # fmt: skip
    assert (field.layer, field.laid_by) == ("U-32", "submarine")


def test_another_sides_submarine_is_refused(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    theirs = _unit(factory, world.blue_id, "Thistle", "submarine")
    error = refused(_sow(factory, world, laid_by="submarine", layer_unit_id=theirs), "layer")
    assert "Thistle is not on Red's roster" in error.errors["layer"]


@pytest.mark.parametrize("unit_type", [kind for kind in UnitType if kind != UnitType.SUBMARINE])
def test_a_unit_that_is_no_submarine_lays_no_minefield(
    factory: SessionFactory, world: World, refused: Refused, unit_type: str
) -> None:
    unit = _unit(factory, world.red_id, "Z-1", unit_type)
    refused(_sow(factory, world, laid_by="submarine", layer_unit_id=unit), "layer")


@settings(max_examples=examples(10), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(laid_by=st.sampled_from(["surface", "aircraft", "zeppelin", ""]))
def test_a_submarine_lays_only_as_a_submarine(
    factory: SessionFactory, world: World, refused: Refused, laid_by: str
) -> None:
    sub = mines_sub(factory, world)
    refused(_sow(factory, world, laid_by=laid_by, layer_unit_id=sub), "laid_by")


def mines_sub(factory: SessionFactory, world: World) -> int:
    """Red's War at Sea submarine, made once per database."""
    units = roster.roster(factory, side_id=world.red_id).units
    found = next((unit.id for unit in units if unit.name == "U-33"), None)
    return found if found is not None else _unit(factory, world.red_id, "U-33", "submarine")
