"""What the sub-commands do alike: refuse in one line with exit 2, name a campaign, and write
a player's file (the options --html, --markdown, --paper and --force, and the write itself)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tracker import paths
from tracker.redaction import shown

if TYPE_CHECKING:  # the services load when a command runs, not for --help or the app
    from tracker.services.common import SessionFactory

EXIT_BAD_INPUT = 2


def fail(message: str, who: str = "tracker") -> int:
    print(f"{who}: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def said(exc: Exception) -> str:
    """What a service's refusal (InvalidInput, DatabaseUnavailable) or a write's says, in a line."""
    from tracker.safe_output import ExistingFile

    errors = getattr(exc, "errors", None)
    if isinstance(errors, dict):
        return "; ".join(errors.values())
    if isinstance(exc, ExistingFile):
        return f"{exc.path} already exists: add --force to replace it, or choose another file name"
    return str(exc)


def refused(exc: Exception, path: object, undone: str = "written", hint: str = "") -> int:
    """A file the player gave, refused unread or by the service, nothing done (exit 2)."""
    from tracker.services.text_files import Unreadable

    if isinstance(exc, Unreadable):
        return fail(exc.errors["file"])
    return fail(f"{path}: {said(exc)}{hint}; nothing was {undone}")


class _Named(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...


def key(name: str) -> str:
    """A name as a player may type it: in any case (casefolded, as names are told apart: "SS"
    names "ß"), the spaces around a `/` aside (`royal navy / force g`)."""
    return "/".join(part.strip() for part in name.casefold().split("/"))


def matching(found: Iterable[tuple[int, Sequence[str]]], wanted: str) -> list[int]:
    """The ids of what `wanted` names, each given with its names from the top (campaign, side,
    squadron): by its own name, or with those above it as far up as typed (`Force G`,
    `Royal Navy/Force G`, `Atlantic/Royal Navy/Force G`)."""
    wanted = key(wanted)
    return [
        found_id
        for found_id, names in found
        if any(key("/".join(names[start:])) == wanted for start in range(len(names)))
    ]


MAX_LISTED = 12  # names listed in a refusal before "and N more"
# What a refusal of a blank name gives as an example.
_EXAMPLE = {
    "campaign": '"River Plate"',
    "side": '"Royal Navy" or "River Plate/Royal Navy"',
    "squadron": '"Force G" or "Royal Navy/Force G"',
}


def one_named(found: Sequence[tuple[int, Sequence[str]]], name: str, what: str) -> int:
    """The one campaign, side or squadron (`what`) of `found` that `name` names (`matching`);
    an unknown or ambiguous name is refused with the candidates."""
    from tracker.errors import InvalidInput

    if not name.replace("/", "").strip():
        raise InvalidInput({what: f"give a {what}'s name, e.g. {_EXAMPLE[what]}"})
    matches = matching(found, name)
    if len(matches) == 1:
        return matches[0]
    # Without its campaign a name is enough to tell them apart unless two campaigns share it.
    short = ["/".join(names[1:] or names) for _, names in found]
    label_of = {
        row_id: short[index] if short.count(short[index]) == 1 else "/".join(names)
        for index, (row_id, names) in enumerate(found)
    }
    if matches:
        listed = ", ".join(label_of[row_id] for row_id in matches)
        raise InvalidInput({what: f'"{name}" names {len(matches)} {what}s: {listed}; give one as '
                            "listed"})  # fmt: skip
    if not found:
        raise InvalidInput({what: f'no {what} named "{name}": the file has no {what}s'})
    shown = list(label_of.values())
    listed = ", ".join(shown[:MAX_LISTED])
    if len(shown) > MAX_LISTED:
        listed += f" and {len(shown) - MAX_LISTED} more"
    raise InvalidInput({what: f'no {what} named "{name}"; the file has {listed}'})


def pick(found: Sequence[_Named], wanted: str) -> int | None:
    """The campaign the player named: by its name (`matching`), else its number, else by
    words of its name."""
    wanted = wanted.strip()
    # A name first: a campaign named "2" is not campaign number 2.
    named = matching(((summary.id, (summary.name,)) for summary in found), wanted)
    if named:
        return named[0]
    numbered = next((summary.id for summary in found if str(summary.id) == wanted), None)
    if numbered is not None:
        return numbered
    # Then the one campaign whose name holds the words typed ("river plate").
    folded = wanted.casefold()
    partial = [summary.id for summary in found if folded in summary.name.casefold()]
    return partial[0] if len(partial) == 1 and wanted else None


def no_campaign(wanted: str, target: str, found: Sequence[_Named]) -> int:
    names = ", ".join(f"{c.id}: {c.name!r}" for c in found) or "none"
    return fail(f"no campaign {wanted!r} in {shown(target)} (campaigns: {names})")


def campaign_named(factory: SessionFactory, target: str, wanted: str) -> int | None:
    """The campaign the player named (`pick`), or None once the campaigns are listed on stderr."""
    from tracker.services import campaigns

    found = campaigns.list_campaigns(factory)
    campaign_id = pick(found, wanted)
    if campaign_id is None:
        no_campaign(wanted, target, found)
    return campaign_id


def command(sub: Any, name: str, help: str, description: str = "") -> argparse.ArgumentParser:
    """A sub-command: `help` is its line in the list of commands, and its --help says what it
    does (`description`, else that line as a sentence)."""
    return sub.add_parser(
        name, help=help, description=description or f"{help[0].upper()}{help[1:]}."
    )


def add_output(parser: argparse.ArgumentParser, markdown: str) -> None:
    output = parser.add_mutually_exclusive_group(required=True)
    output.add_argument("--html", metavar="FILE", help="a self-contained HTML page to print")
    output.add_argument("--markdown", metavar="FILE", help=markdown)
    parser.add_argument(
        "--paper",
        choices=("a4", "letter"),
        default="a4",
        type=str.lower,
        help="page size of the HTML page (default: a4)",
    )


def output_of(args: argparse.Namespace) -> tuple[str, str]:
    return ("html", args.html) if args.html is not None else ("markdown", args.markdown)


def columns_in(section: str) -> str:
    """The sentence of a --help that says where the columns of the file it reads are: a
    section of docs/FILES.md (a test checks that the section exists)."""
    return f"The columns are listed in docs/FILES.md ({section})."


def add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the file if it exists (never the campaign file, its backups, or any file "
        "in the umpire's view)",
    )


def file_of(target: str) -> Path | None:
    """The campaign file the database named is (None for a server's database); a path is
    taken without loading the database libraries."""
    if not paths.is_url(target):
        return Path(target).expanduser()
    from tracker.db import sqlite_path

    return sqlite_path(target)


def write_file(
    args: argparse.Namespace, target: str, name: str, document: Callable[[], str | bytes],
    *, private: bool = False,
) -> int:  # fmt: skip
    """Write a player's file through safe_output (never the campaign file; an existing one only
    with --force; `private`: a side's secrets, the owner's export), or say what was refused."""
    from tracker import safe_output

    try:
        path = safe_output.write_text(
            name, document, campaign=file_of(target), replace=args.force, new_only=args.umpire,
            private=private,
        )  # fmt: skip
    except (safe_output.OutputRefused, safe_output.ExistingFile) as exc:
        return fail(said(exc))
    print(f"tracker: wrote {path}")
    return 0
