"""Engine, pragmas, sessions, and the checked migration of a campaign file."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlmodel import Session

from tracker import paths

SQLITE_HEADER = b"SQLite format 3\x00"
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

SessionFactory = Callable[[], Session]


class DatabaseProblem(Exception):
    """A campaign file that cannot be used; the message says what is wrong and what to do."""


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


def _begin(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN")


def make_engine(target: str) -> Engine:
    """An engine for a path or URL; SQLite connections get the house pragmas."""
    url = to_url(target)
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _set_sqlite_pragmas)
        event.listen(engine, "begin", _begin)
    return engine


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
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def checkpoint(factory: SessionFactory) -> None:
    """Fold the WAL into the file and empty it, so no old page lingers beside the file."""
    session = factory()
    try:
        if session.get_bind().dialect.name == "sqlite":
            session.connection().exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        session.close()


def _alembic_config(engine: Engine) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    config.attributes["engine"] = engine
    return config


def head_revision() -> str:
    """The newest schema revision this version of tracker knows."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS_DIR))
    head = script.get_current_head()
    assert head is not None
    return head


def known_revisions() -> set[str]:
    """Every schema revision this version of tracker can upgrade from."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS_DIR))
    return {rev.revision for rev in script.walk_revisions()}


@contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection that leaves no -wal or -shm file behind when there was none."""
    wal = path.with_name(path.name + "-wal")
    # Without a -wal there is nothing outside the main file: immutable reads it without
    # creating sidecars. With one, SQLite must read it, and the sidecars were there already.
    mode = "ro" if wal.exists() else "ro&immutable=1"
    conn = sqlite3.connect(f"file:{path}?mode={mode}", uri=True)
    try:
        yield conn
    finally:
        conn.close()


def inspect_file(path: Path) -> str | None:
    """Check a campaign file without changing it; return its schema revision (None if new or empty).

    Raises DatabaseProblem for a folder, a non-SQLite file, a damaged file or a newer schema.
    """
    if path.is_dir():
        raise DatabaseProblem(
            f"{path} is a folder, not a campaign file: pass a file path with --db."
        )
    if not path.parent.is_dir():
        raise DatabaseProblem(
            f"the folder {path.parent} does not exist: create it, or choose another path with --db."
        )
    if not path.exists() or path.stat().st_size == 0:
        if path.exists():
            raise DatabaseProblem(
                f"{path} is empty (0 bytes): restore it from {paths.backups_dir(path)} "
                "or remove it to start a new campaign file."
            )
        return None
    with path.open("rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise DatabaseProblem(
            f"{path} is not a tracker campaign file (not SQLite): check the path given to --db."
        )
    try:
        with _read_only(path) as conn:
            result = conn.execute("PRAGMA quick_check").fetchone()
            if not result or result[0] != "ok":
                raise sqlite3.DatabaseError(result[0] if result else "no answer")
            has_version = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='alembic_version'"
            ).fetchone()
            revision = None
            if has_version:
                row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
                revision = row[0] if row else None
            elif conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise DatabaseProblem(
                    f"{path} is an SQLite file of another program (no tracker schema): "
                    "choose another file with --db."
                )
    except sqlite3.DatabaseError as exc:
        raise DatabaseProblem(
            f"{path} is damaged ({exc}): restore it from {paths.backups_dir(path)} "
            "or choose another file with --db."
        ) from exc
    if revision is not None and revision not in known_revisions():
        raise DatabaseProblem(
            f"{path} was written by a newer tracker (schema {revision}): "
            "upgrade tracker to open it; the file was left unchanged."
        )
    return revision


def backup_file(path: Path, reason: str) -> Path:
    """Copy a campaign file with SQLite's online backup API into backups/ beside it."""
    folder = paths.backups_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{path.stem}-{stamp}-{reason}{path.suffix or '.db'}"
    with _read_only(path) as source:
        dest = sqlite3.connect(target)
        try:
            source.backup(dest)
        finally:
            dest.close()
    return target


def migrate(engine: Engine) -> Path | None:
    """Bring the schema to head; back up an existing file first. Returns the backup made, if any."""
    from alembic import command

    backup: Path | None = None
    path = sqlite_path(str(engine.url))
    if path is not None:
        revision = inspect_file(path)
        if revision == head_revision():
            return None
        if revision is not None:
            backup = backup_file(path, f"before-{head_revision()}")
    command.upgrade(_alembic_config(engine), "head")
    return backup


@contextmanager
def scratch_scope(factory: SessionFactory) -> Iterator[Session]:
    """A transaction that is always rolled back: work out what a change would do, write nothing."""
    session = factory()
    try:
        yield session
    finally:
        session.rollback()
        session.close()
