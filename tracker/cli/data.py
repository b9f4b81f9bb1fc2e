"""`tracker export CAMPAIGN --to FILE.json` and `tracker import FILE.json [--name NAME]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.cli.printing import add_force, not_forced
from tracker.cli.viewers import add_for_argument

if TYPE_CHECKING:  # the services load when a command runs, not for --help or the app
    from tracker.services.common import SessionFactory
    from tracker.services.errors import DatabaseUnavailable, InvalidInput

EXIT_BAD_INPUT = 2


def add_parser(sub: Any) -> None:
    export = sub.add_parser("export", help="write a whole campaign to a JSON file")
    export.add_argument("campaign", help="the campaign's name (or its number)")
    export.add_argument("--to", required=True, metavar="FILE", help="the JSON file to write")
    add_force(export)
    add_for_argument(
        export,
        "owner: the whole campaign, secret notes sealed as stored (default); opponent or "
        "umpire: a view to read, with every secret not yet revealed left out",
    )
    export.set_defaults(handler=run_export, needs_file=True)
    load = sub.add_parser("import", help="add a campaign from a JSON file to the campaign file")
    load.add_argument("file", metavar="FILE", help="a JSON file written by tracker export")
    load.add_argument("--name", help="import under this name (a campaign's name is never merged)")
    load.set_defaults(handler=run_import, writes=True)


def _fail(message: str) -> int:
    print(f"tracker: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _problem(exc: InvalidInput | DatabaseUnavailable) -> str:
    return "; ".join(exc.errors.values())


def _campaign_id(factory: SessionFactory, wanted: str) -> int | None:
    from tracker.services import campaigns

    found = campaigns.list_campaigns(factory)
    wanted = wanted.strip()
    # A name first: a campaign named "2" is not campaign number 2.
    for summary in found:
        if summary.name.lower() == wanted.lower():
            return summary.id
    numbered = next((summary.id for summary in found if str(summary.id) == wanted), None)
    if numbered is not None:
        return numbered
    # Then the one campaign whose name holds the words typed ("river plate").
    partial = [summary.id for summary in found if wanted.lower() in summary.name.lower()]
    return partial[0] if len(partial) == 1 and wanted else None


def run_export(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import campaigns, exchange
    from tracker.services.visibility import Viewer

    campaign_id = _campaign_id(factory, args.campaign)
    if campaign_id is None:
        names = ", ".join(f"{c.id}: {c.name!r}" for c in campaigns.list_campaigns(factory))
        names = names or "none"
        return _fail(f"no campaign {args.campaign!r} in {target} (campaigns: {names})")

    def document() -> str:
        return exchange.dumps(exchange.export_campaign(
            factory, campaign_id=campaign_id, viewer=Viewer(args.viewer)))  # fmt: skip

    return write_file(args, target, args.to, document)


def write_file(
    args: argparse.Namespace, target: str, name: str, document: Callable[[], str]
) -> int:
    """Write a player's file through safe_output (never the campaign file; an existing one only
    with --force); the exit status, with what was refused said."""
    from tracker import safe_output
    from tracker.db import sqlite_path, to_url

    try:
        path = safe_output.write_text(name, document, campaign=sqlite_path(to_url(target)),
                                      replace=args.force, new_only=args.umpire)  # fmt: skip
    except safe_output.OutputRefused as exc:
        return _fail(str(exc))
    except safe_output.ExistingFile as exc:
        return _fail(not_forced(exc))
    print(f"tracker: wrote {path}")
    return 0


def run_import(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import campaigns, exchange
    from tracker.services.errors import DatabaseUnavailable, InvalidInput

    path = Path(args.file)
    try:
        size = path.stat().st_size
        if size > exchange.MAX_BYTES:  # refused unread
            return _fail(f"{path}: {exchange.too_large(size)}; nothing was imported")
        file = path.open("rb")
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror}")
    try:
        with file:  # read as it is checked: its rows are held, not its bytes as well
            document = exchange.read_document(file)
        campaign_id = exchange.import_campaign(factory, document=document, name=args.name)
    except (InvalidInput, DatabaseUnavailable) as exc:
        hint = " (use --name)" if "name" in exc.errors else ""
        return _fail(f"{path}: {_problem(exc)}{hint}; nothing was imported")
    name = next(c.name for c in campaigns.list_campaigns(factory) if c.id == campaign_id)
    print(f"tracker: imported {name!r} into {target}")
    return 0
