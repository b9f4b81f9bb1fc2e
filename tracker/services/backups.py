"""Backups of the campaign file behind a session factory, and which database that is."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from tracker import paths
from tracker.campaign_file import file_key
from tracker.db import DatabaseProblem, SessionFactory, backup_file, shown_url, sqlite_path

log = logging.getLogger(__name__)


def _engine(factory: SessionFactory) -> Engine:
    with factory() as session:
        return session.get_bind().engine


def campaign_file(factory: SessionFactory) -> Path | None:
    """The SQLite file the factory's sessions write to; None for another kind of database."""
    return sqlite_path(_engine(factory).url.render_as_string(hide_password=False))


def database_key(factory: SessionFactory) -> str:
    """What names this database across runs: the file's absolute path, else the URL
    without its secrets (the player's settings remember the last campaign by it)."""
    path = campaign_file(factory)
    return file_key(path) if path is not None else shown_url(_engine(factory))


@dataclass(frozen=True)
class TakenBackup:
    """The copy made, or why none could be written (the player must be told); both None for a
    database that is not an SQLite file, which tracker does not back up."""

    path: Path | None
    failure: str | None


def back_up(factory: SessionFactory, *, reason: str) -> TakenBackup:
    """Copy the campaign file into backups/ beside it, keeping the player's keep_backups newest.
    A failure raises nothing (the player's change is saved already): it is logged and said."""
    path = campaign_file(factory)
    if path is None or not path.exists():
        return TakenBackup(None, None)
    try:
        return TakenBackup(backup_file(path, reason), None)
    except (OSError, sqlite3.Error, DatabaseProblem, ValueError) as exc:
        log.warning("could not back up %s (%s): %s", path, reason, exc)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return TakenBackup(None, f"{path} could not be copied into {paths.backups_dir(path)} "
                           f"({why})")  # fmt: skip
