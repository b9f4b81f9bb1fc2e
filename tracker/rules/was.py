"""Fan "Advanced, Optional Rules for Submarine Warfare" for *War at Sea* (RULES.md §Subs).

Covers the numbers the tracker needs from the fan rules: the d6 search target for finding a
concealed submarine marker (RULES.md §Subs ¶4), extra decoy markers, damage to a submarine
entering a minefield (¶12) and the night torpedo rule (¶9e). Every function validates its
arguments and raises ValueError naming the argument and its allowed range; bool is never
accepted as an int.

A search *target* is the lowest d6 roll that succeeds ("4+" is 4). The seed words its modifiers
as changes to the die ("-1 difficulty modifier" for night, "+1 to the result" per extra friendly
unit); here they are applied to the target instead, with the sign flipped, exactly as RULES.md §Subs
tabulates them. The seed's worked example (PBY + Javelin + Fletcher = 2+, and 4+ once a Z-20 and a
Bf-110 join) fixes the order: friendly bonuses first, clamp at 2+, then the penalties.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from tracker.rules import checks

SEARCHERS: tuple[str, ...] = ("patrol_bomber", "aircraft", "surface", "submarine")
"""Kinds of unit that can roll a sub search, best first (RULES.md §Subs ¶4 search table).

``aircraft`` is any other aircraft with ASW (a depth-charge symbol among its attack types),
``surface`` any surface unit with ASW (destroyers, MTBs, ...), ``submarine`` a sub hunting a sub.
"""

MARKERS_PER_SUB = 2
"""Markers per submarine at fleet construction: the real sub and one decoy (RULES.md §Subs ¶1)."""

DECOY_COST = 5
"""Points cost of each extra decoy marker bought for a submarine (seed closing note)."""

MAX_EXTRA_DECOYS = 2
"""Most extra decoys one submarine may buy: "limited to 1-2 extra tokens" (RULES.md §Subs)."""

SEA_MOVE_SECTORS = 1
"""Sectors a sub marker (real or decoy) moves in one Sea Movement phase (RULES.md §Subs ¶3)."""

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
_COUNT_RANGE = f"0..{_MAX_UNITS}"
_ROLL_RANGE = "1..6"


def _check_searcher(value: object, name: str = "searcher") -> str:
    if isinstance(value, str) and value in _BASE_TARGETS:
        return value
    raise ValueError(f"{name} must be one of {', '.join(SEARCHERS)}, got {value!r}")


def _count(name: str, value: object) -> int:
    return checks.check_range(name, value, 0, _MAX_UNITS, _COUNT_RANGE)


def _roll(value: object) -> int:
    return checks.check_range("roll", value, 1, 6, _ROLL_RANGE)


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
    """Return the steps of a sub search target as (label, change) pairs (RULES.md §Subs ¶4).

    The first pair is the base (label "base 4+", value 4); each later value is the change that
    step makes to the target, so the values always sum to :func:`search_target`. Steps that
    change nothing are left out, except "Sub Hunter cancelled by Elusive Quarry" (value 0), shown
    so a player sees why a Sub Hunter did not help. The clamp step ("clamp to 2+") appears only
    when the friendly bonuses would take the target below 2+, and comes before every penalty.
    A screen can render the PBY + Javelin + Fletcher + Z-20 + Bf-110 example as
    "base 4+, 2 extra ASW units -2, Sub Hunter -1, clamp to 2+, 2 enemy units +2 = 4+".
    A submarine searcher gives one step, "base 5+ (submarine: no modifiers)", whatever else is
    passed (the other arguments are still validated). Arguments are as for search_target.
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


def search_target(
    searcher: str,
    *,
    extra_asw_units: int = 0,
    sub_hunters: int = 0,
    enemy_units: int = 0,
    night_or_weather: bool = False,
    elusive_quarry: bool = False,
) -> int:
    """Return the d6 target (2 or more) to find a concealed sub marker (RULES.md §Subs ¶4).

    ``searcher`` is the unit that rolls (one of SEARCHERS): its base is 4+ for a patrol bomber
    and 5+ for other ASW aircraft and surface ASW units. ``extra_asw_units`` counts the other
    friendly ASW-capable air or surface units in the sector (the roller excluded), each -1;
    ``sub_hunters`` counts friendly units with Sub Hunter ("Sub Hunt"), each -1, unless the hunted
    sub has Elusive Quarry. The result is clamped to 2+ (a 1 always fails) and only then do the
    penalties apply: +1 per ``enemy_units`` (enemy air or surface units in the sector, the hunted
    sub excluded), +1 for ``night_or_weather`` (night, smoke or weather, once) and +1 for
    ``elusive_quarry``. A ``submarine`` searcher always needs 5+ and ignores every modifier.
    Counts are 0..20. A target of 7 or more means the search cannot succeed.
    """
    steps = search_breakdown(
        searcher, extra_asw_units=extra_asw_units, sub_hunters=sub_hunters,
        enemy_units=enemy_units, night_or_weather=night_or_weather, elusive_quarry=elusive_quarry,
    )  # fmt: skip
    # The breakdown is the arithmetic: its steps add up to the target (the order included).
    return sum(change for _, change in steps)


def search_succeeds(roll: int, target: int) -> bool:
    """Return whether a d6 search roll finds the marker (RULES.md §Subs ¶4).

    ``roll`` is 1..6 and ``target`` is a search target from search_target (2 or more). A natural
    1 always fails, and a target of 7 or more cannot be reached by any roll.
    """
    roll = _roll(roll)
    if not (checks.is_int(target) and target >= _MIN_TARGET):
        raise ValueError(
            f"target must be an int >= {_MIN_TARGET} "
            f"({_IMPOSSIBLE_TARGET} or more cannot succeed), got {target!r}"
        )
    return roll != 1 and roll >= target


def best_searcher(searchers: Sequence[str]) -> str:
    """Return which of the searchers present should roll: the lowest base (RULES.md §Subs ¶4).

    A patrol bomber (4+) beats other ASW aircraft and surface units (5+); a submarine is chosen
    only when no other searcher is present, since it only hunts other subs. Between aircraft and
    surface (both 5+, same modifiers) the earlier one in SEARCHERS is returned. This ranks by
    base only: callers wanting to weigh a flat 5+ submarine against a penalised surface search
    should compare search_target values themselves.
    """
    if isinstance(searchers, str) or not isinstance(searchers, Sequence):
        raise ValueError(
            f"searchers must be a sequence of names from {', '.join(SEARCHERS)}, got {searchers!r}"
        )
    if not searchers:
        raise ValueError("searchers must name at least one searcher, got an empty sequence")
    present = {_check_searcher(name, "searchers item") for name in searchers}
    return next(name for name in SEARCHERS if name in present)


def extra_decoy_cost(extra_decoys: int) -> int:
    """Return the points cost of extra decoys for one sub: 5 each, at most 2 (RULES.md §Subs).

    The seed limits purchases "to 1-2 extra tokens" so a 100-point fleet cannot field "2 subs and
    30 tokens"; the tracker takes the limit as 2 per submarine (RULES.md §Subs).
    """
    count = checks.check_range(
        "extra_decoys",
        extra_decoys,
        0,
        MAX_EXTRA_DECOYS,
        f"0..{MAX_EXTRA_DECOYS} (at most {MAX_EXTRA_DECOYS} extra decoys per submarine)",
    )
    return DECOY_COST * count


def sub_mine_damage(roll: int) -> int:
    """Return the hull damage to a sub entering a minefield for a d6 roll (RULES.md §Subs ¶12).

    A 1 deals 1 hull damage and a 2 deals 2; 3..6 do nothing (implied by the seed, which names
    only 1 and 2, matching the official Mines ability).
    """
    roll = _roll(roll)
    return roll if roll <= 2 else 0


def torpedo_die_hits(roll: int, *, night: bool = False, target_hit_earlier: bool = False) -> bool:
    """Return whether one torpedo die hits in the Submarine Attack phase (RULES.md §Subs ¶9e).

    Normally only a 6 hits. At night, against a target already hit in an earlier phase this turn
    (RULES.md §Subs reads the seed's "previously during any phase" as this turn), a 5 or 6 hits.
    """
    roll = _roll(roll)
    night = checks.check_bool("night", night)
    hit_earlier = checks.check_bool("target_hit_earlier", target_hit_earlier)
    return roll >= (5 if night and hit_earlier else 6)


def torpedo_hits(
    rolls: Sequence[int], *, night: bool = False, target_hit_earlier: bool = False
) -> int:
    """Return how many of a torpedo attack's dice hit (RULES.md §Subs ¶9e, see torpedo_die_hits)."""
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
    """Return how many markers replace a re-concealed sub: two when it got away, else one.

    §10a and §10b replace the sub with "a decoy counter", §11 with "a marker"; only §10c
    "place two markers in its place".
    """
    return 2 if ConcealCause(cause) is ConcealCause.GOT_AWAY else 1


def reconceal_refusal(cause: ConcealCause, *, moved_this_turn: bool) -> str | None:
    """Return why a revealed sub cannot re-conceal now, or None when it can (RULES.md §Subs ¶10-11).

    "Revealed submarines that do not move during the Sea Movement phase remain revealed", unless
    a squall/fog marker enters the square by random placement (§11); moving into weather (§10a)
    is a move by definition.
    """
    cause = ConcealCause(cause)
    moved = checks.check_bool("moved_this_turn", moved_this_turn)
    if moved or cause is ConcealCause.WEATHER_ENTERED:
        return None
    return (
        "it did not move this turn: a revealed submarine that stays put remains revealed "
        "(§11), unless a squall or fog marker enters its square"
    )


def square(sector: str) -> str:
    """A sector as one square: A4, a4 and " A4 " are one (compared casefolded, in Python: the
    databases' lower() folds ASCII only). Markers, searches and the minefields counted in a
    square all read a sector through this."""
    return sector.strip().casefold()


def crowded_squares(placed: Sequence[str], occupied: Sequence[str] = ()) -> list[int]:
    """Return the indexes of ``placed`` squares that break "no more than one sub per square"
    (RULES.md §Subs ¶3): a square already ``occupied`` by another live marker of the side, or
    named again by an earlier marker of the same placement or move. Squares are compared as
    given (the caller folds their case); a blank square is off the map and crowds nothing.
    """
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
    """Return why a drifting minefield may not drift at the end of ``turn``, or None when it may
    (RULES.md §Subs ¶13: "drifting mines scatter during the end of turn phase").

    A minefield drifts once complete (one still being sown is not yet a minefield), at the end
    of the turn it was laid (``laid_turn``) at the earliest, and once a turn, its drifts entered
    in turn order (``last_drift_turn``, its last drift). Both turns are of the same scenario as
    ``turn``, None when they were in an earlier one (or never). ``turn`` None: no turn is known.
    """
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
