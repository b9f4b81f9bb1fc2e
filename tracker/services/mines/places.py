"""A minefield's record: where it lies (in its columns, or sealed when it is secret), the turn
of a change, and the journal line of a change (RULES.md §Mines, §Subs ¶12-13).

A secret minefield keeps its place and notes in a sealed note, under the side's passphrase like
a submarine marker's; every room that reads or moves a minefield opens and seals it here.
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session

from tracker.models import Minefield, SeaBoundary, Side
from tracker.models.kinds import JournalKind, MinefieldStatus
from tracker.models.mines import MinefieldCreate, MinefieldTurn
from tracker.services import journal, secrets, visibility
from tracker.services.common import beyond_ids, first_where, get_row, require_version
from tracker.services.errors import InvalidInput
from tracker.services.fields import checked


def label(
    session: Session, boundary_id: int | None, sector: str,
    boundaries: dict[int, SeaBoundary] | None = None,
) -> str:  # fmt: skip
    """`boundaries` holds the campaign's boundaries by id, when the caller loaded them once."""
    if boundary_id is not None:
        boundary = (boundaries or {}).get(boundary_id) or session.get(SeaBoundary, boundary_id)
        return f"{boundary.area_a} | {boundary.area_b}" if boundary else "?"
    return f"sector {sector}" if sector else "?"


def opened(
    session: Session, field: Minefield, key: bytes | None,
    boundaries: dict[int, SeaBoundary] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A minefield's place, notes and path, opened from its sealed note when secret (which names its
    boundary by its areas: an import cannot rewrite an id); `boundaries` by id, when loaded once."""
    if not field.secret:
        return {"boundary_id": field.boundary_id, "sector": field.sector, "notes": field.notes,
                "path": json.loads(field.path), "layer_name": field.layer_name}  # fmt: skip
    place = secrets.open_note(field.sealed, key)
    areas = place.pop("boundary", None)
    place.setdefault("boundary_id", None)
    if areas and boundaries is not None:
        place["boundary_id"] = next((row.id for row in boundaries.values()
                                     if [row.area_a, row.area_b] == list(areas)), None)  # fmt: skip
    elif areas:
        named = SeaBoundary.area_a == areas[0], SeaBoundary.area_b == areas[1]
        here = SeaBoundary.campaign_id == field.campaign_id
        boundary = first_where(session, SeaBoundary, here, *named)
        place["boundary_id"] = boundary.id if boundary else None
    return place


def store(session: Session, field: Minefield, place: dict[str, Any], key: bytes | None) -> None:
    if field.secret:
        sealed = {key_: value for key_, value in place.items() if key_ != "boundary_id"}
        boundary = session.get(SeaBoundary, place["boundary_id"]) if place["boundary_id"] else None
        sealed["boundary"] = [boundary.area_a, boundary.area_b] if boundary else None
        field.sealed = secrets.seal_note(sealed, key)
        field.boundary_id, field.sector, field.notes, field.path = None, "", "", "[]"
        field.layer_name = ""
    else:
        field.sealed = ""
        field.boundary_id, field.sector = place["boundary_id"], place["sector"]
        field.notes, field.path = place["notes"], json.dumps(place["path"])
        field.layer_name = place.get("layer_name", "")


def validated(
    session: Session, campaign_id: int, boundary_id: int | None, sector: str,
    errors: dict[str, str],
) -> str:  # fmt: skip
    sector = sector.strip()
    if (boundary_id is None) == (not sector):
        errors["boundary"] = "give a boundary (Second World War at Sea) or a sector (War at " \
            "Sea), not both"  # fmt: skip
    elif boundary_id is not None:
        boundary = None if beyond_ids(boundary_id) else session.get(SeaBoundary, boundary_id)
        if boundary is None or boundary.campaign_id != campaign_id:
            errors["boundary"] = "that boundary is not on this campaign's map: add it first"
    try:
        checked(MinefieldCreate, {"sector": sector}, names=("sector",))
    except InvalidInput as exc:
        errors.update(exc.errors)
    return sector


def turn_of(session: Session, campaign_id: int, turn: int | None) -> tuple[int | None, int | None]:
    """The scenario in play and the turn: the one given (not beyond the current turn of a
    scenario in play), else the current one; None between scenarios when none is given."""
    checked(MinefieldTurn, {"turn": turn})
    playing = journal.scenario_in_play(session, campaign_id)
    if playing is not None and turn is not None and turn > playing.turn:
        raise InvalidInput({"turn": f"{playing.title} is at turn {playing.turn}: a turn from 1 "
                            f"to {playing.turn}, or blank for this one"})  # fmt: skip
    return (playing.id if playing else None), (turn if turn is not None else
                                               (playing.turn if playing else None))  # fmt: skip


def journal_laid(
    session: Session,
    side: Side,
    field: Minefield,
    summary: str,
    key: bytes | None,
    dice: dict[str, Any] | None = None,
    changes: tuple[journal.RowChange, ...] = (),
) -> None:
    """A minefield laid or drifted, journaled: a secret one by its number (RULES.md §Secrets)."""
    said, sealed = summary, None
    if field.secret:
        said = f"{side.name}: secret minefield #{field.id} ({field.status})"
        sealed, dice = visibility.sealed_detail(key, summary=summary, dice=dice), None
    journal.append(
        session,
        campaign_id=field.campaign_id,
        kind=JournalKind.MINEFIELD,
        side_id=side.id,
        summary=said,
        dice=dice,
        changes=changes,
        sealed=sealed,
    )


def field_and_side(
    session: Session, minefield_id: int, version: int | None = None
) -> tuple[Minefield, Side]:
    """The minefield and its owner, at the `version` the player's form showed."""
    field = get_row(session, Minefield, minefield_id)
    if field.status == MinefieldStatus.VOID:
        raise InvalidInput({"minefield": f"minefield #{minefield_id} was undone"})
    require_version(field, version, f"Minefield #{minefield_id}")
    return field, get_row(session, Side, field.side_id)


def field_change(
    session: Session, field: Minefield, side: Side, before: dict[str, Any], summary: str,
    dice: dict[str, Any] | None = None,
) -> None:  # fmt: skip
    change = journal.row_change("minefield", field.id, before, journal.row_state(field))
    journal.append(
        session, campaign_id=field.campaign_id, kind=JournalKind.MINEFIELD, side_id=side.id,
        summary=summary, dice=dice, changes=(change,),
    )  # fmt: skip
