"""Backups of the campaign file behind a session factory, and which database that is."""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

from tracker.db import DatabaseProblem, SessionFactory, backup_file, sqlite_path

log = logging.getLogger(__name__)


def campaign_file(factory: SessionFactory) -> Path | None:
    """The SQLite file the factory's sessions write to; None for another kind of database."""
    session = factory()
    try:
        url = session.get_bind().engine.url
    finally:
        session.close()
    return sqlite_path(url.render_as_string(hide_password=False))


def database_key(factory: SessionFactory) -> str:
    """What names this database across runs: the file's absolute path, else the URL
    without its password (the player's settings remember the last campaign by it)."""
    path = campaign_file(factory)
    if path is not None:
        return os.path.abspath(path)
    session = factory()
    try:
        return session.get_bind().engine.url.render_as_string(hide_password=True)
    finally:
        session.close()


def back_up(factory: SessionFactory, *, reason: str, keep: int | None = None) -> Path | None:
    """Copy the campaign file into backups/ beside it, keeping the newest `keep` (default: the
    player's keep_backups setting); None for a database that is not an SQLite file.

    A failed copy is logged and swallowed: it runs after the player's change has been saved,
    and must not make that change look refused.
    """
    path = campaign_file(factory)
    if path is None or not path.exists():
        return None
    try:
        return backup_file(path, reason, keep=keep)
    except (OSError, sqlite3.Error, DatabaseProblem, ValueError) as exc:
        log.warning("could not back up %s (%s): %s", path, reason, exc)
        return None
