"""Engines and the pragmas every connection gets; which transactions take the write lock."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
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
# The execution option of the schema's upgrade (migration.migrate): on PostgreSQL it waits for
# the write lock as long as another upgrade takes, not the few seconds a change waits.
SCHEMA_OPTION = "tracker_schema"
# How long a change on PostgreSQL waits for another one to end before the player is told
# (milliseconds, its lock_timeout): as long as SQLite's busy_timeout.
PG_WRITE_WAIT_MS = 5000
# PostgreSQL's advisory lock that stands for SQLite's write lock: one per database, so two
# campaigns on one server do not wait for each other (any number the tracker alone uses).
PG_WRITE_LOCK = 0x7472_6163_6B65_72  # "tracker"


def sqlite_path(url: str) -> Path | None:
    """The file behind a sqlite URL, or None for another backend or an in-memory database."""
    parsed = make_url(url)
    database = parsed.database or ":memory:"
    if parsed.get_backend_name() != "sqlite" or database == ":memory:":
        return None
    return Path(database)


def to_url(target: str) -> str:
    return target if paths.is_url(target) else f"sqlite:///{Path(target).expanduser()}"


def shown_url(engine: Engine) -> str:
    """The database's URL as a message may show it: no secret in it (tracker.redaction)."""
    return shown(engine.url.render_as_string(hide_password=False))


def _pragmas(*pragmas: str) -> Callable[[Any, Any], None]:
    """What every new SQLite connection runs: a wait for the write lock, then the pragmas."""

    def run(dbapi_connection: Any, _record: Any) -> None:
        # The driver's own transaction handling skips BEGIN before DDL; we emit BEGIN ourselves
        # (see _begin) so a migration is one real transaction.
        dbapi_connection.isolation_level = None
        for pragma in ("busy_timeout=5000", *pragmas):
            dbapi_connection.execute(f"PRAGMA {pragma}")

    return run


_set_sqlite_pragmas = _pragmas(
    "journal_mode=WAL",
    "synchronous=FULL",  # a recorded hit survives a power cut
    "foreign_keys=ON",
    # Deleted or rewritten content is zeroed, so a note encrypted later leaves no plain copy.
    "secure_delete=ON",
)


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


def _begin_postgresql(conn: Any) -> None:
    # BEGIN IMMEDIATE's counterpart: a change takes the database's write lock when it begins
    # and holds it to its commit or rollback, so changes take turns as on SQLite. A change
    # that reads a ship and writes it back from what it read (a hit, a repair, fuel used)
    # then always reads the last change's row: it waits for another player's change instead
    # of finding the row's version moved under it and being refused. A form's edit still
    # names the version it showed, and is refused when that is no longer the row's.
    options = conn.get_execution_options()
    if options.get(READ_ONLY_OPTION):
        return  # a read holds up no change, and waits for none
    if options.get(SCHEMA_OPTION):
        # Another first start creating the schema: wait until it is done, then find it at
        # head (the upgrade reads the schema's revision once it holds the lock).
        conn.exec_driver_sql("SET LOCAL lock_timeout = 0")
    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})")


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
            event.listen(engine, "connect", _pragmas("query_only=ON"))
            event.listen(engine, "begin", _begin_deferred)
            return engine
        engine = create_engine(url)
        event.listen(engine, "connect", _set_sqlite_pragmas)
        event.listen(engine, "begin", _begin)
        return engine
    given = "default_transaction_read_only=on" if read_only else f"lock_timeout={PG_WRITE_WAIT_MS}"
    options = {"connect_timeout": 5, "options": f"-c {given}"}
    # pool_pre_ping: a connection the server dropped is replaced before use, so the app
    # carries on by itself once the server is back.
    engine = create_engine(url, pool_pre_ping=True, connect_args=options)
    if not read_only:  # the umpire's transactions are all read-only: nothing to take turns for
        event.listen(engine, "begin", _begin_postgresql)
    return engine
