"""Mine-warfare variant for *Second World War at Sea* (RULES.md §Mines).

Covers the numbers the tracker needs from the variant: the mine-strike die-roll modifiers
(RULES.md §Mines), submarine and aircraft minelayers, fuel factors lost to mines and
their repair and the 25 % halt of a task force drawing ships through a minefield (RULES.md
§Mines).

The variant halts the task force once "25% of the ships in the task force have been drawn";
read literally every task force of two or more ships would halt before all were drawn, so, as
RULES.md §Mines reads it, the count here is of ships that *struck* a mine, rounded up.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracker.rules import checks, mine_check

_MAX_EXTRA_MINEFIELD_DRM = 3  # "+1 for each additional minefield over one ... maximum of +3"
_FAST_SPEED = 3  # "+2 for any ship moving Speed 3 or greater"
_FAST_DRM = 2
# The type abbreviation of a record-sheet ship that is a submarine, or the start of it (SSM,
# SSK ...): the one mark of a submarine among the ships. A War at Sea unit is one by its type.
_SUBMARINE_TYPE = "SS"
_SUBMARINE = "submarine"  # the way of laying a minefield that only a submarine takes


def _check_fuel(value: object) -> Fuel:
    if not isinstance(value, Fuel):
        raise ValueError(f"fuel must be a Fuel(full, empty, lost), got {value!r}")
    return value


@dataclass(frozen=True)
class Fuel:
    """A ship's fuel factors by state: full, empty and lost to mines (RULES.md §Mines)."""

    full: int
    empty: int
    lost: int

    def __post_init__(self) -> None:
        checks.check_at_least("full", self.full, 0)
        checks.check_at_least("empty", self.empty, 0)
        checks.check_at_least("lost", self.lost, 0)

    @property
    def total(self) -> int:
        return self.full + self.empty + self.lost


@dataclass(frozen=True)
class MineDrm:
    """The mine-strike die-roll modifier by its two causes (RULES.md §Mines)."""

    minefields: int  # +1 for each minefield over the first, at most +3
    speed: int  # +2 at speed 3 or more

    @property
    def total(self) -> int:
        return self.minefields + self.speed


def mine_drm(minefields: int, speed: int) -> MineDrm:
    """The mine-strike die-roll modifier by cause (RULES.md §Mines): +1 for each minefield
    across the boundary over the first, at most +3; +2 at speed 3 or more, even exiting the
    Tactical Board."""
    fields = checks.check_at_least("minefields", minefields, 1)
    speed = checks.check_at_least("speed", speed, 0)
    extra = min(_MAX_EXTRA_MINEFIELD_DRM, fields - 1)
    return MineDrm(minefields=extra, speed=_FAST_DRM if speed >= _FAST_SPEED else 0)


def aircraft_mine_capacity(naval_attack: int, land_attack: int) -> int:
    """The minefields an aircraft carries: its larger attack factor (RULES.md §Mines)."""
    naval = checks.check_at_least("naval_attack", naval_attack, 0)
    land = checks.check_at_least("land_attack", land_attack, 0)
    return max(naval, land)


def aerial_minefield_effective(roll: int, *, circled: bool) -> bool:
    """Whether a d6 aerial drop lays a minefield: 3-6 if circled, else 4-6 (RULES.md §Mines)."""
    roll = checks.check_range("roll", roll, 1, 6)
    circled = checks.check_bool("circled", circled)
    return roll >= (3 if circled else 4)


def fast_entry(speed: int) -> bool:
    """Whether a ship entering a minefield at this speed takes the +2 (RULES.md §Mines)."""
    return checks.check_at_least("speed", speed, 0) >= _FAST_SPEED


def speed_available(speed_rating: int, speed_lost: int) -> int:
    """The speed a ship can still make: its rating less what mines took; a ship enters a
    minefield at the speed it moves, which its damaged rating must allow (RULES.md §Mines)."""
    rating = checks.check_at_least("speed_rating", speed_rating, 0)
    lost = checks.check_at_least("speed_lost", speed_lost, 0)
    return max(0, rating - lost)


def sub_torpedo_factors_left(torpedo_factors: int, minefields_loaded: int) -> int:
    """A sub's torpedo factors left after loading minefields, one each (RULES.md §Mines)."""
    total = checks.check_at_least("torpedo_factors", torpedo_factors, 0)
    per_factor = "at most one minefield per torpedo factor"
    return total - checks.check_range("minefields_loaded", minefields_loaded, 0, total, per_factor)


def lose_fuel(fuel: Fuel, factors: int) -> Fuel:
    """The fuel after mine damage: full factors lost first, then empty, and no more than
    there are (RULES.md §Mines)."""
    fuel = _check_fuel(fuel)
    wanted = checks.check_at_least("factors", factors, 0)
    from_full = min(wanted, fuel.full)
    from_empty = min(wanted - from_full, fuel.empty)
    return Fuel(
        full=fuel.full - from_full,
        empty=fuel.empty - from_empty,
        lost=fuel.lost + from_full + from_empty,
    )


def refuel(fuel: Fuel, factors: int | None = None) -> Fuel:
    """The fuel after refuelling empty factors (None: all), never lost ones (RULES.md §Mines)."""
    fuel = _check_fuel(fuel)
    wanted = fuel.empty if factors is None else factors
    why = "only empty factors refuel; lost ones need a port repair"
    amount = checks.check_range("factors", wanted, 0, fuel.empty, why)
    return Fuel(full=fuel.full + amount, empty=fuel.empty - amount, lost=fuel.lost)


def port_repair(fuel: Fuel) -> Fuel:
    """The fuel after a friendly-port repair turns lost factors empty (RULES.md §Mines)."""
    fuel = _check_fuel(fuel)
    return Fuel(full=fuel.full, empty=fuel.empty + fuel.lost, lost=0)


def mine_check_halts(struck: int, task_force_size: int) -> bool:
    """Whether a task force halts: a quarter of it, rounded up, struck (RULES.md §Mines)."""
    size = checks.check_at_least("task_force_size", task_force_size, 1)
    hits = checks.check_range("struck", struck, 0, size, "the task force size")
    return hits >= mine_check.quarter_of(size)


def is_submarine_type(type_abbrev: str) -> bool:
    """Whether a ship of this type is a submarine: SS or a type beginning with it, any case
    (RULES.md §Mines, submarines as minelayers)."""
    if not isinstance(type_abbrev, str):
        raise ValueError(f"type_abbrev must be a str, got {type_abbrev!r}")
    return type_abbrev.strip().upper().startswith(_SUBMARINE_TYPE)


def torpedo_refusal(*, submarine_sowing: int | None) -> str | None:
    """Why a submarine sowing minefield `submarine_sowing` may not attack with its torpedo
    factors (RULES.md §Mines: "until it has completed the minefield"); None when it may."""
    if submarine_sowing is None:
        return None
    number = checks.check_at_least("submarine_sowing", submarine_sowing, 1)
    return f"is sowing minefield #{number}: no torpedo attacks until it is complete"


def sowing_refusal(
    *, submarine: bool, laid_by: str, submarine_sowing: int | None
) -> tuple[str, str] | None:
    """(the field at fault, why) when a unit may not begin sowing a minefield `laid_by` this
    way, or None (RULES.md §Mines): a submarine sows as one, one minefield at a time."""
    sub = checks.check_bool("submarine", submarine)
    if not isinstance(laid_by, str):
        raise ValueError(f"laid_by must be a str, got {laid_by!r}")
    if sub and laid_by != _SUBMARINE:
        return "laid_by", "is a submarine: it sows as a submarine"
    if not sub and laid_by == _SUBMARINE:
        return "laid_by", "is no submarine: only a submarine sows as one"
    if sub and submarine_sowing is not None:
        number = checks.check_at_least("submarine_sowing", submarine_sowing, 1)
        return "layer", f"is still sowing minefield #{number}: complete it first"
    return None
