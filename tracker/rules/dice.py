"""Dice: rolled by an injected generator or typed from the table, and the log of the last rolls."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass


def roll_text(value: int) -> str:
    """A die's result as the tracker writes it: "roll 5", never "d5" (a die of five sides)."""
    return f"roll {value}"


@dataclass(frozen=True)
class RollRecord:
    """One die: its size, the raw value, whether the player typed it, and what it was for."""

    sides: int
    value: int
    purpose: str
    typed: bool = False

    def __str__(self) -> str:
        how = "typed" if self.typed else "rolled"
        return f"d{self.sides} {how} {self.value}: {self.purpose}"


class Dice:
    """Rolls with one seeded generator (tests pass their own) and remembers the last rolls."""

    def __init__(self, rng: random.Random | None = None, *, keep: int = 12) -> None:
        self.rng = rng or random.Random()
        self._log: deque[RollRecord] = deque(maxlen=keep)

    def roll(self, sides: int, purpose: str) -> int:
        if sides < 2:
            raise ValueError(f"sides must be 2 or more, got {sides}")
        value = self.rng.randint(1, sides)
        self._log.appendleft(RollRecord(sides, value, purpose))
        return value

    def record(self, sides: int, value: int, purpose: str) -> None:
        if not 1 <= value <= sides:
            raise ValueError(f"a d{sides} shows 1..{sides}, got {value}")
        self._log.appendleft(RollRecord(sides, value, purpose, typed=True))

    @property
    def log(self) -> list[RollRecord]:
        return list(self._log)
