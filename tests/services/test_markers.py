"""Submarine markers placed and moved (RULES.md §Subs ¶1-3; services/markers.py): one check of
"no more than one sub per square" on every path that puts a marker in a square, and placements
whose every opponent-visible byte is the same whichever marker is real."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import attempt, empty_pg
from sqlalchemy import Engine
from sqlmodel import SQLModel, delete, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry, SubMarker
from tracker.models import campaign as campaign_model
from tracker.rules.was import ConcealCause
from tracker.services import campaigns, exchange, history, hunt, markers, roster, scenarios, secrets
from tracker.services.errors import InvalidInput
from tracker.services.hunt import SearchParty
from tracker.services.roster import UnitFields
from tracker.services.visibility import Viewer

GENERATED = settings(
    max_examples=examples(30), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
# Squares that collide in every way a player could type them: case and spaces.
SQUARES = ("A1", "a1", " A1", "B2", "b2", "C3", "D4")
FOUND = SearchParty(searcher="patrol_bomber")  # a roll of 6 always finds


def one(sector: str) -> str:
    """The square a sector names, as a player means it."""
    return sector.strip().casefold()


def _live(factory: SessionFactory, side: int) -> dict[int, str]:
    """The side's live markers: id -> sector."""
    return {m.id: m.sector for m in roster.roster(factory, side_id=side).markers
            if m.state != "removed"}  # fmt: skip


def _code_of(factory: SessionFactory, side: int, code: str) -> int:
    return next(m.id for m in roster.roster(factory, side_id=side).markers if m.code == code)


@GENERATED
@given(path=st.sampled_from(["assign", "move", "reconceal by fog", "reconceal, got away"]),
       held=st.lists(st.sampled_from(SQUARES), min_size=3, max_size=3, unique_by=one),
       typed=st.lists(st.sampled_from(SQUARES), min_size=2, max_size=2))  # fmt: skip
def test_par3_every_path_that_places_a_marker_keeps_one_sub_marker_per_square(
    factory: SessionFactory, axis: dict[str, int], path: str, held: list[str], typed: list[str]
) -> None:
    """U-66's three markers hold three squares; a placement (an assignment, a re-concealment of
    one or two markers) or a move into generated squares is accepted exactly when each marker
    gets a square no other live marker of the side holds, in any case or spacing."""
    with session_scope(factory) as session:  # each example starts from an empty map
        session.exec(delete(SubMarker))  # type: ignore[call-overload]
        session.exec(delete(JournalEntry))  # type: ignore[call-overload]  # and no search made
    side = axis["side"]
    u66 = markers.assign_markers(factory, unit_id=axis["U-66"], real=1, sectors=held)
    ids = [_code_of(factory, side, code) for code in u66.codes]
    leaving: set[int] = set()
    if path == "assign":
        call, wanted = (lambda: markers.assign_markers(
            factory, unit_id=axis["U-552"], real=2, sectors=typed)), typed  # fmt: skip
    elif path == "move":
        call, wanted, leaving = (lambda: markers.move_marker(
            factory, marker_id=ids[1], sector=typed[0], turn=1)), typed[:1], {ids[1]}  # fmt: skip
    else:
        hunt.record_search(factory, marker_id=ids[0], party=FOUND, roll=6)
        hunt.attack_marker(factory, marker_id=ids[0], success=True)  # U-66 revealed
        cause = ConcealCause.WEATHER_ENTERED
        if path == "reconceal, got away":  # it moves away first, as §11 needs
            cause = ConcealCause.GOT_AWAY
            markers.move_marker(factory, marker_id=ids[0], sector="Z9", turn=1)
        count = 2 if cause is ConcealCause.GOT_AWAY else 1
        call, wanted, leaving = (lambda: markers.reconceal(
            factory, unit_id=axis["U-66"], cause=cause, real=count,
            sectors=typed[:count])), typed[:count], {ids[0]}  # fmt: skip
    before = _live(factory, side)
    taken = {one(sector) for marker, sector in before.items() if marker not in leaving}
    free = len({one(s) for s in wanted}) == len(wanted) and not taken & {one(s) for s in wanted}
    outcome = attempt(call)
    assert (outcome is None) == free, (outcome, before, wanted)
    if outcome is not None:
        assert isinstance(outcome, InvalidInput) and "one sub marker per sector" in str(outcome)
        assert _live(factory, side) == before  # nothing moved, nothing placed
    squares = [one(sector) for sector in _live(factory, side).values()]
    assert len(set(squares)) == len(squares)


def test_par3_an_undo_or_a_redo_puts_no_marker_back_in_a_square_another_now_holds(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    side, campaign = axis["side"], axis["campaign"]
    codes = markers.assign_markers(factory, unit_id=axis["U-552"], real=1,
                                  sectors=["A1", "B2"]).codes  # fmt: skip
    first, second = (_code_of(factory, side, code) for code in codes)
    markers.move_marker(factory, marker_id=first, sector="C3", turn=1)
    with session_scope(factory) as session:
        moved_first = max(entry.id for entry in session.exec(select(JournalEntry)).all())
    markers.move_marker(factory, marker_id=second, sector="a1", turn=1)
    with pytest.raises(InvalidInput, match=r"cannot go back: A1 already holds .*one sub marker"):
        history.undo_entry(factory, entry_id=moved_first)
    history.undo_last(factory, campaign_id=campaign)  # the second back to B2
    # A placement is no change an undo takes back: it does not stand in a redo's way.
    markers.assign_markers(factory, unit_id=axis["U-66"], real=3, sectors=["A1", "D4", "E5"])
    with pytest.raises(InvalidInput, match=r"cannot go back: a1 already holds .*one sub marker"):
        history.redo_last(factory, campaign_id=campaign)
    squares = [one(sector) for sector in _live(factory, side).values()]
    assert sorted(squares) == ["a1", "b2", "c3", "d4", "e5"]


# --- a placement tells the opponent nothing of which marker is real -------------------------


class _Clock:
    """A clock that ticks one second a reading, from the same start each time it is set."""

    now_at = datetime(2026, 1, 1, tzinfo=UTC)

    @classmethod
    def now(cls, tz: Any = None) -> datetime:
        cls.now_at += timedelta(seconds=1)
        return cls.now_at


@pytest.fixture
def same_dice(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The clock and the seals' salts made repeatable: two runs read the same times and draw
    the same salts, as two players' files made with the same dice would."""
    monkeypatch.setattr(campaign_model, "datetime", _Clock)
    monkeypatch.setattr(secrets, "new_salt", lambda: "00")
    yield


def _empty(engine: Engine, backend: str) -> None:
    """Every row of every table gone and the ids starting again from 1."""
    if backend == "postgresql":
        empty_pg(engine)
        return
    with engine.begin() as conn:
        for table in reversed(SQLModel.metadata.sorted_tables):
            conn.execute(table.delete())


UID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _what_the_others_read(
    engine: Engine, backend: str, factory: SessionFactory, sectors: list[str], real: int,
    seed: int,
) -> tuple[str, str]:  # fmt: skip
    """A campaign made afresh with one placement, as the opponent's and the umpire's exports
    give it: every byte, each seal (a commitment to its marker's role under a salt of its own,
    which the opponent never reads) written as its place among the seals."""
    _empty(engine, backend)
    _Clock.now_at = datetime(2026, 1, 1, tzinfo=UTC)
    campaign = campaigns.create_campaign(factory, name="Atlantic").id
    side = campaigns.create_side(factory, campaign_id=campaign, name="Axis").id
    unit = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-66", unit_type="submarine", points=10, extra_decoys=len(sectors) - 2))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=real, sectors=sectors,
                          rng=random.Random(seed))  # fmt: skip
    views = []
    for viewer in (Viewer.OPPONENT, Viewer.UMPIRE):
        document = exchange.export_campaign(factory, campaign_id=campaign, viewer=viewer)
        placed = document["tables"]["submarker"]
        assert len({row["at"] for row in placed}) == 1  # one placement, one time
        text = json.dumps(document, sort_keys=True)
        for n, row in enumerate(sorted(placed, key=lambda row: text.index(row["seal"]))):
            text = text.replace(row["seal"], f"<seal {n}>")
        assert not re.search(r"\b[0-9a-f]{16}\b", text)  # no seal left behind
        for n, uid in enumerate(dict.fromkeys(re.findall(UID, text))):  # a new campaign's own
            text = text.replace(uid, f"<uid {n}>")
        views.append(text)
    return views[0], views[1]


def test_par2_the_opponent_reads_the_same_placement_whichever_marker_is_real(
    engine: Engine, backend: str, factory: SessionFactory, same_dice: None
) -> None:
    """Over generated placements: the same squares, typed in any order, with any of them the
    real one, give the opponent and the umpire the very same bytes (codes, ids, order, times,
    journal) for the same dice. A form that puts the real marker first tells them nothing."""

    @settings(max_examples=examples(12), deadline=None, derandomize=True, database=None)
    @given(data=st.data(), count=st.integers(2, 4), seed=st.integers(0, 2**32))
    def placement(data: st.DataObject, count: int, seed: int) -> None:
        squares = data.draw(st.lists(st.sampled_from(["A1", "B2", "C3", "D4", "E5", "F6"]),
                                     min_size=count, max_size=count, unique=True))  # fmt: skip
        typed = data.draw(st.permutations(squares))
        real, other = data.draw(st.sampled_from(squares)), data.draw(st.sampled_from(squares))
        first = _what_the_others_read(engine, backend, factory, squares,
                                      squares.index(real) + 1, seed)  # fmt: skip
        again = _what_the_others_read(engine, backend, factory, typed,
                                      typed.index(other) + 1, seed)  # fmt: skip
        assert first == again

    placement()


# --- the hunt: one search per square per turn -------------------------------------------------


HOW = ("its decoy was sunk", "its sub slipped away in a squall", "its marker moved on")


@GENERATED
@given(how=st.sampled_from(HOW), typed=st.sampled_from(["D2", "d2", " D2 "]),
       roll=st.integers(1, 6))  # fmt: skip
def test_par4_a_square_searched_this_turn_is_searched_no_more_whatever_became_of_its_marker(
    factory: SessionFactory, axis: dict[str, int], how: str, typed: str, roll: int
) -> None:
    """The marker searched for in a square leaves it (a decoy sunk, the sub re-concealed in its
    place, the marker moved on) and another marker stands there, typed in any case: the square
    was searched this turn; the square the marker moved on to was not."""
    with session_scope(factory) as session:  # each example starts from an empty map
        session.exec(delete(SubMarker))  # type: ignore[call-overload]
        session.exec(delete(JournalEntry))  # type: ignore[call-overload]  # and no search made
    side = axis["side"]
    real = 2 if how == "its decoy was sunk" else 1
    codes = markers.assign_markers(factory, unit_id=axis["U-552"], real=real,
                                  sectors=["D2", "E5"]).codes  # fmt: skip
    found, other = (_code_of(factory, side, code) for code in codes)
    hunt.record_search(factory, marker_id=found, party=FOUND, roll=6)
    there = other
    if how == "its marker moved on":
        markers.move_marker(factory, marker_id=found, sector="F6", turn=1)
        markers.move_marker(factory, marker_id=other, sector=typed, turn=1)
    elif how == "its decoy was sunk":  # the sub moves into the square the decoy held
        hunt.attack_marker(factory, marker_id=found, success=True)
        markers.move_marker(factory, marker_id=other, sector=typed, turn=1)
    else:
        hunt.attack_marker(factory, marker_id=found, success=True)
        fresh = markers.reconceal(factory, unit_id=axis["U-552"],
                                 cause=ConcealCause.WEATHER_ENTERED, sectors=[typed])  # fmt: skip
        there = _code_of(factory, side, fresh.codes[0])
    assert _live(factory, side)[there] == typed.strip()
    with pytest.raises(
        InvalidInput, match=f"sector {typed.strip()} was searched this turn already"
    ):
        hunt.record_search(factory, marker_id=there, party=FOUND, roll=roll)
    if how == "its marker moved on":  # F6 was not searched this turn
        assert "found" in hunt.record_search(factory, marker_id=found, party=FOUND, roll=6)


def test_par4_the_square_may_be_searched_again_the_next_turn(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    side = axis["side"]
    codes = markers.assign_markers(factory, unit_id=axis["U-552"], real=2,
                                  sectors=["D2", "E5"]).codes  # fmt: skip
    decoy, sub = (_code_of(factory, side, code) for code in codes)
    hunt.record_search(factory, marker_id=decoy, party=FOUND, roll=6)
    hunt.attack_marker(factory, marker_id=decoy, success=True)  # a decoy: removed
    markers.move_marker(factory, marker_id=sub, sector="d2", turn=1)
    scenarios.advance_turn(factory, scenario_id=axis["scenario"])
    assert "found" in hunt.record_search(factory, marker_id=sub, party=FOUND, roll=6)
