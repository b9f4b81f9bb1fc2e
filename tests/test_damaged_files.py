"""Damaged campaign files through the command line: cut short or with bytes flipped at seeded
random places, another format renamed .db, read-only, a folder, a full disk, a file another
program holds. Each is refused with one line on stderr and exit status 2 (a lock is waited
for first), and the attempt never changes the file nor leaves anything beside it. A flipped
byte SQLite cannot see (in a stored value, or in free space) may open: then PRAGMA
integrity_check passes and the campaign is read without a traceback."""

from __future__ import annotations

import io
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from campaign_files import (
    Outcome,
    file_sha,
    reader,
    real_campaign_file,
    run_main,
    run_sql,
    sidecars,
    table_rows,
)
from make_revision_files import FOLDER, file_name
from sqlalchemy import Engine, event
from sqlmodel import SQLModel

from tracker import campaign_file, db
from tracker.db import list_backups, session_factory
from tracker.errors import DatabaseUnavailable
from tracker.services import campaigns, demo, exchange

SEED = 20261130
PAST = sorted(db.known_revisions() - {db.head_revision()})[-1]  # the newest past revision


def _integrity(path: Path) -> list[str]:
    conn = reader(path)
    try:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The River Plate sample as a checkpointed campaign file (made once for the module)."""
    return real_campaign_file(tmp_path_factory.mktemp("sample") / "campaign.db").read_bytes()


@pytest.fixture
def play(tmp_path: Path) -> Path:
    """The folder a campaign file is put in, with nothing else in it."""
    folder = tmp_path / "play"
    folder.mkdir()
    return folder


def _export(capsys: pytest.CaptureFixture[str], path: Path) -> Outcome:
    """`tracker --db PATH export SAMPLE --to ...`: opens the file and reads a whole campaign."""
    return run_main(capsys, _export_args(path))


def _assert_refused(run: Outcome, path: Path, sha: str, *phrases: str) -> None:
    """Exit 2, one line on stderr naming what to do, the file as it was, nothing beside it."""
    assert run.status == 2, run
    lines = run.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tracker: "), run.err
    assert all(phrase in lines[0] for phrase in phrases), lines[0]
    assert run.out == ""
    assert file_sha(path) == sha
    assert sorted(os.listdir(path.parent)) == [path.name], "the attempt left files beside it"


def _opened_or_refused(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    """Open a damaged file and read a campaign: either refused as damaged, or SQLite finds
    nothing wrong with it (damage in a value or in free space) and it is read."""
    sha = file_sha(path)
    run = _export(capsys, path)
    if run.status == 0:
        assert _integrity(path) == ["ok"]
        return "opened"
    _assert_refused(run, path, sha, "restore", "damaged")
    return "refused"


# --- cut short ---------------------------------------------------------------------------------

_rng = random.Random(SEED)
# 20 seeded places across the sample, as fractions of its length, and the edges in bytes: in
# the 16-byte magic string, at the end of the 100-byte header, of the first page, of the last.
CUTS = [f"{_rng.random():.4f}" for _ in range(20)] + ["1", "15", "16", "99", "100", "4096"]


@pytest.mark.parametrize("cut", [*CUTS, "-4096", "-1"], ids=lambda cut: f"cut-at-{cut}")
def test_a_file_cut_short_is_refused(
    cut: str, sample: bytes, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even one byte short (a zero): the integrity check counts the bytes of the last page."""
    keep = int(float(cut) * len(sample)) if "." in cut else int(cut)
    path = play / "campaign.db"
    path.write_bytes(sample[:keep])
    sha = file_sha(path)
    phrase = "not SQLite" if 0 < keep < 16 else "damaged"
    _assert_refused(_export(capsys, path), path, sha, str(path), phrase, "--db")


# --- bytes flipped -----------------------------------------------------------------------------


def _flips(seed: int) -> list[tuple[str, list[tuple[float, int]]]]:
    """(id, [(place as a fraction of the file, xor mask)]): 24 single bits flipped, and 6 runs
    of 8 bytes overwritten at random."""
    rng = random.Random(seed)
    cases = []
    for _ in range(24):
        place, mask = rng.random(), 1 << rng.randrange(8)
        cases.append((f"bit-{place:.5f}-{mask}", [(place, mask)]))
    for _ in range(6):
        place = rng.random()
        cases.append((f"run-{place:.5f}", [(place, rng.randrange(1, 256)) for _ in range(8)]))
    return cases


FLIPS = _flips(SEED)


@pytest.mark.parametrize("flips", [f for _, f in FLIPS], ids=[name for name, _ in FLIPS])
def test_a_file_with_bytes_flipped_is_refused_or_sound(
    flips: list[tuple[float, int]], sample: bytes, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(sample)
    for run, (place, mask) in enumerate(flips):  # a run: the bytes one after the other
        data[int(place * (len(data) - len(flips))) + run] ^= mask
    path = play / "campaign.db"
    path.write_bytes(bytes(data))
    _opened_or_refused(capsys, path)


# --- damage SQLite cannot see: in a value, or in a name of the schema ---------------------------

# What a flipped byte does inside a value or the schema's text (each was seen among the random
# flips above with other seeds), written with SQL so each case is certain to be tested.
SILENT_DAMAGE = {
    "json-cut": (
        "UPDATE journalentry SET detail = substr(detail, 1, 9) WHERE id = 2",
        "journalentry.detail of row 2 is not what tracker wrote",
    ),
    "time-garbled": (
        "UPDATE journalentry SET at = replace(at, ':', '*') WHERE id = 1",
        "journalentry.at of row 1 is not what tracker wrote",
    ),
    "number-as-text": (
        "UPDATE ship SET structure_now = 'nine' WHERE id = 1",
        "ship.structure_now of row 1 is not what tracker wrote",
    ),
    "bad-utf8": (
        "UPDATE ship SET name = CAST(X'4578ff746572' AS TEXT) WHERE id = 1",
        "damaged (a text in it is not UTF-8)",
    ),
    "column-renamed": (
        "ALTER TABLE ship RENAME COLUMN radar TO radar_set",
        "lacks ship.radar of tracker's schema",
    ),
    "table-dropped": ("DROP TABLE minetablerow", "lacks the table minetablerow"),
}


@pytest.mark.parametrize("kind", list(SILENT_DAMAGE))
def test_damage_the_integrity_check_cannot_see_is_refused_too(
    kind: str, sample: bytes, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    statement, phrase = SILENT_DAMAGE[kind]
    path = play / "campaign.db"
    path.write_bytes(sample)
    run_sql(path, statement)
    assert _integrity(path) == ["ok"]
    sha = file_sha(path)
    _assert_refused(_export(capsys, path), path, sha, phrase, "restore")


def test_the_json_columns_checked_are_those_of_the_models() -> None:
    shapes = {"{}": "object", "[]": "array"}
    documents = {
        (table.name, column.name): shapes[column.default.arg]
        for table in SQLModel.metadata.sorted_tables
        for column in table.columns
        if column.default is not None and getattr(column.default, "arg", None) in shapes
    }
    assert documents == campaign_file.JSON_COLUMNS


# --- not a campaign file -----------------------------------------------------------------------


def _png() -> bytes:
    return bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
        "0000000d4944415478da63f8ffff3f0005fe02fea7d6a4c20000000049454e44ae426082"
    )


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("campaign.db", b"SQLite format 3\x00" + bytes(4080))
    return buffer.getvalue()


OTHER_FORMATS: dict[str, Callable[[], bytes]] = {
    "png": _png,
    "zip": _zip,
    "text": lambda: b"Narvik, 10 April 1940: Hardy beached.\n",
    "json": lambda: b'{"format": "tracker-campaign", "campaign": {}}\n',
}


@pytest.mark.parametrize("kind", list(OTHER_FORMATS))
def test_another_format_renamed_db_is_refused(
    kind: str, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = play / "campaign.db"
    path.write_bytes(OTHER_FORMATS[kind]())
    sha = file_sha(path)
    _assert_refused(_export(capsys, path), path, sha, str(path), "not SQLite", "--db")


def test_a_folder_named_like_the_file_is_refused_and_left_alone(
    play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = play / "campaign.db"
    path.mkdir()
    (path / "notes.txt").write_text("keep me")
    run = _export(capsys, path)
    assert run.status == 2 and run.err.count("\n") == 1 and "is a folder" in run.err
    assert os.listdir(path) == ["notes.txt"] and os.listdir(play) == ["campaign.db"]


# --- read-only --------------------------------------------------------------------------------


@contextmanager
def _read_only(target: Path) -> Iterator[None]:
    """The file or folder read-only to this process: chmod for a player; root, whom permissions
    do not stop, gets the immutable attribute (chattr +i) instead, where it can be set."""
    if os.geteuid() != 0:
        mode = target.stat().st_mode
        target.chmod(0o555 if target.is_dir() else 0o444)
        try:
            yield
        finally:
            target.chmod(mode)
        return
    made = subprocess.run(["chattr", "+i", str(target)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"root writes any file, and chattr +i failed: {made.stderr.strip()!r}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(target)], check=True)


@pytest.mark.skipif(sys.platform == "win32", reason="chmod and chattr are POSIX")
@pytest.mark.parametrize("revision", ["head", "past"])
@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_file_or_folder_is_refused_before_anything_is_written(
    what: str, revision: str, sample: bytes, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file at an older revision would be backed up and upgraded: neither is tried."""
    path = play / "campaign.db"
    if revision == "head":
        path.write_bytes(sample)
    else:
        shutil.copyfile(FOLDER / file_name(PAST), path)
    sha = file_sha(path)
    with _read_only(path if what == "file" else play):
        run = _export(capsys, path)
        phrase = "is read-only: make it writable" if what == "file" else "folder"
        _assert_refused(run, path, sha, phrase, "read-only")
        if what == "file" and revision == "head":  # as the message says, the umpire can look
            umpire = run_main(capsys, ["--umpire", *_export_args(path)])
            assert umpire.status == 0, umpire
    assert file_sha(path) == sha


# --- a full disk and a held file: engines with SQLite's limits set --------------------------------


@dataclass
class Limits:
    """What every engine tracker makes in this test sees (set on each connection checkout, so
    a change takes effect at once): a disk full at `pages` pages (PRAGMA max_page_count), and
    a wait of `busy_ms` for another program's lock instead of tracker's own."""

    pages: int | None = None
    busy_ms: int | None = None


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> Limits:
    limits = Limits()
    real = db.make_engine

    def set_limits(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        pages = limits.pages if limits.pages is not None else 2**31 - 2
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")
        if limits.busy_ms is not None:
            dbapi_connection.execute(f"PRAGMA busy_timeout = {limits.busy_ms}")

    def make_engine(target: str, *, read_only: bool = False) -> Engine:
        engine = real(target, read_only=read_only)
        event.listen(engine, "checkout", set_limits)
        return engine

    monkeypatch.setattr(db, "make_engine", make_engine)
    return limits


def _pages(path: Path) -> int:
    conn = reader(path)
    try:
        return int(conn.execute("PRAGMA page_count").fetchone()[0])
    finally:
        conn.close()


def _export_args(path: Path, name: str = demo.SAMPLE_NAME) -> list[str]:
    return ["--db", str(path), "export", name, "--to", str(path.parent.parent / "export.json")]


def _import(capsys: pytest.CaptureFixture[str], path: Path, name: str) -> Outcome:
    document = path.parent.parent / "export.json"
    return run_main(capsys, ["--db", str(path), "import", str(document), "--name", name])


def _names(path: Path) -> list[str]:
    conn = reader(path)
    try:
        return sorted(name for (name,) in conn.execute("SELECT name FROM campaign"))
    finally:
        conn.close()


def test_a_full_disk_refuses_an_import_writes_nothing_and_the_next_try_works(
    limits: Limits, sample: bytes, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = play / "campaign.db"
    path.write_bytes(sample)
    assert _export(capsys, path).status == 0
    rows, sha = table_rows(path), file_sha(path)
    limits.pages = _pages(path)
    run = _import(capsys, path, "Second River Plate")
    _assert_refused(run, path, sha, "the disk is full", "nothing was imported")
    assert table_rows(path) == rows
    limits.pages = None  # room again
    assert _import(capsys, path, "Second River Plate").status == 0
    assert "Second River Plate" in _names(path)


def test_a_full_disk_in_a_running_app_writes_nothing_and_it_carries_on(
    limits: Limits, sample: bytes, play: Path
) -> None:
    path = play / "campaign.db"
    path.write_bytes(sample)
    engine = db.make_engine(str(path))
    try:
        factory = session_factory(engine)
        [sample_campaign] = campaigns.list_campaigns(factory)
        document = exchange.export_campaign(factory, campaign_id=sample_campaign.id)
        rows = table_rows(path)
        limits.pages = _pages(path)
        with pytest.raises(DatabaseUnavailable, match="the disk is full: nothing was written"):
            exchange.import_campaign(factory, document=document, name="Copy")
        assert table_rows(path) == rows
        limits.pages = None
        exchange.import_campaign(factory, document=document, name="Copy")
        assert len(campaigns.list_campaigns(factory)) == 2
    finally:
        engine.dispose()
    assert sidecars(path) == [] and _integrity(path) == ["ok"]


def test_a_full_disk_during_an_upgrade_leaves_the_file_as_it_was_and_the_backup(
    limits: Limits, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = play / "campaign.db"
    shutil.copyfile(FOLDER / file_name(PAST), path)
    sha, rows = file_sha(path), table_rows(path)
    limits.pages = _pages(path)
    run = run_main(capsys, _export_args(path, "Narvik 1940"))
    assert run.status == 2 and run.err.count("\n") == 1, run
    assert "could not upgrade" in run.err and "the disk is full" in run.err
    assert file_sha(path) == sha and sidecars(path) == []
    [backup] = list_backups(path)
    assert f"kept as {backup.path}" in run.err and table_rows(backup.path) == rows
    limits.pages = None
    assert run_main(capsys, _export_args(path, "Narvik 1940")).status == 0


@contextmanager
def _held(path: Path, *, for_s: float | None = None) -> Iterator[None]:
    """Another program's write transaction on the file (BEGIN IMMEDIATE), ended after for_s
    seconds, or when the block ends."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE campaign SET notes = 'being edited elsewhere'")
    timer = threading.Timer(for_s, conn.rollback) if for_s is not None else None
    if timer is not None:
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.join()
        if conn.in_transaction:
            conn.rollback()
        conn.close()


def test_a_file_another_program_holds_for_a_moment_is_waited_for(
    sample: bytes, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = play / "campaign.db"
    path.write_bytes(sample)
    assert _export(capsys, path).status == 0
    started = time.monotonic()
    with _held(path, for_s=1.0):
        run = _import(capsys, path, "Imported while held")
    assert run.status == 0, run
    assert time.monotonic() - started >= 0.9
    assert sidecars(path) == []
    assert "Imported while held" in _names(path)


def test_a_file_another_program_holds_past_the_wait_is_refused_and_left_alone(
    sample: bytes, play: Path, capsys: pytest.CaptureFixture[str], limits: Limits
) -> None:
    """Past tracker's wait (busy_timeout: 5 s, cut to 0.3 s here; the test above shows the wait
    is kept), one line; nothing of the import is kept."""
    path = play / "campaign.db"
    path.write_bytes(sample)
    assert _export(capsys, path).status == 0
    sha = file_sha(path)
    limits.busy_ms = 300
    with _held(path):
        run = _import(capsys, path, "Imported while held")
    _assert_refused(run, path, sha, "another program held the campaign file", "try again")


def test_a_file_another_program_holds_during_an_upgrade_is_left_as_it_was(
    limits: Limits, play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = play / "campaign.db"
    shutil.copyfile(FOLDER / file_name(PAST), path)
    sha = file_sha(path)
    limits.busy_ms = 300
    with _held(path):
        run = run_main(capsys, _export_args(path, "Narvik 1940"))
    assert run.status == 2 and run.err.count("\n") == 1, run
    assert "could not upgrade" in run.err and "another program held" in run.err
    assert file_sha(path) == sha and sidecars(path) == []
    assert len(list_backups(path)) == 1
    assert run_main(capsys, _export_args(path, "Narvik 1940")).status == 0
