"""The careful reader of a campaign document (services.document_reader reads a file laid out
as tracker export lays it out a line at a time; any other file, or one whose rows the column
checks doubt, comes here): the file's bytes walked value by value, each value measured before
it is read, and every problem named where it is.
"""

from __future__ import annotations

import codecs
import functools
import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import String

from tracker.services.document_checks import (
    TOO_LONG,
    Columns,
    check_header,
    check_row,
    check_value,
    column_kind,
    text_length,
)
from tracker.services.documents import FORMAT
from tracker.services.errors import InvalidInput
from tracker.services.problems import Problems

if TYPE_CHECKING:
    from tracker.services.document_reader import _Reading

NOT_TRACKER = f'is not a tracker campaign file (no "format": "{FORMAT}")'
# A flat row longer than this is read value by value, each measured before it is read.
LONGEST_ROW = 64 * 1024


_SPACE = re.compile(rb"[ \t\n\r]*")
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_VALUE = {
    b'"': re.compile(_STRING.encode(), re.DOTALL),
    b"t": re.compile(rb"true"), b"f": re.compile(rb"false"), b"n": re.compile(rb"null"),
    b"N": re.compile(rb"NaN"), b"I": re.compile(rb"Infinity"),
}  # fmt: skip
_NUMBER = re.compile(rb"-?(?:Infinity|(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)")
# The most bytes a value is read from when no column says: a key, a header's value, an unknown
# field's (which is refused, not read). A number: more digits than any column's.
LONGEST_NAME = 256
LONGEST_NUMBER = 64


class _Reader:
    """Walks a campaign document's bytes, building no more than one row at a time: only its fixed
    shape (an object whose "tables" holds lists of flat rows), each value measured before it is
    read, so a hostile file (deep nesting, huge fields) is refused before it takes memory."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0

    def peek(self) -> bytes:
        char = self.data[self.pos : self.pos + 1]
        if char in (b" ", b"\t", b"\n", b"\r"):
            found = _SPACE.match(self.data, self.pos)
            assert found is not None
            self.pos = found.end()
            char = self.data[self.pos : self.pos + 1]
        return char

    def fail(self, message: str) -> InvalidInput:
        line = self.data.count(b"\n", 0, self.pos) + 1
        column = self.pos - self.data.rfind(b"\n", 0, self.pos)
        cut = "; a file cut short ends like this" if self.pos >= len(self.data) else ""
        return InvalidInput({"file": f"is not JSON (line {line}, column {column}: {message})"
                             f"{cut}"})  # fmt: skip

    def take(self, char: bytes) -> None:
        if self.peek() != char:
            raise self.fail(f"Expecting {char.decode()!r}")
        self.pos += 1

    def scalar(self, limit: int) -> Any:
        """The value starting here, that is no object or list (the caller looked at peek()
        first), or TOO_LONG when it takes more than `limit` bytes (then skipped, unread)."""
        char = self.peek()
        pattern = _NUMBER if char == b"-" or char.isdigit() else _VALUE.get(char)
        found = pattern.match(self.data, self.pos) if pattern is not None else None
        if found is None:
            if char == b'"':  # no closing quote before the end
                self.pos = len(self.data)
                raise self.fail("Unterminated string")
            raise self.fail("Expecting value")
        start, self.pos = self.pos, found.end()
        if self.pos - start > limit:
            return TOO_LONG
        piece = self.data[start : self.pos]
        try:
            return json.loads(piece.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InvalidInput({"file": f"is not UTF-8 text (byte {start + exc.start})"}) from exc
        except ValueError as exc:  # a string's bad escape or control character
            self.pos = start
            raise self.fail(str(getattr(exc, "msg", exc))) from exc

    def members(self) -> Iterator[str]:
        """The keys of the object starting here; the caller reads each key's value. A key
        longer than any name tracker writes is given cut short (no table or field has it)."""
        self.take(b"{")
        if self.peek() == b"}":
            self.pos += 1
            return
        while True:
            if self.peek() != b'"':
                raise self.fail("Expecting property name enclosed in double quotes")
            start = self.pos
            key = self.scalar(LONGEST_NAME)
            if key is TOO_LONG:
                key = self.data[start + 1 : start + 41].decode("utf-8", "replace") + "..."
            self.take(b":")
            yield key
            if self.peek() == b",":
                self.pos += 1
                continue
            self.take(b"}")
            return

    def elements(self) -> Iterator[int]:
        """The indexes of the list starting here; the caller reads each element."""
        self.take(b"[")
        if self.peek() == b"]":
            self.pos += 1
            return
        index = 0
        while True:
            yield index
            index += 1
            if self.peek() == b",":
                self.pos += 1
                continue
            self.take(b"]")
            return

    def end(self) -> None:
        if self.peek():
            raise self.fail("Extra data")


def _container(char: bytes) -> bool:
    return char in (b"{", b"[")


@functools.cache
def _limit(column: Any) -> int:
    """The most bytes a value of the column takes in a file: a text of its most characters,
    each escaped (\\uXXXX, twelve bytes for a character outside the BMP), else a short scalar
    (a whole number, true or false, a time)."""
    if isinstance(column_kind(column), String):
        return 12 * text_length(column) + 2
    return LONGEST_NUMBER


def _read_row(
    reader: _Reader, name: str, where: str, problems: Problems, schema: Columns
) -> dict[str, Any]:
    columns = schema[name]
    row: dict[str, Any] = {}
    for key in reader.members():
        column = columns.get(key)
        if column is None:  # named, and not kept: a row of a million made-up fields is refused
            problems.add(where, "", f"has an unknown field {key!r}")
            if problems.full():
                problems.check()
        if _container(reader.peek()):
            error = None if column is None else check_value(column, [])
            problems.add(where, key, error or "is not a value")
            problems.check()  # it is not read: an object or a list may be any size
        value = reader.scalar(LONGEST_NAME if column is None else _limit(column))
        if column is not None:
            row[column.name] = value  # the column's own string, not one more per row
    return row


_MEMBER = rf"{_STRING}\s*:\s*(?:{_STRING}|[-+.\w]+)"


@functools.cache
def _row_pattern(columns: int) -> re.Pattern[bytes]:
    """A row as tracker writes it: an object of at most `columns` members, each a value that is
    no object or list (a row of more members is read member by member, see _read_row)."""
    member = _MEMBER
    return re.compile(rf"\{{\s*(?:{member}(?:\s*,\s*{member}){{0,{columns - 1}}})?\s*\}}".encode())


def _flat_row(reader: _Reader, name: str, schema: Columns) -> dict[str, Any] | None:
    """The row starting here read in one go, when it is a flat object of the table's fields
    within LONGEST_ROW bytes. None (nothing read) for anything else, which _read_row reads
    and names value by value."""
    columns = schema[name]
    found = _row_pattern(len(columns)).match(reader.data, reader.pos, reader.pos + LONGEST_ROW)
    if found is None:
        return None
    try:
        row = orjson.loads(found.group())
    except orjson.JSONDecodeError:
        return None
    if not isinstance(row, dict) or not row.keys() <= columns.keys():
        return None
    reader.pos = found.end()
    return row


def _read_tables(reader: _Reader, reading: _Reading, schema: Columns) -> None:
    problems, tables = reading.problems, reading.document["tables"]
    for name in reader.members():
        if name not in schema:
            problems.add("", "", f"unknown table {name!r}")
        elif name in tables:
            problems.add("", "", f"table {name!r} is given twice")
        elif reader.peek() != b"[":
            problems.add("", "", f"table {name!r} is not a list of rows")
        problems.check()
        rows = reading.table(name)
        checks = reading.checks
        if checks is not None:
            checks.rows(name, [], 0)
        for index in reader.elements():
            if reader.peek() != b"{":
                if not reader.peek():
                    raise reader.fail("Expecting value")  # the file was cut short
                problems.add(f"{name}[{index}]", "", "is not an object")
                problems.check()
            row = _flat_row(reader, name, schema)
            if row is None:
                row = _read_row(reader, name, f"{name}[{index}]", problems, schema)
            if checks is None:
                rows.append(row)
                continue
            before = problems.adds
            check_row(name, index, row, checks.seen(name), problems, schema)
            if problems.full():
                problems.check()
            if problems.adds == before:
                checks.rows(name, [row], index)


def _refuse_not_utf8(data: bytes) -> None:
    """Refuse bytes that are not UTF-8, naming the first: decoded a piece at a time, and let
    go (a file of junk is said to be that, not JSON that went wrong at its first byte)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    piece, view = 64 * 1024, memoryview(data)
    for start in range(0, len(data), piece):
        held = len(decoder.getstate()[0])  # a character's first bytes, from the piece before
        try:
            decoder.decode(view[start : start + piece], final=start + piece >= len(data))
        except UnicodeDecodeError as exc:
            byte = start - held + exc.start
            raise InvalidInput({"file": f"is not UTF-8 text (byte {byte})"}) from exc


def read_careful(data: bytes, reading: _Reading) -> None:
    """The document read by _Reader, which names the first problems it finds."""
    _refuse_not_utf8(data)
    reader = _Reader(data)
    first = reader.peek()
    if first != b"{":
        if first != b"[":
            reader.scalar(LONGEST_NAME)  # not JSON at all, or a single value
        raise InvalidInput({"file": NOT_TRACKER})
    document = reading.document
    for key in reader.members():
        if key == "tables" and reader.peek() == b"{" and "tables" not in document:
            schema = reading.columns()
            reading.begin(schema)
            _read_tables(reader, reading, schema)
        elif _container(reader.peek()):
            if "format" not in document and key != "tables":
                raise InvalidInput({"file": NOT_TRACKER})
            raise InvalidInput({"file": f'has no "{key}" object' if key == "tables"
                                else f'its "{key}" is not a single value'})  # fmt: skip
        else:
            value = reader.scalar(LONGEST_NAME)
            if value is TOO_LONG:
                raise InvalidInput({"file": f'its "{key}" is longer than any tracker writes'})
            document[key] = value
            check_header(document)
    reader.end()
    reading.problems.check()
