"""Reads take no write lock, changes do (tracker.db.sessions): a long read (a screen's data, the
change poll) holds up no other player's change, and two changes still go one after the other;
on a real file with two connections, and on PostgreSQL where it applies."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from service_helpers import World, get_row
from sqlalchemy import event
from sqlmodel import func, select

from tracker.db import (
    SessionFactory,
    WriteInReadScope,
    make_engine,
    read_scope,
    session_factory,
    session_scope,
)
from tracker.models import Campaign, Ship
from tracker.services import campaigns, damage, history
from tracker.services.damage import HitRequest
from tracker.services.errors import DatabaseUnavailable, ReadOnlyDatabase


@contextmanager
def other_player(db_url: str, *, wait_ms: int | None = None) -> Iterator[SessionFactory]:
    """A second program on the same database; wait_ms: how long its SQLite connection waits
    for a lock before giving up (0: not at all, so a lock it meets fails it at once)."""
    engine = make_engine(db_url)
    if wait_ms is not None and engine.dialect.name == "sqlite":

        def no_wait(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute(f"PRAGMA busy_timeout = {wait_ms}")

        event.listen(engine, "connect", no_wait)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()


def _campaigns(session: Any) -> int:
    return int(session.exec(select(func.count()).select_from(Campaign)).one())


def test_a_long_read_holds_up_no_change_and_sees_one_state(
    factory: SessionFactory, world: World, ajax: int, db_url: str
) -> None:
    """While one screen reads, another player records a hit and creates a campaign: both are
    written at once (the other program does not wait at all), and the read goes on seeing the
    state it began with, until its next read."""
    with read_scope(factory) as session:
        before = session.get(Ship, ajax)
        assert before is not None
        count = _campaigns(session)
        with other_player(db_url, wait_ms=0) as other:
            damage.record_hit(other, request=HitRequest(ship_id=ajax, structure=2))
            campaigns.create_campaign(other, name="Written meanwhile")
        assert _campaigns(session) == count  # one state for the whole read
    assert get_row(factory, Ship, ajax).structure_now == before.structure_now - 2
    with read_scope(factory) as session:
        assert _campaigns(session) == count + 1


@pytest.mark.sqlite_only("PostgreSQL has no lock on the database: its readers never waited")
def test_the_change_poll_reads_while_another_program_holds_the_write_lock(
    factory: SessionFactory, world: World, db_path: Path
) -> None:
    """The 2-second poll (history.change_mark) used to wait for the write lock like a change,
    5 seconds and then 'another program held the campaign file'; now it reads at once."""
    mark = history.change_mark(factory)
    holder = sqlite3.connect(db_path, timeout=0, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("UPDATE campaign SET name = name || ' (being renamed)'")
        assert history.change_mark(factory) == mark  # the change is not committed yet
        holder.execute("COMMIT")
    finally:
        holder.close()
    assert history.change_mark(factory) == mark  # a rename moves no mark: same campaigns


@pytest.mark.sqlite_only("SQLite's write lock: PostgreSQL locks rows, not the database")
def test_two_changes_still_go_one_after_the_other(
    factory: SessionFactory, world: World, ajax: int, db_url: str
) -> None:
    """A change takes the write lock when it begins, so a second program's change waits for
    it (here: is told at once, as it does not wait) and writes nothing."""
    with session_scope(factory) as session:
        session.get(Ship, ajax)  # the transaction has begun: the lock is taken
        with (
            other_player(db_url, wait_ms=0) as other,
            pytest.raises(DatabaseUnavailable, match="held the campaign file"),
        ):
            damage.record_hit(other, request=HitRequest(ship_id=ajax, structure=1))
    assert get_row(factory, Ship, ajax).structure_now == 9  # Ajax was not hit


def test_a_read_scope_refuses_a_change_and_writes_nothing(
    factory: SessionFactory, world: World, ajax: int
) -> None:
    with pytest.raises(WriteInReadScope), read_scope(factory) as session:
        ship = session.get(Ship, ajax)
        assert ship is not None
        ship.notes = "written in a read?"
        session.exec(select(Ship)).all()  # the autoflush before a query
    with pytest.raises(WriteInReadScope), read_scope(factory) as session:
        session.add(Campaign(name="Added in a read?"))
    assert get_row(factory, Ship, ajax).notes == ""
    with read_scope(factory) as session:
        assert session.exec(select(Campaign).where(Campaign.name == "Added in a read?")).all() == []


def test_on_postgresql_a_read_is_a_read_only_transaction(
    factory: SessionFactory, world: World, backend: str
) -> None:
    if backend != "postgresql":
        pytest.skip("SQLite has no read-only transaction: the scope refuses the ORM's changes")
    with pytest.raises(ReadOnlyDatabase), read_scope(factory) as session:
        session.connection().exec_driver_sql("UPDATE campaign SET notes = 'written in a read?'")
    with read_scope(factory) as session:
        assert session.exec(select(Campaign.notes)).all() == [""]
