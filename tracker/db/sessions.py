"""Sessions and their scopes: a change (committed) and a scratch (rolled back)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from tracker.db.errors import translated_errors

SessionFactory = Callable[[], Session]


def session_factory(engine: Engine) -> SessionFactory:
    """A callable that opens a session whose loaded objects stay readable after commit."""

    def factory() -> Session:
        return Session(engine, expire_on_commit=False)

    return factory


@contextmanager
def session_scope(factory: SessionFactory) -> Iterator[Session]:
    """One transaction: commit on success, roll back on any exception."""
    session = factory()
    try:
        with translated_errors():
            try:
                yield session
                session.commit()
            except BaseException:
                _rollback(session)
                raise
    finally:
        _close(session)


@contextmanager
def scratch_scope(factory: SessionFactory) -> Iterator[Session]:
    """A transaction that is always rolled back: work out what a change would do, write nothing."""
    session = factory()
    try:
        with translated_errors():
            yield session
    finally:
        _rollback(session)
        _close(session)


def _rollback(session: Session) -> None:
    # The connection may be gone: then the server has rolled the transaction back already.
    with suppress(DBAPIError):
        session.rollback()


def _close(session: Session) -> None:
    with suppress(DBAPIError):
        session.close()


CHECKPOINT_TRIES = 3
CHECKPOINT_WAIT_MS = 500


def checkpoint(factory: SessionFactory, *, tries: int = CHECKPOINT_TRIES) -> bool:
    """Fold the WAL into the file and empty it, so no old page lingers beside the file.

    False when it could not complete after `tries` attempts: another program holds a read
    transaction on an older state of the file, whose pages stay until it ends.
    """
    session = factory()
    try:
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
    finally:
        session.close()
