"""How the tracker says a count, in every layer: "1 ship", "3 ships"."""

from __future__ import annotations


def plural(count: int, noun: str) -> str:
    """The count and its noun, with an s unless it is one."""
    return f"{count} {noun}{'s' * (count != 1)}"
