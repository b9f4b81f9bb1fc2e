"""`tracker print`: the path written on success; one line on stderr, exit 2 and no file on error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from campaign_files import real_campaign_file

from tracker import paths
from tracker.cli import main
from tracker.cli.common import one_named
from tracker.db import make_engine, session_factory
from tracker.services import fleet, printing, sheet

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sample_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return real_campaign_file(tmp_path_factory.mktemp("sample") / "campaign.db")


@pytest.fixture
def campaign(tmp_path: Path, sample_file: Path) -> Path:
    """The River Plate sample in a file of its own."""
    return Path(shutil.copyfile(sample_file, tmp_path / "campaign.db"))


@pytest.fixture
def out(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def _print(campaign: Path, *args: str) -> int:
    return main(["--db", str(campaign), "print", *args])


def test_html_is_written_and_its_path_printed(
    campaign: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _print(campaign, "force g", "--html", str(out / "force-g.html")) == 0
    captured = capsys.readouterr()
    assert captured.out == f"tracker: wrote {out / 'force-g.html'}\n" and captured.err == ""
    page = (out / "force-g.html").read_text(encoding="utf-8")
    assert "@page { size: A4;" in page
    for ship in ("Exeter", "Ajax", "Achilles"):
        assert f"<h3>{ship}</h3>" in page


def test_letter_paper_and_side_slash_squadron(campaign: Path, out: Path) -> None:
    target = out / "raider.html"
    status = _print(campaign, "Kriegsmarine/Panzerschiff", "--html", str(target), "--paper",
                    "Letter")  # fmt: skip
    assert status == 0
    page = target.read_text(encoding="utf-8")
    assert "@page { size: Letter;" in page and "<h3>Admiral Graf Spee</h3>" in page


def test_markdown_is_written(campaign: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _print(campaign, "FORCE G", "--markdown", str(out / "force-g.md")) == 0
    assert capsys.readouterr().out.strip() == f"tracker: wrote {out / 'force-g.md'}"
    text = (out / "force-g.md").read_text(encoding="utf-8")
    assert text.startswith("# Force G: Squadron Record Sheet\n")
    assert "| Exeter | CA | York |" in text


@pytest.mark.parametrize(
    ("squadron", "where", "message"),
    [
        ("Force Z", "sheet.html", 'no squadron named "Force Z"; the file has Royal Navy/Force G, '
         "Kriegsmarine/Panzerschiff"),
        ("Force G", "missing/sheet.html", "missing does not exist"),
        ("Force G", ".", "is a folder: give a file name"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    campaign: Path,
    out: Path,
    capsys: pytest.CaptureFixture[str],
    squadron: str,
    where: str,
    message: str,
) -> None:
    assert _print(campaign, squadron, "--html", str(out / where)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("tracker print: ") and message in captured.err
    assert captured.err.count("\n") == 1
    assert list(out.iterdir()) == []


def test_an_ambiguous_name_lists_the_candidates(
    campaign: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(str(campaign))
    factory = session_factory(engine)
    raider = one_named(printing.named(factory, depth=3), "Panzerschiff", "squadron")
    side_id = sheet.load_record_sheet(factory, squadron_id=raider).side_id
    fleet.create_squadron(factory, side_id=side_id, name="force G")
    engine.dispose()
    assert _print(campaign, "Force G", "--markdown", str(out / "g.md")) == 2
    err = capsys.readouterr().err
    assert "2 squadrons: Royal Navy/Force G, Kriegsmarine/force G; give one as listed" in err
    assert list(out.iterdir()) == []


def test_html_or_markdown_is_required(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _print(campaign, "Force G")
    assert exited.value.code == 2
    assert "one of the arguments --html --markdown is required" in capsys.readouterr().err


def test_the_installed_command_exits_2_from_a_real_process(campaign: Path, out: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != paths.DB_ENV_VAR}
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "--db", str(campaign), "print", "nobody", "--html",
         str(out / "x.html")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith('tracker print: no squadron named "nobody"')
    assert done.stderr.count("\n") == 1 and done.stdout == ""
    assert list(out.iterdir()) == []
