"""`tracker print SQUADRON --html FILE | --markdown FILE [--paper a4|letter] [--for WHO]`: a
printable sheet."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tracker.cli.common import add_force, add_output, command, fail, one_named, output_of, said
from tracker.cli.viewers import add_for_argument, viewer_of

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory


def add_parser(sub: Any) -> None:
    parser = command(
        sub,
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
    add_output(parser, "a Markdown version for notes")
    add_force(parser)
    add_for_argument(
        parser,
        "who the sheet is for: the owner's (the default) shows a minelayer's mines, the "
        "opponent's and the umpire's hide them",
    )
    parser.set_defaults(handler=run, needs_file=True)


def run(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.publish import sheet_pages
    from tracker.safe_output import ExistingFile
    from tracker.services import printing
    from tracker.services.errors import DatabaseUnavailable, InvalidInput
    from tracker.services.visibility import Viewer

    fmt, path = output_of(args)
    try:
        squadron_id = one_named(printing.named(factory, depth=3), args.squadron, "squadron")
        written = sheet_pages.write_sheet(
            factory, squadron_id=squadron_id, path=path, fmt=fmt, paper=args.paper,
            replace=args.force, new_only=args.umpire, viewer=Viewer(viewer_of(args)),
        )  # fmt: skip
    except (InvalidInput, DatabaseUnavailable, ExistingFile) as exc:
        return fail(said(exc), "tracker print")
    print(f"tracker: wrote {written}")
    return 0
