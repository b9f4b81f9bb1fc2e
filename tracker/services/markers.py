"""Submarine markers placed, moved and re-concealed, and their seals: where a marker may lie,
and how a placement is stored (RULES.md §Subs ¶1-3, ¶10-11).

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

from tracker.db import SessionFactory
from tracker.models import JournalEntry, SubMarker, WasUnit
from tracker.models.campaign import utcnow
from tracker.models.kinds import MARKERS_OUT_OF_PLAY, JournalKind, MarkerState
from tracker.models.roster import MarkerPlace as MarkerPlace  # re-exported: the marker forms
from tracker.rules import was
from tracker.services import acts, journal, secrets
from tracker.services.common import Act, act, first_where, require_version, rows_where
from tracker.services.errors import InvalidInput
from tracker.services.fields import checked
from tracker.services.sealing import side_key


@dataclass(frozen=True)
class Assignment:
    codes: tuple[str, ...]  # in the order the owner typed their sectors
    real_code: str
    seals: tuple[str, ...]  # one per marker, in the order of codes


def checked_sector(
    sector: str, turn: int | None, *, blank: bool, version: int | None = None
) -> MarkerPlace:
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


def live(session: Session, *where: Any) -> Sequence[SubMarker]:
    """The markers in play (not removed) that `where` selects: a side's, or a unit's."""
    return rows_where(session, SubMarker, col(SubMarker.state).not_in(MARKERS_OUT_OF_PLAY), *where)


def found_now(marker: SubMarker, now: tuple[int, int]) -> bool:
    """Whether a search found this marker in this (scenario, turn) (RULES.md §Subs ¶4)."""
    return marker.search_found and (marker.search_scenario_id, marker.search_turn) == now


def state_shown(marker: SubMarker, now: tuple[int, int]) -> str:
    """A marker's state as the roster shows it to everyone: "found" for one a search found this
    turn, "removed" for a decoy an attack took out of play (whose, visibility says)."""
    if marker.state == MarkerState.CONCEALED and found_now(marker, now):
        return "found"
    return MarkerState.REMOVED if marker.state in MARKERS_OUT_OF_PLAY else marker.state


def check_squares(
    session: Session, *, side_id: int, sectors: Sequence[str], fields: Sequence[str],
    moving: Collection[int] = (),
) -> None:  # fmt: skip
    """Refuse markers put in these sectors unless each has a square of its own, decoys included, so
    that no stack gives a sub away (RULES.md §Subs ¶3); `fields` name each sector's form field,
    `moving` the markers leaving their squares. A blank sector is off the map."""
    others = [
        marker for marker in live(session, SubMarker.side_id == side_id) if marker.id not in moving
    ]
    held = {was.square(marker.sector): marker.code for marker in others}
    placed = [was.square(sector) for sector in sectors]
    crowded = was.crowded_squares(placed, [was.square(marker.sector) for marker in others])
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
    """Whether the marker's square was searched in this (scenario, turn) (RULES.md §Subs ¶4), by
    the journal's searches, each kept with its square: whatever became of the marker found there,
    the square stays searched. A marker off the map is a square of its own."""
    details = session.exec(select(JournalEntry.detail).where(
        JournalEntry.side_id == marker.side_id, JournalEntry.kind == JournalKind.SEARCH,
        JournalEntry.scenario_id == now[0], JournalEntry.turn == now[1])).all()  # fmt: skip
    here = was.square(marker.sector)
    for detail in details:
        searched = json.loads(detail).get("after") or {}
        if (was.square(str(searched.get("sector") or "")) == here if here
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
        if marker.state in MARKERS_OUT_OF_PLAY:
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
    a: Act[WasUnit], *, real: int, sectors: Sequence[str], turn: int | None,
    passphrase: str | None, rng: random.Random | None,
) -> Assignment:  # fmt: skip
    """Store a placement's markers (`real` 1-based in the order of `sectors`), each with a random
    code and its own seal (RULES.md §Subs ¶1-3): by square, then in an order the dice draw, at
    one time, so nothing the opponent reads depends on which is real."""
    session, unit, side_id = a.session, a.row, a.row.side_id
    key = side_key(session, side_id, passphrase)
    rng = rng or random.SystemRandom()
    check_squares(session, side_id=side_id, sectors=sectors,
                  fields=[f"sector_{n}" for n in range(1, len(sectors) + 1)])  # fmt: skip
    order = sorted(range(len(sectors)), key=lambda index: was.square(sectors[index]))
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
        a.log_side(
            JournalKind.MARKER, f"marker {code} placed in {sectors[index] or '?'} (seal {seal})"
        )
        made[index] = (code, seal)
    typed = [made[index] for index in range(len(sectors))]
    return Assignment(codes=tuple(code for code, _ in typed), real_code=typed[real - 1][0],
                      seals=tuple(seal for _, seal in typed))  # fmt: skip


def hunt_turn(session: Session, campaign_id: int) -> tuple[int, int]:
    """(scenario id, turn) of the scenario in play: the hunt is counted turn by turn (§4)."""
    scenario = journal.scenario_in_play(session, campaign_id)
    if scenario is None:
        raise InvalidInput({"marker": "no scenario is in play: the hunt is played turn by turn, "
                            "start the scenario first"})  # fmt: skip
    return scenario.id or 0, scenario.turn


def assign_markers(
    factory: SessionFactory,
    *,
    unit_id: int,
    real: int,
    sectors: Sequence[str],
    turn: int | None = None,
    passphrase: str | None = None,
    rng: random.Random | None = None,
    version: int | None = None,
) -> Assignment:
    """Give a submarine its markers (2, plus its extra decoys), one per sector (place), at the
    unit's `version` the form showed: its count of markers comes from the unit's extra decoys."""

    checked(MarkerPlace, {"turn": turn, "version": version})
    with act(factory, WasUnit, unit_id, version=version) as a:
        unit = a.row
        acts.require_submarine(unit)
        if live(a.session, SubMarker.unit_id == unit_id):
            raise InvalidInput({"unit": f"{unit.name} already has markers on the map"})
        count = was.MARKERS_PER_SUB + unit.extra_decoys
        if not 1 <= real <= count:
            raise InvalidInput({"real": f"choose which of the {count} markers is real: 1..{count}"})
        sectors = typed_sectors(sectors, count)
        return place(a, real=real, sectors=sectors, turn=turn, passphrase=passphrase, rng=rng)


def move_marker(
    factory: SessionFactory, *, marker_id: int, sector: str, turn: int | None = None,
    version: int | None = None,
) -> list[str]:  # fmt: skip
    """Move a marker into a square no other marker of its side holds (RULES.md §Subs ¶3); a
    warning (not a refusal) when it moved already this turn."""
    sector = checked_sector(sector, turn, blank=False, version=version).sector
    with act(factory, SubMarker, marker_id) as a:
        marker = a.row
        if marker.state in MARKERS_OUT_OF_PLAY:
            raise InvalidInput({"sector": f"{marker.code} was removed"})
        require_version(marker, version, marker.code)
        check_squares(a.session, side_id=marker.side_id, sectors=[sector],
                      fields=["sector"], moving={marker_id})  # fmt: skip
        warnings = []
        if turn is not None and marker.moved_turn == turn:
            warnings.append(f"{marker.code} already moved this turn (one sector a turn)")
        before = {"sector": marker.sector, "moved_turn": marker.moved_turn}
        marker.sector, marker.moved_turn = sector, turn
        after = {"sector": sector, "moved_turn": turn}
        change = journal.RowChange("submarker", marker_id, before, after)
        a.log_side(
            JournalKind.MARKER,
            f"{marker.code} {before['sector'] or '?'} -> {sector}",
            changes=(change,),
        )
        return warnings


def reconceal(
    factory: SessionFactory,
    *,
    unit_id: int,
    cause: was.ConcealCause,
    real: int | None = None,
    sectors: Sequence[str] = (),
    passphrase: str | None = None,
    rng: random.Random | None = None,
) -> Assignment:
    """A revealed sub slips away (RULES.md §Subs ¶10-11): one marker replaces it when it moved
    into weather or no enemy was placed by it, two when it got away, the owner saying which is
    real and each one's sector (one marker: the sub's square unless given); one that did not
    move this turn stays revealed unless weather entered its square. Older decoys stay."""
    try:
        cause = was.ConcealCause(cause)
    except ValueError:
        raise InvalidInput({"cause": "choose why it slips away: "
                            f"{', '.join(was.ConcealCause)}"}) from None  # fmt: skip
    count = was.reconceal_markers(cause)
    with act(factory, WasUnit, unit_id) as a:
        unit, session = a.row, a.session
        revealed = SubMarker.unit_id == unit_id, SubMarker.state == MarkerState.REVEALED
        shown = first_where(session, SubMarker, *revealed)
        if shown is None:
            raise InvalidInput({"unit": f"{unit.name} is not revealed"})
        _, turn = hunt_turn(session, a.campaign_id)
        refusal = was.reconceal_refusal(cause, moved_this_turn=shown.moved_turn == turn)
        if refusal:
            raise InvalidInput({"cause": f"{unit.name}: {refusal}"})
        if count == 1 and real in (None, 1):
            real = 1  # one marker: the sub itself
        elif real is None or not 1 <= real <= count:
            raise InvalidInput({"real": f"choose which of the {count} new markers is real: "
                                f"1..{count}"})  # fmt: skip
        typed = typed_sectors(sectors or [shown.sector] * (count == 1), count)
        shown.state = MarkerState.REMOVED
        session.flush()
        return place(a, real=real, sectors=typed, turn=turn, passphrase=passphrase, rng=rng)


def seal_holds(session: Session, marker: SubMarker, key: bytes | None) -> bool:
    """Whether the marker's note still matches its public seal (nothing edited)."""
    note = secrets.open_note(marker.secret, key)
    if note.get("v") == 2:
        return secrets.seal_of(sealed_as(marker.code, note), note["salt"]) == marker.seal
    # Markers placed before seals were per marker share one seal over their whole group.
    sealed = SubMarker.side_id == marker.side_id, SubMarker.seal == marker.seal
    group = rows_where(session, SubMarker, *sealed)
    notes = {m.code: secrets.open_note(m.secret, key) for m in group}
    salts = {note["salt"] for note in notes.values()}
    if len(salts) != 1:
        return False
    assignment = {code: bool(note["real"]) for code, note in notes.items()}
    return secrets.seal_of(assignment, salts.pop()) == marker.seal
