"""The player's documents name what a player needs: each screen's keys in the step or the guide
section about it, and every document a --help points to (the columns of a file it reads)."""

from __future__ import annotations

import argparse
import re
import string
from pathlib import Path
from typing import Any

import pytest
from textual.keys import _character_to_key, key_to_character

from tracker.cli import build_parser
from tracker.screens.campaign import CampaignScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.journal import JournalScreen
from tracker.screens.ledger import LedgerScreen
from tracker.screens.library import LibraryScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.repairs import RepairsScreen
from tracker.screens.roster import RosterScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.screens.welcome import WelcomeScreen

ROOT = Path(__file__).resolve().parent.parent
# Where a player reads each screen's keys: a step of the README's turn, or a guide's section.
WHERE: dict[type[Any], tuple[str, str]] = {
    WelcomeScreen: ("README.md", "1."), CampaignScreen: ("README.md", "2."),
    RecordSheetScreen: ("README.md", "3."), DamageEntryScreen: ("README.md", "4."),
    JournalScreen: ("README.md", "5."), ScenarioScreen: ("README.md", "6."),
    RepairsScreen: ("README.md", "7."),
    LedgerScreen: ("docs/GUIDE.md", "## The minefield ledger and fuel loss"),
    RosterScreen: ("docs/GUIDE.md", "## The fleet roster with decoy notes"),
    LibraryScreen: ("docs/GUIDE.md", "## The library"),
}  # fmt: skip


def section(document: str, start: str) -> str:
    """A step of the README's turn ("3." to the next step), or a guide's section (to the next
    heading of its level)."""
    text = (ROOT / document).read_text(encoding="utf-8")
    if start.startswith("#"):
        body = text.split(start + "\n", 1)[1]
        return re.split(rf"\n#{{1,{start.count('#')}}} ", body)[0]
    turn = text.split("## Playing a turn\n", 1)[1].split("\n#", 1)[0]
    step = turn.split(f"\n{start} ", 1)[1]
    return re.split(r"\n\d+\. ", step)[0]


def named(text: str) -> set[str]:
    """The keys a text names: each word of its `code` spans (`ctrl+down`/`ctrl+up`, `f`/`F`)."""
    spans = re.findall(r"`([^`]+)`", text)
    return {*spans, *(word for span in spans for word in re.split(r"[ /]", span))}


PUNCTUATION = {_character_to_key(character): character for character in string.punctuation}


def shown(key: str) -> str:
    character = PUNCTUATION.get(key) or key_to_character(key)
    return character if character and character.isprintable() and not character.isspace() else key


@pytest.mark.parametrize("screen", list(WHERE), ids=lambda screen: screen.__name__)
def test_each_step_names_every_key_of_its_screen(screen: type[Any]) -> None:
    # A binding's first key (x of "x,delete"); escape goes back everywhere (the last step).
    keys = {shown(binding.key.split(",")[0]) for binding in screen.BINDINGS} - {"escape"}
    assert keys - named(section(*WHERE[screen])) == set()


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parser and every subcommand's, however deep."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found.extend(parsers(child))
    return found


# A document and its section, as a --help names them: docs/FILES.md (Campaign files (JSON)).
POINTER = re.compile(r"((?:docs/)?[\w-]+\.md) \(((?:[^()]|\([^()]*\))+)\)")


def test_every_document_and_section_a_help_names_exists() -> None:
    pointers = set()
    for parser in parsers(build_parser()):
        text = " ".join(parser.format_help().split())
        pointers |= set(POINTER.findall(text))
    assert pointers  # the helps do point somewhere
    for document, heading in pointers:
        path = ROOT / document
        assert path.is_file(), document
        headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
        assert heading in headings, (document, heading)


def test_every_command_that_reads_a_players_file_points_to_its_columns() -> None:
    """A command that takes a file to read into the campaign file (it writes) says where the
    file's columns are."""
    readers = [parser for parser in parsers(build_parser()) if parser.get_default("writes")
               and any(not action.option_strings and action.metavar in ("FILE", "BACKUP")
                       for action in parser._actions)]  # fmt: skip
    assert {parser.prog for parser in readers} >= {"tracker import-csv", "tracker library import"}
    for parser in readers:
        assert POINTER.search(" ".join(parser.format_help().split())), parser.prog


def anchor(heading: str) -> str:
    """The anchor a heading gets on a rendered page (GitHub's rule: lower case, punctuation
    dropped, spaces as hyphens)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("document", ["README.md", "docs/GUIDE.md"])
def test_every_link_of_the_players_documents_leads_to_a_file_and_section_that_exist(
    document: str,
) -> None:
    path = ROOT / document
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        if target.startswith("http"):
            continue
        file, _, section = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.is_file(), target
        if section:
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
            assert section in {anchor(heading) for heading in headings}, target
