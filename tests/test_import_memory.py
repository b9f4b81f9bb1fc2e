"""A campaign file's import takes memory within a few times the file's size when it reads a
real campaign grown large, and a hostile document (a million empty objects, nesting thousands
deep, a row of made-up fields, a field of megabytes, a number of a million digits, the same
problem on every row, rows that are refused only once all are read) is refused within about
its own size: its rows are never kept. Measured with tracemalloc in a fresh interpreter reading
the file as `tracker import` does (from the file), in bytes against the file's size; the time it
takes is not asserted (bench/refused.py measures the process's peak on files of 200 MB:
`make bench`, figure 14)."""

from __future__ import annotations

import atexit
import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from campaign_files import full_sample_campaign

from tracker.db import make_engine, migrate, session_factory
from tracker.services import exchange

REPO = Path(__file__).resolve().parents[1]
SIZE = 1_500_000  # bytes of each hostile document: refused at once, measured quickly
REAL_SIZE = 400_000  # bytes of a real campaign grown: thousands of rows, each checked
# Bytes of a file refused once most of it is read: its rows are checked a few hundred at a
# time (document_reader.CHUNK_BYTES of them), a small part of a file this large.
LATE_SIZE = 3_000_000
# A campaign read keeps its rows: they take a few times the file's bytes.
BOUND = 4
# A file refused keeps no row: at most its bytes (the careful reader reads them whole) and a
# half again for the ids, the references and the row in hand.
REFUSED_BOUND = 1.5
HEAD = b'{"format": "tracker-campaign", "version": 1, "tables": {'

MEASURE = """
import gc, sys, tracemalloc
from pathlib import Path
from tracker.services import exchange
from tracker.services.errors import InvalidInput
# One path a line on stdin, its peak and outcome on two lines of stdout: one interpreter measures
# every file of a test process in turn, each read alone under a tracemalloc started afresh.
for line in sys.stdin:
    path = Path(line.rstrip("\\n"))
    # Read once unmeasured: what the reader builds once per process (each table's checks, lazy
    # imports) is no part of a file's cost; the measured read is the second.
    try:
        with path.open("rb") as file:
            exchange.read_document(file)
    except InvalidInput:
        pass
    gc.collect()
    tracemalloc.start()
    try:
        with path.open("rb") as file:
            exchange.read_document(file)
        outcome = "read"
    except InvalidInput as exc:
        outcome = "refused: " + "; ".join(exc.errors.values())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(peak)
    print(outcome[:300].replace("\\n", " "), flush=True)
"""


def _repeat(item: bytes, size: int, joiner: bytes = b",") -> bytes:
    return joiner.join([item] * (size // (len(item) + len(joiner))))


def _empty_rows(size: int) -> bytes:
    return HEAD + b'"ship": [' + _repeat(b"{}", size) + b"]}}"


def _empty_objects(size: int) -> bytes:
    return b"[" + _repeat(b"{}", size) + b"]"


def _empty_lists_as_rows(size: int) -> bytes:
    return HEAD + b'"battery": [' + _repeat(b"[]", size) + b"]}}"


def _numbers_as_rows(size: int) -> bytes:
    return HEAD + b'"ship": [' + _repeat(b"7", size) + b"]}}"


def _deep_in_a_row(size: int) -> bytes:
    return HEAD + b'"ship": [{"name": ' + b"[" * size


def _deep_at_the_top(size: int) -> bytes:
    return b'{"a":' * (size // 5)


def _made_up_fields(size: int) -> bytes:
    fields = b",".join(b'"f%d": 1.5' % n for n in range(size // 12))
    return HEAD + b'"ship": [{' + fields + b"}]}}"


def _made_up_tables(size: int) -> bytes:
    tables = b",".join(b'"t%d": []' % n for n in range(size // 10))
    return HEAD + tables + b"}}"


def _short_texts(size: int) -> bytes:
    return b'{"format": [' + _repeat(b'"ab"', size) + b"]}"


def _long_number(size: int) -> bytes:
    return HEAD + b'"ship": [{"id": ' + b"9" * size + b"}]}}"


def _same_problem_on_every_row(size: int) -> bytes:
    rows = b",".join(b'{"id": %d, "scenario_id": 1, "ship_id": "x"}' % n for n in range(size // 44))
    return HEAD + b'"participation": [' + rows + b"]}}"


HOSTILE = {
    "empty_rows": _empty_rows, "empty_objects": _empty_objects,
    "empty_lists_as_rows": _empty_lists_as_rows, "numbers_as_rows": _numbers_as_rows,
    "deep_in_a_row": _deep_in_a_row, "deep_at_the_top": _deep_at_the_top,
    "made_up_fields": _made_up_fields, "made_up_tables": _made_up_tables,
    "short_texts": _short_texts, "long_number": _long_number,
    "same_problem_on_every_row": _same_problem_on_every_row,
}  # fmt: skip


@functools.cache
def _measurer() -> subprocess.Popen[str]:
    """A fresh interpreter reading the files as `tracker import` does, one after another: not
    one per file, whose start and warm-up read cost more CPU than the read measured."""
    process = subprocess.Popen(
        [sys.executable, "-c", MEASURE], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    atexit.register(process.wait, timeout=60)
    atexit.register(process.stdin.close)  # type: ignore[union-attr]
    return process


def _peak(path: Path) -> tuple[int, str]:
    process = _measurer()
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{path}\n")
    process.stdin.flush()
    peak, outcome = process.stdout.readline(), process.stdout.readline()
    assert peak and outcome, f"the measuring interpreter ended ({process.poll()})"
    return int(peak), outcome.rstrip("\n")


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_document_is_refused_within_a_few_times_its_size(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "hostile.json"
    path.write_bytes(HOSTILE[kind](SIZE))
    size = path.stat().st_size
    assert size >= SIZE * 0.9
    peak, outcome = _peak(path)
    assert outcome.startswith("refused: "), outcome
    assert peak <= REFUSED_BOUND * size, f"{kind}: {peak:,} bytes for a file of {size:,}"


@pytest.fixture(scope="module")
def sample_document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The sample campaign with rows in every table, as tracker export writes it."""
    engine = make_engine(str(tmp_path_factory.mktemp("sample") / "campaign.db"))
    try:
        migrate(engine)
        factory = session_factory(engine)
        filled = full_sample_campaign(factory)
        return exchange.export_campaign(factory, campaign_id=filled.campaign_id)
    finally:
        engine.dispose()


@pytest.mark.parametrize("table", ["journalentry", "ship"])
def test_a_real_campaign_grown_large_is_read_within_a_few_times_its_size(
    tmp_path: Path, sample_document: dict[str, Any], table: str
) -> None:
    """The sample campaign with one table's rows copied (new ids) until the file is large."""
    path = tmp_path / "large.json"
    path.write_text(exchange.dumps(_grown(sample_document, table, REAL_SIZE)), encoding="utf-8")
    size = path.stat().st_size
    peak, outcome = _peak(path)
    assert outcome == "read"
    assert peak <= BOUND * size, f"{table}: {peak:,} bytes for a file of {size:,}"


def _grown(document: dict[str, Any], table: str, size: int) -> dict[str, Any]:
    """The document with one table's rows copied (new ids) until its file is `size` bytes."""
    document = json.loads(json.dumps(document))
    rows = document["tables"][table]
    originals = list(rows)
    next_id = max(row["id"] for row in rows) + 1
    text = exchange.dumps(document)
    # Copies enough to come near the size, written once, then a copy at a time.
    per_copy = sum(len(json.dumps(row)) for row in originals)
    for _ in range((size - len(text)) // per_copy):
        rows.extend({**row, "id": next_id + n} for n, row in enumerate(originals))
        next_id += len(originals)
    if table == "ship":
        for row in rows[len(originals) :]:
            row["name"] = f"{row['name']} {row['id']}"
    while len(exchange.dumps(document)) < size:
        for row in originals:
            copy = {**row, "id": next_id}
            if "name" in copy and table == "ship":
                copy["name"] = f"{row['name']} {next_id}"
            rows.append(copy)
            next_id += 1
    return document


def _one_field_oversized(document: dict[str, Any], size: int) -> str:
    """As tracker export writes it, but one ship's notes fill the file: a row's line longer
    than any, its field measured and refused unread."""
    text = exchange.dumps(document)
    return text.replace('"notes":""', '"notes":"' + "x" * (size - len(text)) + '"', 1)


def _refused_at_the_end(document: dict[str, Any], size: int) -> str:
    """Thousands of rows, each fine, the last table's last row naming a squadron the file
    does not hold: found only once every row is read."""
    grown = _grown(document, "journalentry", size)
    grown["tables"]["ship"][-1]["squadron_id"] = 10**9
    return exchange.dumps(grown)


def _bad_value_at_the_end(document: dict[str, Any], size: int) -> str:
    """Thousands of rows, each fine but the last, whose value the column checks refuse (the
    careful reader then reads the file to name it)."""
    grown = _grown(document, "journalentry", size)
    grown["tables"]["journalentry"][-1]["campaign_id"] = "the first"
    return exchange.dumps(grown)


REFUSED_LATE = {
    "one_field_oversized": _one_field_oversized,
    "refused_at_the_end": _refused_at_the_end,
    "bad_value_at_the_end": _bad_value_at_the_end,
}


@pytest.mark.parametrize("kind", sorted(REFUSED_LATE))
def test_a_file_refused_late_is_refused_within_about_its_size(
    tmp_path: Path, sample_document: dict[str, Any], kind: str
) -> None:
    path = tmp_path / "refused.json"
    path.write_text(REFUSED_LATE[kind](sample_document, LATE_SIZE), encoding="utf-8")
    size = path.stat().st_size
    peak, outcome = _peak(path)
    assert outcome.startswith("refused: "), outcome
    assert peak <= REFUSED_BOUND * size, f"{kind}: {peak:,} bytes for a file of {size:,}"
