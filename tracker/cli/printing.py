"""`tracker print SQUADRON --html FILE | --markdown FILE [--paper a4|letter] [--for WHO]`: a
printable sheet."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tracker.cli.viewers import add_for_argument, viewer_of

if TYPE_CHECKING:
    from tracker.safe_output import ExistingFile
    from tracker.services.common import SessionFactory

EXIT_BAD_INPUT = 2


def add_parser(sub: Any) -> None:
    """The `print` sub-command."""
    parser = sub.add_parser(
        "print",
        help="write a squadron's record sheet as a printable HTML page or as Markdown",
        description="Write a squadron's current record sheet (commander, crew, ships, Structure "
        "and Flotation with their 1/3 marks, criticals, fuel) to a file.",
    )
    parser.add_argument(
        "squadron",
        metavar="SQUADRON",
        help='the squadron\'s name in any case, or "Side/Squadron" when two sides share it',
    )
    output = parser.add_mutually_exclusive_group(required=True)
    output.add_argument("--html", metavar="FILE", help="a self-contained HTML page to print")
    output.add_argument("--markdown", metavar="FILE", help="a Markdown version for notes")
    parser.add_argument(
        "--paper",
        choices=("a4", "letter"),
        default="a4",
        type=str.lower,
        help="page size of the HTML page (default: a4)",
    )
    add_force(parser)
    add_for_argument(
        parser,
        "who the sheet is for: the owner's (the default) shows a minelayer's mines, the "
        "opponent's and the umpire's hide them",
    )
    parser.set_defaults(handler=run, needs_file=True)


def run(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    """Find the squadron, write the file whole (or nothing), print the path written."""
    from tracker.publish import sheet_pages
    from tracker.safe_output import ExistingFile
    from tracker.services import printing
    from tracker.services.errors import DatabaseUnavailable, InvalidInput
    from tracker.services.visibility import Viewer

    fmt, path = ("html", args.html) if args.html is not None else ("markdown", args.markdown)
    try:
        squadron_id = printing.find_squadron(factory, args.squadron)
        written = sheet_pages.write_sheet(
            factory, squadron_id=squadron_id, path=path, fmt=fmt, paper=args.paper,
            replace=args.force, new_only=args.umpire, viewer=Viewer(viewer_of(args)),
        )  # fmt: skip
    except (InvalidInput, DatabaseUnavailable) as exc:
        print(f"tracker print: {'; '.join(exc.errors.values())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ExistingFile as exc:
        print(f"tracker print: {not_forced(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"tracker: wrote {written}")
    return 0


def add_force(parser: argparse.ArgumentParser) -> None:
    """--force: the one way a command replaces a file that exists (never the campaign file)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the file if it exists (never the campaign file, its backups, or any file "
        "in the umpire's view)",
    )


def not_forced(exc: ExistingFile) -> str:
    """The one line a command says when the file it would write exists and --force is missing."""
    return f"{exc.path} already exists: add --force to replace it, or choose another file name"
