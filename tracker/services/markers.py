"""Submarine markers placed and moved: where a marker may lie, and how a placement is stored
(RULES.md §Subs ¶1-3).

Every path that puts a marker in a square asks one check, `check_squares`: an assignment, a
re-concealment, a move, and an undo or redo that puts a marker back. A placement's markers are
put in a fixed order (by square) and then stored in an order drawn at random, all with one
time, so that what the opponent reads of them (codes, ids, order, times, journal lines) depends
on their squares and the dice only: never on which marker is real, nor on the order the owner
typed them in.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from tracker.models import JournalEntry, Side, SubMarker, WasUnit
from tracker.models.campaign import utcnow
from tracker.models.kinds import JournalKind, MarkerState
from tracker.models.roster import MarkerPlace
from tracker.rules import was
from tracker.services import journal, secrets
from tracker.services.errors import InvalidInput
from tracker.services.fields import checked


@dataclass(frozen=True)
class Assignment:
    """Markers just assigned: their codes, which one is real, and the public seal."""

    codes: tuple[str, ...]  # in the order the owner typed their sectors
    real_code: str
    seals: tuple[str, ...]  # one per marker, in the order of codes


def square(sector: str) -> str:
    """A sector as one square: A4, a4 and " A4 " are one (compared casefolded, in Python: the
    databases' lower() folds ASCII only)."""
    return sector.strip().casefold()


def checked_sector(
    sector: str, turn: int | None, *, blank: bool, version: int | None = None
) -> MarkerPlace:
    """The sector as stored (stripped), the turn and the version, or InvalidInput."""
    if not sector.strip() and not blank:
        raise InvalidInput({"sector": "name the sector it is in"})
    values = {"sector": sector, "turn": turn, "version": version}
    return checked(MarkerPlace, values, names=("sector",))


def typed_sectors(sectors: Sequence[str], count: int) -> list[str]:
    """One sector per marker, each typed by the owner (`sector_N` names the Nth one's field)."""
    if isinstance(sectors, str) or len(sectors) != count:
        raise InvalidInput({"sectors": f"give one sector for each of the {count} markers"})
    typed = []
    for n, text in enumerate(sectors, start=1):
        try:
            typed.append(checked_sector(text, None, blank=False).sector)
        except InvalidInput as exc:  # said beside the marker's own sector field
            raise InvalidInput({f"sector_{n}": exc.errors["sector"]}) from None
    return typed


def _live(session: Session, side_id: int) -> Sequence[SubMarker]:
    return session.exec(select(SubMarker).where(
        SubMarker.side_id == side_id, SubMarker.state != MarkerState.REMOVED)).all()  # fmt: skip


def check_squares(
    session: Session, *, side_id: int, sectors: Sequence[str], fields: Sequence[str],
    moving: Collection[int] = (),
) -> None:  # fmt: skip
    """Refuse markers put in these sectors unless each has a square of its own: "no more than
    one sub per square" (RULES.md §Subs ¶3), decoys included, so that no stack gives a sub
    away. `fields` name the form field of each sector; `moving` are the markers leaving their
    squares (the one moved). A blank sector is off the map."""
    others = [marker for marker in _live(session, side_id) if marker.id not in moving]
    held = {square(marker.sector): marker.code for marker in others}
    placed = [square(sector) for sector in sectors]
    crowded = was.crowded_squares(placed, [square(marker.sector) for marker in others])
    errors = {}
    for index in crowded:
        holder = held.get(placed[index])
        errors[fields[index]] = (
            f"{sectors[index].strip()} already holds {holder}: one sub marker per sector"
            if holder
            else "one sub marker per sector: give each marker its own sector"
        )
    if errors:
        raise InvalidInput(errors)


def square_searched(session: Session, marker: SubMarker, now: tuple[int, int]) -> bool:
    """Whether the square this marker stands in was searched in this (scenario, turn): the one
    count of the hunt's "single unit within the square makes a search attempt" (RULES.md §Subs
    ¶4), read from the journal's searches of the side's markers, each kept with the square it
    was made in: whatever became of the marker found there since (a decoy sunk, a sub
    re-concealed, a marker moved in or out), the square stays searched. A marker off the map
    (no sector) is a square of its own."""
    details = session.exec(select(JournalEntry.detail).where(
        JournalEntry.side_id == marker.side_id, JournalEntry.kind == JournalKind.SEARCH,
        JournalEntry.scenario_id == now[0], JournalEntry.turn == now[1])).all()  # fmt: skip
    here = square(marker.sector)
    for detail in details:
        searched = json.loads(detail).get("after") or {}
        if (square(str(searched.get("sector") or "")) == here if here
                else searched.get("marker") == marker.code):  # fmt: skip
            return True
    return False


def searched_square(marker: SubMarker) -> dict[str, str]:
    """What a search's journal entry keeps of where it was made (`square_searched` reads it)."""
    return {"sector": marker.sector, "marker": marker.code}


def check_put_back(session: Session, marker_ids: Collection[int]) -> None:
    """Markers an undo or a redo put back in a square: the same one check (`journal` field)."""
    if not marker_ids:
        return
    for marker in session.exec(select(SubMarker).where(col(SubMarker.id).in_(marker_ids))).all():
        if marker.state == MarkerState.REMOVED:
            continue
        try:
            check_squares(session, side_id=marker.side_id, sectors=[marker.sector],
                          fields=["journal"], moving={marker.id or 0})  # fmt: skip
        except InvalidInput as exc:
            raise InvalidInput(
                {"journal": f"{marker.code} cannot go back: {exc.errors['journal']}"}
            ) from None


def _draw_codes(session: Session, side_id: int, count: int, rng: random.Random) -> list[str]:
    """Public codes drawn at random among the side's unused ones, so that neither their order
    nor their numbers tell which markers were placed together (RULES.md §Subs ¶2-3)."""
    used = set(session.exec(select(SubMarker.code).where(SubMarker.side_id == side_id)).all())
    width = 2 if len(used) + count <= 60 else 3  # keep a draw among many free codes
    free = [code for n in range(1, 10**width) if (code := f"M-{n:0{width}d}") not in used]
    return rng.sample(free, count)


def sealed_as(code: str, note: dict[str, Any]) -> dict[str, bool]:
    """What a marker's own seal commits to: its code, real or decoy (row ids are left out:
    they change when a campaign is exported and imported again)."""
    return {code: bool(note["real"])}


def place(
    session: Session, *, side: Side, campaign_id: int, unit: WasUnit, real: int,
    sectors: Sequence[str], turn: int | None, key: bytes | None, rng: random.Random,
) -> Assignment:  # fmt: skip
    """Store a placement's markers, each in its own checked square (`sectors`, as typed; `real`
    is 1-based in that order), with a random code and a seal of its own (RULES.md §Subs ¶1-3).

    The markers go in by square, then in an order the dice draw, all at one time: the rows,
    their ids and the journal's lines are the same whichever marker is real.
    """
    side_id = side.id or 0
    check_squares(session, side_id=side_id, sectors=sectors,
                  fields=[f"sector_{n}" for n in range(1, len(sectors) + 1)])  # fmt: skip
    order = sorted(range(len(sectors)), key=lambda index: square(sectors[index]))
    rng.shuffle(order)
    codes = _draw_codes(session, side_id, len(sectors), rng)
    at = utcnow()
    made: dict[int, tuple[str, str]] = {}
    for code, index in zip(codes, order, strict=True):
        # One commitment per marker: its seal binds its own code and role, nothing else.
        salt = secrets.new_salt()
        note = {"unit": unit.id, "real": index == real - 1, "salt": salt, "v": 2}
        seal = secrets.seal_of(sealed_as(code, note), salt)
        session.add(SubMarker(
            side_id=side_id, unit_id=unit.id or 0, code=code, sector=sectors[index],
            created_turn=turn, secret=secrets.seal_note(note, key), seal=seal, at=at,
        ))  # fmt: skip
        session.flush()
        journal.append(
            session, campaign_id=campaign_id, kind=JournalKind.MARKER, side_id=side_id,
            summary=f"{side.name}: marker {code} placed in {sectors[index] or '?'} (seal {seal})",
        )  # fmt: skip
        made[index] = (code, seal)
    typed = [made[index] for index in range(len(sectors))]
    return Assignment(codes=tuple(code for code, _ in typed), real_code=typed[real - 1][0],
                      seals=tuple(seal for _, seal in typed))  # fmt: skip
