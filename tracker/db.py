"""Engine, pragmas, sessions, and the checked migration of a campaign file."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from tracker import paths, settings
from tracker.campaign_file import (
    MIGRATIONS_DIR,
    RESTORE_PREFIX,
    SQLITE_HEADER,
    DatabaseProblem,
    _read_only,
    head_revision,
    inspect_file,
    known_revisions,
    left_by_tracker,
    not_a_readable_file,
    read_only_uri,
    remember_left,
    remove_stale_restores,
    revision_chain,
)
from tracker.errors import (
    ChangedElsewhere,
    ConnectionLost,
    DatabaseUnavailable,
    ReadOnlyDatabase,
)

__all__ = [
    "MIGRATIONS_DIR", "SQLITE_HEADER", "DatabaseProblem", "head_revision", "inspect_file",
    "known_revisions", "left_by_tracker", "not_a_readable_file", "remember_left",
    "remove_stale_restores", "revision_chain",
]  # fmt: skip

SessionFactory = Callable[[], Session]


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


def _set_read_only_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _begin(conn: Any) -> None:
    # IMMEDIATE: a transaction takes the write lock when it starts, so a change that reads a
    # ship and then writes it cannot interleave with another program's change to that ship;
    # the other program waits (busy_timeout) instead of failing or losing an update.
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
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    if state == "25006" or "readonly database" in text or "read-only" in text:
        return ReadOnlyDatabase("this is a read-only view: nothing can be changed here")
    if state in {"40001", "40P01"}:
        return ChangedElsewhere(
            "another player changed this at the same moment: nothing was written; try again"
        )
    if exc.connection_invalidated or state.startswith("08") or state in {"57P01", "57P03"}:
        return ConnectionLost(
            f"lost the connection to the database ({text}): nothing was written; "
            "tracker reconnects by itself, try again in a moment"
        )
    if "database is locked" in text:
        return DatabaseUnavailable(
            "another program held the campaign file for 5 seconds: nothing was written; try again"
        )
    if "database or disk is full" in text or state == "53100":
        return DatabaseUnavailable(
            "the disk is full: nothing was written; free some space and try again"
        )
    if "Could not decode to UTF-8" in text:
        return DatabaseUnavailable(
            "the campaign file is damaged (a text in it is not UTF-8): nothing was written; "
            "restore it from a backup (tracker backups, tracker restore)"
        )
    if type(orig).__name__ == "OperationalError" and _driver_backend(exc) == "postgresql":
        return ConnectionLost(
            f"cannot reach the database ({text}): nothing was written; "
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
        # driver's connection, which is in autocommit mode (see _set_sqlite_pragmas).
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


def _alembic_config(engine: Engine) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    config.attributes["engine"] = engine
    return config


def backup_file(path: Path, reason: str, *, keep: int | None = None) -> Path:
    """Copy a campaign file with SQLite's online backup API into backups/ beside it, then keep
    only the newest `keep` backups of that file (default: the player's keep_backups setting).

    The copy is one read transaction, so it is consistent while the app writes (WAL); it is
    written under a temporary name first, so a copy cut short is never taken for a backup.
    """
    target = _copy_to_backups(path, reason)
    prune_backups(path, keep=keep, protect=(target,))
    return target


def shown_url(engine: Engine) -> str:
    """The database's URL as a message may show it: never with its password."""
    return engine.url.render_as_string(hide_password=True)


def inspect_server(engine: Engine) -> str | None:
    """Check a database on a server without changing it; return its schema revision (None if
    it is empty). Raises DatabaseProblem when it cannot be reached or logged into, holds
    another program's tables, or has a newer schema."""
    from sqlalchemy import inspect, text

    where = shown_url(engine)
    try:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            revision = None
            if "alembic_version" in tables:
                row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
                revision = row[0] if row else None
    except DBAPIError as exc:
        first = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else "no answer"
        raise DatabaseProblem(
            f"cannot open {where} ({first}): check the host, port, database name, user and "
            "password in the URL, and that the server is running"
        ) from exc
    if tables and "alembic_version" not in tables:
        raise DatabaseProblem(
            f"{where} holds tables of another program (no tracker schema): "
            "give tracker a database of its own"
        )
    if revision is not None and revision not in known_revisions():
        raise DatabaseProblem(
            f"{where} was written by a newer tracker (schema {revision}): "
            "upgrade tracker to open it; the database was left unchanged."
        )
    return revision


def check_schema(engine: Engine, metadata: MetaData) -> None:
    """DatabaseProblem when a table or column of tracker's schema (metadata) is missing from the
    database, which would stop the app at the first query that uses it: the database was
    changed by another program, or damaged where the integrity check cannot see (a name in the
    schema's text)."""
    from sqlalchemy import inspect

    path = sqlite_path(str(engine.url))
    if path is not None:  # read apart from the engine, whose transactions take the write lock
        with _read_only(path) as raw:
            query = "SELECT name FROM sqlite_master WHERE type = 'table'"
            columns = {
                table: {row[1] for row in raw.execute(f'PRAGMA table_info("{table}")')}
                for (table,) in raw.execute(query).fetchall()
            }
    else:
        with engine.connect() as conn:
            found = inspect(conn).get_multi_columns()
        columns = {table: {column["name"] for column in info} for (_, table), info in found.items()}
    for table in metadata.sorted_tables:
        names = columns.get(table.name)
        missing = [column.name for column in table.columns if column.name not in (names or ())]
        if missing:
            lacks = f"the table {table.name}" if names is None else f"{table.name}.{missing[0]}"
            raise DatabaseProblem(
                f"{path or shown_url(engine)} lacks {lacks} of "
                "tracker's schema: it was changed by another program or is damaged; restore a "
                "backup (tracker backups) or choose another file with --db."
            )


def schema_revision(target: str, engine: Engine) -> str | None:
    """The schema revision of the database at target (engine open on it), read without writing."""
    path = sqlite_path(to_url(target))
    if path is not None:
        return inspect_file(path)
    return inspect_server(engine)


def migrate(engine: Engine) -> Path | None:
    """Bring the schema to head; back up an existing file first. Returns the backup made, if any."""
    backup: Path | None = None
    path = sqlite_path(str(engine.url))
    if path is not None:
        revision = inspect_file(path)
        _check_writable(path)
        if revision == head_revision():
            return None
        if revision is not None:
            backup = backup_file(path, f"before-{head_revision()}")
    elif engine.dialect.name != "sqlite" and inspect_server(engine) == head_revision():
        return None
    from alembic import command  # only for an upgrade: 11 MiB the app rarely needs

    try:
        command.upgrade(_alembic_config(engine), "head")
    except DBAPIError as exc:
        # The upgrade is one transaction: it was rolled back, the database is as it was.
        problem = database_error(exc)
        if problem is not None:
            reason = "; ".join(problem.errors.values())
        else:  # a schema the migrations do not expect: damaged, or changed by another program
            first = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else "error"
            reason = (
                f"{first}: nothing was written; it may be damaged or changed by another "
                "program: restore a backup (tracker backups)"
            )
        kept = f" (a copy is kept as {backup})" if backup else ""
        where = path or shown_url(engine)
        raise DatabaseProblem(f"could not upgrade {where}{kept}: {reason}") from exc
    return backup


def _check_writable(path: Path) -> None:
    """DatabaseProblem unless SQLite can write the file and, beside it, its -wal, -shm and
    backups/ (a read-only file would open and then refuse the player's first change)."""
    if path.exists() and not os.access(path, os.W_OK):
        raise DatabaseProblem(
            f"{path} is read-only: make it writable (chmod u+w) to play, "
            "or look at it with --umpire."
        )
    if not os.access(path.parent, os.W_OK):
        raise DatabaseProblem(
            f"the folder {path.parent} is read-only, and tracker writes beside the campaign "
            "file (its journal and backups/): make the folder writable, or move the file."
        )


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


# Backups: naming, listing, pruning and restoring. Only names of our own pattern are touched.

BACKUP_REASON = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,59}")
_STAMP = "%Y%m%dT%H%M%S%fZ"
_SIDECARS = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Backup:
    """One backup of a campaign file: where it is, when it was taken (UTC) and why."""

    path: Path
    taken: datetime
    reason: str


@dataclass(frozen=True)
class Restored:
    """A restore that was made: the schema revision now in the file, and the copy of the file
    that was replaced (None when there was no file)."""

    revision: str
    before: Path | None


def backup_name(path: Path, when: datetime, reason: str) -> str:
    """`campaign-20261130T120000123456Z-before-0002.db`: the file, the UTC time, the reason."""
    return f"{path.stem}-{when.astimezone(UTC).strftime(_STAMP)}-{reason}{path.suffix or '.db'}"


def _backup_pattern(path: Path) -> re.Pattern[str]:
    stamp = r"(?P<stamp>\d{8}T\d{6}(?:\d{6})?Z)"
    suffix = re.escape(path.suffix or ".db")
    return re.compile(f"{re.escape(path.stem)}-{stamp}-(?P<reason>{BACKUP_REASON.pattern}){suffix}")


def list_backups(path: Path) -> list[Backup]:
    """The backups of this campaign file in backups/ beside it, newest first."""
    folder = paths.backups_dir(path)
    if not folder.is_dir():
        return []
    pattern = _backup_pattern(path)
    found = []
    for entry in folder.iterdir():
        match = pattern.fullmatch(entry.name)
        if match is None or not entry.is_file():
            continue
        stamp = match["stamp"]
        try:
            taken = datetime.strptime(stamp, _STAMP if len(stamp) > 16 else "%Y%m%dT%H%M%SZ")
        except ValueError:  # digits that are no time: not ours
            continue
        found.append(Backup(entry, taken.replace(tzinfo=UTC), match["reason"]))
    found.sort(key=lambda backup: (backup.taken, backup.path.name), reverse=True)
    return found


def prune_backups(
    path: Path, *, keep: int | None = None, protect: Iterable[Path] = ()
) -> list[Path]:
    """Delete this file's backups beyond the newest `keep` (default: the keep_backups setting);
    returns what was deleted. A protected path is never deleted, nor any file not named by us."""
    keep = settings.load().keep_backups if keep is None else keep
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    protected = {Path(os.path.abspath(item)) for item in protect}
    removed = []
    for backup in list_backups(path)[keep:]:
        if Path(os.path.abspath(backup.path)) in protected:
            continue
        for sidecar in _SIDECARS:
            backup.path.with_name(backup.path.name + sidecar).unlink(missing_ok=True)
        backup.path.unlink(missing_ok=True)
        removed.append(backup.path)
    return removed


def _backup_into(path: Path, target: Path) -> None:
    """Copy path, read-only, into the new file target through SQLite's online backup API."""
    with _read_only(path) as source:
        dest = sqlite3.connect(target)
        try:
            source.backup(dest)
        finally:
            dest.close()


def _copy_to_backups(path: Path, reason: str) -> Path:
    # A reason is part of the name: anything else becomes "-", so a backup is never refused.
    reason = re.sub(r"[^A-Za-z0-9_-]", "-", reason).lstrip("-_")[:60] or "backup"
    folder = paths.backups_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    when = datetime.now(UTC)
    target = folder / backup_name(path, when, reason)
    while target.exists():  # two backups in one microsecond: never overwrite one
        when += timedelta(microseconds=1)
        target = folder / backup_name(path, when, reason)
    partial = folder / f".{target.name}.partial"
    try:
        _backup_into(path, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _copy_raw(path: Path, reason: str) -> Path:
    """A byte copy of a file SQLite cannot read, with its sidecars, named like a backup."""
    folder = paths.backups_dir(path)
    target = folder / backup_name(path, datetime.now(UTC), reason)
    for sidecar in _SIDECARS[::2]:  # -wal and -journal hold changes; -shm is only an index
        source = path.with_name(path.name + sidecar)
        if source.exists():
            shutil.copyfile(source, target.with_name(target.name + sidecar))
    shutil.copyfile(path, target)
    return target


def _damaged(path: Path) -> bool:
    """True for a file SQLite cannot write into as it is (not SQLite, or damaged)."""
    with path.open("rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
    if header and header != SQLITE_HEADER:
        return True
    try:
        inspect_file(path)
    except DatabaseProblem as exc:
        return isinstance(exc.__cause__, (sqlite3.DatabaseError, UnicodeDecodeError))
    return False


def check_restorable(copy: Path, name: str) -> str:
    """The schema revision of a private copy of a backup that passes PRAGMA integrity_check
    and is a tracker file this version can open; else DatabaseProblem naming the backup."""
    try:
        conn = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        try:
            problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
            row = None
            if "alembic_version" in tables:
                row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise DatabaseProblem(f"{name} is damaged ({exc})") from exc
    if problems != ["ok"]:
        raise DatabaseProblem(f"{name} is damaged (integrity check: {problems[0]})")
    if row is None:
        raise DatabaseProblem(f"{name} is not a tracker campaign file (no tracker schema)")
    if row[0] not in known_revisions():
        raise DatabaseProblem(
            f"{name} was written by a newer tracker (schema {row[0]}): "
            "upgrade tracker to restore it"
        )
    revision = inspect_file(copy)
    assert revision is not None
    return revision


def restore_backup(backup: Path, path: Path, *, keep: int | None = None) -> Restored:
    """Put a backup in place of the campaign file, through SQLite's online backup API.

    The backup is copied and checked first: a damaged or foreign one changes nothing. Then the
    current file is backed up ("before-restore"), and the checked copy is written into it
    through a normal connection, so the WAL of a running app sees the restored pages and no
    stale -wal is left to replay over them.
    """
    for item, what in ((path, "campaign file"), (backup, "backup")):
        problem = not_a_readable_file(item, what)
        if problem is not None:
            raise DatabaseProblem(problem)
    with backup.open("rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise DatabaseProblem(f"{backup.name} is not a tracker backup (not SQLite)")
    folder = paths.backups_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    remove_stale_restores(path)
    # Named with this process's id: a restore killed midway leaves its copy, which the next
    # start removes (remove_stale_restores), and never one of a restore still running.
    with tempfile.TemporaryDirectory(
        prefix=f"{RESTORE_PREFIX}{os.getpid()}-", dir=folder
    ) as scratch:
        copy = Path(scratch) / "restore.db"
        try:
            _backup_into(backup, copy)
        except sqlite3.DatabaseError as exc:
            raise DatabaseProblem(f"{backup.name} is damaged ({exc})") from exc
        revision = check_restorable(copy, backup.name)
        before, damaged = None, path.exists() and _damaged(path)
        if damaged:
            before = _copy_raw(path, "before-restore")
        elif path.exists():
            try:
                before = _copy_to_backups(path, "before-restore")
            except sqlite3.DatabaseError as exc:
                raise DatabaseProblem(f"could not back up {path} first ({exc})") from exc
        _install(copy, path, damaged=damaged)
    prune_backups(path, keep=keep, protect=[item for item in (backup, before) if item])
    return Restored(revision=inspect_file(path) or revision, before=before)


def _install(copy: Path, path: Path, *, damaged: bool) -> None:
    if damaged:
        # SQLite cannot write into it; nothing can have it open. Its sidecars belong to the
        # damaged file and would be replayed over the restored one: they go with it.
        for sidecar in _SIDECARS:
            path.with_name(path.name + sidecar).unlink(missing_ok=True)
        os.replace(copy, path)
        return
    with _read_only(copy) as source:
        dest = sqlite3.connect(path, timeout=30)
        try:
            source.backup(dest)
        except sqlite3.DatabaseError as exc:
            raise DatabaseProblem(f"could not write into {path} ({exc})") from exc
        finally:
            dest.close()
