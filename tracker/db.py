"""Engine, pragmas, sessions, and the checked migration of a campaign file."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlmodel import Session

from tracker import paths, settings

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


def backup_file(path: Path, reason: str, *, keep: int | None = None) -> Path:
    """Copy a campaign file with SQLite's online backup API into backups/ beside it, then keep
    only the newest `keep` backups of that file (default: the player's keep_backups setting).

    The copy is one read transaction, so it is consistent while the app writes (WAL); it is
    written under a temporary name first, so a copy cut short is never taken for a backup.
    """
    target = _copy_to_backups(path, reason)
    prune_backups(path, keep=keep, protect=(target,))
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
        return isinstance(exc.__cause__, sqlite3.DatabaseError)
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
    if path.is_dir():
        raise DatabaseProblem(f"{path} is a folder, not a campaign file")
    with backup.open("rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise DatabaseProblem(f"{backup.name} is not a tracker backup (not SQLite)")
    folder = paths.backups_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".restore-", dir=folder) as scratch:
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
