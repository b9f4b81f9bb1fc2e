"""`tracker restore BACKUP [--yes] [--keep N]`: put a backup in place of the campaign file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from tracker import paths, settings
from tracker.campaign_file import DatabaseProblem, head_revision, not_a_readable_file
from tracker.cli.backups import campaign_path, schema_of, warn_settings
from tracker.cli.common import EXIT_BAD_INPUT, command, fail

EXIT_DECLINED = 1


def keep_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= settings.MAX_KEEP_BACKUPS:
        raise argparse.ArgumentTypeError(
            f"must be a whole number 1..{settings.MAX_KEEP_BACKUPS}, got {text!r}"
        )
    return value


def add_parser(sub: Any) -> None:
    parser = command(
        sub,
        "restore",
        help="put a backup in place of the campaign file (the file is backed up first)",
        description="Restore a backup over the campaign file. The backup is checked first "
        "(PRAGMA integrity_check, a tracker schema); the current file is backed up "
        "(reason before-restore) before it is replaced. Backups are described in docs/FILES.md "
        "(Backups and settings).",
    )
    parser.add_argument("backup", metavar="BACKUP", help="a name from `tracker backups`, or a path")
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--keep",
        type=keep_count,
        metavar="N",
        help="keep the newest N backups of the file (default: the keep_backups setting)",
    )
    # Runs on the file as it is: restoring is the way out for a file the app cannot open.
    parser.set_defaults(handler=run, before_migrate=True, writes=True)


def find_backup(wanted: str, path: Path) -> Path | None:
    """A name in backups/ beside the campaign file, else a path to a file."""
    candidates = [Path(wanted).expanduser()]
    if os.sep not in wanted and "/" not in wanted:
        candidates.insert(0, paths.backups_dir(path) / wanted)
    # Anything there is found, then refused by name if it is no file (a FIFO, a device).
    return next((item for item in candidates if os.path.lexists(item)), None)


def run(args: argparse.Namespace, factory: Any, target: str) -> int:
    path = campaign_path(target)
    if path is None:
        return EXIT_BAD_INPUT
    backup = find_backup(args.backup, path)
    if backup is None:
        return fail(
            f"no backup {args.backup!r} in {paths.backups_dir(path)}: `tracker backups` lists them"
        )
    # Refused before any question or read: a FIFO would wait forever for a writer.
    for item, what in ((path, "campaign file"), (backup, "backup")):
        problem = not_a_readable_file(item, what)
        if problem is not None:
            return fail(f"{problem}: nothing was restored")
    if path.exists() and backup.resolve() == path.resolve():
        return fail(f"{backup} is the campaign file itself: choose one of its backups")
    keep = args.keep or warn_settings().keep_backups
    if not args.yes:
        if not sys.stdin.isatty():
            return fail("restore replaces the campaign file: confirm in a terminal, or add --yes")
        question = f"Restore {backup.name} (schema {schema_of(backup)}) over {path}?"
        try:
            answer = input(f"{question} The current file is backed up first. [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was restored.")
            return EXIT_DECLINED
    from tracker.db import restore_backup

    try:
        restored = restore_backup(backup, path, keep=keep)
    except DatabaseProblem as exc:
        return fail(f"{exc}: nothing was restored, {path} is as it was")
    except OSError as exc:
        return fail(f"cannot restore {backup.name}: {exc.strerror or exc}")
    print(f"tracker: restored {backup.name} over {path} (schema {restored.revision}).")
    if restored.before is not None:
        print(f"tracker: the file it replaced is kept as {restored.before}")
    if restored.revision != head_revision():
        print(
            "tracker: its schema is older; it is upgraded (after a backup) when tracker opens it."
        )
    return 0
