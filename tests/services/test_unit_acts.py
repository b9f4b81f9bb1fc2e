"""May this unit act: one rule per act for every roster's units, a record-sheet ship's counter
and a War at Sea roster's unit alike (RULES.md §Mines, submarines as minelayers;
services/acts.py)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Refused, World, attempt

from tracker.db import SessionFactory
from tracker.services import history, hunt, markers, mines, roster
from tracker.services.errors import InvalidInput
from tracker.services.roster import UnitFields

AddShip = Callable[..., int]
ROSTERS = ("record sheet", "War at Sea roster")
LAID_BY = ("surface", "submarine", "aircraft")
_names = itertools.count(1)


@dataclass(frozen=True)
class Layer:
    """A minelayer of some roster: how it begins sowing and how it attacks with torpedoes."""

    sow: Callable[..., int]
    torpedo: Callable[[], str]
    torpedo_field: str  # the form field a refused torpedo attack is said beside


def _boundary(factory: SessionFactory, world: World) -> int:
    boundaries = mines.ledger(factory, campaign_id=world.campaign_id).boundaries
    if boundaries:
        return boundaries[0].id
    return mines.add_boundary(factory, campaign_id=world.campaign_id, area_a="North Sea",
                              area_b="Skagerrak")  # fmt: skip


def _unit(factory: SessionFactory, world: World, unit_type: str) -> int:
    return roster.save_unit(factory, side_id=world.red_id, fields=UnitFields(
        name=f"U-{next(_names)}", unit_type=unit_type, points=1))  # fmt: skip


def _ship(factory: SessionFactory, world: World, add_ship: AddShip, type_abbrev: str) -> int:
    """A ship of Red's with a counter: 6 torpedo factors, 4 of them given over to minefields."""
    ship = add_ship(world.raider_id, f"S-{next(_names)}", type_abbrev=type_abbrev)
    mines.save_counter(factory, ship_id=ship, counter_size="small", speed_rating=1,
                       torpedo_factors=6, mines_loaded=4)  # fmt: skip
    return ship


def _layer(
    factory: SessionFactory, world: World, add_ship: AddShip, kind: str, submarine: bool = True
) -> Layer:
    """A submarine (or, not `submarine`, a destroyer) of this roster, with what it may do."""
    boundary = _boundary(factory, world)
    if kind == "record sheet":
        ship = _ship(factory, world, add_ship, "SS" if submarine else "DD")
        return Layer(
            sow=lambda laid_by="submarine" if submarine else "surface": mines.sow_minefield(
                factory, side_id=world.red_id, boundary_id=boundary, laid_by=laid_by,
                layer_ship_id=ship),
            torpedo=lambda: mines.torpedo_attack(factory, ship_id=ship, factors=1),
            torpedo_field="factors",
        )  # fmt: skip
    unit = _unit(factory, world, "submarine" if submarine else "destroyer")
    if not submarine:
        return Layer(
            sow=lambda laid_by="surface": mines.sow_minefield(
                factory, side_id=world.red_id, boundary_id=boundary, laid_by=laid_by,
                layer_unit_id=unit),
            torpedo=lambda: "",
            torpedo_field="",
        )  # fmt: skip
    real = markers.assign_markers(factory, unit_id=unit, real=1,
                                 sectors=[f"A{unit}", f"B{unit}"]).real_code  # fmt: skip
    marker = next(m.id for m in roster.roster(factory, side_id=world.red_id).markers
                  if m.code == real)  # fmt: skip
    return Layer(
        sow=lambda laid_by="submarine": mines.sow_minefield(
            factory, side_id=world.red_id, boundary_id=boundary, laid_by=laid_by,
            layer_unit_id=unit),
        torpedo=lambda: hunt.sub_attacks(factory, marker_id=marker, same_sector=False,
                                           torpedo_dice=[6]),
        torpedo_field="marker",
    )  # fmt: skip


@pytest.mark.parametrize("kind", ROSTERS)
def test_mines_a_submarine_sowing_makes_no_torpedo_attack_and_begins_no_other_minefield(
    factory: SessionFactory, world: World, add_ship: AddShip, refused: Refused, kind: str
) -> None:
    sub = _layer(factory, world, add_ship, kind)
    first = sub.sow()
    error = refused(sub.torpedo, sub.torpedo_field)
    assert error.errors[sub.torpedo_field].endswith(
        f" is sowing minefield #{first}: no torpedo attacks until it is complete"
    )
    error = refused(sub.sow, "layer")
    assert error.errors["layer"].endswith(f" is still sowing minefield #{first}: complete it first")
    mines.complete_minefield(factory, minefield_id=first)
    assert sub.torpedo()
    second = sub.sow()
    refused(sub.torpedo, sub.torpedo_field)
    # Its sowing undone, it is free again: the rule reads the minefields as they stand.
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert mines.ledger(factory, campaign_id=world.campaign_id).minefields[-1].id == first
    assert sub.torpedo() and sub.sow() > second


def test_mines_a_surface_minelayer_sowing_may_still_attack_with_torpedoes(
    factory: SessionFactory, world: World, add_ship: AddShip
) -> None:
    ship = _layer(factory, world, add_ship, "record sheet", submarine=False)
    ship.sow()
    assert ship.torpedo()
    ship.sow()  # and may begin another: the source stops submarines only


@settings(
    max_examples=examples(20),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(ROSTERS),
    acts=st.lists(st.sampled_from(["sow", "complete", "torpedo"]), max_size=8),
)
def test_mines_every_act_of_every_rosters_submarine_follows_one_rule(
    factory: SessionFactory, world: World, add_ship: AddShip, kind: str, acts: list[str]
) -> None:
    """Over generated acts, a submarine attacks with torpedoes and begins a minefield exactly
    when none of its minefields is still being sown (a ship also needs one aboard: 4 loaded)."""
    sub = _layer(factory, world, add_ship, kind)
    begun = 0
    sowing: int | None = None
    for act in acts:
        if act == "complete" and sowing is not None:
            mines.complete_minefield(factory, minefield_id=sowing)
            sowing = None
        elif act == "torpedo":
            outcome = attempt(sub.torpedo)
            assert isinstance(outcome, InvalidInput) == (sowing is not None), outcome
        elif act == "sow":
            aboard = kind == "War at Sea roster" or begun < 4
            if sowing is None and aboard:
                begun, sowing = begun + 1, sub.sow()
            else:
                assert isinstance(attempt(sub.sow), InvalidInput)


# Each kind of minelayer, and the ways of laying it may sow by: only a submarine sows as one, a
# submarine only as one; aircraft drop theirs through the aerial drop; a roster's surface units
# lay none here. The ships are known by type (SS), the roster's units by unit type.
ACCEPTED = {
    "SS ship": {"submarine"},
    "ssm ship": {"submarine"},
    "DD ship": {"surface"},
    "War at Sea submarine": {"submarine"},
    "War at Sea destroyer": set(),
    "named only": {"surface"},
    "no minelayer": {"surface"},
}


@pytest.mark.parametrize(("layer", "laid_by"), itertools.product(ACCEPTED, LAID_BY))
def test_mines_only_a_submarine_sows_as_one_every_layer_by_every_way(
    factory: SessionFactory, world: World, add_ship: AddShip, refused: Refused, layer: str,
    laid_by: str,
) -> None:  # fmt: skip
    options: dict[str, object] = {}
    if layer.endswith(" ship"):
        options["layer_ship_id"] = _ship(factory, world, add_ship, layer.split()[0])
    elif layer.startswith("War at Sea"):
        options["layer_unit_id"] = _unit(factory, world, layer.split()[-1])
    elif layer == "named only":
        options["layer_name"] = "Abdiel"

    boundary = _boundary(factory, world)

    def sow() -> int:
        return mines.sow_minefield(factory, side_id=world.red_id, laid_by=laid_by,
                                   boundary_id=boundary, **options)  # fmt: skip

    if laid_by in ACCEPTED[layer]:
        field = sow()
        assert mines.ledger(factory, campaign_id=world.campaign_id).minefields[-1].id == field
    else:
        error = refused(sow)
        assert set(error.errors) <= {"laid_by", "layer"}, error.errors


def test_mines_a_destroyer_that_sows_as_a_submarine_is_told_how_a_ship_is_one(
    factory: SessionFactory, world: World, add_ship: AddShip, refused: Refused
) -> None:
    ship, boundary = _ship(factory, world, add_ship, "DD"), _boundary(factory, world)
    error = refused(lambda: mines.sow_minefield(
        factory, side_id=world.red_id, laid_by="submarine", boundary_id=boundary,
        layer_ship_id=ship), "laid_by")  # fmt: skip
    assert error.errors["laid_by"].endswith(
        "is no submarine: only a submarine sows as one (a ship is a submarine by its type: SS)"
    )
