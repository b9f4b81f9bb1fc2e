"""`--for owner|opponent|umpire`: who a file written from the command line is meant for; and
what a command may show under `--umpire`.

The owner's file by default; under `--umpire` the umpire's, which is what the opponent may see,
and no option widens it: an option that would open a side's secrets (`--for owner`, a report's
`--side`) is refused there (docs/RULES.md §Secrets)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

VIEWERS = ("owner", "opponent", "umpire")
# The set_defaults key of a sub-command whose options can open a side's secrets: a function
# of the parsed arguments saying which one does, or None.
WIDENS = "widens"
Widens = Callable[[argparse.Namespace], str | None]


def add_for_argument(parser: Any, help_text: str) -> None:
    parser.add_argument(
        "--for", dest="viewer", choices=VIEWERS, default=None,
        help=f"{help_text}; under --umpire: umpire (the default), opponent",
    )  # fmt: skip
    parser.set_defaults(**{WIDENS: _for_owner})


def viewer_of(args: argparse.Namespace) -> str:
    """Who the command writes for: --for, else the umpire under --umpire, else the owner."""
    return str(args.viewer or ("umpire" if args.umpire else "owner"))


def _for_owner(args: argparse.Namespace) -> str | None:
    return "--for owner writes a side's secrets" if args.viewer == "owner" else None


def umpire_refusal(args: argparse.Namespace) -> str | None:
    """Why the command may not run under --umpire (it writes, or would show more than the
    opponent may see); else None."""
    if not args.umpire:
        return None
    if args.command == "demo" or getattr(args, "writes", False):
        return f"{args.command} writes to the database"
    widens: Widens | None = getattr(args, WIDENS, None)
    why = widens(args) if widens is not None else None
    return None if why is None else f"{args.command}: {why}: the umpire's view shows no secret"
