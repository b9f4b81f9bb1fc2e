"""`tracker library import FILE [--dry-run]` and `tracker library export FILE [--classes]`, run
through main() on a real campaign file: a dry run writes nothing, a problem is said on stderr
with exit status 2 and writes nothing, an export reads back as the same library and never
overwrites the campaign file."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import migrated_engine, run_main
from campaign_files import table_rows as rows

CARDS = (
    "name;nation;unit_type;points;attack_main;abilities\r\n"
    'Prinz Eugen;Germany;Cruiser;18;4 4 3 -;"Radar: reroll\none miss"\r\n'
    "Ju 87;Germany;Aircraft;;;\r\n"
)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "campaign.db"
    migrated_engine(path).dispose()
    return path


def test_a_dry_run_reports_and_writes_nothing_then_the_import_writes(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "cards.csv"
    source.write_bytes(CARDS.encode("cp1252"))
    before = rows(db)
    dry = run_main(capsys, ["--db", str(db), "library", "import", str(source), "--dry-run"])
    assert dry.status == 0 and rows(db) == before
    assert "2 added" in dry.out and "dry run, nothing written" in dry.out
    assert "warning: row 3, points: blank: Ju 87 costs nothing in a fleet" in dry.out
    done = run_main(capsys, ["--db", str(db), "library", "import", str(source)])
    assert done.status == 0 and "(imported)" in done.out
    assert [r[0] for r in rows(db)["unitcard"]] == ["Prinz Eugen", "Ju 87"]
    again = run_main(capsys, ["--db", str(db), "library", "import", str(source)])
    assert "0 added, 0 changed, 2 unchanged" in again.out and len(rows(db)["unitcard"]) == 2
    assert "(the library already holds it all)" in again.out


def test_a_problem_is_said_and_nothing_written(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "cards.csv"
    source.write_text(CARDS.replace("Cruiser", "Ironclad"), encoding="utf-8")
    before = rows(db)
    refused = run_main(capsys, ["--db", str(db), "library", "import", str(source)])
    assert refused.status == 2 and rows(db) == before
    assert f"{source}: row 2, unit_type: must be one of" in refused.err
    assert f"{source}: 1 problem: nothing was imported" in refused.err


@pytest.mark.parametrize("name", ["library.json", "library.csv"])
def test_an_export_reads_back_as_the_same_library(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    source = tmp_path / "cards.csv"
    source.write_text(CARDS, encoding="utf-8-sig")
    assert run_main(capsys, ["--db", str(db), "library", "import", str(source)]).status == 0
    target = tmp_path / name
    assert run_main(capsys, ["--db", str(db), "library", "export", str(target)]).status == 0
    again = run_main(capsys, ["--db", str(db), "library", "import", str(target)])
    assert "0 added, 0 changed, 2 unchanged" in again.out
    twice = run_main(capsys, ["--db", str(db), "library", "export", str(target)])
    assert twice.status == 2 and "add --force" in twice.err
    own = run_main(capsys, ["--db", str(db), "library", "export", str(db), "--force"])
    assert own.status == 2 and "campaign file" in own.err
