"""May this unit act: one answer per act, asked by every roster (RULES.md §Mines, submarines as
minelayers).

A unit that lays minefields and attacks with torpedoes is a ship of the record sheets (its
Second World War at Sea counter) or a unit of a War at Sea roster. Whether it is a submarine,
which minefield it is sowing, and so whether it may attack with its torpedoes or begin sowing,
is answered here for both alike, from the minefields that name it as their layer: the record
sheet, the ledger and the roster ask the same question and get the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session

from tracker.models import Minefield, Ship, WasUnit
from tracker.models.kinds import Layer, MinefieldStatus, UnitType
from tracker.rules import swwas
from tracker.services.common import rows_where
from tracker.services.errors import InvalidInput


@dataclass(frozen=True)
class Actor:
    """A unit that may act: a record-sheet ship (`ship_id`) or a roster unit (`unit_id`)."""

    name: str
    side_id: int
    submarine: bool
    ship_id: int | None = None
    unit_id: int | None = None
    # A ship's minefields loaded in place of torpedo factors; a War at Sea unit keeps no count.
    mines_loaded: int | None = None
    out_of_play: str | None = None  # why it acts no more: sunk, or destroyed


def destroyed(unit: WasUnit) -> bool:
    """Destroyed: its damage reached its hull points (RULES.md §Subs ¶5)."""
    return unit.damage >= unit.hull_points


def is_submarine(row: Ship | WasUnit) -> bool:
    """The one definition of a submarine: a ship by its type abbreviation (SS...), a War at Sea
    unit by its unit type (RULES.md §Mines, submarines as minelayers)."""
    if isinstance(row, WasUnit):
        return row.unit_type == UnitType.SUBMARINE
    return swwas.is_submarine_type(row.type_abbrev)


def actor(row: Ship | WasUnit) -> Actor:
    if isinstance(row, WasUnit):
        gone = "was destroyed: it is out of play (§5)" if destroyed(row) else None
        return Actor(row.name, row.side_id, is_submarine(row), unit_id=row.id, out_of_play=gone)
    return Actor(row.name, row.side_id, is_submarine(row), ship_id=row.id,
                 mines_loaded=row.mines_loaded,
                 out_of_play="is sunk" if row.sunk else None)  # fmt: skip


def require_submarine(unit: WasUnit) -> None:
    """Refuse a roster unit that is no submarine, or one destroyed: only a submarine in play
    places markers and rolls for the minefields it enters (RULES.md §Subs ¶1, ¶5, ¶12)."""
    who = actor(unit)
    if not who.submarine:
        raise InvalidInput({"unit": f"{who.name} is not a submarine"})
    if who.out_of_play:
        raise InvalidInput({"unit": f"{who.name} {who.out_of_play}"})


def laid(session: Session, who: Actor) -> list[Minefield]:
    """The minefields this unit laid or is laying (not undone), oldest first."""
    layer = (
        Minefield.layer_unit_id == who.unit_id
        if who.unit_id is not None
        else Minefield.layer_ship_id == who.ship_id
    )
    return rows_where(session, Minefield, layer, Minefield.status != MinefieldStatus.VOID)


def sowing_id(fields: Iterable[Minefield]) -> int | None:
    """Of a layer's minefields, the one it is sowing as a submarine, if any: what stops its
    torpedoes and its next minefield (RULES.md §Mines)."""
    return next((field.id for field in fields if field.status == MinefieldStatus.SOWING
                 and field.laid_by == Layer.SUBMARINE), None)  # fmt: skip


def mines_laid(fields: Iterable[Minefield]) -> int:
    """Of a layer's minefields, those laid as a submarine: each took a loaded torpedo factor."""
    return sum(1 for field in fields if field.laid_by == Layer.SUBMARINE)


def torpedo_refusal(session: Session, who: Actor) -> str | None:
    """Why this unit may not attack with its torpedoes now, or None (RULES.md §Mines)."""
    if who.out_of_play:
        return f"{who.name} {who.out_of_play}"
    refusal = swwas.torpedo_refusal(submarine_sowing=sowing_id(laid(session, who)))
    return f"{who.name} {refusal}" if refusal else None


def sowing_refusal(session: Session, who: Actor, laid_by: str) -> dict[str, str]:
    """Why this unit may not begin sowing a minefield laid this way, by field, or nothing
    (RULES.md §Mines): a submarine sows one minefield at a time, a ship only those it loaded."""
    if who.out_of_play:
        return {"layer": f"{who.name} {who.out_of_play}"}
    if who.unit_id is not None and not who.submarine:
        return {"layer": f"{who.name} is no submarine: choose a ship, or a submarine"}
    fields = laid(session, who)
    refusal = swwas.sowing_refusal(submarine=who.submarine, laid_by=str(laid_by),
                                   submarine_sowing=sowing_id(fields))  # fmt: skip
    if refusal is not None:
        field, why = refusal
        if field == "laid_by" and not who.submarine and who.ship_id is not None:
            why += " (a ship is a submarine by its type: SS)"
        return {field: f"{who.name} {why}"}
    done = mines_laid(fields)
    if laid_by == Layer.SUBMARINE and who.mines_loaded is not None and who.mines_loaded <= done:
        return {"layer": f"{who.name} has no minefields aboard ({who.mines_loaded} loaded, "
                f"{done} laid)"}  # fmt: skip
    return {}
