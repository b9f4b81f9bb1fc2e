"""Sessions and their scopes: a change (write lock), a read (no lock), a scratch (rolled back)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from tracker.db.engine import READ_ONLY_OPTION
from tracker.db.errors import translated_errors

SessionFactory = Callable[[], Session]


def session_factory(engine: Engine) -> SessionFactory:
    """A callable that opens a session whose loaded objects stay readable after commit."""

    def factory() -> Session:
        return Session(engine, expire_on_commit=False)

    return factory


def session_scope(factory: SessionFactory) -> AbstractContextManager[Session]:
    """One change: a transaction that takes the write lock when it begins (SQLite's BEGIN
    IMMEDIATE), commits on success and rolls back on any exception."""
    return _transaction(factory)


class WriteInReadScope(RuntimeError):
    """A read scope was handed a change: a bug in the caller, which must use session_scope."""


def read_scope(factory: SessionFactory) -> AbstractContextManager[Session]:
    """One read: a plain transaction that takes no write lock, so it neither waits for a
    change in progress nor holds one up; it sees one state of the database (the one of its
    first read), and refuses a change (PostgreSQL: a READ ONLY transaction; any backend:
    WriteInReadScope before a flush). What it loaded stays readable after it, as after a
    change (it ends with a commit of nothing; a rollback would expire it)."""
    return _transaction(factory, read=True)


@contextmanager
def _transaction(factory: SessionFactory, *, read: bool = False) -> Iterator[Session]:
    session = factory()
    try:
        with translated_errors():
            try:
                if read:
                    _begin_read(session)
                yield session
                if read and (session.new or session.dirty or session.deleted):
                    _refuse_flush(session)
                session.commit()
            except BaseException:
                _quietly(session.rollback)
                raise
    finally:
        _quietly(session.close)


def _begin_read(session: Session) -> None:
    options: dict[str, Any] = {READ_ONLY_OPTION: True}
    if session.get_bind().dialect.name == "postgresql":
        # One state of the database for the whole read, as SQLite's WAL gives.
        options.update(postgresql_readonly=True, isolation_level="REPEATABLE READ")
    session.connection(execution_options=options)
    event.listen(session, "before_flush", _refuse_flush)


def _refuse_flush(session: Session, *_: Any) -> None:
    raise WriteInReadScope("a read scope was given a change to write: use session_scope")


@contextmanager
def scratch_scope(factory: SessionFactory) -> Iterator[Session]:
    """A transaction that is always rolled back: work out what a change would do, write nothing."""
    session = factory()
    try:
        with translated_errors():
            yield session
    finally:
        _quietly(session.rollback)
        _quietly(session.close)


def _quietly(act: Callable[[], None]) -> None:
    # The connection may be gone: then the server has rolled the transaction back already.
    with suppress(DBAPIError):
        act()


CHECKPOINT_TRIES = 3
CHECKPOINT_WAIT_MS = 500


def checkpoint(factory: SessionFactory, *, tries: int = CHECKPOINT_TRIES) -> bool:
    """Fold the WAL into the file and empty it, so no old page lingers beside the file.

    False when it could not complete after `tries` attempts: another program holds a read
    transaction on an older state of the file, whose pages stay until it ends.
    """
    with factory() as session:
        bind = session.get_bind()
        if bind.dialect.name != "sqlite":
            return True
        engine = bind if isinstance(bind, Engine) else bind.engine
        # Outside any transaction (a checkpoint cannot run inside one): straight to the
        # driver's connection, which is in autocommit mode (see engine._set_sqlite_pragmas).
        with engine.connect() as conn:
            raw: Any = conn.connection.driver_connection
            # Each try waits a little for the readers (the busy handler), not the whole
            # busy_timeout a write waits.
            raw.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
            try:
                for _ in range(max(1, tries)):
                    busy = raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                    if not busy:
                        return True
                return False
            finally:
                raw.execute("PRAGMA busy_timeout=5000")
