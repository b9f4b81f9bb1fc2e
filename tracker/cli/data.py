"""`tracker export CAMPAIGN --to FILE.json` and `tracker import FILE.json [--name NAME]`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.cli.common import (
    EXIT_BAD_INPUT,
    add_force,
    campaign_named,
    columns_in,
    command,
    fail,
    no_campaign,
    pick,
    refused,
    write_file,
)
from tracker.cli.viewers import add_for_argument, viewer_of
from tracker.redaction import shown

if TYPE_CHECKING:  # the services load when a command runs, not for --help or the app
    from tracker.services.common import SessionFactory


def add_parser(sub: Any) -> None:
    export = command(
        sub,
        "export",
        help="write a whole campaign to a JSON file",
        description="Write one whole campaign to a JSON file that `tracker import` reads back "
        f"into this or another campaign file. {columns_in('Campaign files (JSON)')}",
    )
    export.add_argument("campaign", help="the campaign's name (or its number)")
    export.add_argument("--to", required=True, metavar="FILE", help="the JSON file to write")
    add_force(export)
    add_for_argument(
        export,
        "owner: the whole campaign, secret notes sealed as stored (the default); opponent or "
        "umpire: a view to read, with every secret not yet revealed left out",
    )
    export.set_defaults(handler=run_export, needs_file=True, on_the_file=export_from_file)
    load = command(
        sub,
        "import",
        help="add a campaign from a JSON file to the campaign file",
        description="All of it or nothing; a campaign exported by an earlier tracker is brought "
        f"up to date. {columns_in('Campaign files (JSON)')}",
    )
    load.add_argument("file", metavar="FILE", help="a JSON file written by tracker export")
    load.add_argument("--name", help="import under this name (a campaign's name is never merged)")
    load.set_defaults(handler=run_import, writes=True)


def run_export(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import documents, exchange
    from tracker.services.visibility import Viewer

    campaign_id = campaign_named(factory, target, args.campaign)
    if campaign_id is None:
        return EXIT_BAD_INPUT

    def document() -> bytes:
        return documents.dumps(exchange.export_campaign(
            factory, campaign_id=campaign_id, viewer=Viewer(viewer_of(args))))  # fmt: skip

    return write_file(args, target, args.to, document, private=viewer_of(args) == "owner")


class _Changed(Exception):
    """The campaign file changed between the export's first look and its read."""


def export_from_file(args: argparse.Namespace, target: str) -> int | None:
    """`tracker export` of a campaign file exactly as tracker left it at a clean close, at
    this tracker's schema and tables (documents.HEAD_PLAN_DIGEST), read with sqlite3 in one
    read transaction: the database libraries' start was most of an export's time. The document
    is run_export's. None for any other file, and for the umpire's view: the command then
    opens it as every other command does, with every check."""
    import os
    import sqlite3

    from tracker import campaign_file
    from tracker.services import documents

    path = Path(target).expanduser()
    if args.umpire or not (path.is_file() and campaign_file.left_by_tracker(path)):
        return None
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return None  # refused as every command refuses a read-only file

    def read(campaign_id: int | None) -> tuple[documents.Plan, dict[str, Any], str]:
        with campaign_file.snapshot(path) as conn:
            plan = documents.plan_of_sqlite(conn)
            if documents.plan_digest(plan) != documents.HEAD_PLAN_DIGEST:
                raise _Changed
            rows = {} if campaign_id is None else documents.campaign_rows(
                conn.cursor(), plan, campaign_id)  # fmt: skip
            (schema,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        return plan, rows, schema

    found = campaign_file.first_look(path)  # None for a file at another schema
    if found is None:
        return None
    try:
        read(None)  # _Changed when the file's tables are not exactly this tracker's
    except (sqlite3.Error, _Changed):
        return None
    campaign_id = pick(found, args.campaign)
    if campaign_id is None:
        return no_campaign(args.campaign, target, found)
    with campaign_file.snapshot(path) as conn:
        merged = conn.execute("SELECT 1 FROM journalentry WHERE campaign_id = ? AND kind = ?",
                              (campaign_id, documents.MERGED)).fetchone()  # fmt: skip
    if merged:
        return None  # a copy that merged another's packet: exported as every copy exports it

    def document() -> bytes:
        plan, rows, schema = read(campaign_id)
        if not rows.get("campaign") or documents.merged_copy(rows, plan):
            raise _Changed
        made = documents.document_of(rows, plan, schema)
        if viewer_of(args) != "owner":
            from tracker.services.exchange import view_of

            made = view_of(made, viewer_of(args))
        return documents.dumps(made)

    try:
        return write_file(args, target, args.to, document, private=viewer_of(args) == "owner")
    except (sqlite3.Error, _Changed) as exc:
        why = "another program changed it while it was read" if isinstance(exc, _Changed) else exc
        return fail(f"cannot read {target}: {why}; nothing was written: run the export again")


def run_import(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import campaigns, exchange, identities
    from tracker.services.errors import DatabaseUnavailable, InvalidInput
    from tracker.services.text_files import open_file

    path = Path(args.file)
    try:
        # A file over the limit is refused unread; one is read as it is checked.
        with open_file(path, limit=exchange.MAX_BYTES, too_large=exchange.too_large) as file:
            document = exchange.read_document(file)
        added = exchange.library_additions(factory, document=document)
        copy = identities.held(factory, document=document)
        campaign_id = exchange.import_campaign(factory, document=document, name=args.name)
    except (InvalidInput, DatabaseUnavailable) as exc:
        return refused(exc, path, "imported", " (use --name)" * ("name" in exc.errors))
    name = next(c.name for c in campaigns.list_campaigns(factory) if c.id == campaign_id)
    print(f"tracker: imported {name!r} into {shown(target)}")
    if copy:
        print(
            f"  {shown(target)} holds this campaign already: {name!r} is a separate campaign, "
            "with identities of its own, not a copy of it"
        )
    # The library is shared by every campaign of the file: what came with this one is said.
    for table, entries in added.items():
        for entry in entries:
            print(f"  added to the library: {LIBRARY_ENTRY[table]} {entry}")
    return 0


LIBRARY_ENTRY = {"unitcard": "unit card", "shipclass": "ship class"}
