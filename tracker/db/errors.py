"""What a driver's error means to the player, read from its code, never from its English text.

SQLite's errors carry their result code (Python 3.11: sqlite_errorcode, the extended code whose
low byte is the primary one); PostgreSQL's carry their SQLSTATE (psycopg: sqlstate). A message's
wording changes between versions and locales; these codes do not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import StaleDataError

from tracker.errors import ChangedElsewhere, ConnectionLost, DatabaseUnavailable, ReadOnlyDatabase

# PostgreSQL's SQLSTATE codes (Appendix A of its manual) that are about the database's state.
PG_READ_ONLY = "25006"  # read_only_sql_transaction
PG_CHANGED_ELSEWHERE = frozenset({"40001", "40P01"})  # serialization_failure, deadlock_detected
PG_CONNECTION_CLASS = "08"  # connection_exception and its subclasses
PG_SERVER_GONE = frozenset({"57P01", "57P03"})  # admin_shutdown, cannot_connect_now
PG_DISK_FULL = "53100"
PG_LOCK_WAITED = "55P03"  # lock_not_available: lock_timeout passed (engine.PG_WRITE_WAIT_MS)


def sqlite_code(orig: BaseException | None) -> int | None:
    """SQLite's primary result code of a driver error (SQLITE_BUSY, ...), or None."""
    code = getattr(orig, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def first_line(orig: BaseException | None, empty: str = "") -> str:
    """A driver's message in one line (else `empty`, else the error's type)."""
    text = str(orig).strip()
    return text.splitlines()[0] if text else empty or type(orig).__name__


def _undecodable(orig: BaseException | None) -> bool:
    # The one error Python's sqlite3 raises with no SQLite code: a stored text it cannot turn
    # into a str (not UTF-8). SQLite itself never raises an OperationalError without one.
    return isinstance(orig, sqlite3.OperationalError) and sqlite_code(orig) is None


def database_error(exc: BaseException) -> DatabaseUnavailable | None:
    """What a driver error means to the player, or None when it is not about the database's
    availability (a bug, which must surface as itself)."""
    if isinstance(exc, StaleDataError):
        return ChangedElsewhere(
            "another player changed this just now: nothing was written; "
            "look at the fresh state and try again"
        )
    if not isinstance(exc, DBAPIError):
        return None
    orig = exc.orig
    state = str(getattr(orig, "sqlstate", "") or "")
    code = sqlite_code(orig)
    if state == PG_READ_ONLY or code == sqlite3.SQLITE_READONLY:
        return ReadOnlyDatabase("this is a read-only view: nothing can be changed here")
    if state in PG_CHANGED_ELSEWHERE:
        return ChangedElsewhere(
            "another player changed this at the same moment: nothing was written; try again"
        )
    if (
        exc.connection_invalidated
        or state.startswith(PG_CONNECTION_CLASS)
        or state in PG_SERVER_GONE
    ):
        return ConnectionLost(
            f"lost the connection to the database ({first_line(orig)}): nothing was written; "
            "tracker reconnects by itself, try again in a moment"
        )
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return DatabaseUnavailable(
            "another program held the campaign file for 5 seconds: nothing was written; try again"
        )
    if state == PG_LOCK_WAITED:  # changes take turns (engine._begin_postgresql)
        return DatabaseUnavailable(
            "another player's change held the database for 5 seconds: nothing was written; "
            "try again"
        )
    if code == sqlite3.SQLITE_FULL or state == PG_DISK_FULL:
        return DatabaseUnavailable(
            "the disk is full: nothing was written; free some space and try again"
        )
    if _undecodable(orig):
        return DatabaseUnavailable(
            "the campaign file is damaged (a text in it is not UTF-8): nothing was written; "
            "restore it from a backup (tracker backups, tracker restore)"
        )
    if type(orig).__name__ == "OperationalError" and _driver_backend(exc) == "postgresql":
        return ConnectionLost(
            f"cannot reach the database ({first_line(orig)}): nothing was written; "
            "tracker reconnects by itself, try again in a moment"
        )
    return None


def _driver_backend(exc: DBAPIError) -> str:
    module = type(exc.orig).__module__
    return "postgresql" if module.startswith("psycopg") else "sqlite"


@contextmanager
def translated_errors() -> Iterator[None]:
    """Driver errors about the database (lost, read-only, changed elsewhere, locked) become
    the player's DatabaseUnavailable; anything else passes through unchanged."""
    try:
        yield
    except (DBAPIError, StaleDataError) as exc:
        problem = database_error(exc)
        if problem is None:
            raise
        raise problem from exc
