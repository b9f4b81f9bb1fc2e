"""Tests for the SWWAS mine-warfare variant (RULES.md §Mines-2.5, P-B1..P-B4)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.rules import swwas
from tracker.rules.swwas import (
    Fuel,
    aerial_minefield_effective,
    aircraft_mine_capacity,
    lose_fuel,
    mine_check_halts,
    mine_drm,
    port_repair,
    refuel,
    sub_torpedo_factors_left,
)

# --- public surface -----------------------------------------------------------------------------


AGREED = {
    "mine_drm",
    "aircraft_mine_capacity",
    "aerial_minefield_effective",
    "sub_torpedo_factors_left",
    "Fuel",
    "MineDrm",
    "lose_fuel",
    "refuel",
    "port_repair",
    "mine_check_halts",
    "fast_entry",
    "speed_available",
    "is_submarine_type",
    "torpedo_refusal",
    "sowing_refusal",
}


def test_exposes_exactly_the_agreed_names() -> None:
    public = {name for name in vars(swwas) if not name.startswith("_")}
    assert public - {"annotations", "dataclass", "checks", "mine_check"} == AGREED


@pytest.mark.parametrize("name", sorted(AGREED))
def test_every_public_name_has_a_docstring_citing_the_rules(name: str) -> None:
    doc = getattr(swwas, name).__doc__ or ""
    assert "RULES.md §Mines" in doc


# --- mine_drm -------------------------------------------------------------------------------------

# Expected DRM by minefields (rows 1..5) and speed (columns 0..4).
DRM_TABLE = {
    1: (0, 0, 0, 2, 2),
    2: (1, 1, 1, 3, 3),
    3: (2, 2, 2, 4, 4),
    4: (3, 3, 3, 5, 5),
    5: (3, 3, 3, 5, 5),  # the +3 cap
}


@pytest.mark.parametrize(
    ("minefields", "speed", "expected"),
    [(fields, speed, row[speed]) for fields, row in DRM_TABLE.items() for speed in range(5)],
)
def test_mine_drm_table(minefields: int, speed: int, expected: int) -> None:
    assert mine_drm(minefields, speed).total == expected


def test_mine_drm_three_minefields_at_speed_three_is_plus_four() -> None:
    assert mine_drm(3, 3).total == 4


def test_mine_drm_cap_holds_for_many_minefields() -> None:
    assert mine_drm(50, 0) == swwas.MineDrm(minefields=3, speed=0)
    assert mine_drm(50, 9) == swwas.MineDrm(minefields=3, speed=2)


# --- aircraft ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("naval", "land", "expected"),
    [(0, 0, 0), (1, 0, 1), (0, 2, 2), (3, 1, 3), (2, 5, 5), (4, 4, 4)],
)
def test_aircraft_mine_capacity(naval: int, land: int, expected: int) -> None:
    assert aircraft_mine_capacity(naval, land) == expected


@pytest.mark.parametrize(
    ("roll", "circled", "expected"),
    [
        (1, True, False),
        (2, True, False),
        (3, True, True),
        (4, True, True),
        (5, True, True),
        (6, True, True),
        (1, False, False),
        (2, False, False),
        (3, False, False),
        (4, False, True),
        (5, False, True),
        (6, False, True),
    ],
)
def test_aerial_minefield_effective(roll: int, circled: bool, expected: bool) -> None:
    assert aerial_minefield_effective(roll, circled=circled) is expected


# --- submarines --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "loaded", "expected"),
    [(0, 0, 0), (4, 0, 4), (4, 1, 3), (4, 4, 0), (6, 2, 4)],
)
def test_sub_torpedo_factors_left(total: int, loaded: int, expected: int) -> None:
    assert sub_torpedo_factors_left(total, loaded) == expected


@pytest.mark.parametrize(("total", "loaded"), [(4, 5), (0, 1), (2, 10)])
def test_sub_cannot_load_more_minefields_than_torpedo_factors(total: int, loaded: int) -> None:
    with pytest.raises(ValueError, match=rf"minefields_loaded must be 0\.\.{total}"):
        sub_torpedo_factors_left(total, loaded)


# --- fuel --------------------------------------------------------------------------------


def test_fuel_total() -> None:
    assert Fuel(3, 2, 1).total == 6


def test_fuel_is_frozen() -> None:
    fuel = Fuel(1, 1, 1)
    with pytest.raises(AttributeError):
        fuel.full = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("before", "factors", "after"),
    [
        (Fuel(5, 2, 0), 0, Fuel(5, 2, 0)),
        (Fuel(5, 2, 0), 3, Fuel(2, 2, 3)),  # full first
        (Fuel(5, 2, 0), 5, Fuel(0, 2, 5)),
        (Fuel(5, 2, 0), 6, Fuel(0, 1, 6)),  # then empty
        (Fuel(5, 2, 1), 7, Fuel(0, 0, 8)),
        (Fuel(5, 2, 1), 20, Fuel(0, 0, 8)),  # more than available loses all, no more
        (Fuel(0, 3, 2), 2, Fuel(0, 1, 4)),
        (Fuel(0, 0, 4), 3, Fuel(0, 0, 4)),
    ],
)
def test_lose_fuel(before: Fuel, factors: int, after: Fuel) -> None:
    assert lose_fuel(before, factors) == after


@pytest.mark.parametrize(
    ("before", "factors", "after"),
    [
        (Fuel(2, 3, 1), None, Fuel(5, 0, 1)),  # all empty; lost stays lost
        (Fuel(2, 3, 1), 0, Fuel(2, 3, 1)),
        (Fuel(2, 3, 1), 2, Fuel(4, 1, 1)),  # partial
        (Fuel(2, 3, 1), 3, Fuel(5, 0, 1)),
        (Fuel(0, 0, 4), None, Fuel(0, 0, 4)),
    ],
)
def test_refuel(before: Fuel, factors: int | None, after: Fuel) -> None:
    assert refuel(before, factors) == after


@pytest.mark.parametrize(("before", "factors"), [(Fuel(2, 3, 1), 4), (Fuel(0, 0, 5), 1)])
def test_refuel_more_than_empty_is_refused(before: Fuel, factors: int) -> None:
    with pytest.raises(ValueError, match=rf"factors must be 0\.\.{before.empty}"):
        refuel(before, factors)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (Fuel(1, 2, 3), Fuel(1, 5, 0)),
        (Fuel(0, 0, 0), Fuel(0, 0, 0)),
        (Fuel(4, 0, 0), Fuel(4, 0, 0)),
    ],
)
def test_port_repair(before: Fuel, after: Fuel) -> None:
    assert port_repair(before) == after


def test_lost_fuel_comes_back_only_through_a_port_repair() -> None:
    damaged = lose_fuel(Fuel(4, 0, 0), 3)
    assert refuel(damaged) == Fuel(1, 0, 3)
    assert refuel(port_repair(damaged)) == Fuel(4, 0, 0)


# --- halting (P-B3, B1) ---------------------------------------------------------------------


@pytest.mark.parametrize("size", range(1, 13))
def test_mine_check_halts_at_a_quarter_rounded_up(size: int) -> None:
    threshold = {1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 6: 2, 7: 2, 8: 2, 9: 3, 10: 3, 11: 3, 12: 3}[size]
    for struck in range(size + 1):
        assert mine_check_halts(struck, size) is (struck >= threshold)


@pytest.mark.parametrize(
    ("struck", "size", "expected"),
    [(1, 8, False), (2, 8, True), (1, 5, False), (2, 5, True), (0, 1, False), (1, 1, True)],
)
def test_mine_check_halts_examples(struck: int, size: int, expected: bool) -> None:
    assert mine_check_halts(struck, size) is expected


# --- argument errors ----------------------------------------------------------------------------

BAD_CALLS: list[tuple[Any, tuple[Any, ...], dict[str, Any], str]] = [
    (mine_drm, (0, 0), {}, r"minefields must be an int >= 1"),
    (mine_drm, (True, 0), {}, r"minefields must be an int >= 1"),
    (mine_drm, (1.0, 0), {}, r"minefields must be an int >= 1"),
    (mine_drm, (1, -1), {}, r"speed must be an int >= 0"),
    (mine_drm, (1, False), {}, r"speed must be an int >= 0"),
    (aircraft_mine_capacity, (-1, 0), {}, r"naval_attack must be an int >= 0"),
    (aircraft_mine_capacity, (0, "2"), {}, r"land_attack must be an int >= 0"),
    (aerial_minefield_effective, (0,), {"circled": True}, r"roll must be 1\.\.6"),
    (aerial_minefield_effective, (7,), {"circled": False}, r"roll must be 1\.\.6"),
    (aerial_minefield_effective, (True,), {"circled": False}, r"roll must be 1\.\.6"),
    (aerial_minefield_effective, (3,), {"circled": 1}, r"circled must be True or False"),
    (sub_torpedo_factors_left, (-1, 0), {}, r"torpedo_factors must be an int >= 0"),
    (sub_torpedo_factors_left, (3, -1), {}, r"minefields_loaded must be 0\.\.3"),
    (sub_torpedo_factors_left, (3, True), {}, r"minefields_loaded must be 0\.\.3"),
    (Fuel, (-1, 0, 0), {}, r"full must be an int >= 0"),
    (Fuel, (0, -1, 0), {}, r"empty must be an int >= 0"),
    (Fuel, (0, 0, True), {}, r"lost must be an int >= 0"),
    (lose_fuel, ((1, 0, 0), 1), {}, r"fuel must be a Fuel"),
    (lose_fuel, (Fuel(1, 0, 0), -1), {}, r"factors must be an int >= 0"),
    (lose_fuel, (Fuel(1, 0, 0), True), {}, r"factors must be an int >= 0"),
    (refuel, (None,), {}, r"fuel must be a Fuel"),
    (refuel, (Fuel(1, 2, 0), -1), {}, r"factors must be 0\.\.2"),
    (refuel, (Fuel(1, 2, 0), True), {}, r"factors must be 0\.\.2"),
    (port_repair, ("fuel",), {}, r"fuel must be a Fuel"),
    (mine_check_halts, (0, 0), {}, r"task_force_size must be an int >= 1"),
    (mine_check_halts, (0, True), {}, r"task_force_size must be an int >= 1"),
    (mine_check_halts, (5, 4), {}, r"struck must be 0\.\.4"),
    (mine_check_halts, (-1, 4), {}, r"struck must be 0\.\.4"),
]


@pytest.mark.parametrize(("func", "args", "kwargs", "message"), BAD_CALLS)
def test_bad_arguments_raise_value_error_naming_them(
    func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        func(*args, **kwargs)


# --- properties ---------------------------------------------------------------------------------

counts = st.integers(min_value=0, max_value=60)
fuels = st.builds(Fuel, counts, counts, counts)
# One step of a ship's fuel history: (operation, amount) with amount used by lose/refuel.
steps = st.lists(
    st.tuples(st.sampled_from(("lose", "refuel", "refuel_all", "repair")), counts), max_size=20
)


def apply(fuel: Fuel, op: str, amount: int) -> Fuel:
    if op == "lose":
        return lose_fuel(fuel, amount)
    if op == "refuel":
        return refuel(fuel, min(amount, fuel.empty))
    if op == "refuel_all":
        return refuel(fuel)
    return port_repair(fuel)


@given(fuels, steps)
def test_fuel_history_invariants(fuel: Fuel, history: list[tuple[str, int]]) -> None:
    for op, amount in history:
        after = apply(fuel, op, amount)
        assert after.total == fuel.total  # conserved
        assert min(after.full, after.empty, after.lost) >= 0
        if op == "repair":
            assert after.lost == 0
            assert after.full == fuel.full  # a repair only makes lost factors empty
        else:
            assert after.lost >= fuel.lost  # lost never decreases without a port repair
        if op.startswith("refuel"):
            assert after.lost == fuel.lost  # refuelling never touches lost factors
            assert after.full <= fuel.full + fuel.empty  # so lost never turns full
        fuel = after


@given(fuels, counts)
def test_lose_fuel_takes_full_first_and_never_goes_negative(fuel: Fuel, factors: int) -> None:
    after = lose_fuel(fuel, factors)
    taken = min(factors, fuel.full + fuel.empty)
    assert after.lost == fuel.lost + taken
    assert after.full == max(0, fuel.full - factors)
    assert after.empty >= 0 and after.full >= 0
    if after.empty < fuel.empty:
        assert after.full == 0


@given(fuels)
def test_refuel_all_then_again_changes_nothing(fuel: Fuel) -> None:
    once = refuel(fuel)
    assert once.empty == 0
    assert refuel(once) == once


@given(st.integers(1, 30), st.integers(0, 10))
def test_mine_drm_range_and_monotone(minefields: int, speed: int) -> None:
    drm = mine_drm(minefields, speed)
    assert 0 <= drm.minefields <= 3
    assert drm.speed in (0, 2)
    assert 0 <= drm.total <= 5
    assert mine_drm(minefields + 1, speed).total >= drm.total
    assert mine_drm(minefields, speed + 1).total >= drm.total


@given(st.integers(1, 200), st.data())
def test_mine_check_halts_matches_a_quarter_rounded_up(size: int, data: st.DataObject) -> None:
    struck = data.draw(st.integers(0, size))
    assert mine_check_halts(struck, size) is (struck >= math.ceil(size / 4))
    if struck < size:
        assert mine_check_halts(struck + 1, size) >= mine_check_halts(struck, size)


# --- entering a minefield at speed (die-roll modifiers) -------------------------------------------


@given(speed=st.integers(0, 20))
def test_fast_entry_is_exactly_when_mine_drm_adds_2(speed: int) -> None:
    assert swwas.fast_entry(speed) == (mine_drm(1, speed).speed == 2)


@given(rating=st.integers(0, 20), lost=st.integers(0, 25))
def test_speed_available_is_the_rating_less_what_mines_took_never_below_0(
    rating: int, lost: int
) -> None:
    can = swwas.speed_available(rating, lost)
    assert 0 <= can <= rating
    assert can == rating - lost or (can == 0 and lost >= rating)


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3"])
def test_speed_available_refuses_what_is_not_a_count(bad: Any) -> None:
    with pytest.raises(ValueError, match="speed_rating"):
        swwas.speed_available(bad, 0)
    with pytest.raises(ValueError, match="speed_lost"):
        swwas.speed_available(3, bad)


# --- submarines as minelayers: who sows as a submarine, and what sowing stops ----------------


@pytest.mark.parametrize(
    ("abbrev", "submarine"),
    [("SS", True), ("ss", True), (" SS ", True), ("SSM", True), ("SSK", True), ("DD", False),
     ("", False), ("S", False), ("CVS", False), ("DDE", False)],
)  # fmt: skip
def test_a_ship_is_a_submarine_by_its_type_abbreviation(abbrev: str, submarine: bool) -> None:
    assert swwas.is_submarine_type(abbrev) is submarine


@pytest.mark.parametrize(
    ("submarine", "laid_by", "sowing", "refused"),
    [
        (True, "submarine", None, None),
        (True, "submarine", 7, "layer"),
        (True, "surface", None, "laid_by"),
        (True, "surface", 7, "laid_by"),
        (False, "surface", None, None),
        (False, "surface", 7, None),  # a surface minelayer's fields stop nothing (the source)
        (False, "submarine", None, "laid_by"),
    ],
)  # fmt: skip
def test_sowing_refusal_table(
    submarine: bool, laid_by: str, sowing: int | None, refused: str | None
) -> None:
    refusal = swwas.sowing_refusal(submarine=submarine, laid_by=laid_by, submarine_sowing=sowing)
    assert (refusal[0] if refusal else None) == refused


@given(submarine=st.booleans(), laid_by=st.sampled_from(["surface", "submarine", "aircraft"]),
       sowing=st.none() | st.integers(1, 10**6))  # fmt: skip
def test_only_a_submarine_not_yet_sowing_sows_as_one(
    submarine: bool, laid_by: str, sowing: int | None
) -> None:
    allowed = swwas.sowing_refusal(submarine=submarine, laid_by=laid_by,
                                   submarine_sowing=sowing) is None  # fmt: skip
    as_sub = laid_by == "submarine"
    assert allowed == (submarine == as_sub and not (submarine and sowing is not None))


@given(sowing=st.none() | st.integers(1, 10**6))
def test_torpedoes_are_refused_exactly_while_sowing_as_a_submarine(sowing: int | None) -> None:
    refusal = swwas.torpedo_refusal(submarine_sowing=sowing)
    assert (refusal is None) == (sowing is None)
    assert refusal is None or f"#{sowing}" in refusal
