"""A campaign document read from its file, checked in full before any of its rows is kept
(services.exchange has the whole story; services.document_checks holds the checks).

Every row is checked as it is read, and none is kept as a row until the whole file is found
clean (RowChecks keeps what a check needs once every row is read: ids, references, sealed
notes), so a hostile file, however large, is refused within about its own size in memory: a
field of megabytes is measured and refused before it is decoded, a number longer than any column
holds before it is converted, thousands of rows refused at the end as their lines.

A file laid out as tracker export lays it out (a row to a line, documents.dumps) is read a line
at a time, each line at most LONGEST_LINE bytes, its rows checked a few hundred at a time,
column by column (document_checks.table_fine), and their lines kept: once the file is found
clean, each line is read again into its row and let go. Anything else, or a row the column
checks doubt, goes to the careful reader, which walks the file's bytes value by value and names
what is wrong; a file it found clean it walks again, keeping the rows.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import orjson

from tracker.db import head_revision
from tracker.services.document_careful import NOT_TRACKER, read_careful
from tracker.services.document_checks import (
    MAX_PLACES,
    MAX_PROBLEMS,
    Columns,
    RowChecks,
    check_header,
    table_fine,
)
from tracker.services.documents import FORMAT
from tracker.services.errors import InvalidInput
from tracker.services.problems import Problems

MAX_BYTES = 256 * 1024 * 1024
# A row's line longer than this is left to the careful reader, which measures each value
# before it reads it; orjson reads a line whole.
LONGEST_LINE = 64 * 1024
# The lines of rows of a table checked together, column by column, then let go as rows: a
# hundred rows or so, a small part of any large file.
CHUNK_BYTES = 64 * 1024
_SCALARS = frozenset({str, int, float, bool, type(None)})
_OPENINGS = (b"[", b"[],", b"[]")  # a table's line: its rows follow, or it has none


def too_large(size: int) -> str:
    """The refusal of a file over the size limit, saying the limit."""
    limit, mb = MAX_BYTES // 2**20, round(size / 2**20)
    return (f"a campaign file over {limit} MB is refused (this one is {mb} MB): check that "
            "it is a file written by tracker export")  # fmt: skip


def read(raw: bytes | BinaryIO, columns_for: Callable[[str], Columns]) -> dict[str, Any]:
    """The document of a campaign file (its bytes, or the file open), every row checked against
    the columns of the schema its header names (`columns_for`); see the module's docstring."""
    reading = _Reading(columns_for, keep=False)
    data = reading.read(raw)
    reading.finish()
    if data is None:
        return reading.rows()
    kept = _Reading(columns_for, keep=True)
    read_careful(data, kept)
    return kept.document


class _Reading:
    """One reading of the file: checking its rows, or (by the careful reader, of a file found
    clean) keeping them."""

    def __init__(self, columns_for: Callable[[str], Columns], *, keep: bool) -> None:
        self.columns_for = columns_for
        self.keep = keep
        self.start()

    def start(self) -> None:
        """Nothing read yet (the careful reader starts again where the lines could not go)."""
        self.problems = Problems(MAX_PROBLEMS, places=MAX_PLACES)
        self.document: dict[str, Any] = {}
        self.checks: RowChecks | None = None
        self.schema_read = ""
        # The lines of each table's rows, as read and checked: the rows of a file found clean.
        self.lines: dict[str, list[bytes | None]] = {}

    def read(self, raw: bytes | BinaryIO) -> bytes | None:
        """Check the file: line by line where it is laid out as tracker export lays it out,
        else by the careful reader; the file's bytes, when the careful reader read them."""
        if _read_lines(_lines_of(raw), self) is not None:
            return None
        self.start()
        data = raw if isinstance(raw, bytes) else _whole_file(raw)
        read_careful(data, self)
        return data

    def begin(self, schema: Columns) -> None:
        if not self.keep:
            self.checks = RowChecks(schema, self.problems)
        self.document["tables"] = {}

    def table(self, name: str) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        self.document["tables"][name] = rows
        return rows

    def finish(self) -> None:
        """The document's own shape, then the checks that needed every row."""
        document = self.document
        if document.get("format") != FORMAT:
            raise InvalidInput({"file": NOT_TRACKER})
        if "version" not in document:
            raise InvalidInput({"file": "has no format version"})
        if "tables" not in document:
            raise InvalidInput({"file": 'has no "tables" object'})
        if document.get("schema", head_revision()) != self.schema_read:
            raise InvalidInput({"file": 'names its schema after its tables: put "schema" first, '
                                "as tracker export writes it"})  # fmt: skip
        assert self.checks is not None
        if self.checks.counts.get("campaign", 0) != 1:
            raise InvalidInput({"file": "must hold exactly one campaign"})
        self.checks.finish()

    def rows(self) -> dict[str, Any]:
        """The document of a file found clean, its rows read from the lines kept, each line let
        go as its row is made (the rows take a few times their lines)."""
        for name, lines in self.lines.items():
            rows = self.document["tables"][name]
            for index, line in enumerate(lines):
                assert line is not None
                rows.append(orjson.loads(line.rstrip().removesuffix(b",")))
                lines[index] = None
        self.lines.clear()
        return self.document

    def columns(self) -> Columns:
        """The columns of the schema the header names (today's when it names none)."""
        self.schema_read = self.document.get("schema", head_revision())
        return self.columns_for(self.schema_read)


def _lines_of(raw: bytes | BinaryIO) -> Iterator[bytes]:
    """The file's lines, each with its line break, each cut at LONGEST_LINE + 1 bytes (a line
    that long is never read as a row's: the careful reader takes the file)."""
    if isinstance(raw, bytes):
        start, size = 0, len(raw)
        while start < size:
            cut = min(size, start + LONGEST_LINE + 1)
            end = raw.find(b"\n", start, cut) + 1 or cut
            yield raw[start:end]
            start = end
        return
    raw.seek(0)
    while line := raw.readline(LONGEST_LINE + 1):
        yield line


def _whole_file(file: BinaryIO) -> bytes:
    """The file's bytes (the size it has now: read(n) sets n bytes aside before it reads);
    refused if it grew past MAX_BYTES since its size was checked."""
    file.seek(0)
    size = os.fstat(file.fileno()).st_size
    data = file.read(min(size, MAX_BYTES) + 1)
    if len(data) > MAX_BYTES:
        raise InvalidInput({"file": too_large(len(data))})
    return data


def _read_lines(lines: Iterator[bytes], reading: _Reading) -> dict[str, Any] | None:
    """The document as tracker export writes it (documents.dumps), read a line at a time, its rows
    checked and their lines kept; None at a line laid out otherwise, or a row the column checks
    doubt: the careful reader then names what is wrong."""
    if next(lines, b"").rstrip() not in (b"{", codecs.BOM_UTF8 + b"{"):
        return None
    document = reading.document
    for line in lines:
        if line == b' "tables": {\n':
            break
        text = line.rstrip()
        if not text.endswith(b",") or len(line) > LONGEST_LINE:  # the tables come last
            return None
        try:
            member = orjson.loads(b"{" + text[:-1] + b"}")
        except orjson.JSONDecodeError:
            return None
        if len(member) != 1 or type(next(iter(member.values()))) not in _SCALARS:
            return None
        document.update(member)
        check_header(document)
    else:
        return None
    schema = reading.columns()
    reading.begin(schema)
    rows: list[dict[str, Any]] | None = None  # of the list open, if one is
    kept: list[bytes | None] = []  # its lines
    name, more, first = "", True, 0  # more: a comma said another row or table follows
    held = 0  # bytes of the rows in hand, not yet checked
    for line in lines:
        if rows is not None and line.startswith(b"   {") and len(line) <= LONGEST_LINE:
            if not more or not _row_line(line, name, rows, schema):
                return None
            kept.append(line)
            more = line.rstrip().endswith(b",")
            held += len(line)
            if held >= CHUNK_BYTES:
                if not _checked(reading, name, rows, first, schema):
                    return None
                first, held = first + len(rows), 0
                rows.clear()
        elif rows is not None and line in (b"  ],\n", b"  ]\n") and not more:
            if not (rows or first):
                return None  # "[" then "]": tracker writes an empty table as []
            if not _checked(reading, name, rows, first, schema):
                return None
            rows, more = None, line == b"  ],\n"
        elif rows is None and more and line.startswith(b'  "') and len(line) <= LONGEST_LINE:
            key, _, rest = line.strip().partition(b": ")
            name = key[1:-1].decode("utf-8", "replace")
            if name not in schema or name in document["tables"] or rest not in _OPENINGS:
                return None
            reading.table(name)
            kept = reading.lines[name] = []
            more, first = rest != b"[]", 0
            rows = [] if rest == b"[" else None
            if rows is None:
                _checked(reading, name, [], 0, schema)
        else:
            break
    else:
        return None
    if rows is not None or more or line != b" }\n" or next(lines, b"").rstrip() != b"}":
        return None
    return None if any(rest.strip() for rest in lines) else document


def _checked(
    reading: _Reading, name: str, rows: list[dict[str, Any]], first: int, schema: Columns
) -> bool:
    """Rows of a table checked column by column (False: for the careful reader), then handed on."""
    assert reading.checks is not None
    if rows and not table_fine(name, rows, schema, reading.checks.seen(name)):
        return False
    reading.checks.rows(name, rows, first)
    if reading.problems.full():
        reading.problems.check()
    return True


def _row_line(line: bytes, name: str, rows: list[dict[str, Any]], schema: Columns) -> bool:
    """Read one row's line into `rows`; False if it is not a flat row of the table's fields
    (its values are checked with its table's, table_fine)."""
    try:
        row = orjson.loads(line.rstrip().removesuffix(b","))
    except orjson.JSONDecodeError:
        return False
    if type(row) is not dict or not row.keys() <= schema[name].keys():
        return False
    if not _SCALARS.issuperset(map(type, row.values())):
        return False
    rows.append(row)
    return True
