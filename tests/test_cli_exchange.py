"""`tracker export CAMPAIGN --to FILE.json` and `tracker import FILE.json [--name NAME]`, run
through main() on real campaign files.

Every bad input is refused the same way: exit status 2, one line on stderr naming the problem,
nothing on stdout, and the campaign file exactly as it was (its bytes, no -wal beside it, the
same rows).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from campaign_files import (
    Outcome,
    as_second_copy,
    full_sample_campaign,
    migrated_engine,
    run_main,
    run_sql,
    sidecars,
)

from tracker import campaign_file as tracker_campaign_file
from tracker.db import make_engine, session_factory
from tracker.services import campaigns, exchange
from tracker.services.demo import SAMPLE_NAME

JUNK_BYTES = 50 * 2**20


@dataclass(frozen=True)
class Made:
    """A campaign file holding the full sample campaign and "Other", and the sample's export."""

    path: Path
    sample_id: int
    text: str


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    path = tmp_path_factory.mktemp("made") / "campaign.db"
    engine = migrated_engine(path)
    factory = session_factory(engine)
    sample_id = full_sample_campaign(factory).campaign_id
    campaigns.create_campaign(factory, name="Other")
    text = exchange.dumps(exchange.export_campaign(factory, campaign_id=sample_id))
    engine.dispose()
    run_sql(path, "PRAGMA wal_checkpoint(TRUNCATE)")
    assert sidecars(path) == []
    return Made(path, sample_id, text)


@pytest.fixture
def campaign_file(made: Made, tmp_path: Path) -> Path:
    """This test's copy of the campaign file."""
    path = tmp_path / "campaign.db"
    shutil.copyfile(made.path, path)
    return path


Run = Callable[..., Outcome]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """`run(*argv)`: main(argv) in this process, with what it printed."""

    def call(*argv: str | Path) -> Outcome:
        return run_main(capsys, [str(arg) for arg in argv])

    return call


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, read with plain sqlite3 (immutable: a read-only connection to a
    WAL file would leave -wal and -shm behind; the checks make sure there is no -wal to read)."""
    assert sidecars(path) == []
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        names = [
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return {name: conn.execute(f"SELECT * FROM {name} ORDER BY 1").fetchall() for name in names}
    finally:
        conn.close()


Refused = Callable[..., str]


@pytest.fixture
def refused(run: Run, campaign_file: Path) -> Refused:
    """`refused(*argv, words=...)`: runs `tracker --db FILE *argv`, which must exit 2 with one
    line on stderr holding every word, and leave the campaign file as it was; the line."""

    def check(*argv: str | Path, words: tuple[str, ...]) -> str:
        before, rows = campaign_file.read_bytes(), _rows(campaign_file)
        outcome = run("--db", campaign_file, *argv)
        assert outcome.status == 2, outcome
        assert outcome.out == ""
        [line] = outcome.err.splitlines()
        assert line.startswith("tracker: "), line
        for word in words:
            assert word in line, (word, line)
        assert campaign_file.read_bytes() == before
        assert sidecars(campaign_file) == []
        assert _rows(campaign_file) == rows
        return line

    return check


def _document(made: Made) -> dict[str, Any]:
    """The sample's export under a name not yet in the file: only what a test breaks stops it."""
    document: dict[str, Any] = json.loads(made.text)
    document["tables"]["campaign"][0]["name"] = "Imported copy"
    return document


def _imported_beside(path: Path, name: str) -> str:
    """What an import of a campaign the file holds already says: a campaign of its own."""
    return (
        f"tracker: imported {name!r} into {path}\n"
        f"  {path} holds this campaign already: {name!r} is a separate campaign, with "
        "identities of its own, not a copy of it\n"
    )


def _write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_the_unbroken_document_imports(
    made: Made, run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    """The control for the refusals below: the same document, unbroken, goes in."""
    source = _write(tmp_path / "good.json", _document(made))
    outcome = run("--db", campaign_file, "import", source)
    assert (outcome.status, outcome.err) == (0, "")
    assert outcome.out == _imported_beside(campaign_file, "Imported copy")


# --- bad documents ----------------------------------------------------------------------------


def _set(table: str, index: int, field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        document["tables"][table][index][field] = value

    return change


def _newer(document: dict[str, Any]) -> None:
    document["version"] = exchange.VERSION + 1


def _unknown_table(document: dict[str, Any]) -> None:
    document["tables"]["aircraft"] = [{"id": 1, "name": "Swordfish"}]


def _missing_field(document: dict[str, Any]) -> None:
    del document["tables"]["ship"][0]["flotation_now"]


def _duplicate_id(document: dict[str, Any]) -> None:
    ships = document["tables"]["ship"]
    ships[2]["id"] = ships[1]["id"]


def _no_campaign(document: dict[str, Any]) -> None:
    document["tables"]["campaign"] = []


def _two_campaigns(document: dict[str, Any]) -> None:
    first = document["tables"]["campaign"][0]
    document["tables"]["campaign"].append({**first, "id": 2, "name": "Twin"})


def _not_ours(document: dict[str, Any]) -> None:
    document["format"] = "someone-else"


def _same_side_twice(document: dict[str, Any]) -> None:
    sides = document["tables"]["side"]
    sides[1]["name"] = sides[0]["name"]


BAD_DOCUMENTS: dict[str, tuple[Callable[[dict[str, Any]], None], tuple[str, ...]]] = {
    "newer_version": (_newer, ("newer tracker", f"format version {exchange.VERSION + 1}")),
    "not_a_campaign_file": (_not_ours, ("not a tracker campaign file",)),
    "string_for_int": (_set("ship", 0, "speed_kn", "32"), ("ship row 0, speed_kn", "whole number")),
    "bool_for_int": (_set("ship", 0, "speed_kn", True), ("ship row 0, speed_kn", "whole number")),
    "float_for_int": (_set("ship", 0, "speed_kn", 1.5), ("ship row 0, speed_kn", "whole number")),
    "huge_int": (_set("ship", 0, "speed_kn", 2**64), ("ship row 0, speed_kn", "whole number")),
    "int_for_bool": (_set("ship", 0, "sunk", 1), ("ship row 0, sunk", "true or false")),
    "string_for_bool": (_set("ship", 0, "sunk", "false"), ("ship row 0, sunk", "true or false")),
    "int_for_text": (_set("side", 0, "name", 7), ("side row 0, name", "must be text")),
    "null_for_text": (_set("ship", 1, "name", None), ("ship row 1, name", "must not be null")),
    "bad_timestamp": (_set("journalentry", 3, "at", "teatime"), ("journalentry row 3, at", "date")),
    "too_long": (_set("campaign", 0, "notes", "x" * 4001), ("campaign row 0, notes", "4000")),
    "list_for_id": (_set("ship", 0, "id", [1]), ("ship row 0, id", "whole number")),
    "object_row": (_set("ship", 0, "id", {"a": 1}), ("ship row 0, id", "whole number")),
    "unknown_field": (_set("ship", 0, "colour", "grey"), ("ship row 0", "unknown field 'colour'")),
    "missing_field": (_missing_field, ("ship row 0", "lacks the field 'flotation_now'")),
    "unknown_table": (_unknown_table, ("unknown table 'aircraft'",)),
    "duplicate_id": (_duplicate_id, ("ship row 2, id", "used twice")),
    "missing_row": (_set("battery", 0, "ship_id", 999), ("battery row 0, ship_id", "ship 999")),
    "missing_parent": (
        _set("side", 1, "campaign_id", 5),
        ("side row 1, campaign_id", "campaign 5"),
    ),
    "no_campaign": (_no_campaign, ("exactly one campaign",)),
    "two_campaigns": (_two_campaigns, ("exactly one campaign",)),
    "same_side_twice": (_same_side_twice, ("side[1]", "UNIQUE constraint failed: side")),
    "journal_detail_not_json": (
        _set("journalentry", 0, "detail", "not json"),
        ("journalentry row 0, detail",),
    ),
    "journal_change_without_table": (
        _set("journalentry", 0, "detail", '{"changes": [{"id": 1}]}'),
        ("journalentry row 0, detail",),
    ),
    "snapshot_criticals_not_a_list_of_objects": (
        _set("shipsnapshot", 0, "criticals", "[1, 2]"),
        ("shipsnapshot row 0, criticals",),
    ),
    "plain_marker_note_not_json": (
        _set("submarker", 0, "secret", "plain:{oops"),
        ("submarker row 0, secret",),
    ),
    "bell_in_text": (
        _set("ship", 0, "name", "Ajax\x07"),
        ("ship row 0, name", "control character"),
    ),
    "escape_in_text": (
        _set("ship", 1, "notes", "\x1b[31mred\x1b[0m"),
        ("ship row 1, notes", "control character"),
    ),
    "nul_in_text": (_set("side", 0, "nation", "Brit\x00ain"), ("side row 0, nation", "control")),
    "delete_in_text": (
        _set("campaign", 0, "name", "Plate\x7f"),
        ("campaign row 0, name", "control"),
    ),
    # The rules the forms keep: bounds, words, a track no higher than its maximum.
    "below_bound": (_set("ship", 0, "flotation_max", 0), ("ship row 0, flotation_max", "1..9999")),
    "above_bound": (_set("ship", 0, "size_modifier", 50), ("ship row 0, size_modifier", "-3..3")),
    "negative_speed": (_set("ship", 0, "speed_kn", -3), ("ship row 0, speed_kn", "0..60")),
    "track_above_max": (
        _set("ship", 0, "structure_now", 99),
        ("ship row 0, structure_now: must not exceed structure max",),
    ),
    "unknown_scale": (
        _set("campaign", 0, "model_scale", "banana"),
        ("campaign row 0, model_scale",),
    ),
    "unknown_status": (_set("scenario", 0, "status", "lost"), ("scenario row 0, status",)),
}


@pytest.mark.parametrize("kind", list(BAD_DOCUMENTS))
def test_a_bad_document_is_refused_and_nothing_written(
    made: Made, refused: Refused, tmp_path: Path, kind: str
) -> None:
    breaks, words = BAD_DOCUMENTS[kind]
    document = _document(made)
    breaks(document)
    source = _write(tmp_path / "bad.json", document)
    line = refused("import", source, words=(str(source), *words, "nothing was imported"))
    assert len(line) < 1000


def test_many_problems_are_named_a_few_at_a_time(
    made: Made, refused: Refused, tmp_path: Path
) -> None:
    """The same problem on every ship is one, its rows said as a span; past MAX_PROBLEMS
    different ones (every whole number of the last ship made a word), a note says so."""
    document = _document(made)
    ships = document["tables"]["ship"]
    for row in ships:
        row["speed_kn"] = "six"
    last = ships[-1]
    last.update({key: "six" for key, value in last.items() if type(value) is int and key != "id"})
    assert list(last.values()).count("six") > exchange.MAX_PROBLEMS
    source = _write(tmp_path / "bad.json", document)
    count = len(ships)
    line = refused("import", source, words=(
        f"ship rows 0-{count - 1} ({count} rows), speed_kn: must be a whole number",
        "... and more: fix these first",
    ))  # fmt: skip
    assert line.count("whole number") == exchange.MAX_PROBLEMS


@pytest.mark.parametrize("cut", [1, 200, 0.5, -2])
def test_a_truncated_file_is_refused(
    made: Made, refused: Refused, tmp_path: Path, cut: float
) -> None:
    data = made.text.encode()
    end = int(len(data) * cut) if isinstance(cut, float) else cut
    source = tmp_path / "cut.json"
    source.write_bytes(data[:end])
    refused("import", source, words=(str(source), "is not JSON", "cut short"))


def test_an_empty_file_is_refused(refused: Refused, tmp_path: Path) -> None:
    source = tmp_path / "empty.json"
    source.write_bytes(b"")
    refused("import", source, words=("is not JSON",))


def test_a_file_that_is_not_utf8_is_refused(made: Made, refused: Refused, tmp_path: Path) -> None:
    source = tmp_path / "latin1.json"
    source.write_bytes(made.text.replace(SAMPLE_NAME, "Café Ré").encode("latin-1"))
    refused("import", source, words=("not UTF-8",))


def _random_junk(path: Path, made: Made) -> None:
    path.write_bytes(os.urandom(JUNK_BYTES))


def _text_junk(path: Path, made: Made) -> None:
    path.write_bytes(b"junk " * (JUNK_BYTES // 5))


def _nested_junk(path: Path, made: Made) -> None:
    path.write_bytes(b"[" * JUNK_BYTES)


def _nested_objects(path: Path, made: Made) -> None:
    path.write_bytes(b'{"a":' * (JUNK_BYTES // 5))


def _huge_text_in_json(path: Path, made: Made) -> None:
    """The real document, its campaign's notes 50 MB long."""
    document = _document(made)
    document["tables"]["campaign"][0]["notes"] = "x" * JUNK_BYTES
    _write(path, document)


JUNK = {
    "random_bytes": (_random_junk, "not UTF-8"),
    "text": (_text_junk, "is not JSON"),
    "nested_arrays": (_nested_junk, "is not a tracker campaign file"),
    "nested_objects": (_nested_objects, "is not a tracker campaign file"),
    "huge_text": (_huge_text_in_json, "campaign row 0, notes: must be at most 4000"),
}


@pytest.mark.parametrize("kind", list(JUNK))
def test_a_50_mb_file_of_junk_is_refused(
    made: Made, refused: Refused, tmp_path: Path, kind: str
) -> None:
    make, words = JUNK[kind]
    source = tmp_path / "junk.json"
    make(source, made)
    assert source.stat().st_size >= JUNK_BYTES
    refused("import", source, words=(str(source), words))


def test_a_file_larger_than_any_campaign_is_refused_unread(
    refused: Refused, tmp_path: Path
) -> None:
    source = tmp_path / "huge.json"
    with source.open("wb") as handle:  # sparse: nothing is written to the disk
        handle.truncate(exchange.MAX_BYTES + 1)
    limit = f"a campaign file over {exchange.MAX_BYTES // 2**20} MB is refused"
    refused("import", source, words=(str(source), limit))


def test_a_missing_file_is_refused(refused: Refused, tmp_path: Path) -> None:
    source = tmp_path / "nowhere.json"
    refused("import", source, words=(f"cannot read {source}", "No such file"))


def test_a_folder_is_refused(refused: Refused, tmp_path: Path) -> None:
    refused("import", tmp_path, words=(f"cannot read {tmp_path}",))


# --- names on import --------------------------------------------------------------------------


def test_an_import_under_a_name_in_the_file_is_refused_with_a_hint(
    made: Made, refused: Refused, tmp_path: Path
) -> None:
    source = tmp_path / "sample.json"
    source.write_text(made.text, encoding="utf-8")
    refused("import", source, words=(SAMPLE_NAME, "already in this file", "--name"))
    refused("import", source, "--name", "OTHER", words=("'Other'", "--name"))


@pytest.mark.parametrize("name", ["", "   ", "x" * 81, "bell\x07"])
def test_an_import_under_a_bad_name_is_refused(
    made: Made, refused: Refused, tmp_path: Path, name: str
) -> None:
    source = tmp_path / "sample.json"
    source.write_text(made.text, encoding="utf-8")
    refused("import", source, "--name", name, words=("1 to 80 characters",))


def test_import_under_a_new_name(made: Made, run: Run, campaign_file: Path, tmp_path: Path) -> None:
    source = tmp_path / "sample.json"
    source.write_text(made.text, encoding="utf-8")
    outcome = run("--db", campaign_file, "import", source, "--name", " River Plate again ")
    assert (outcome.status, outcome.err) == (0, "")
    assert outcome.out == _imported_beside(campaign_file, "River Plate again")
    engine = make_engine(str(campaign_file))
    factory = session_factory(engine)
    found = {c.name: c.id for c in campaigns.list_campaigns(factory)}
    assert sorted(found) == ["Other", "River Plate again", SAMPLE_NAME]
    again = exchange.export_campaign(factory, campaign_id=found["River Plate again"])
    engine.dispose()
    # Beside the sample in the file, a second copy: a campaign of its own, with ids of its own.
    expected = as_second_copy(json.loads(made.text), again)
    expected["tables"]["campaign"][0]["name"] = "River Plate again"
    assert exchange.dumps(again) == exchange.dumps(expected)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig"])  # a BOM, as some editors save
def test_import_into_a_new_file(made: Made, run: Run, tmp_path: Path, encoding: str) -> None:
    source = tmp_path / "sample.json"
    source.write_text(made.text, encoding=encoding)
    fresh = tmp_path / "fresh.db"
    outcome = run("--db", fresh, "import", source)
    assert (outcome.status, outcome.err) == (0, "")
    assert "holds this campaign already" not in outcome.out
    # A copy of the same campaign: every row keeps its id (uid), the journal's too.
    export = tmp_path / "again.json"
    outcome = run("--db", fresh, "export", SAMPLE_NAME, "--to", export)
    assert (outcome.status, outcome.err) == (0, "")
    assert export.read_text(encoding="utf-8") == made.text


# --- markup is text ---------------------------------------------------------------------------


MARKUP = {
    ("campaign", 0, "name"): "[bold]Plate[/] <b>1939</b>",
    ("campaign", 0, "notes"): "[red]x[/red] & <script>alert(1)</script> [link=file:///x]y[/]",
    ("side", 0, "name"): "<b>Royal Navy</b>",
    ("ship", 0, "name"): "[bold]x[/]",
    ("ship", 1, "notes"): "line one\nline two\t[/]\r\n\\[escaped]",
    ("journalentry", 0, "summary"): "[b]Created[/b] <i>it</i> $(rm -rf /)",
}


def test_markup_is_text_stored_as_typed(
    made: Made, run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    document = json.loads(made.text)
    for (table, index, field), value in MARKUP.items():
        document["tables"][table][index][field] = value
    source = _write(tmp_path / "markup.json", document)
    outcome = run("--db", campaign_file, "import", source)
    assert (outcome.status, outcome.err) == (0, "")
    assert outcome.out == _imported_beside(campaign_file, "[bold]Plate[/] <b>1939</b>")
    ship_query = (
        "SELECT ship.{} FROM ship JOIN side ON side.id = ship.side_id "
        "WHERE side.campaign_id = ? ORDER BY ship.id"
    )
    conn = sqlite3.connect(campaign_file)
    try:
        [[campaign_id]] = conn.execute(
            "SELECT id FROM campaign WHERE name = ?", (MARKUP[("campaign", 0, "name")],)
        ).fetchall()

        def first(query: str, index: int = 0) -> Any:
            return conn.execute(query, (campaign_id,)).fetchall()[index][0]

        stored = {
            ("campaign", 0, "name"): first("SELECT name FROM campaign WHERE id = ?"),
            ("campaign", 0, "notes"): first("SELECT notes FROM campaign WHERE id = ?"),
            ("side", 0, "name"): first("SELECT name FROM side WHERE campaign_id = ? ORDER BY id"),
            ("ship", 0, "name"): first(ship_query.format("name")),
            ("ship", 1, "notes"): first(ship_query.format("notes"), 1),
            ("journalentry", 0, "summary"): first(
                "SELECT summary FROM journalentry WHERE campaign_id = ? ORDER BY id"
            ),
        }
    finally:
        conn.close()
    assert stored == MARKUP


# --- export -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "wanted", [SAMPLE_NAME, SAMPLE_NAME.upper(), f"  {SAMPLE_NAME.lower()} ", "river plate"]
)
def test_export_by_name_in_any_case(
    made: Made, run: Run, campaign_file: Path, tmp_path: Path, wanted: str
) -> None:
    before = campaign_file.read_bytes()
    target = tmp_path / "out.json"
    outcome = run("--db", campaign_file, "export", wanted, "--to", target)
    assert (outcome.status, outcome.err) == (0, "")
    assert outcome.out == f"tracker: wrote {target}\n"
    assert target.read_text(encoding="utf-8") == made.text
    assert campaign_file.read_bytes() == before
    assert [name for name in os.listdir(tmp_path) if name.endswith(".tmp")] == []


def test_export_by_number_and_over_an_old_file(
    made: Made, run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "out.json"
    target.write_text("an older export", encoding="utf-8")
    outcome = run("--db", campaign_file, "export", str(made.sample_id), "--to", target)
    assert outcome.status == 2 and "add --force to replace it" in outcome.err
    assert target.read_text(encoding="utf-8") == "an older export"
    outcome = run("--db", campaign_file, "export", str(made.sample_id), "--to", target, "--force")
    assert (outcome.status, outcome.err) == (0, "")
    assert target.read_text(encoding="utf-8") == made.text


def test_a_name_that_looks_like_a_number_is_a_name(
    run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    """`export 3` takes the campaign named "3", even when campaign number 3 (named "10") comes
    first in the list."""
    engine = make_engine(str(campaign_file))
    factory = session_factory(engine)
    numbered = campaigns.create_campaign(factory, name="10")
    named = campaigns.create_campaign(factory, name=str(numbered.id))
    listed = [c.name for c in campaigns.list_campaigns(factory)]
    engine.dispose()
    assert listed.index("10") < listed.index(named.name)
    target = tmp_path / "out.json"
    outcome = run("--db", campaign_file, "export", named.name, "--to", target)
    assert outcome.status == 0, outcome
    [campaign] = json.loads(target.read_text(encoding="utf-8"))["tables"]["campaign"]
    assert campaign["name"] == named.name


def test_an_unknown_campaign_is_refused_with_the_campaigns_listed(
    refused: Refused, tmp_path: Path
) -> None:
    target = tmp_path / "out.json"
    refused(
        "export", "Bismarck", "--to", target,
        words=("no campaign 'Bismarck'", "'Other'", repr(SAMPLE_NAME)),
    )  # fmt: skip
    assert not target.exists()


def test_export_into_a_missing_folder_is_refused(refused: Refused, tmp_path: Path) -> None:
    target = tmp_path / "no such folder" / "out.json"
    refused("export", "Other", "--to", target, words=(f"cannot write {target}", "does not exist"))
    assert not target.parent.exists()


def test_export_onto_a_folder_is_refused(refused: Refused, tmp_path: Path) -> None:
    target = tmp_path / "a folder"
    target.mkdir()
    refused("export", "Other", "--to", target, words=(f"cannot write {target}",))
    assert os.listdir(target) == []
    assert [name for name in os.listdir(tmp_path) if name.endswith(".tmp")] == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_export_where_no_file_can_be_made_is_refused(refused: Refused) -> None:
    """/proc takes no new file, not even from root (a read-only folder would not stop root)."""
    target = Path("/proc/tracker-export.json")
    refused("export", "Other", "--to", target, words=(f"cannot write {target}",))


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="root writes into read-only folders"
)
def test_export_into_a_read_only_folder_is_refused(refused: Refused, tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        refused("export", "Other", "--to", folder / "out.json", words=("cannot write",))
        assert os.listdir(folder) == []
    finally:
        folder.chmod(0o700)


@pytest.mark.parametrize(
    "command",
    [
        ["export", "anything", "--to", "out.json"],
        ["print", "Force G", "--html", "out.html"],
        ["import-csv", "ships", "ships.csv", "--into", "Force G", "--dry-run"],
        ["library", "import", "cards.csv", "--dry-run"],  # a dry run writes nothing, a file neither
    ],
)
def test_a_mistyped_campaign_file_is_not_created_by_a_reading_command(
    run: Run, tmp_path: Path, command: list[str]
) -> None:
    missing = tmp_path / "no-such-campaign.db"
    outcome = run("--db", missing, *command)
    assert outcome.status == 2
    assert outcome.err == f"tracker: no campaign file at {missing}: check --db (or $TRACKER_DB)\n"
    assert not missing.exists()


@pytest.mark.parametrize("viewer", ["owner", "opponent", "umpire"])
def test_export_of_a_file_at_this_schema_writes_what_the_services_write(
    made: Made, run: Run, campaign_file: Path, tmp_path: Path, viewer: str
) -> None:
    """`tracker export` reads a campaign file at this schema, as tracker left it, with the
    standard library alone; its document is the services' to the byte, here for a campaign
    whose rows are renumbered (imported after another, which is then deleted: its ids start
    past 1, with gaps)."""
    engine = make_engine(str(campaign_file))
    factory = session_factory(engine)
    second = exchange.import_campaign(
        factory, document=exchange.read_document(made.text.encode()), name="Second")  # fmt: skip
    campaigns.delete_campaign(factory, campaign_id=made.sample_id)
    expected = exchange.dumps(exchange.export_campaign(factory, campaign_id=second, viewer=viewer))
    engine.dispose()
    tracker_campaign_file.remember_left(campaign_file)  # closed by tracker: read as it is
    alone, through_the_services = tmp_path / "alone.json", tmp_path / "services.json"
    outcome = run("--db", campaign_file, "export", "Second", "--to", alone, "--for", viewer)
    assert (outcome.status, outcome.err) == (0, "")
    # A database URL takes the way of every other command: the database libraries.
    url = f"sqlite:///{campaign_file}"
    run("--db", url, "export", "Second", "--to", through_the_services, "--for", viewer)
    assert alone.read_text(encoding="utf-8") == expected
    assert through_the_services.read_text(encoding="utf-8") == expected
    renumbered = json.loads(expected)["tables"]["ship"]
    assert [row["id"] for row in renumbered] == list(range(1, len(renumbered) + 1))


def test_export_of_a_file_at_this_schema_loads_no_database_library(
    campaign_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "out.json"
    tracker_campaign_file.remember_left(campaign_file)
    code = (
        "import sys\n"
        "from tracker.cli import main\n"
        f"status = main(['--db', {str(campaign_file)!r}, 'export', 'Other', '--to', "
        f"{str(target)!r}])\n"
        "heavy = ('sqlalchemy', 'sqlmodel', 'pydantic', 'alembic', 'tracker.models')\n"
        "print(status, ','.join(name for name in heavy if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.splitlines()[-1] == "0 "
    assert json.loads(target.read_text(encoding="utf-8"))["tables"]["campaign"][0]["name"] == (
        "Other")  # fmt: skip


def test_a_file_changed_since_tracker_left_it_is_checked_in_full_first(
    run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    """The export reads alone only a file exactly as tracker left it; one changed since (here a
    value no campaign holds, which only the full check sees) is checked first and refused."""
    tracker_campaign_file.remember_left(campaign_file)
    run_sql(campaign_file, "UPDATE campaign SET created_at = 'not a time' WHERE name = 'Other'")
    before = campaign_file.read_bytes()
    outcome = run("--db", campaign_file, "export", "Other", "--to", tmp_path / "out.json")
    assert outcome.status == 2 and "damaged" in outcome.err, outcome
    assert campaign_file.read_bytes() == before and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    "extra", ["ALTER TABLE ship ADD COLUMN extra TEXT DEFAULT 'hand-made'",
              "CREATE TABLE private_plan (id INTEGER PRIMARY KEY, plan TEXT); "
              "INSERT INTO private_plan VALUES (1, 'my private plan')"])  # fmt: skip
def test_a_table_or_column_added_by_hand_never_reaches_the_document(
    made: Made, run: Run, campaign_file: Path, tmp_path: Path, extra: str
) -> None:
    """A file whose tables are not exactly this tracker's is not read alone, even as tracker
    left it: the document holds only what tracker knows, for the owner and another player."""
    for statement in extra.split("; "):
        run_sql(campaign_file, statement)
    tracker_campaign_file.remember_left(campaign_file)  # as if the app had opened it since
    for viewer in ("owner", "opponent"):
        target = tmp_path / f"{viewer}.json"
        outcome = run("--db", campaign_file, "export", SAMPLE_NAME, "--to", target, "--for",
                      viewer)  # fmt: skip
        assert (outcome.status, outcome.err) == (0, ""), outcome
        text = target.read_text(encoding="utf-8")
        assert "hand-made" not in text and "private" not in text
        if viewer == "owner":
            assert text == made.text


def test_a_name_is_found_as_names_are_told_apart(
    run: Run, campaign_file: Path, tmp_path: Path
) -> None:
    """Casefolded, as the file keeps names apart: "STRASSE" names the campaign "Straße"."""
    engine = make_engine(str(campaign_file))
    campaigns.create_campaign(session_factory(engine), name="Straße")
    engine.dispose()
    target = tmp_path / "out.json"
    outcome = run("--db", campaign_file, "export", "STRASSE", "--to", target)
    assert outcome.status == 0, outcome
    [campaign] = json.loads(target.read_text(encoding="utf-8"))["tables"]["campaign"]
    assert campaign["name"] == "Straße"
