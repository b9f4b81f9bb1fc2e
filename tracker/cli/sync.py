"""`tracker sync pack CAMPAIGN --to FILE` and `tracker sync merge FILE`: two copies of a
campaign played apart, merged back (docs/FILES.md "Copies that play apart")."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.cli.common import (
    EXIT_BAD_INPUT,
    add_force,
    campaign_named,
    command,
    refused,
    write_file,
)
from tracker.cli.viewers import add_for_argument, viewer_of
from tracker.redaction import shown

if TYPE_CHECKING:  # the services load when a command runs, not for --help or the app
    from tracker.services.common import SessionFactory


def add_parser(sub: Any) -> None:
    parser = command(
        sub,
        "sync",
        help="merge two copies of a campaign played apart: pack one's journal, merge it into "
        "the other",
        description="A packet holds the journal entries another copy of the campaign lacks, "
        "each with every row it wrote; merging writes those this copy lacks, and holds an entry "
        "that changes a value this copy changed otherwise, for the player to decide.",
    )
    what = parser.add_subparsers(dest="sync", required=True, metavar="pack|merge|held|decide")
    pack = command(what, "pack", "write the entries the other copy lacks to a packet")
    pack.add_argument("campaign", help="the campaign's name (or its number)")
    pack.add_argument("--to", required=True, metavar="FILE", help="the packet file to write")
    pack.add_argument(
        "--all", action="store_true", help="every entry, not only those the other copy lacked"
    )
    add_force(pack)
    add_for_argument(
        pack,
        "owner: every entry with the secrets of the rows they wrote, sealed as stored (the "
        "default); opponent or umpire: the entries as they may see them, no secret in them",
    )
    pack.set_defaults(handler=run_pack, needs_file=True)
    merge = command(
        what,
        "merge",
        help="write a packet's entries this copy lacks",
        description="A packet's form and the merge's rules are in docs/FILES.md (Copies that "
        "play apart).",
    )
    merge.add_argument("file", metavar="FILE", help="a packet written by tracker sync pack")
    merge.set_defaults(handler=run_merge, writes=True)
    held = command(what, "held", "list the merged entries held for the player to decide")
    held.add_argument("campaign", help="the campaign's name (or its number)")
    held.set_defaults(handler=run_held)
    decide = command(what, "decide", "decide a held entry: keep this copy's values, or take the "
                     "other copy's")  # fmt: skip
    decide.add_argument("entry", type=int, help="the held entry's number (tracker sync held)")
    decide.add_argument(
        "--keep", required=True, choices=("ours", "theirs"),
        help="ours: this copy's values stay; theirs: the other copy's are written",
    )  # fmt: skip
    decide.set_defaults(handler=run_decide, writes=True)


def run_pack(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import documents, sync_pack
    from tracker.services.visibility import Viewer

    campaign_id = campaign_named(factory, target, args.campaign)
    if campaign_id is None:
        return EXIT_BAD_INPUT
    viewer = Viewer(viewer_of(args))

    def packet() -> bytes:
        return documents.dumps(sync_pack.pack(factory, campaign_id=campaign_id,
                                              everything=args.all, viewer=viewer))  # fmt: skip

    return write_file(args, target, args.to, packet, private=viewer is Viewer.OWNER)


def run_merge(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import sync_merge
    from tracker.services.errors import DatabaseUnavailable, InvalidInput

    path = Path(args.file)
    try:
        merged = sync_merge.merge_file(factory, path=path)
    except (InvalidInput, DatabaseUnavailable) as exc:
        return refused(exc, path, "merged")
    print(f"tracker: merged {path} into {shown(target)}: {merged.added} new journal entries, "
          f"{merged.known} already here, {len(merged.held)} held")  # fmt: skip
    if merged.backup:
        print(f"  backup taken first: {merged.backup}")
    for line in merged.held:
        print(f"  held: {line}")
    for line in merged.notes:
        print(f"  {line}")
    if merged.held:
        print("  a value held was not written: decide each, tracker sync decide NUMBER "
              "--keep ours|theirs")  # fmt: skip
        print(f"  (tracker sync held {merged.campaign!r} lists them with their values)")
    return 0


def run_held(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import sync_merge

    campaign_id = campaign_named(factory, target, args.campaign)
    if campaign_id is None:
        return EXIT_BAD_INPUT
    held = sync_merge.held(factory, campaign_id=campaign_id)
    print("\n".join(held) or "tracker: no merged entry is held")
    return 0


def run_decide(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.services import sync_decide
    from tracker.services.errors import DatabaseUnavailable, InvalidInput

    try:
        said = sync_decide.decide(factory, entry_id=args.entry, keep=args.keep)
    except (InvalidInput, DatabaseUnavailable) as exc:
        return refused(exc, f"#{args.entry}", "decided")
    print(f"tracker: {said}")
    print("  the next packet carries the decision to the other copy")
    return 0
