"""`tracker import-csv {ships,units,counters} FILE --into NAME [--dry-run]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.cli.common import (
    EXIT_BAD_INPUT,
    campaign_named,
    columns_in,
    command,
    fail,
    one_named,
    refused,
    said,
)
from tracker.rules.words import plural

if TYPE_CHECKING:  # the services load when the command runs, not for --help or the app
    from tracker.services.common import SessionFactory

# The kinds of file services.csv_import reads (a test keeps the two lists equal).
KINDS = ("ships", "units", "counters")
INTO = {
    "ships": "the squadron, as Squadron or Side/Squadron or Campaign/Side/Squadron",
    "units": "the side, as Side or Campaign/Side",
    "counters": "the campaign",
}
INTO_DEPTH = {"ships": (3, "squadron"), "units": (2, "side")}


def add_parser(sub: Any) -> None:
    load = command(
        sub,
        "import-csv",
        help="add ships, War at Sea units or Second World War at Sea counters from a CSV file",
        description="Every row is checked as a form would check it; any problem and nothing is "
        f"written. {columns_in('CSV columns')}",
    )
    load.add_argument("kind", choices=KINDS, help="what the file's rows are")
    load.add_argument(
        "file",
        metavar="FILE",
        help="the CSV file (any spreadsheet's: its encoding and separator are found)",
    )
    load.add_argument(
        "--into",
        required=True,
        metavar="NAME",
        help="; ".join(f"{kind}: {what}" for kind, what in INTO.items()),
    )
    load.add_argument("--dry-run", action="store_true", help="check every row, write nothing")
    load.set_defaults(handler=run, needs_file=True, writes=True)


def run(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import csv_import
    from tracker.services.errors import DatabaseUnavailable, InvalidInput
    from tracker.services.printing import named
    from tracker.services.text_files import read_file

    if args.kind == "counters":  # a campaign, found as every command finds one
        into = campaign_named(factory, target, args.into)
        if into is None:
            return EXIT_BAD_INPUT
    else:
        depth, what = INTO_DEPTH[args.kind]
        try:
            into = one_named(named(factory, depth=depth), args.into, what)
        except InvalidInput as exc:
            return fail(f"--into: {said(exc)} ({INTO[args.kind]})")
    path = Path(args.file)
    try:
        raw = read_file(path, limit=csv_import.MAX_BYTES)
        report = csv_import.import_csv(factory, kind=args.kind, raw=raw, target_id=into,
                                       dry_run=args.dry_run)  # fmt: skip
    except (InvalidInput, DatabaseUnavailable) as exc:
        return refused(exc, path)
    if report.problems:
        for line in report.problems:
            print(f"{path}: {line}", file=sys.stderr)
        count = len(report.problems)
        return fail(f"{path}: {plural(count, 'problem')}; nothing was written")
    if args.dry_run:
        print(f"tracker: {path}: {report.valid} of {report.rows} rows are ready ({report.source}; "
              "dry run: nothing written)")  # fmt: skip
    else:
        noun = args.kind if report.written != 1 else args.kind.removesuffix("s")
        print(f"tracker: {path}: imported {report.written} {noun} ({report.source})")
    return 0
