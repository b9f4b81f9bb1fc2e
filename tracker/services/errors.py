"""Errors a service raises for input it refuses; nothing is written when one is raised."""

from __future__ import annotations

import re
import unicodedata

from tracker.errors import ChangedElsewhere as ChangedElsewhere
from tracker.errors import ConnectionLost as ConnectionLost
from tracker.errors import DatabaseUnavailable as DatabaseUnavailable
from tracker.errors import InvalidInput as InvalidInput
from tracker.errors import NotFound as NotFound
from tracker.errors import ReadOnlyDatabase as ReadOnlyDatabase
from tracker.errors import quoted as quoted

# The largest number a column holds: PostgreSQL's INTEGER is 32 bits (SQLite's 64), and a
# campaign file moves between the two (docs/FILES.md "Campaign files").
MAX_INT = 2**31 - 1


class RowsRefused(InvalidInput):
    """Rows of one act refused, each by its place (from 0) with what is wrong; nothing was written.
    As InvalidInput it says the first refused row's errors, as a form of one row shows them."""

    def __init__(self, rows: dict[int, dict[str, str]]) -> None:
        super().__init__(next(iter(rows.values())))
        self.rows = rows


def check(errors: dict[str, str]) -> None:
    if errors:
        raise InvalidInput(errors)


def require_range(
    errors: dict[str, str], field: str, value: int, low: int, high: int | None = None
) -> None:
    """Record an error when value lies outside low..high (high None: no upper bound)."""
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f"{low} or more"
        errors[field] = f"must be {allowed}, got {value}"


def require_text(errors: dict[str, str], field: str, value: str, max_length: int) -> str:
    """Record an error for a blank or over-long name, or one holding a character no name may
    hold (see bad_name_character); return it stripped."""
    value = value.strip()
    if not value:
        errors[field] = "must not be blank"
    elif len(value) > max_length:
        errors[field] = f"must be at most {max_length} characters, got {len(value)}"
    require_plain(errors, field, value, name=True)
    return value


# Bidirectional embeddings, overrides and isolates: each reorders the text after it, up to its
# end or the end of the paragraph, so what a print or a screen shows is not what was typed.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Direction marks: invisible, and refused in names only (see bad_name_character).
BIDI_MARKS = frozenset("\u200e\u200f\u061c")


def bad_character(text: str) -> str | None:
    """The first character no text may hold, or None: a control character (tab and line breaks
    aside), which PostgreSQL (NUL), the campaign file's reader or a terminal (C1, U+0080 to
    U+009F) takes as a command; half a surrogate pair, which is no character at all and cannot
    be written as UTF-8; or a bidirectional control, which shows the text after it reordered."""
    found = _BAD_CHARACTER.search(text)
    return found.group() if found is not None else None


# One search in C over the text: a campaign file's import checks every text of every row.
_BAD_CHARACTER = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff" + "".join(sorted(BIDI_CONTROLS)) + "]"
)


def bad_name_character(text: str) -> str | None:
    """The first character no name may hold, or None: what no text may hold, every control
    character (a name is one line, and a TAB ends a spreadsheet's cell), and any invisible format
    character (Unicode Cf), with which two names that look the same would differ. Free text
    keeps these: a note lays out lines and builds emoji, and names nothing."""
    bad = bad_character(text)
    if bad is not None:
        return bad
    return next((char for char in text if unicodedata.category(char) in _NAME_REFUSES), None)


_NAME_REFUSES = frozenset({"Cc", "Cf"})


def character_problem(char: str) -> str:
    """What a refused character is, for a message: 'a control character (U+009B)'."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        what = "half a character"
    elif char in BIDI_CONTROLS or char in BIDI_MARKS:
        what = "a bidirectional control"
    elif unicodedata.category(char) == "Cf":
        what = "an invisible formatting character"
    else:
        what = "a control character"
    return f"{what} (U+{code:04X})"


def require_plain(errors: dict[str, str], field: str, value: str, *, name: bool = False) -> None:
    """Record an error for text holding a character no text (with name, no name) may hold."""
    char = (bad_name_character if name else bad_character)(value)
    if char is not None and field not in errors:
        errors[field] = f"holds {character_problem(char)}: retype it without it"
