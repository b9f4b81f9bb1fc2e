"""Backups of a campaign file: taking, naming, listing, pruning and restoring them.

Only names of our own pattern are touched. A backup is taken through SQLite's online backup
API, so it is consistent while the app writes (WAL).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tracker import paths, settings
from tracker.campaign_file import (
    RESTORE_PREFIX,
    SQLITE_HEADER,
    DatabaseProblem,
    _read_only,
    header_of,
    inspect_file,
    not_a_readable_file,
    refuse_newer,
    remove_stale_restores,
    scratch_folder,
)

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


def backup_file(path: Path, reason: str, *, keep: int | None = None) -> Path:
    """Copy a campaign file into backups/ beside it (consistent while the app writes, under a
    temporary name until whole), then keep the newest `keep` (default: the player's setting)."""
    target = _copy_to_backups(path, reason)
    prune_backups(path, keep=keep, protect=(target,))
    return target


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
    """Delete this file's backups beyond the newest `keep` (default: the keep_backups setting),
    never a protected one nor a file not named by us; returns what was deleted."""
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


def _backup_into(path: Path, target: Path, timeout: float = 5.0) -> None:
    """Copy path, read-only, into target through SQLite's online backup API."""
    with _read_only(path) as source, closing(sqlite3.connect(target, timeout=timeout)) as dest:
        source.backup(dest)


def _new_backup(path: Path, reason: str) -> Path:
    """Where a new backup of path goes: a name no backup has (two in one microsecond: the
    next), the reason part of it (anything else becomes "-", so a backup is never refused)."""
    reason = re.sub(r"[^A-Za-z0-9_-]", "-", reason).lstrip("-_")[:60] or "backup"
    folder = paths.backups_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    when = datetime.now(UTC)
    target = folder / backup_name(path, when, reason)
    while target.exists():
        when += timedelta(microseconds=1)
        target = folder / backup_name(path, when, reason)
    return target


def _copy_to_backups(path: Path, reason: str) -> Path:
    target = _new_backup(path, reason)
    partial = target.with_name(f".{target.name}.partial")
    try:
        _backup_into(path, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _copy_raw(path: Path, reason: str) -> Path:
    """A byte copy of a file SQLite cannot read, with its sidecars, named like a backup."""
    target = _new_backup(path, reason)
    for sidecar in _SIDECARS[::2]:  # -wal and -journal hold changes; -shm is only an index
        source = path.with_name(path.name + sidecar)
        if source.exists():
            shutil.copyfile(source, target.with_name(target.name + sidecar))
    shutil.copyfile(path, target)
    return target


def _damaged(path: Path) -> bool:
    """True for a file SQLite cannot write into as it is (not SQLite, or damaged)."""
    header = header_of(path)
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
        with _read_only(copy) as conn:
            problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
            row = None
            if "alembic_version" in tables:
                row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise DatabaseProblem(f"{name} is damaged ({exc})") from exc
    if problems != ["ok"]:
        raise DatabaseProblem(f"{name} is damaged (integrity check: {problems[0]})")
    if row is None:
        raise DatabaseProblem(f"{name} is not a tracker campaign file (no tracker schema)")
    refuse_newer(name, row[0], "restore it")
    revision = inspect_file(copy)
    assert revision is not None
    return revision


def restore_backup(backup: Path, path: Path, *, keep: int | None = None) -> Restored:
    """Put a backup in place of the campaign file: a checked copy of it (a damaged or foreign
    one changes nothing), written after a "before-restore" backup through a normal connection,
    so a running app's WAL sees the restored pages and no stale -wal replays over them."""
    for item, what in ((path, "campaign file"), (backup, "backup")):
        problem = not_a_readable_file(item, what)
        if problem is not None:
            raise DatabaseProblem(problem)
    if header_of(backup) != SQLITE_HEADER:
        raise DatabaseProblem(f"{backup.name} is not a tracker backup (not SQLite)")
    folder = paths.backups_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    remove_stale_restores(path)
    # A restore killed midway leaves its copy, which the next start removes.
    with scratch_folder(folder, RESTORE_PREFIX) as scratch:
        copy = scratch / "restore.db"
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
    try:
        _backup_into(copy, path, timeout=30)
    except sqlite3.DatabaseError as exc:
        raise DatabaseProblem(f"could not write into {path} ({exc})") from exc
