"""`tracker backups`: the backups of the campaign file, newest first."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker import paths, settings
from tracker.campaign_file import DatabaseProblem, inspect_file
from tracker.cli.common import EXIT_BAD_INPUT, command, fail, file_of
from tracker.redaction import shown

if TYPE_CHECKING:
    from tracker.db import Backup

# What inspect_file said is wrong with a backup, in a word for the list.
_PROBLEMS = {
    "newer tracker": "newer",
    "damaged": "damaged",
    "not SQLite": "not SQLite",
    "another program": "foreign",
    "is empty": "empty",
}


def add_parser(sub: Any) -> None:
    parser = command(
        sub,
        "backups",
        help="list the backups of the campaign file, newest first",
        description="List the backups kept in backups/ beside the campaign file, newest first: "
        "one is taken before each schema upgrade, at each scenario close and before a restore.",
    )
    # Runs on the file as it is: listing must work on a file the app cannot open.
    parser.set_defaults(handler=run, before_migrate=True)


def campaign_path(target: str) -> Path | None:
    """The campaign file behind --db; None, with a line on stderr, for another kind of database."""
    path = file_of(target)
    if path is None:
        fail(
            f"{shown(target)} is not an SQLite file: tracker keeps file backups "
            "of SQLite campaign files only; use the database's own backup tools (pg_dump)."
        )
    return path


def warn_settings() -> settings.Settings:
    """The player's settings, with a line on stderr for each problem in the file."""
    loaded = settings.read()
    for warning in loaded.warnings:
        print(f"tracker: {warning}", file=sys.stderr)
    return loaded.settings


def schema_of(path: Path) -> str:
    """The schema revision of a backup, read without changing it, or what is wrong with it."""
    try:
        revision = inspect_file(path)
    except DatabaseProblem as exc:
        found = (short for words, short in _PROBLEMS.items() if words in str(exc))
        return next(found, "unusable")
    return revision or "empty"


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KiB"
    return f"{size / 1024 / 1024:.1f} MiB"


def describe(backup: Backup) -> tuple[str, str, str, str, str]:
    taken = backup.taken.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    size = size_text(backup.path.stat().st_size)
    return backup.path.name, taken, size, backup.reason, schema_of(backup.path)


def run(args: argparse.Namespace, factory: Any, target: str) -> int:
    path = campaign_path(target)
    if path is None:
        return EXIT_BAD_INPUT
    keep = warn_settings().keep_backups
    from tracker.db import list_backups

    found = list_backups(path)
    folder = paths.backups_dir(path)
    if not found:
        print(
            f"No backups of {path} in {folder} yet: one is taken before each schema upgrade, "
            "at each scenario close and before a restore."
        )
        return 0
    print(f"Backups of {path} in {folder}, newest first (the newest {keep} are kept):")
    rows = [("NAME", "TAKEN (LOCAL TIME)", "SIZE", "REASON", "SCHEMA")]
    rows.extend(describe(backup) for backup in found)
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    print("Restore one with: tracker restore NAME")
    return 0
