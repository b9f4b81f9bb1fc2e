"""Fan "Advanced, Optional Rules for Submarine Warfare" for *War at Sea* (RULES.md §Subs).

Covers the numbers the tracker needs from the fan rules: the d6 search target for finding a
concealed submarine marker (RULES.md §Subs ¶4), extra decoy markers, damage to a submarine
entering a minefield (¶12) and the night torpedo rule (¶9e).

A search *target* is the lowest d6 roll that succeeds ("4+" is 4). The seed words its modifiers
as changes to the die ("-1 difficulty modifier" for night, "+1 to the result" per extra friendly
unit); here they are applied to the target instead, with the sign flipped, exactly as RULES.md §Subs
tabulates them. The seed's worked example (PBY + Javelin + Fletcher = 2+, and 4+ once a Z-20 and a
Bf-110 join) fixes the order: friendly bonuses first, clamp at 2+, then the penalties.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from tracker.rules import checks

# Who can roll a sub search, best first (RULES.md §Subs ¶4): "aircraft" is any other aircraft
# with ASW (a depth-charge symbol), "surface" any surface unit with ASW.
SEARCHERS: tuple[str, ...] = ("patrol_bomber", "aircraft", "surface", "submarine")
MARKERS_PER_SUB = 2  # the real sub and one decoy (RULES.md §Subs ¶1)
DECOY_COST = 5  # points for each extra decoy (seed closing note)
MAX_EXTRA_DECOYS = 2  # "limited to 1-2 extra tokens" (RULES.md §Subs)
SEA_MOVE_SECTORS = 1  # a marker's move in one Sea Movement phase (RULES.md §Subs ¶3)

# Base d6 targets by searcher (RULES.md §Subs ¶4: patrol bombers 4+, other ASW aircraft and
# surface 5+, submarines 5+ with no modifiers at all).
_BASE_TARGETS: dict[str, int] = {
    "patrol_bomber": 4,
    "aircraft": 5,
    "surface": 5,
    "submarine": 5,
}

_MIN_TARGET = 2  # A natural 1 always fails, so 2+ is the best target (RULES.md §Subs ¶4).
_IMPOSSIBLE_TARGET = 7  # No d6 reaches 7: a target of 7 or more cannot succeed.
_MAX_UNITS = 20


def _check_searcher(value: object, name: str = "searcher") -> str:
    if isinstance(value, str) and value in _BASE_TARGETS:
        return value
    raise ValueError(f"{name} must be one of {', '.join(SEARCHERS)}, got {value!r}")


def _count(name: str, value: object) -> int:
    return checks.check_range(name, value, 0, _MAX_UNITS)


def _roll(value: object) -> int:
    return checks.check_range("roll", value, 1, 6)


def _plural(count: int, singular: str, plural: str) -> str:
    return f"{count} {singular if count == 1 else plural}"


def search_breakdown(
    searcher: str,
    *,
    extra_asw_units: int = 0,
    sub_hunters: int = 0,
    enemy_units: int = 0,
    night_or_weather: bool = False,
    elusive_quarry: bool = False,
) -> list[tuple[str, int]]:
    """The steps of a sub search target as (label, change) pairs, summing to the target
    (RULES.md §Subs ¶4): the base, the friendly bonuses (each -1; a Sub Hunter cancelled by
    Elusive Quarry is shown at 0, so the player sees why it did not help), the clamp to 2+ when
    they pass it, then the penalties (each +1). A submarine searcher has no modifiers. The
    counts are the other friendly ASW units, the Sub Hunters, and the enemy units in the sector.
    """
    searcher = _check_searcher(searcher)
    extra = _count("extra_asw_units", extra_asw_units)
    hunters = _count("sub_hunters", sub_hunters)
    enemies = _count("enemy_units", enemy_units)
    night = checks.check_bool("night_or_weather", night_or_weather)
    elusive = checks.check_bool("elusive_quarry", elusive_quarry)

    base = _BASE_TARGETS[searcher]
    if searcher == "submarine":
        # "They do not gain/suffer any of the above-mentioned modifiers" (RULES.md §Subs ¶4).
        return [(f"base {base}+ (submarine: no modifiers)", base)]

    steps: list[tuple[str, int]] = [(f"base {base}+", base)]
    if extra:
        steps.append((_plural(extra, "extra ASW unit", "extra ASW units"), -extra))
    if hunters:
        if elusive:
            # Elusive Quarry: "cannot have the SA Sub-Hunt used against them" (RULES.md §Subs ¶4).
            label = "Sub Hunter" if hunters == 1 else "Sub Hunters"
            steps.append((f"{label} cancelled by Elusive Quarry", 0))
        else:
            steps.append(("Sub Hunter" if hunters == 1 else f"{hunters} Sub Hunters", -hunters))
    subtotal = sum(value for _, value in steps)
    if subtotal < _MIN_TARGET:
        # Clamp the friendly subtotal before any penalty, as the seed's example needs.
        steps.append((f"clamp to {_MIN_TARGET}+", _MIN_TARGET - subtotal))
    if enemies:
        steps.append((_plural(enemies, "enemy unit", "enemy units"), enemies))
    if night:
        steps.append(("night/smoke/weather", 1))
    if elusive:
        steps.append(("Elusive Quarry", 1))
    return steps


def search_target(searcher: str, **modifiers: Any) -> int:
    """The d6 target to find a concealed sub marker, 2 or more; 7 or more cannot succeed
    (RULES.md §Subs ¶4): the sum of search_breakdown's steps (its modifiers by name)."""
    return sum(change for _, change in search_breakdown(searcher, **modifiers))


def search_succeeds(roll: int, target: int) -> bool:
    """Whether a d6 search roll finds the marker: a natural 1 always fails (RULES.md §Subs ¶4)."""
    roll = _roll(roll)
    if not (checks.is_int(target) and target >= _MIN_TARGET):
        raise ValueError(
            f"target must be an int >= {_MIN_TARGET} "
            f"({_IMPOSSIBLE_TARGET} or more cannot succeed), got {target!r}"
        )
    return roll != 1 and roll >= target


def best_searcher(searchers: Sequence[str]) -> str:
    """Which of the searchers present rolls: the first in SEARCHERS, by base alone; a submarine
    only when no other searcher is present, as it hunts subs only (RULES.md §Subs ¶4)."""
    if isinstance(searchers, str) or not isinstance(searchers, Sequence):
        raise ValueError(
            f"searchers must be a sequence of names from {', '.join(SEARCHERS)}, got {searchers!r}"
        )
    if not searchers:
        raise ValueError("searchers must name at least one searcher, got an empty sequence")
    present = {_check_searcher(name, "searchers item") for name in searchers}
    return next(name for name in SEARCHERS if name in present)


def extra_decoy_cost(extra_decoys: int) -> int:
    """The points cost of one sub's extra decoys, at most 2: the seed limits them "to 1-2 extra
    tokens" so a 100-point fleet cannot field "2 subs and 30 tokens" (RULES.md §Subs)."""
    per_sub = f"at most {MAX_EXTRA_DECOYS} extra decoys per submarine"
    count = checks.check_range("extra_decoys", extra_decoys, 0, MAX_EXTRA_DECOYS, per_sub)
    return DECOY_COST * count


def sub_mine_damage(roll: int) -> int:
    """The hull damage to a sub entering a minefield (RULES.md §Subs ¶12): the seed names 1 and
    2 only, as the official Mines ability does; 3..6 do nothing."""
    roll = _roll(roll)
    return roll if roll <= 2 else 0


def torpedo_die_hits(roll: int, *, night: bool = False, target_hit_earlier: bool = False) -> bool:
    """Whether one torpedo die hits (RULES.md §Subs ¶9e): a 6, or at night a 5 against a target
    hit in an earlier phase this turn (the seed's "previously during any phase")."""
    roll = _roll(roll)
    night = checks.check_bool("night", night)
    hit_earlier = checks.check_bool("target_hit_earlier", target_hit_earlier)
    return roll >= (5 if night and hit_earlier else 6)


def torpedo_hits(
    rolls: Sequence[int], *, night: bool = False, target_hit_earlier: bool = False
) -> int:
    """How many of a torpedo attack's dice hit (RULES.md §Subs ¶9e)."""
    if isinstance(rolls, str) or not isinstance(rolls, Sequence) or not rolls:
        raise ValueError(f"rolls must be a non-empty sequence of d6 rolls 1..6, got {rolls!r}")
    return sum(torpedo_die_hits(roll, night=night, target_hit_earlier=target_hit_earlier)
               for roll in rolls)  # fmt: skip


class ConcealCause(StrEnum):
    """Why a revealed submarine disappears from view again (RULES.md §Subs ¶10 a-c, §11)."""

    MOVED_INTO_WEATHER = "moved_into_weather"  # §10a: it moved into storm/smoke/fog
    NO_ENEMY_PLACED = "no_enemy_placed"  # §10b: no enemy placed in its square
    GOT_AWAY = "got_away"  # §10c: allowed to get away
    WEATHER_ENTERED = "weather_entered"  # §11: a squall/fog marker entered its square


def reconceal_markers(cause: ConcealCause) -> int:
    """How many markers replace a re-concealed sub: only §10c "place two markers"."""
    return 2 if ConcealCause(cause) is ConcealCause.GOT_AWAY else 1


def reconceal_refusal(cause: ConcealCause, *, moved_this_turn: bool) -> str | None:
    """Why a revealed sub cannot re-conceal now, or None (RULES.md §Subs ¶10-11): one that did
    not move stays revealed, unless a squall or fog marker enters its square."""
    cause = ConcealCause(cause)
    moved = checks.check_bool("moved_this_turn", moved_this_turn)
    if moved or cause is ConcealCause.WEATHER_ENTERED:
        return None
    return (
        "it did not move this turn: a revealed submarine that stays put remains revealed "
        "(§11), unless a squall or fog marker enters its square"
    )


def square(sector: str) -> str:
    """A sector as one square, as markers, searches and minefields read it: A4, a4 and " A4 " are
    one (casefolded in Python: the databases' lower() folds ASCII only)."""
    return sector.strip().casefold()


def crowded_squares(placed: Sequence[str], occupied: Sequence[str] = ()) -> list[int]:
    """The indexes of `placed` squares that break "no more than one sub per square": already
    `occupied`, or named by an earlier marker; a blank one is off the map (RULES.md §Subs ¶3)."""
    for name, squares in (("placed", placed), ("occupied", occupied)):
        if (isinstance(squares, str) or not isinstance(squares, Sequence)
                or not all(isinstance(square, str) for square in squares)):  # fmt: skip
            raise ValueError(f"{name} must be a sequence of squares (str), got {squares!r}")
    taken = {square for square in occupied if square}
    crowded = []
    for index, square in enumerate(placed):
        if square and square in taken:
            crowded.append(index)
        taken.add(square)
    return crowded


def drift_refusal(
    turn: int | None, *, complete: bool, laid_turn: int | None, last_drift_turn: int | None
) -> str | None:
    """Why a drifting minefield may not drift at the end of `turn`, or None (RULES.md §Subs ¶13:
    "drifting mines scatter during the end of turn phase"): once complete, from the turn it was
    laid, once a turn in turn order. The turns are this scenario's (None: an earlier one)."""
    checks.check_bool("complete", complete)
    for name, value in (("turn", turn), ("laid_turn", laid_turn),
                        ("last_drift_turn", last_drift_turn)):  # fmt: skip
        if value is not None:
            checks.check_at_least(name, value, 1)
    if not complete:
        return "it is still being sown: a minefield drifts once it is complete"
    if turn is None:
        return "give the turn it drifted at the end of: no scenario is in play"
    if laid_turn is not None and turn < laid_turn:
        return (f"it was laid on turn {laid_turn}: it drifts at the end of that turn at the "
                "earliest")  # fmt: skip
    if last_drift_turn is not None and turn == last_drift_turn:
        return f"it already drifted on turn {turn}: a minefield drifts once a turn, at its end"
    if last_drift_turn is not None and turn < last_drift_turn:
        return (f"it drifted on turn {last_drift_turn} already: drifts are entered in turn "
                "order, each after the last")  # fmt: skip
    return None
