"""A hit reads and writes the ship as a row (tracker.services.damage.record_hit): the fields its
journal entry names, and the row's version raised by one per hit, as the ORM's flush wrote it;
a version that moved since the read is refused, and nothing is written."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World, begin_with_all, save_table
from sqlalchemy import Engine, event
from sqlmodel import col, func, select

from tracker.db import SessionFactory, scratch_scope, session_scope
from tracker.models import JournalEntry, Participation, Scenario, Ship
from tracker.models.kinds import ScenarioStatus
from tracker.services import damage, damage_rows, journal, scenarios
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.errors import ChangedElsewhere, InvalidInput

# The campaign's structural table: a roll of 1-3 takes 4 knots off, 4-6 only names the effect.
TABLE = ((1, 3, "Engine room hit", "speed_kn", -4), (4, 6, "B turret out", "", 0))


@pytest.fixture
def exeter(factory: SessionFactory, world: World, add_ship: Callable[..., int]) -> int:
    """A heavy cruiser taking part in the scenario in play, with the table typed in."""
    ship = add_ship(world.alpha_id, "Exeter", structure_max=40, flotation_max=40, speed_kn=30)
    save_table(factory, world.campaign_id, TABLE)
    begin_with_all(factory, world)
    return ship


def stored(factory: SessionFactory, ship_id: int) -> tuple[dict[str, Any], int, int]:
    """The ship's fields, its version and the number of journal entries."""
    with session_scope(factory) as session:
        ship = session.get_one(Ship, ship_id)
        entries = session.exec(select(func.count(col(JournalEntry.id)))).one()
        return ship.model_dump(exclude={"id", "version"}), ship.version, entries


hits = st.builds(
    dict,
    structure=st.integers(0, 4),
    flotation=st.integers(0, 3),
    fire_delta=st.integers(-1, 2),
    repair_structure=st.sampled_from([0, 0, 1]),
    criticals=st.lists(
        st.one_of(
            st.builds(CriticalRequest, roll=st.integers(1, 6)),
            st.builds(CriticalRequest, effect=st.sampled_from(["Bridge hit", "Flooding aft"])),
        ),
        max_size=2,
    ).map(tuple),
    fixes=st.sampled_from([(), (), (1,)]),
)


@settings(max_examples=examples(25), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(hit=hits)
def test_a_hit_writes_the_fields_its_entry_names_and_raises_the_version_by_one(
    factory: SessionFactory, exeter: int, hit: dict[str, Any]
) -> None:
    fields, version, entries = stored(factory, exeter)
    try:
        result = damage.record_hit(factory, request=HitRequest(ship_id=exeter, **hit))
    except InvalidInput:
        assert stored(factory, exeter) == (fields, version, entries)  # nothing written
        return
    after, new_version, new_entries = stored(factory, exeter)
    # One version per hit, a rolled critical that takes knots off too (the ORM's flushes
    # raised it once more for each change of the ship after the first).
    assert (new_version, new_entries) == (version + 1, entries + 1)
    with session_scope(factory) as session:
        entry = session.get_one(JournalEntry, result.entry_id)
    detail = json.loads(entry.detail)
    assert {key: fields[key] for key in detail["after"]} == detail["before"]
    assert after == {**fields, **detail["after"]}
    assert detail["changes"][0] == {"table": "ship", "id": exeter, "before": detail["before"],
                                    "after": detail["after"]}  # fmt: skip


def test_a_ship_changed_since_it_was_read_is_refused_and_nothing_is_written(
    factory: SessionFactory, exeter: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL a change by another program can come between the hit's read and its write
    (SQLite's write lock keeps it out): the hit finds a newer version and writes nothing."""
    read = damage_rows.read

    def read_before_a_change(*args: Any) -> Any:
        rows = read(*args)
        rows.ship.version -= 1  # as read before another program's change raised it
        return rows

    before = stored(factory, exeter)
    monkeypatch.setattr(damage_rows, "read", read_before_a_change)
    with pytest.raises(ChangedElsewhere):
        damage.record_hit(factory, request=HitRequest(ship_id=exeter, structure=2))
    assert stored(factory, exeter) == before


def test_the_routine_hit_takes_one_statement_per_row_it_reads_or_writes(
    factory: SessionFactory, engine: Engine, exeter: int
) -> None:
    """One read (the ship with its side, the current scenario, the ship's part in it, whether
    a scenario was closed); the ship, the entry."""
    said: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        said.append(" ".join(statement.split()[:2]).upper())

    event.listen(engine, "before_cursor_execute", note)
    try:
        damage.record_hit(factory, request=HitRequest(ship_id=exeter, structure=3, flotation=1,
                                                      fire_delta=1))  # fmt: skip
    finally:
        event.remove(engine, "before_cursor_execute", note)
    # The write lock a change takes as it begins (BEGIN IMMEDIATE on SQLite, an advisory lock
    # on PostgreSQL: db.engine) is the transaction's, not a row's.
    said = [s for s in said if not s.startswith("SELECT PG_ADVISORY_XACT_LOCK")]
    writes = [s for s in said if s.split()[0] in {"SELECT", "UPDATE", "INSERT", "DELETE"}]
    assert [s.split()[0] for s in writes] == ["SELECT", "UPDATE", "INSERT"]
    assert writes[1:] == ["UPDATE SHIP", "INSERT INTO"]


NAMES = itertools.count()
# The campaign's scenarios beside the world's own: each one's status, and whether the ship
# takes part in it.
scenario_sets = st.lists(
    st.tuples(st.sampled_from(list(ScenarioStatus)), st.booleans()), min_size=0, max_size=4
)


@settings(max_examples=examples(40), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(added=scenario_sets, world_status=st.sampled_from(list(ScenarioStatus)))
def test_the_hits_one_read_finds_what_the_journal_and_the_scenarios_find(
    factory: SessionFactory,
    world: World,
    add_ship: Callable[..., int],
    added: list[tuple[ScenarioStatus, bool]],
    world_status: ScenarioStatus,
) -> None:
    """The current scenario (journal.current_scenario), the ship's part in it
    (scenarios.is_taking_part) and whether one was closed, read in the hit's one statement,
    whatever the campaign's scenarios are."""
    ship_id = add_ship(world.alpha_id, f"Ajax {next(NAMES)}")
    with scratch_scope(factory) as session:  # rolled back: each example starts afresh
        session.get_one(Scenario, world.scenario_id).status = world_status
        for position, (status, taking_part) in enumerate(added, start=100):
            scenario = Scenario(campaign_id=world.campaign_id, title=f"S{position}",
                                date="1940", position=position, status=status)  # fmt: skip
            session.add(scenario)
            session.flush()
            if taking_part:
                session.add(Participation(scenario_id=scenario.id, ship_id=ship_id))
        session.flush()
        rows = damage_rows.read(session, ship_id)
        current = journal.current_scenario(session, world.campaign_id)
        closed = select(Scenario).where(Scenario.campaign_id == world.campaign_id,
                                        Scenario.status == ScenarioStatus.CLOSED)  # fmt: skip
        assert rows.campaign_id == world.campaign_id
        assert rows.played == (session.exec(closed).first() is not None)
        if current is None:
            assert rows.scenario is None and not rows.taking_part
            return
        assert rows.scenario is not None
        assert (rows.scenario.id, rows.scenario.title, rows.scenario.status,
                rows.scenario.turn) == (current.id, current.title, current.status,
                                        current.turn)  # fmt: skip
        assert rows.taking_part == scenarios.is_taking_part(session, ship_id, current)
