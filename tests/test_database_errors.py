"""What a driver's error means to the player is read from its code (SQLite's result code,
PostgreSQL's SQLSTATE), never from its English text (tracker.db.errors); and a database that
stopped answering is no input the player typed (tracker.errors)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import exc as sa_exc

from tracker.db import database_error, make_engine, session_factory, session_scope
from tracker.db.errors import sqlite_code
from tracker.errors import (
    ChangedElsewhere,
    ConnectionLost,
    DatabaseUnavailable,
    InvalidInput,
    ReadOnlyDatabase,
)

SETTINGS = settings(
    max_examples=examples(40), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip
# Any message a driver might give, in any language, including the English ones tracker used to
# look for: the classification must not change with it.
MESSAGES = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["database is locked", "attempt to write a readonly database",
                     "database or disk is full", "read-only", "Could not decode to UTF-8"]),
)  # fmt: skip


def _sqlite_error(message: str, code: int) -> sa_exc.DBAPIError:
    orig = sqlite3.OperationalError(message)
    orig.sqlite_errorcode = code  # type: ignore[attr-defined]
    return sa_exc.OperationalError("UPDATE ship SET notes = ?", ("x",), orig)


class FakePgError(Exception):
    """A psycopg error as tracker reads it: its class's module and its SQLSTATE."""

    __module__ = "psycopg.errors"

    def __init__(self, message: str, sqlstate: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def _pg_error(message: str, sqlstate: str) -> sa_exc.DBAPIError:
    return sa_exc.DBAPIError("UPDATE ship SET notes = %s", ("x",), FakePgError(message, sqlstate))


# Extended codes share the primary code's low byte: SQLITE_BUSY_SNAPSHOT is a kind of BUSY.
CASES = [
    (_sqlite_error, sqlite3.SQLITE_BUSY, DatabaseUnavailable, "held the campaign file"),
    (_sqlite_error, sqlite3.SQLITE_BUSY_SNAPSHOT, DatabaseUnavailable, "held the campaign file"),
    (_sqlite_error, sqlite3.SQLITE_LOCKED, DatabaseUnavailable, "held the campaign file"),
    (_sqlite_error, sqlite3.SQLITE_READONLY, ReadOnlyDatabase, "read-only view"),
    (_sqlite_error, sqlite3.SQLITE_READONLY_DBMOVED, ReadOnlyDatabase, "read-only view"),
    (_sqlite_error, sqlite3.SQLITE_FULL, DatabaseUnavailable, "the disk is full"),
    (_pg_error, "25006", ReadOnlyDatabase, "read-only view"),
    (_pg_error, "40001", ChangedElsewhere, "at the same moment"),
    (_pg_error, "40P01", ChangedElsewhere, "at the same moment"),
    (_pg_error, "08006", ConnectionLost, "lost the connection"),
    (_pg_error, "57P01", ConnectionLost, "lost the connection"),
    (_pg_error, "53100", DatabaseUnavailable, "the disk is full"),
    (_pg_error, "55P03", DatabaseUnavailable, "held the database"),
]
Make = Callable[[str, Any], sa_exc.DBAPIError]


@pytest.mark.parametrize(("make", "code", "kind", "says"), CASES)
@SETTINGS
@given(message=MESSAGES)
def test_an_error_is_read_from_its_code_whatever_its_text(
    make: Make, code: Any, kind: type[DatabaseUnavailable], says: str, message: str
) -> None:
    problem = database_error(make(message, code))
    assert type(problem) is kind
    assert says in problem.message


# SQLITE_ERROR (a query the schema does not fit) or a unique violation says 'database is
# locked' in vain: it surfaces as itself, not as a refusal the player could retry.
@pytest.mark.parametrize(("make", "code"), [(_sqlite_error, sqlite3.SQLITE_ERROR),
                                            (_pg_error, "23505")])  # fmt: skip
@SETTINGS
@given(message=MESSAGES)
def test_an_error_of_another_code_is_a_bug_whatever_its_text(
    make: Make, code: Any, message: str
) -> None:
    assert database_error(make(message, code)) is None


def test_a_real_locked_file_gives_sqlite_busy(tmp_path: Path) -> None:
    """The code tracker reads is the one SQLite gives: another program holds the write lock."""
    path = tmp_path / "campaign.db"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN IMMEDIATE")
    try:
        mine = sqlite3.connect(path, timeout=0, isolation_level=None)
        with pytest.raises(sqlite3.OperationalError) as caught:
            mine.execute("BEGIN IMMEDIATE")
        mine.close()
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert sqlite_code(caught.value) == sqlite3.SQLITE_BUSY
    problem = database_error(sa_exc.OperationalError("BEGIN IMMEDIATE", (), caught.value))
    assert problem is not None and "held the campaign file" in problem.message


def test_a_real_undecodable_text_is_said_to_be_damage(tmp_path: Path) -> None:
    """The one error Python's sqlite3 raises without SQLite's code: a text that is not UTF-8."""
    path = tmp_path / "campaign.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.execute("INSERT INTO t VALUES (CAST(x'ff' AS TEXT))")
    conn.commit()
    conn.close()
    engine = make_engine(str(path))
    try:
        with (
            pytest.raises(DatabaseUnavailable, match="not UTF-8"),
            session_scope(session_factory(engine)) as session,
        ):
            session.connection().exec_driver_sql("SELECT x FROM t").all()
    finally:
        engine.dispose()


def test_a_database_that_stopped_answering_is_no_input_the_player_typed() -> None:
    """`except InvalidInput` (a form's "you typed 0") no longer catches a lost database."""
    for kind in (DatabaseUnavailable, ConnectionLost, ReadOnlyDatabase, ChangedElsewhere):
        assert not issubclass(kind, InvalidInput)
        assert not issubclass(kind, ValueError)
    lost = ConnectionLost("lost the connection")
    with pytest.raises(ConnectionLost):
        try:
            raise lost
        except InvalidInput:  # pragma: no cover - the road it must not take
            pytest.fail("a lost database was taken for the player's input")
    # A form that keeps the player's typing can still show it in its error line.
    assert lost.errors == {"database": "lost the connection"} and str(lost) == lost.message
