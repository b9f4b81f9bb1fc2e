"""`tracker report CAMPAIGN [--scenario N] (--html FILE | --markdown FILE) [--side NAME]`: the
campaign's story, or one scenario's after-action report, as a page to print or as Markdown."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tracker.cli.common import (
    EXIT_BAD_INPUT,
    add_force,
    add_output,
    campaign_named,
    command,
    fail,
    matching,
    output_of,
    said,
)
from tracker.cli.viewers import WIDENS

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory


def add_parser(sub: Any) -> None:
    parser = command(
        sub,
        "report",
        help="write the campaign's story (or an after-action report) as HTML or Markdown",
        description="Write the campaign report (scenarios and outcomes, what each side lost and "
        "repaired, each ship's service record, the Structure and Flotation plots, and every "
        "closed scenario's after-action report), or with --scenario one after-action report.",
    )
    parser.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's name (or number)")
    parser.add_argument("--scenario", metavar="N", type=int,
                        help="only the after-action report of scenario N (closed)")  # fmt: skip
    add_output(parser, "a Markdown version")
    parser.add_argument("--side", metavar="NAME",
                        help="the report for this side: its own secrets shown (its passphrase is "
                        "asked for when it has one; refused under --umpire); default: for "
                        "everyone, only what is revealed")  # fmt: skip
    add_force(parser)
    parser.set_defaults(handler=run, needs_file=True, **{WIDENS: _own_side})


def _own_side(args: argparse.Namespace) -> str | None:
    return "--side shows that side's secrets" if args.side is not None else None


def run(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    from tracker.publish import report_pages
    from tracker.safe_output import ExistingFile
    from tracker.services import campaigns
    from tracker.services.errors import DatabaseUnavailable, InvalidInput

    campaign_id = campaign_named(factory, target, args.campaign)
    if campaign_id is None:
        return EXIT_BAD_INPUT
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    scenario_id = side_id = None
    if args.scenario is not None:
        scenario_id = next((s.id for s in overview.scenarios if s.position == args.scenario), None)
        if scenario_id is None:
            numbers = ", ".join(f"{s.position} ({s.title})" for s in overview.scenarios)
            return fail(f"{overview.campaign.name} has no scenario {args.scenario}; its "
                         f"scenarios are {numbers or 'none yet'}")  # fmt: skip
    if args.side is not None:
        sides = ((side.id, (side.name,)) for side in overview.sides)
        side_id = next(iter(matching(sides, args.side)), None)
        if side_id is None:
            names = ", ".join(s.name for s in overview.sides)
            return fail(f"{overview.campaign.name} has no side {args.side!r}; its sides are "
                         f"{names or 'none yet'}")  # fmt: skip
    fmt, path = output_of(args)
    passphrase = None
    while True:
        try:
            written = report_pages.write_report(
                factory, campaign_id=campaign_id, scenario_id=scenario_id, side_id=side_id,
                passphrase=passphrase, path=path, fmt=fmt, paper=args.paper, replace=args.force,
                new_only=args.umpire,
            )  # fmt: skip
            break
        except InvalidInput as exc:
            if "passphrase" in exc.errors and passphrase is None and sys.stdin.isatty():
                import getpass

                passphrase = getpass.getpass(f"{args.side}'s passphrase: ")
                continue
            hint = ("; run tracker report at a terminal to type it"
                    if "passphrase" in exc.errors and passphrase is None else "")  # fmt: skip
            return fail(f"report: {said(exc)}{hint}")
        except (DatabaseUnavailable, ExistingFile) as exc:
            return fail(f"report: {said(exc)}")
    print(f"tracker: wrote {written}")
    return 0
