"""Errors a service raises for input it refuses; nothing is written when one is raised."""

from __future__ import annotations

from tracker.errors import (
    ChangedElsewhere,
    ConnectionLost,
    DatabaseUnavailable,
    InvalidInput,
    NotFound,
    ReadOnlyDatabase,
)

__all__ = [
    "MAX_INT", "ChangedElsewhere", "ConnectionLost", "DatabaseUnavailable", "InvalidInput",
    "NotFound", "ReadOnlyDatabase", "bad_character", "check", "require_plain", "require_range",
    "require_text",
]  # fmt: skip

# The largest number a column holds: PostgreSQL's INTEGER is 32 bits (SQLite's 64), and a
# campaign file moves between the two (README "Campaign files").
MAX_INT = 2**31 - 1


def check(errors: dict[str, str]) -> None:
    """Raise InvalidInput when any field collected an error."""
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
    """Record an error for blank or over-long text, or text holding a control character;
    return it stripped."""
    value = value.strip()
    if not value:
        errors[field] = "must not be blank"
    elif len(value) > max_length:
        errors[field] = f"must be at most {max_length} characters, got {len(value)}"
    require_plain(errors, field, value)
    return value


def bad_character(text: str) -> str | None:
    """The first character no text may hold, or None: a control character (tab and line breaks
    aside), which PostgreSQL (NUL) or the campaign file's reader refuses, or half a surrogate
    pair, which is no character at all and cannot be written as UTF-8."""
    for char in text:
        code = ord(char)
        if (code < 32 and char not in "\t\n\r") or code == 0x7F or 0xD800 <= code <= 0xDFFF:
            return char
    return None


def require_plain(errors: dict[str, str], field: str, value: str) -> None:
    """Record an error for text holding a character no text may hold (see bad_character)."""
    char = bad_character(value)
    if char is not None and field not in errors:
        what = "a control character" if ord(char) < 0xD800 else "half a character"
        errors[field] = f"holds {what} (U+{ord(char):04X}): retype it without it"
