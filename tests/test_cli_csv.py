"""`tracker import-csv {ships,units,counters} FILE --into NAME [--dry-run]`, run through main()
on real campaign files and real CSV files (and once as a real process).

A file with any problem is refused the same way: exit status 2, every problem on its own line on
stderr, nothing on stdout, and no row of the campaign file changed.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from campaign_files import Outcome, migrated_engine, run_main, run_sql, sidecars
from campaign_files import table_rows as rows

from tracker import paths
from tracker.cli import main
from tracker.db import session_factory
from tracker.services import campaigns, demo, fleet
from tracker.services.demo import SAMPLE_NAME

REPO = Path(__file__).resolve().parents[1]
SHIPS = "name,class_name,type_abbrev,structure_max,flotation_max\n"
GOOD_SHIPS = SHIPS + "Cumberland,County,CA,12,11\nDorsetshire,County,CA,12,11\n"
UTF8_COMMAS = "CSV, UTF-8, comma-separated"


def template(folder: Path, *, atlantic: bool) -> Path:
    """The River Plate sample (Royal Navy: Force G; Kriegsmarine: Panzerschiff); with `atlantic`,
    a second campaign "Atlantic" whose Royal Navy has a Force G too, and a Force H."""
    path = folder / "campaign.db"
    engine = migrated_engine(path)
    factory = session_factory(engine)
    demo.create_sample_campaign(factory)
    if atlantic:
        campaign = campaigns.create_campaign(factory, name="Atlantic")
        side = campaigns.create_side(factory, campaign_id=campaign.id, name="Royal Navy")
        fleet.create_squadron(factory, side_id=side.id, name="Force G")
        fleet.create_squadron(factory, side_id=side.id, name="Force H")
    engine.dispose()
    run_sql(path, "PRAGMA wal_checkpoint(TRUNCATE)")
    assert sidecars(path) == []
    return path


@pytest.fixture(scope="module")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return template(tmp_path_factory.mktemp("sample"), atlantic=False)


@pytest.fixture(scope="module")
def two_campaigns_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return template(tmp_path_factory.mktemp("two"), atlantic=True)


@pytest.fixture
def campaign_file(sample_template: Path, tmp_path: Path) -> Path:
    """This test's copy of a file holding the River Plate sample only."""
    return Path(shutil.copyfile(sample_template, tmp_path / "campaign.db"))


@pytest.fixture
def two_campaigns(two_campaigns_template: Path, tmp_path: Path) -> Path:
    """This test's copy of a file holding the sample and "Atlantic"."""
    return Path(shutil.copyfile(two_campaigns_template, tmp_path / "campaign.db"))


def ship_names(path: Path, squadron: str) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [name for (name,) in conn.execute(
            "SELECT ship.name FROM ship JOIN squadron ON squadron.id = ship.squadron_id "
            "WHERE squadron.name = ? ORDER BY ship.id", (squadron,))]  # fmt: skip
    finally:
        conn.close()


def write_csv(folder: Path, text: str, name: str = "ships.csv", encoding: str = "utf-8") -> Path:
    path = folder / name
    path.write_bytes(text.encode(encoding))
    return path


Run = Callable[..., Outcome]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """`run(db, kind, file, into, *more)`: `tracker --db DB import-csv KIND FILE --into INTO`
    through main() in this process, with what it printed."""

    def call(db: Path, kind: str, file: Path, into: str, *more: str) -> Outcome:
        return run_main(
            capsys, ["--db", str(db), "import-csv", kind, str(file), "--into", into, *more]
        )

    return call


# --- a good file ---------------------------------------------------------------------------------


def test_a_good_file_is_imported_and_said_so(run: Run, campaign_file: Path, tmp_path: Path) -> None:
    source = write_csv(tmp_path, GOOD_SHIPS)
    outcome = run(campaign_file, "ships", source, "Force G")
    assert outcome == Outcome(0, f"tracker: {source}: imported 2 ships ({UTF8_COMMAS})\n", "")
    assert ship_names(campaign_file, "Force G") == [
        "Exeter", "Ajax", "Achilles", "Cumberland", "Dorsetshire",
    ]  # fmt: skip


def test_units_and_counters_from_the_command_line(
    run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    units = write_csv(
        tmp_path,
        "name,unit_type,points,attack_main,abilities\n"
        "Graf Spee,battleship,40,5 5 4 -,Commerce Raider\n",
        "units.csv",
    )
    assert run(campaign_file, "units", units, "Kriegsmarine").out == (
        f"tracker: {units}: imported 1 unit ({UTF8_COMMAS})\n"
    )
    counters = write_csv(
        tmp_path, "ship,counter_size,speed_rating,fuel_full\nexeter,long,3,8\n", "counters.csv"
    )
    outcome = run(campaign_file, "counters", counters, SAMPLE_NAME.upper())
    assert outcome == Outcome(0, f"tracker: {counters}: imported 1 counter ({UTF8_COMMAS})\n", "")
    conn = sqlite3.connect(campaign_file)
    try:
        assert conn.execute(
            "SELECT name, unit_type, points, attacks, abilities FROM wasunit"
        ).fetchall() == [("Graf Spee", "battleship", 40, '{"main": [5, 5, 4, null]}',
                          "Commerce Raider")]  # fmt: skip
        assert conn.execute(
            "SELECT counter_size, speed_rating, fuel_full FROM ship WHERE name = 'Exeter'"
        ).fetchall() == [("long", 3, 8)]
    finally:
        conn.close()


SPREADSHEET_UNITS = {
    # How a spreadsheet saves it: the bytes, and the words the report reads it by.
    "cp1252 with semicolons": (
        "name;unit_type;points\r\nKöln;cruiser;7\r\nBéarn;carrier;9\r\n".encode("cp1252"),
        "CSV, cp1252 (Windows; the file is not UTF-8), semicolon-separated",
    ),
    "UTF-16 with tabs": (
        "name\tunit_type\tpoints\nNürnberg\tcruiser\t8\nÉmile Bertin\tcruiser\t6\n".encode(
            "utf-16"
        ),
        "CSV, UTF-16, tab-separated",
    ),
    "an empty last column": (
        "name,unit_type,points,\nLützow,battleship,20,\nDupleix,cruiser,7,\n".encode(),
        "CSV, UTF-8, comma-separated",
    ),
}


def test_units_from_any_spreadsheets_csv_are_read_as_the_library_reads_them(
    run: Run, campaign_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for number, (raw, source_words) in enumerate(SPREADSHEET_UNITS.values()):
        source = tmp_path / f"units{number}.csv"
        source.write_bytes(raw)
        outcome = run(campaign_file, "units", source, "Kriegsmarine")
        assert outcome == Outcome(0, f"tracker: {source}: imported 2 units ({source_words})\n", "")
        library = run_main(
            capsys, ["--db", str(campaign_file), "library", "import", str(source), "--dry-run"]
        )
        assert library.status == 0 and f"2 rows read ({source_words})" in library.out
    conn = sqlite3.connect(campaign_file)
    try:
        units = conn.execute(
            "SELECT name, unit_type, points FROM wasunit ORDER BY id DESC LIMIT 6"
        ).fetchall()
    finally:
        conn.close()
    assert units[::-1] == [
        ("Köln", "cruiser", 7), ("Béarn", "carrier", 9), ("Nürnberg", "cruiser", 8),
        ("Émile Bertin", "cruiser", 6), ("Lützow", "battleship", 20), ("Dupleix", "cruiser", 7),
    ]  # fmt: skip


def test_a_dry_run_reports_the_rows_and_writes_nothing(
    run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    source = write_csv(tmp_path, GOOD_SHIPS)
    before = rows(campaign_file)
    outcome = run(campaign_file, "ships", source, "Force G", "--dry-run")
    assert outcome == Outcome(
        0,
        f"tracker: {source}: 2 of 2 rows are ready ({UTF8_COMMAS}; dry run: nothing written)\n",
        "",
    )
    assert rows(campaign_file) == before


# --- a file with problems ------------------------------------------------------------------------


BAD_SHIPS = (
    SHIPS
    + "Cumberland,County,CA,12,11\n"  # row 2: good
    + "Dorsetshire,County,CA,twelve,0\n"  # row 3: two problems
    + "Shropshire,County,CA,12,11\n"  # row 4: good
    + "Ajax,Leander,CL,10,9\n"  # row 5: the squadron has an Ajax
)
BAD_SHIPS_PROBLEMS = [
    "row 3, structure_max: 'twelve' is not a whole number",
    "row 5, name: this side already has a ship named 'Ajax': choose another name",
]


@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
def test_problems_are_each_on_stderr_exit_2_and_nothing_is_written(
    run: Run, campaign_file: Path, tmp_path: Path, dry_run: bool
) -> None:
    source = write_csv(tmp_path, BAD_SHIPS)
    before = rows(campaign_file)
    outcome = run(campaign_file, "ships", source, "Force G", *(["--dry-run"] * dry_run))
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err.splitlines() == [
        *(f"{source}: {problem}" for problem in BAD_SHIPS_PROBLEMS),
        f"tracker: {source}: 2 problems; nothing was written",
    ]
    assert rows(campaign_file) == before


def test_a_wrong_header_lists_the_expected_columns(
    run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    source = write_csv(tmp_path, "name,hull,flotation_max\nCumberland,12,11\n")
    before = rows(campaign_file)
    outcome = run(campaign_file, "ships", source, "Force G")
    assert outcome.status == 2
    assert outcome.err.splitlines() == [
        f"{source}: header: unknown column 'hull'",
        f"{source}: header: the required column 'structure_max' is missing",
        f"{source}: header: the columns of ships are name, class_name, type_abbrev, nation, "
        "size_modifier, speed_kn, armour_class, structure_max, structure_now, flotation_max, "
        "flotation_now, fire_markers, points_base, torpedoes, sraa_dp, radar, notes",
        f"tracker: {source}: 3 problems; nothing was written",
    ]
    assert rows(campaign_file) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(
            GOOD_SHIPS.encode("utf-16-le"),
            "holds NUL bytes: it looks like UTF-16 without a byte-order mark; save it as CSV "
            "UTF-8 (or Unicode text)",
            id="utf-16 without its mark",
        ),
        pytest.param(b"", "is empty: the first line names the columns", id="empty"),
        pytest.param(
            b'name\n"Cumberland\n', "line 2 is not CSV: unexpected end of data", id="quote"
        ),
    ],
)
def test_a_file_that_cannot_be_read_as_csv_is_one_line_exit_2(
    run: Run, campaign_file: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    source = tmp_path / "ships.csv"
    source.write_bytes(content)
    before = rows(campaign_file)
    outcome = run(campaign_file, "ships", source, "Force G")
    assert outcome == Outcome(2, "", f"tracker: {source}: {message}; nothing was written\n")
    assert rows(campaign_file) == before


def test_a_header_without_rows_is_a_problem(run: Run, campaign_file: Path, tmp_path: Path) -> None:
    source = write_csv(tmp_path, SHIPS)
    outcome = run(campaign_file, "ships", source, "Force G", "--dry-run")
    assert outcome.status == 2
    assert outcome.err.splitlines() == [
        f"{source}: no rows below the header",
        f"tracker: {source}: 1 problem; nothing was written",
    ]


def test_a_missing_file_or_a_folder_exits_2(run: Run, campaign_file: Path, tmp_path: Path) -> None:
    before = rows(campaign_file)
    missing = tmp_path / "nowhere.csv"
    outcome = run(campaign_file, "ships", missing, "Force G")
    assert outcome == Outcome(2, "", f"tracker: cannot read {missing}: No such file or directory\n")
    outcome = run(campaign_file, "ships", tmp_path, "Force G")
    assert outcome == Outcome(2, "", f"tracker: cannot read {tmp_path}: Is a directory\n")
    under_a_file = write_csv(tmp_path, GOOD_SHIPS) / "ships.csv"
    outcome = run(campaign_file, "ships", under_a_file, "Force G")
    assert outcome == Outcome(2, "", f"tracker: cannot read {under_a_file}: Not a directory\n")
    assert rows(campaign_file) == before


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_exits_2(run: Run, campaign_file: Path, tmp_path: Path) -> None:
    source = write_csv(tmp_path, GOOD_SHIPS)
    source.chmod(0)
    try:
        outcome = run(campaign_file, "ships", source, "Force G")
    finally:
        source.chmod(0o600)
    assert outcome == Outcome(2, "", f"tracker: cannot read {source}: Permission denied\n")


# --- --into --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("into", "campaign", "squadron"),
    [
        ("Force H", "Atlantic", "Force H"),
        ("FORCE h", "Atlantic", "Force H"),
        ("Panzerschiff", SAMPLE_NAME, "Panzerschiff"),
        ("royal navy/force h", "Atlantic", "Force H"),
        ("Kriegsmarine/Panzerschiff", SAMPLE_NAME, "Panzerschiff"),
        ("Atlantic/Royal Navy/Force G", "Atlantic", "Force G"),
        (f"{SAMPLE_NAME.lower()}/ROYAL NAVY/force g", SAMPLE_NAME, "Force G"),
        ("  Atlantic/Royal Navy/Force G  ", "Atlantic", "Force G"),
    ],
)
def test_into_names_a_squadron_in_any_case_as_far_up_as_needed(
    run: Run, two_campaigns: Path, tmp_path: Path, into: str, campaign: str, squadron: str
) -> None:
    source = write_csv(tmp_path, GOOD_SHIPS)
    assert run(two_campaigns, "ships", source, into).status == 0
    conn = sqlite3.connect(two_campaigns)
    try:
        placed = conn.execute(
            "SELECT campaign.name, squadron.name FROM ship "
            "JOIN squadron ON squadron.id = ship.squadron_id JOIN side ON side.id = ship.side_id "
            "JOIN campaign ON campaign.id = side.campaign_id WHERE ship.name = 'Cumberland'"
        ).fetchall()
    finally:
        conn.close()
    assert placed == [(campaign, squadron)]


@pytest.mark.parametrize(
    ("kind", "into", "why"),
    [
        ("ships", "Force G", '"Force G" names 2 squadrons: River Plate, December 1939 (sample)/'),
        ("ships", "royal navy/force g", '"royal navy/force g" names 2 squadrons: '),
        ("ships", "Force Z", 'no squadron named "Force Z"; the file has '),
        ("ships", "Atlantic/Force G", 'no squadron named "Atlantic/Force G"; '),  # no side named
        ("ships", "Royal Navy", 'no squadron named "Royal Navy"; '),  # a side, not a squadron
        ("units", "Royal Navy", '"Royal Navy" names 2 sides: River Plate, December 1939 (sample)/'),
        ("units", "Force H", 'no side named "Force H"; the file has '),
    ],
)
def test_an_ambiguous_or_unknown_into_exits_2_says_the_names_it_has_and_writes_nothing(
    run: Run, two_campaigns: Path, tmp_path: Path, kind: str, into: str, why: str
) -> None:
    source = write_csv(tmp_path, GOOD_SHIPS)
    before = rows(two_campaigns)
    outcome = run(two_campaigns, kind, source, into)
    what = {
        "ships": "the squadron, as Squadron or Side/Squadron or Campaign/Side/Squadron",
        "units": "the side, as Side or Campaign/Side",
    }[kind]
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err.startswith(f"tracker: --into: {why}"), outcome.err
    assert outcome.err.endswith(f" ({what})\n")
    assert rows(two_campaigns) == before


@pytest.mark.parametrize("into", ["river plate", "1", "RIVER PLATE, DECEMBER 1939 (SAMPLE)"])
def test_counters_go_into_a_campaign_named_as_every_command_names_one(
    run: Run, two_campaigns: Path, tmp_path: Path, into: str
) -> None:
    counters = write_csv(
        tmp_path, "ship,counter_size,speed_rating,fuel_full\nexeter,long,3,8\n", "counters.csv"
    )
    assert run(two_campaigns, "counters", counters, into).status == 0
    before = rows(two_campaigns)
    refused = run(two_campaigns, "counters", counters, "Royal Navy")
    assert (refused.status, refused.out) == (2, "")
    assert refused.err.startswith("tracker: no campaign 'Royal Navy' in ")
    assert "(campaigns: 2: 'Atlantic', 1: 'River Plate, December 1939 (sample)')" in refused.err
    assert rows(two_campaigns) == before


def test_units_into_a_side_named_with_its_campaign(
    run: Run, two_campaigns: Path, tmp_path: Path
) -> None:
    source = write_csv(tmp_path, "name,unit_type,points\nRodney,battleship,60\n", "units.csv")
    assert run(two_campaigns, "units", source, "atlantic/royal navy").status == 0
    conn = sqlite3.connect(two_campaigns)
    try:
        assert conn.execute(
            "SELECT campaign.name, side.name FROM wasunit JOIN side ON side.id = wasunit.side_id "
            "JOIN campaign ON campaign.id = side.campaign_id"
        ).fetchall() == [("Atlantic", "Royal Navy")]
    finally:
        conn.close()


@pytest.mark.parametrize(
    "argv",
    [
        ["import-csv", "boats", "x.csv", "--into", "Force G"],
        ["import-csv", "ships", "x.csv"],
        ["import-csv", "ships", "--into", "Force G"],
    ],
)
def test_a_bad_command_line_exits_2(
    campaign_file: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--db", str(campaign_file), *argv])
    assert exited.value.code == 2
    assert "usage: tracker" in capsys.readouterr().err


# --- a real process ------------------------------------------------------------------------------


def test_the_exit_status_reaches_the_shell(campaign_file: Path, tmp_path: Path) -> None:
    source = write_csv(tmp_path, BAD_SHIPS)
    before = rows(campaign_file)
    env = {k: v for k, v in os.environ.items() if k != paths.DB_ENV_VAR}
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "--db", str(campaign_file), "import-csv", "ships",
         str(source), "--into", "Force G"],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines()[:2] == [
        f"{source}: {problem}" for problem in BAD_SHIPS_PROBLEMS
    ]
    assert rows(campaign_file) == before


def test_the_command_lines_kinds_are_the_importers() -> None:
    """The command line names the kinds without importing the importer (it loads when used)."""
    from tracker.cli import csv_files
    from tracker.services import csv_import

    assert tuple(csv_import.KINDS) == csv_files.KINDS
