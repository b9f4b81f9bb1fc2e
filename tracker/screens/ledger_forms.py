"""Fields of the minefield ledger's forms: a minefield's place and owner, its sowing, an air
drop, a drift, a boundary, a turn, a status and a ship's torpedo attack."""

from __future__ import annotations

from typing import Any

from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec
from tracker.services.mines import (
    AirDrop,
    BoundaryView,
    CounterView,
    MinefieldCreate,
    MinefieldTurn,
    SeaBoundaryBase,
)
from tracker.services.roster import UnitView
from tracker.services.visibility import HIDDEN


def aerial_fields() -> list[FieldSpec]:
    return [
        FieldSpec("aircraft", "Aircraft"),
        *specs_from(AirDrop, keys=("naval_attack",)),
        FieldSpec("circled", "Naval Attack factor is circled (3-6 works, else 4-6)",
                  kind="bool", value=False),
        *specs_from(AirDrop, keys=("land_attack",)),
        FieldSpec("rolls", "d6 per minefield dropped, e.g. 5 2 (blank: roll them)",
                  optional=True),
        FieldSpec("drops", "or how many to drop (rolled for you)", kind="int", value="",
                  low=1, high=99, optional=True),
    ]  # fmt: skip


def sector_fields() -> list[FieldSpec]:
    return specs_from(MinefieldCreate, keys=("sector",),
                      sector={"placeholder": "e.g. K7; blank with a boundary"})  # fmt: skip


def sow_fields(
    layers: dict[int, list[tuple[str, str]]], owner: int | None = None
) -> list[FieldSpec]:
    """The sowing form's own fields (after its owner and place); `layers`, each side's possible
    minelayers (minelayers()), the choices following the owner picked."""
    none = [("(none: name it below)", "")]
    return [
        *specs_from(MinefieldCreate, keys=("laid_by",)),
        FieldSpec("layer", "Minelayer (own ships, subs)", kind="select", value="",
                  options=layers.get(owner, none) if owner is not None else none,
                  depends_on="side_id", options_for=layers),
        *specs_from(MinefieldCreate, keys=("layer_name", "turn", "complete", "drifting",
                                           "secret", "notes")),
    ]  # fmt: skip


def boundary_fields() -> list[FieldSpec]:
    return specs_from(SeaBoundaryBase)


def complete_fields() -> list[FieldSpec]:
    """The turn a minefield being sown is complete (blank: the current one)."""
    return specs_from(MinefieldTurn, keys=("turn",))


def place_fields(boundaries: tuple[BoundaryView, ...]) -> list[FieldSpec]:
    return [
        FieldSpec("boundary", "Boundary (Second World War at Sea)", kind="select",
                  value=boundaries[0].id if boundaries else 0,
                  options=[("(none: a War at Sea sector)", 0)]
                  + [(b.label, b.id) for b in boundaries]),
        *sector_fields(),
    ]  # fmt: skip


def place_from(values: dict[str, Any], to: str = "") -> dict[str, Any]:
    """The place the form's fields give, taken out of the values, each key after `to`."""
    return {f"{to}boundary_id": values.pop("boundary") or None, f"{to}sector": values.pop("sector")}


def side_field(sides: list[tuple[str, int]]) -> FieldSpec:
    return FieldSpec(
        "side_id", "Owner", kind="select", value=sides[0][1] if sides else 0, options=sides
    )


def minelayers(
    sides: list[tuple[str, int]], ships: list[CounterView], subs: dict[int, list[UnitView]]
) -> dict[int, list[tuple[str, str]]]:
    layers: dict[int, list[tuple[str, str]]] = {}
    for _, side_id in sides:
        layers[side_id] = [("(none: name it below)", ""),
                           *((s.name, f"ship:{s.ship_id}") for s in ships
                             if s.side_id == side_id),
                           *((f"{u.name} (War at Sea submarine)", f"sub:{u.id}")
                             for u in subs.get(side_id, ()) if not u.destroyed)]  # fmt: skip
    return layers


def drift_fields(boundaries: tuple[BoundaryView, ...]) -> list[FieldSpec]:
    return [
        *place_fields(boundaries),
        FieldSpec("d6", "d6 direction (blank: none)", kind="int", value="", low=1, high=6,
                  optional=True),
        *complete_fields(),  # the turn at whose end it drifted (blank: the one in play)
    ]  # fmt: skip


def status_fields() -> list[FieldSpec]:
    options = [("swept", "swept"), ("expended", "expended"), ("active (a correction)", "active")]
    return [FieldSpec("status", "Status", kind="select", value="swept", options=options)]


def torpedo_fields(ship: CounterView) -> list[FieldSpec]:
    left = HIDDEN if ship.mines_hidden else ship.torpedoes_left
    return [
        FieldSpec("factors", f"Torpedo factors (of {left})", kind="int",
                  value="" if ship.mines_hidden else ship.torpedoes_left or "", low=1,
                  high=99),
        FieldSpec("target", "Target", optional=True),
    ]  # fmt: skip


def passphrase_field(whose: str = "Side's") -> FieldSpec:
    return FieldSpec("passphrase", f"{whose} passphrase (if it has one)", password=True,
                     optional=True)  # fmt: skip
