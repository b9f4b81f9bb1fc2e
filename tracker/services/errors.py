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
    "ChangedElsewhere", "ConnectionLost", "DatabaseUnavailable", "InvalidInput", "NotFound",
    "ReadOnlyDatabase", "check", "require_range", "require_text",
]  # fmt: skip


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
    """Record an error for blank or over-long text; return it stripped."""
    value = value.strip()
    if not value:
        errors[field] = "must not be blank"
    elif len(value) > max_length:
        errors[field] = f"must be at most {max_length} characters, got {len(value)}"
    return value
