"""Argument checks shared by the rules modules: a ValueError that names the argument."""

from __future__ import annotations

from typing import TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """An int that is not a bool: True/False as a level, count or roll is always a caller bug."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_range(name: str, value: object, low: int, high: int, note: str = "") -> int:
    """The value if it is an int in low..high, else ValueError naming it, the range (a signed
    one as -2..+2) and `note`."""
    if is_int(value) and low <= value <= high:
        return value
    allowed = f"{low}..{high:+d}" if low < 0 else f"{low}..{high}"
    raise ValueError(f"{name} must be {allowed}{f' ({note})' if note else ''}, got {value!r}")


def check_at_least(name: str, value: object, low: int) -> int:
    if is_int(value) and value >= low:
        return value
    raise ValueError(f"{name} must be an int >= {low}, got {value!r}")


def check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value
