"""`tracker report CAMPAIGN [--scenario N] (--html FILE | --markdown FILE) [--side NAME]`: the
campaign's story, or one scenario's after-action report, as a page to print or as Markdown."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tracker.cli.data import _campaign_id, _fail
from tracker.cli.printing import add_force, not_forced
from tracker.cli.viewers import WIDENS
from tracker.redaction import shown

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory


def add_parser(sub: Any) -> None:
    """The `report` sub-command."""
    parser = sub.add_parser(
        "report",
        help="write the campaign's story (or an after-action report) as HTML or Markdown",
        description="Write the campaign report (scenarios and outcomes, what each side lost and "
        "repaired, each ship's service record, the Structure and Flotation plots, and every "
        "closed scenario's after-action report), or with --scenario one after-action report.",
    )
    parser.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's name (or number)")
    parser.add_argument("--scenario", metavar="N", type=int,
                        help="only the after-action report of scenario N (closed)")  # fmt: skip
    output = parser.add_mutually_exclusive_group(required=True)
    output.add_argument("--html", metavar="FILE", help="a self-contained HTML page to print")
    output.add_argument("--markdown", metavar="FILE", help="a Markdown version")
    parser.add_argument("--side", metavar="NAME",
                        help="the report for this side: its own secrets shown (its passphrase is "
                        "asked for when it has one; refused under --umpire); default: for "
                        "everyone, only what is revealed")  # fmt: skip
    parser.add_argument("--paper", choices=("a4", "letter"), default="a4", type=str.lower,
                        help="page size of the HTML page (default: a4)")  # fmt: skip
    add_force(parser)
    parser.set_defaults(handler=run, needs_file=True, **{WIDENS: _own_side})


def _own_side(args: argparse.Namespace) -> str | None:
    return "--side shows that side's secrets" if args.side is not None else None


def run(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    """Find the campaign, its scenario and side, write the file whole (or nothing)."""
    from tracker.publish import report_pages
    from tracker.safe_output import ExistingFile
    from tracker.services import campaigns
    from tracker.services.errors import DatabaseUnavailable, InvalidInput

    campaign_id = _campaign_id(factory, args.campaign)
    if campaign_id is None:
        names = ", ".join(f"{c.id}: {c.name!r}" for c in campaigns.list_campaigns(factory))
        return _fail(
            f"no campaign {args.campaign!r} in {shown(target)} (campaigns: {names or 'none'})"
        )
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    scenario_id = side_id = None
    if args.scenario is not None:
        scenario_id = next((s.id for s in overview.scenarios if s.position == args.scenario), None)
        if scenario_id is None:
            numbers = ", ".join(f"{s.position} ({s.title})" for s in overview.scenarios)
            return _fail(f"{overview.campaign.name} has no scenario {args.scenario}; its "
                         f"scenarios are {numbers or 'none yet'}")  # fmt: skip
    if args.side is not None:
        wanted = args.side.strip().casefold()
        side_id = next((s.id for s in overview.sides if s.name.casefold() == wanted), None)
        if side_id is None:
            names = ", ".join(s.name for s in overview.sides)
            return _fail(f"{overview.campaign.name} has no side {args.side!r}; its sides are "
                         f"{names or 'none yet'}")  # fmt: skip
    fmt, path = ("html", args.html) if args.html is not None else ("markdown", args.markdown)
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
            return _fail(f"report: {'; '.join(exc.errors.values())}{hint}")
        except DatabaseUnavailable as exc:
            return _fail(f"report: {'; '.join(exc.errors.values())}")
        except ExistingFile as exc:
            return _fail(f"report: {not_forced(exc)}")
    print(f"tracker: wrote {written}")
    return 0
