"""Engines and the pragmas every connection gets; which transactions take the write lock."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from tracker import paths
from tracker.campaign_file import read_only_uri
from tracker.redaction import shown

# The execution option a read scope sets on its connection (see sessions.read_scope): its
# transaction begins without the write lock.
READ_ONLY_OPTION = "tracker_read"


def sqlite_path(url: str) -> Path | None:
    """The file behind a sqlite URL, or None for another backend or an in-memory database."""
    parsed = make_url(url)
    if (
        parsed.get_backend_name() != "sqlite"
        or not parsed.database
        or parsed.database == ":memory:"
    ):
        return None
    return Path(parsed.database)


def to_url(target: str) -> str:
    """A path becomes a sqlite URL; a URL passes through."""
    return target if paths.is_url(target) else f"sqlite:///{Path(target).expanduser()}"


def shown_url(engine: Engine) -> str:
    """The database's URL as a message may show it: no secret in it (tracker.redaction)."""
    return shown(engine.url.render_as_string(hide_password=False))


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # The driver's own transaction handling skips BEGIN before DDL; we emit BEGIN ourselves
    # (see _begin) so a migration is one real transaction.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA journal_mode=WAL")
    # FULL: a recorded hit survives a power cut.
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # Deleted or rewritten content is zeroed, so a note encrypted later leaves no plain copy.
    cursor.execute("PRAGMA secure_delete=ON")
    cursor.close()


def _set_read_only_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _begin(conn: Any) -> None:
    # A read (a screen's data, the change poll) begins a plain transaction: in WAL mode it
    # reads one consistent state of the file and blocks no writer, nor waits for one.
    if conn.get_execution_options().get(READ_ONLY_OPTION):
        conn.exec_driver_sql("BEGIN")
        return
    # IMMEDIATE: a change takes the write lock when it starts, so a change that reads a ship
    # and then writes it cannot interleave with another program's change to that ship; the
    # other program waits (busy_timeout) instead of failing or losing an update.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _begin_deferred(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN")


def make_engine(target: str, *, read_only: bool = False) -> Engine:
    """An engine for a path or URL; SQLite connections get the house pragmas.

    read_only (the umpire's view): SQLite opens the file with mode=ro, PostgreSQL sessions
    are read-only transactions; either way the database refuses any write.
    """
    url = to_url(target)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_path(url)
        if read_only and path is not None:
            # The URL stays the file's own; connections open it through an SQLite URI that
            # refuses writes and creates no -wal or -shm (campaign_file.read_only_uri). A
            # connection is opened per session, not pooled: one opened immutable while no
            # other program had the file open must not outlive a change made since.
            engine = create_engine(
                url,
                creator=lambda: sqlite3.connect(
                    read_only_uri(path), uri=True, check_same_thread=False
                ),
                poolclass=NullPool,
            )
            event.listen(engine, "connect", _set_read_only_pragmas)
            event.listen(engine, "begin", _begin_deferred)
            return engine
        engine = create_engine(url)
        event.listen(engine, "connect", _set_sqlite_pragmas)
        event.listen(engine, "begin", _begin)
        return engine
    options: dict[str, Any] = {"connect_timeout": 5}
    if read_only:
        options["options"] = "-c default_transaction_read_only=on"
    # pool_pre_ping: a connection the server dropped is replaced before use, so the app
    # carries on by itself once the server is back.
    return create_engine(url, pool_pre_ping=True, connect_args=options)
