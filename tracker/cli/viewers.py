"""`--for owner|opponent|umpire`: who a file written from the command line is meant for."""

from __future__ import annotations

from typing import Any

VIEWERS = ("owner", "opponent", "umpire")


def add_for_argument(parser: Any, help_text: str) -> None:
    """The `--for` option (docs/RULES.md §Secrets): the owner's file by default."""
    parser.add_argument("--for", dest="viewer", choices=VIEWERS, default="owner", help=help_text)
