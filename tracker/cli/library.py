"""`tracker library import FILE [--dry-run]` and `tracker library export FILE [--classes]`."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.cli.common import add_force, columns_in, command, fail, refused, write_file

if TYPE_CHECKING:  # the services load when the command runs, not for --help or the app
    from tracker.services.common import SessionFactory


def add_parser(sub: Any) -> None:
    parser = command(
        sub,
        "library",
        help="read ship classes or War at Sea cards into the file's library, or write it out",
        description="The library is shared by every campaign in the file. A file read again "
        "updates the entries it changes (known by name and nation), adds the new ones and "
        f"never duplicates one. {columns_in('Library columns')}",
    )
    commands = parser.add_subparsers(dest="library_command", required=True)
    load = command(
        commands,
        "import",
        help="read a CSV (cards or classes) or JSON file",
        description=columns_in("Library columns"),
    )
    load.add_argument("file", metavar="FILE", help="FILE.csv (any separator) or FILE.json")
    load.add_argument("--dry-run", action="store_true", help="check and report, write nothing")
    load.set_defaults(handler=run_import, writes=True)
    export = command(commands, "export", "write the library as CSV or JSON")
    export.add_argument("file", metavar="FILE", help="FILE.json (all of it) or FILE.csv")
    export.add_argument(
        "--classes", action="store_true", help="CSV: the ship classes (else the unit cards)"
    )
    add_force(export)
    export.set_defaults(handler=run_export, needs_file=True)


def run_import(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import library
    from tracker.services.errors import DatabaseUnavailable, InvalidInput
    from tracker.services.text_files import read_file

    path = Path(args.file)
    try:
        raw = read_file(path, limit=library.MAX_BYTES, too_large=library.too_large)
        report = library.import_library(factory, raw=raw, dry_run=args.dry_run,
                                        json_file=path.suffix.lower() == ".json")  # fmt: skip
    except (InvalidInput, DatabaseUnavailable) as exc:
        return refused(exc, path)
    for line in report.problems:
        print(f"{path}: {line}", file=sys.stderr)
    for line in report.warnings:
        print(f"{path}: warning: {line}")
    if report.problems:
        return fail(f"{path}: {report.summary()}")
    print(f"tracker: {path}: {report.summary()}")
    for outcome in report.outcomes:
        for title, lines in outcome.listed():
            print("".join(f"  {outcome.kind} {title}: {line}\n" for line in lines), end="")
    return 0


def run_export(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import library_export

    as_json = Path(args.file).suffix.lower() == ".json"
    kind = None if as_json else "classes" if args.classes else "cards"
    document = partial(library_export.export_text, factory, kind=kind)
    return write_file(args, target, args.file, document)
