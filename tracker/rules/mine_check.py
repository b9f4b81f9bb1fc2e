"""A task force entering a minefield, and the players' mine damage table (RULES.md §Mines).

The mine-warfare variant (RULES.md §Mines) draws ships from two cups, long and small counters,
alternating, and rolls on a mine damage table that our sources do not give: the players type
theirs in, in the words of `parse_mine_effects`. This module holds the pure parts: the draw,
the quarter of a task force, the effect words and the table's overlaps and gaps.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import astuple, dataclass
from typing import TypeVar

from tracker.rules import checks

T = TypeVar("T")


CUPS = ("long", "small")
# A d6 plus at most +5: the modified rolls a mine damage table must cover.
DIE_RANGE = (1, 11)
EFFECT_WORDS = ("none", "speed-N", "gunnery-N", "fuel-N", "hull-N", "crippled", "sunk")
_EFFECT = re.compile(r"^(speed|gunnery|fuel|hull)-(\d{1,2})$")


def quarter_of(task_force_size: int) -> int:
    """A quarter of the task force rounded up, at least 1 (RULES.md §Mines)."""
    size = checks.check_at_least("task_force_size", task_force_size, 1)
    return -(-size // 4)


@dataclass(frozen=True)
class MineEffect:
    """What one mine does to a ship, in the words of the players' mine damage table (the
    variant's own is not in our sources: RULES.md §Mines)."""

    speed: int = 0
    gunnery: int = 0
    fuel: int = 0
    hull: int = 0
    crippled: bool = False
    sunk: bool = False

    @property
    def struck(self) -> bool:
        """Any result but "none" (RULES.md §Mines)."""
        return any(astuple(self))

    def words(self) -> str:
        parts = [f"{name}-{amount}" for name, amount in (
            ("speed", self.speed), ("gunnery", self.gunnery), ("fuel", self.fuel),
            ("hull", self.hull)) if amount]  # fmt: skip
        parts += [word for word, on in (("crippled", self.crippled), ("sunk", self.sunk)) if on]
        return " ".join(parts) or "none"


def parse_mine_effects(text: str) -> MineEffect:
    """The MineEffect written as EFFECT_WORDS, separated by spaces or commas ("fuel-2, speed-1");
    ValueError names the first word it does not know."""
    if not isinstance(text, str):
        raise ValueError(f"effects must be text, got {text!r}")
    words = [word for word in re.split(r"[\s,;]+", text.strip().lower()) if word]
    if not words:
        raise ValueError("effects must not be empty: write none when the ship passes")
    amounts = {"speed": 0, "gunnery": 0, "fuel": 0, "hull": 0}
    flags = {"crippled": False, "sunk": False}
    for word in words:
        match = _EFFECT.match(word)
        if match:
            amounts[match.group(1)] += int(match.group(2))
        elif word in flags:
            flags[word] = True
        elif word not in ("none", "-"):
            raise ValueError(f"effects: {word!r} is not an effect; use {', '.join(EFFECT_WORDS)}")
    if len(words) > 1 and ("none" in words or "-" in words):
        raise ValueError("effects: none cannot be combined with other effects")
    return MineEffect(**amounts, crippled=flags["crippled"], sunk=flags["sunk"])


def mine_table_problems(
    rows: Sequence[tuple[int, int, str]],
) -> tuple[list[str], list[str]]:
    """(overlaps, gaps) of a mine damage table of (low, high, applies_to) rows, an "all" row
    in both cups: an overlap makes a roll ambiguous, a gap asks the player."""
    overlaps: list[str] = []
    gaps: list[str] = []
    for cup in CUPS:
        owners: dict[int, int] = {}
        for index, (low, high, applies) in enumerate(rows):
            if applies not in ("all", *CUPS):
                raise ValueError(f"applies_to must be all, long or small, got {applies!r}")
            if applies not in ("all", cup):
                continue
            clashes: dict[int, list[int]] = {}
            for roll in range(low, high + 1):
                if roll in owners:
                    clashes.setdefault(owners[roll], []).append(roll)
                owners[roll] = index
            for other, rolls in clashes.items():
                overlaps.append(f"rows {other + 1} and {index + 1} both cover {_ranges(rolls)} "
                                f"for {cup} counters")  # fmt: skip
        missing = [roll for roll in range(DIE_RANGE[0], DIE_RANGE[1] + 1) if roll not in owners]
        if missing:
            gaps.append(f"{cup} counters: no row for {_ranges(missing)}")
    return overlaps, gaps


def _ranges(values: list[int]) -> str:
    spans: list[tuple[int, int]] = []
    for value in values:
        if spans and spans[-1][1] == value - 1:
            spans[-1] = (spans[-1][0], value)
        else:
            spans.append((value, value))
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def draw_order(
    long: Sequence[T], small: Sequence[T], *, first: str, rng: random.Random
) -> list[tuple[str, T]]:
    """The order ships are drawn: at random from each cup, alternating from `first`, the other
    cup alone once one is empty (RULES.md §Mines). A shuffle is a draw at random each time."""
    if first not in CUPS:
        raise ValueError(f"first must be long or small, got {first!r}")
    cups = {"long": list(long), "small": list(small)}
    for name in CUPS:
        rng.shuffle(cups[name])
    order: list[tuple[str, T]] = []
    turn = first
    while cups["long"] or cups["small"]:
        if not cups[turn]:
            turn = "small" if turn == "long" else "long"
        order.append((turn, cups[turn].pop(0)))
        turn = "small" if turn == "long" else "long"
    return order
