"""Every command under `tracker --umpire` shows what the opponent may see and no more (docs/
RULES.md §Secrets): its default leaves every secret out of what it prints and writes, and an
option that would open a side's secrets (`--for owner`, a report's `--side`) is refused with one
line, nothing written. The commands are walked from the parser itself, so a command added later
is not left out."""

from __future__ import annotations

import argparse
import itertools
import os
from pathlib import Path

import pytest
from campaign_files import minelaying_campaign, run_main

from tracker.cli import build_parser, serve

# Each a secret of the Axis side (no passphrase): in clear in the file, never in the umpire's;
# a note as stored (which marker is real, a minefield's place) starts "plain:" or "fernet:".
SECRETS = ("zqnotes off the Faroes", "Faroe Gap 7", "mines aboard", "plain:", "fernet:")
NAME = "North Atlantic"


@pytest.fixture
def campaign_file(tmp_path: Path) -> Path:
    path = tmp_path / "play" / "campaign.db"
    path.parent.mkdir()
    return minelaying_campaign(path, NAME, SECRETS[0])


def _invocations(out: Path) -> dict[str, list[list[str]]]:
    """Every command the parser knows, with the arguments it takes under --umpire by default
    and with each option that could show more (the first of each list: the default)."""
    return {
        "demo": [["demo"]],
        "export": [["export", NAME, "--to", str(out / "x.json")],
                   ["export", NAME, "--to", str(out / "o.json"), "--for", "opponent"],
                   ["export", NAME, "--to", str(out / "w.json"), "--for", "owner"]],
        "import": [["import", str(out / "x.json")]],
        "import-csv": [["import-csv", "ships", str(out / "x.csv"), "--into", "Raider"]],
        "library import": [["library", "import", str(out / "x.json")]],
        "library export": [["library", "export", str(out / "library.json")],
                           ["library", "export", str(out / "cards.csv")]],
        "backups": [["backups"]],
        "restore": [["restore", "campaign.db", "--yes"]],
        "print": [["print", "raider", "--markdown", str(out / "sheet.md")],
                  ["print", "raider", "--html", str(out / "sheet.html")],
                  ["print", "raider", "--markdown", str(out / "o.md"), "--for", "opponent"],
                  ["print", "raider", "--markdown", str(out / "w.md"), "--for", "owner"]],
        "report": [["report", NAME, "--markdown", str(out / "report.md")],
                   ["report", NAME, "--html", str(out / "report.html")],
                   ["report", NAME, "--markdown", str(out / "w.md"), "--side", "Axis"]],
        "sync pack": [["sync", "pack", NAME, "--to", str(out / "packet.json")],
                      ["sync", "pack", NAME, "--to", str(out / "w.json"), "--for", "owner"]],
        "sync merge": [["sync", "merge", str(out / "x.json")]],
        "sync held": [["sync", "held", NAME]],
        "sync decide": [["sync", "decide", "1", "--keep", "ours"]],
        # The apps it serves run under --umpire (test_serve_serves_the_umpires_view).
        "serve": [],
    }  # fmt: skip


def _commands(parser: argparse.ArgumentParser, before: str = "") -> set[str]:
    """Every command of the parser, a sub-command's as `library export`."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                inner = _commands(sub, f"{before}{name} ")
                found |= inner or {f"{before}{name}"}
    return found


def test_every_command_is_walked(tmp_path: Path) -> None:
    assert set(_invocations(tmp_path)) == _commands(build_parser())


WIDENING = ("--for", "owner"), ("--side", "Axis")


def test_every_command_under_umpire_shows_no_secret_and_refuses_an_option_that_would(
    campaign_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    before = campaign_file.read_bytes()
    for command, runs in _invocations(out).items():
        for args in runs:
            run = run_main(capsys, ["--umpire", "--db", str(campaign_file), *args])
            widens = any(pair in itertools.pairwise(args) for pair in WIDENING)
            if widens:
                assert (run.status, run.out) == (2, ""), (command, args, run)
                assert "the umpire's view shows no secret" in run.err, run.err
                assert len(run.err.splitlines()) == 1
                continue
            said = run.out + run.err
            assert [word for word in SECRETS if word in said] == [], (command, args)
    written = {path.name: path.read_text(encoding="utf-8") for path in out.iterdir()}
    assert {"x.json", "o.json", "sheet.md", "sheet.html", "report.md", "cards.csv",
            "packet.json"} <= set(written)  # fmt: skip
    assert "w.json" not in written and "w.md" not in written  # refused: nothing written
    for name, text in written.items():
        assert [word for word in SECRETS if word in text] == [], name
    assert '"view":"umpire"' in written["x.json"].replace(" ", "")
    assert "torpedo factors ? of 4" in written["sheet.md"]
    assert campaign_file.read_bytes() == before


def test_the_owners_file_is_whole_without_umpire(
    campaign_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same commands without --umpire write the owner's file by default: the secrets the
    umpire's leave out are there to leave out."""
    db = ["--db", str(campaign_file)]
    sheet, export = tmp_path / "own.md", tmp_path / "own.json"
    assert run_main(capsys, [*db, "print", "raider", "--markdown", str(sheet)]).status == 0
    assert run_main(capsys, [*db, "export", NAME, "--to", str(export)]).status == 0
    assert "mines aboard 1 of 2" in sheet.read_text()
    assert SECRETS[0] in export.read_text() and '\\"real\\": true' in export.read_text()


def test_serve_serves_the_umpires_view() -> None:
    assert "--umpire" in serve.app_command(umpire=True)
    assert "--umpire" not in serve.app_command(umpire=False)
    assert os.path.basename(serve.app_command(umpire=True)[0]).startswith("python")
