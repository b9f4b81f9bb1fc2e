"""Tests for the SMR2 command & crew rules (RULES.md §SMR2-1.7)."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

# Imported as a module: the rules module has functions named test_* that are not tests.
from tracker.rules import smr

# --- T2, the d10 training table, written out cell by cell -------------------------------------
# Expected grade for rolls 1..10, one string per training level, copied from the seed's rows
# (I: 1-7, 8-9, 10 / II: 1-3, 4-7, 8-9, 10 / III: 1, 2-3, 4-7, 8-9, 10 / IV: 1, 2-3, 4-7, 8-10 /
# V: 1, 2-3, 4-10), not recomputed from the module's bands.
T2_EXPECTED = {
    1: "1111111223",
    2: "1112222334",
    3: "1223333445",
    4: "2334444555",
    5: "3445555555",
}
T2_CELLS = [
    (training, roll, int(row[roll - 1]))
    for training, row in T2_EXPECTED.items()
    for roll in range(1, 11)
]


def test_t2_table_has_all_fifty_cells() -> None:
    assert len(T2_CELLS) == 50
    assert {(t, r) for t, r, _ in T2_CELLS} == {(t, r) for t in range(1, 6) for r in range(1, 11)}


@pytest.mark.parametrize(("training", "roll", "grade"), T2_CELLS)
def test_grade_from_roll_every_cell(training: int, roll: int, grade: int) -> None:
    assert smr.grade_from_roll(training, roll) == grade


@pytest.mark.parametrize(
    ("training", "counts"),
    [
        # How many of the ten d10 faces give each grade (RULES.md §SMR2 probabilities).
        (1, (7, 2, 1, 0, 0)),
        (2, (3, 4, 2, 1, 0)),
        (3, (1, 2, 4, 2, 1)),
        (4, (0, 1, 2, 4, 3)),
        (5, (0, 0, 1, 2, 7)),
    ],
)
def test_t2_row_distribution(training: int, counts: tuple[int, ...]) -> None:
    grades = [smr.grade_from_roll(training, roll) for roll in range(1, 11)]
    assert tuple(grades.count(g) for g in range(1, 6)) == counts


# --- T1: names, modifiers, costs, radius, unit limit -------------------------------------------


@pytest.mark.parametrize(
    ("level", "numeral", "rating", "quality", "modifier", "cost", "radius", "limit"),
    [
        (1, "I", "Inept", "Green", -2, 400, 20, 4),
        (2, "II", "Poor", "Raw", -1, 900, 30, 5),
        (3, "III", "Average", "Average", 0, 1600, 40, 6),
        (4, "IV", "Skilled", "Veteran", 1, 2500, 50, 7),
        (5, "V", "Brilliant", "Elite", 2, 3600, 60, 8),
    ],
)
def test_t1_ship_row(
    level: int,
    numeral: str,
    rating: str,
    quality: str,
    modifier: int,
    cost: int,
    radius: int,
    limit: int,
) -> None:
    assert smr.training_numeral(level) == numeral
    assert smr.rating_name(level) == rating
    assert smr.quality_name(level) == quality
    assert smr.grade_modifier(level) == modifier
    assert smr.commander_cost(level) == cost
    assert smr.commander_cost(level, air=False) == cost
    assert smr.command_radius_cm(level) == radius
    assert smr.command_limit(level) == limit


@pytest.mark.parametrize(
    ("level", "cost", "radius"),
    [(1, 100, 10), (2, 225, 15), (3, 400, 20), (4, 625, 25), (5, 900, 30)],
)
def test_t1_aircraft_row(level: int, cost: int, radius: int) -> None:
    assert smr.commander_cost(level, air=True) == cost
    assert smr.command_radius_cm(level, air=True) == radius


@pytest.mark.parametrize(("training", "percent"), [(1, -20), (2, -10), (3, 0), (4, 10), (5, 20)])
def test_t3_crew_cost_percent(training: int, percent: int) -> None:
    assert smr.crew_cost_percent(training) == percent


def test_constants() -> None:
    assert smr.TRAINING_NUMERALS == ("I", "II", "III", "IV", "V")
    assert smr.COMMAND_RATINGS == ("Inept", "Poor", "Average", "Skilled", "Brilliant")
    assert smr.CREW_QUALITIES == ("Green", "Raw", "Average", "Veteran", "Elite")
    assert smr.SCALES == ("1/1200", "1/2400", "1/3000", "1/6000")
    assert smr.PASS_MARK == 6


# --- The seed's worked examples (§3.1 and §3.2) ------------------------------------------------


def test_worked_example_commander_bought_average_rolls_one() -> None:
    training = smr.parse_training("III")
    cost = smr.commander_cost(training)
    assert cost == 1600
    grade = smr.grade_from_roll(training, 1)
    assert smr.rating_name(grade) == "Inept"
    assert smr.grade_modifier(grade) == -2
    assert smr.command_radius_cm(grade) == 20
    assert smr.command_limit(grade) == 4
    # The price follows the level paid for, not the disappointing result.
    assert smr.commander_cost(training) == 1600


def test_worked_example_crew_rolls_ten_then_optional_rule() -> None:
    commander_modifier = smr.grade_modifier(smr.grade_from_roll(3, 1))
    grade = smr.grade_from_roll(3, 10)
    assert (smr.quality_name(grade), smr.grade_modifier(grade)) == ("Elite", 2)

    modified = smr.crew_roll(10, commander_modifier)
    assert modified == 8
    grade = smr.grade_from_roll(3, modified)
    assert (smr.quality_name(grade), smr.grade_modifier(grade)) == ("Veteran", 1)


@pytest.mark.parametrize(
    ("roll", "modifier", "expected"),
    [
        (1, -2, 1),
        (2, -2, 1),
        (3, -2, 1),
        (1, 0, 1),
        (5, 2, 7),
        (9, 2, 10),
        (10, 2, 10),
        (10, -2, 8),
    ],
)
def test_crew_roll_clamps(roll: int, modifier: int, expected: int) -> None:
    assert smr.crew_roll(roll, modifier) == expected


# --- Combat reductions and their floors (§3.5) -------------------------------------------------


@pytest.mark.parametrize(
    ("current", "by", "expected"),
    [
        (2, 0, 2),
        (2, 1, 1),
        (2, 4, -2),
        (2, 9, -2),
        (0, 1, -1),
        (-1, 1, -2),
        (-2, 1, -2),
        (-2, 0, -2),
    ],
)
def test_reduced_modifier_floor(current: int, by: int, expected: int) -> None:
    assert smr.reduced_modifier(current, by) == expected


@pytest.mark.parametrize(
    ("current", "by", "expected"),
    [(60, 0, 60), (60, 10, 50), (60, 50, 10), (60, 55, 10), (20, 10, 10), (10, 5, 10), (15, 3, 12)],
)
def test_reduced_radius_floor(current: int, by: int, expected: int) -> None:
    assert smr.reduced_radius_cm(current, by) == expected


# --- A rating anew keeps its combat reductions (§3.5) -------------------------------------------


@pytest.mark.parametrize(
    ("now", "was", "new", "expected"),
    [
        (0, 3, 3, 0),  # unreduced, the same grade: unchanged
        (-1, 3, 3, -1),  # reduced by 1, the same grade: still reduced
        (-1, 3, 5, 1),  # reduced by 1, rated Brilliant/Elite (+2): +1
        (-2, 4, 1, -2),  # reduced by 3 from +1, rated Inept/Green (-2): at the floor
        (2, 5, 1, -2),  # unreduced: the new grade's modifier
        (-2, 1, 5, 2),  # at the floor unreduced (grade 1): the new grade's
    ],
)
def test_a_rating_anew_keeps_the_modifier_reductions_borne(
    now: int, was: int, new: int, expected: int
) -> None:
    assert smr.rerated_modifier(now, was=was, now=new) == expected


@pytest.mark.parametrize(
    ("radius", "was", "new", "expected"),
    [
        (40, (3, False), (3, False), 40),  # unreduced: unchanged
        (30, (3, False), (5, False), 50),  # 10 cm cut, rated higher: 60 - 10
        (30, (3, False), (3, True), 10),  # 10 cm cut, an air group's 20 cm: 10, the floor
        (20, (3, True), (3, False), 40),  # unreduced air group to ships: 40
        (15, (3, True), (3, False), 35),  # 5 cm cut: taken from the ships' 40
    ],
)
def test_a_rating_anew_keeps_the_radius_reductions_borne(
    radius: int, was: tuple[int, bool], new: tuple[int, bool], expected: int
) -> None:
    assert smr.rerated_radius_cm(radius, was=was, now=new) == expected


@given(grade=st.integers(1, 5), new=st.integers(1, 5), by=st.integers(0, 6))
def test_a_rating_anew_never_gains_more_than_its_new_grade(grade: int, new: int, by: int) -> None:
    reduced = smr.reduced_modifier(smr.grade_modifier(grade), by)
    kept = smr.rerated_modifier(reduced, was=grade, now=new)
    assert -2 <= kept <= smr.grade_modifier(new)
    assert smr.rerated_modifier(kept, was=new, now=grade) <= smr.grade_modifier(grade)


# --- Base widths (§2.3), every cell ------------------------------------------------------------

BASE_WIDTHS = {
    # scale: widths for size modifier -3, -2, -1, 0, +1, +2, +3
    "1/1200": (3, 3, 4, 4, 5, 5, 5),
    "1/2400": (2, 2, 3, 3, 4, 4, 4),
    "1/3000": (2, 2, 2.5, 2.5, 3, 3, 3),
    "1/6000": (1, 1, 2, 2, 3, 3, 3),
}


@pytest.mark.parametrize(
    ("scale", "size", "width"),
    [
        (scale, size, widths[size + 3])
        for scale, widths in BASE_WIDTHS.items()
        for size in range(-3, 4)
    ],
)
def test_base_width_every_cell(scale: str, size: int, width: float) -> None:
    result = smr.base_width_cm(size, scale)
    assert isinstance(result, float)
    assert result == width


# --- 1/3 markers (§2.2) and half strength (§3.4) ------------------------------------


@pytest.mark.parametrize(
    ("current", "maximum", "expected"),
    [
        (3, 9, True),
        (4, 9, False),
        (0, 5, True),
        (1, 2, False),
        (0, 1, True),
        (1, 1, False),
        (1, 3, True),
        (2, 3, False),
        (3, 10, True),
        (4, 10, False),
        (3, 11, True),
        (4, 11, False),
        (4, 12, True),
        (5, 12, False),
        (9, 9, False),
    ],
)
def test_at_or_below_third(current: int, maximum: int, expected: bool) -> None:
    assert smr.at_or_below_third(current, maximum) is expected


@pytest.mark.parametrize(
    ("original", "afloat", "expected"),
    [(4, 2, True), (4, 3, False), (5, 2, True), (5, 3, False), (1, 0, True), (1, 1, False)],
)
def test_half_strength(original: int, afloat: int, expected: bool) -> None:
    assert smr.half_strength(original, afloat) is expected


# --- Points with crew percentage (§3.2) ---------------------------------------------


@pytest.mark.parametrize(
    ("points", "percent", "expected"),
    [
        (105, 10, 116),  # 115.5 rounds up
        (103, -10, 93),  # 92.7
        (105, -10, 95),  # 94.5 rounds up
        (125, -20, 100),
        (101, -20, 81),  # 80.8
        (102, 20, 122),  # 122.4
        (1000, 0, 1000),
        (0, 20, 0),
        (5, -10, 5),  # 4.5 rounds up
        (1, -20, 1),  # 0.8
        (2, -20, 2),  # 1.6
        (7, 10, 8),  # 7.7
        (15, 10, 17),  # 16.5 rounds up
    ],
)
def test_points_with_crew(points: int, percent: int, expected: int) -> None:
    assert smr.points_with_crew(points, percent) == expected


@given(points=st.integers(0, 100_000), training=st.integers(1, 5))
def test_points_with_crew_matches_exact_half_up(points: int, training: int) -> None:
    percent = smr.crew_cost_percent(training)
    exact = Fraction(points * (100 + percent), 100)
    result = smr.points_with_crew(points, percent)
    assert result - Fraction(1, 2) <= exact < result + Fraction(1, 2)


# --- Command & Crew tests (§3.6) --------------------------------------------------

# Percent of d10 faces that pass, from RULES.md §SMR2: modifier -> (not under fire, under fire).
SUCCESS_PERCENT = {-2: (30, 10), -1: (40, 20), 0: (50, 30), 1: (60, 40), 2: (70, 50)}


@pytest.mark.parametrize("under_fire", [False, True])
@pytest.mark.parametrize("modifier", [-2, -1, 0, 1, 2])
def test_success_table(modifier: int, under_fire: bool) -> None:
    passing = sum(smr.test_passes(roll, modifier, under_fire=under_fire) for roll in range(1, 11))
    assert passing * 10 == SUCCESS_PERCENT[modifier][int(under_fire)]


@pytest.mark.parametrize(
    ("roll", "modifier", "under_fire", "extra", "total", "passes"),
    [
        (6, 0, False, 0, 6, True),
        (5, 0, False, 0, 5, False),
        (1, 2, False, 3, 6, True),
        (10, -2, True, 0, 6, True),
        (10, -2, True, -1, 5, False),
        (1, -2, True, 0, -3, False),
        (10, 2, False, 0, 12, True),
        (4, 1, False, 1, 6, True),
    ],
)
def test_test_total_and_passes(
    roll: int, modifier: int, under_fire: bool, extra: int, total: int, passes: bool
) -> None:
    assert smr.test_total(roll, modifier, under_fire=under_fire, extra=extra) == total
    assert smr.test_passes(roll, modifier, under_fire=under_fire, extra=extra) is passes


def test_rule_functions_are_not_collected_as_tests() -> None:
    assert smr.test_passes.__test__ is False  # type: ignore[attr-defined]
    assert smr.test_total.__test__ is False  # type: ignore[attr-defined]


# --- Parsing and dice --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("I", 1),
        ("ii", 2),
        ("Iii", 3),
        ("iv", 4),
        ("V", 5),
        ("1", 1),
        ("5", 5),
        (" III ", 3),
    ],
)
def test_parse_training(text: str, level: int) -> None:
    assert smr.parse_training(text) == level


@pytest.mark.parametrize("text", ["", "0", "6", "VI", "IIII", "X", "one", "1.0", "-1"])
def test_parse_training_rejects(text: str) -> None:
    with pytest.raises(ValueError, match=r"training must be I\.\.V or 1\.\.5"):
        smr.parse_training(text)


def test_parse_training_rejects_non_string() -> None:
    with pytest.raises(ValueError, match="training"):
        smr.parse_training(3)  # type: ignore[arg-type]


def test_roll_d10_uses_injected_rng() -> None:
    rolls = [smr.roll_d10(random.Random(1234)) for _ in range(3)]
    assert len(set(rolls)) == 1  # same seed, same roll

    rng = random.Random(99)
    faces = {smr.roll_d10(rng) for _ in range(500)}
    assert faces == set(range(1, 11))


def test_roll_d10_rejects_non_rng() -> None:
    with pytest.raises(ValueError, match=r"rng must be a random\.Random"):
        smr.roll_d10(None)  # type: ignore[arg-type]


# --- Validation messages -----------------------------------------------------------------------

# Untyped handle on the module, so wrong-type calls below type-check without per-line ignores.
loose: Any = smr


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: smr.grade_from_roll(7, 5), "training must be 1..5 (I..V), got 7"),
        (lambda: smr.grade_from_roll(0, 5), "training must be 1..5 (I..V), got 0"),
        (lambda: smr.grade_from_roll(True, 5), "training must be 1..5 (I..V), got True"),
        (lambda: loose.grade_from_roll("3", 5), "training must be 1..5 (I..V), got '3'"),
        (lambda: smr.grade_from_roll(3, 0), "roll must be 1..10, got 0"),
        (lambda: smr.grade_from_roll(3, 11), "roll must be 1..10, got 11"),
        (lambda: loose.grade_from_roll(3, 5.0), "roll must be 1..10, got 5.0"),
        (lambda: smr.grade_modifier(6), "grade must be 1..5, got 6"),
        (lambda: smr.grade_modifier(False), "grade must be 1..5, got False"),
        (lambda: smr.commander_cost(6), "training must be 1..5 (I..V), got 6"),
        (lambda: loose.commander_cost(3, air=1), "air must be True or False, got 1"),
        (lambda: smr.command_radius_cm(0), "grade must be 1..5, got 0"),
        (lambda: loose.command_radius_cm(3, air=None), "air must be True or False, got None"),
        (lambda: smr.command_limit(9), "grade must be 1..5, got 9"),
        (lambda: smr.crew_cost_percent(-1), "training must be 1..5 (I..V), got -1"),
        (lambda: smr.crew_roll(0, 0), "roll must be 1..10, got 0"),
        (lambda: smr.crew_roll(5, 3), "commander_modifier must be -2..+2, got 3"),
        (lambda: smr.test_total(11, 0), "roll must be 1..10, got 11"),
        (lambda: smr.test_passes(5, -3), "modifier must be -2..+2, got -3"),
        (lambda: loose.test_passes(5, 0, under_fire=1), "under_fire must be True or False, got 1"),
        (lambda: loose.test_passes(5, 0, extra=1.5), "extra must be an int (any value), got 1.5"),
        (lambda: smr.test_passes(5, 0, extra=True), "extra must be an int (any value), got True"),
        (lambda: smr.reduced_modifier(3, 1), "current must be -2..+2, got 3"),
        (lambda: smr.reduced_modifier(-3, 0), "current must be -2..+2, got -3"),
        (lambda: smr.reduced_modifier(0, -1), "by must be an int >= 0, got -1"),
        (lambda: smr.reduced_radius_cm(9, 1), "current must be an int >= 10, got 9"),
        (lambda: smr.reduced_radius_cm(40, -5), "by must be an int >= 0, got -5"),
        (lambda: smr.base_width_cm(4, "1/2400"), "size_modifier must be -3..+3, got 4"),
        (lambda: smr.base_width_cm(-4, "1/2400"), "size_modifier must be -3..+3, got -4"),
        (
            lambda: smr.base_width_cm(0, "1/300"),
            "scale must be one of 1/1200, 1/2400, 1/3000, 1/6000, got '1/300'",
        ),
        (lambda: smr.at_or_below_third(1, 0), "maximum must be an int >= 1, got 0"),
        (lambda: smr.at_or_below_third(10, 9), "current must be 0..9 (0..maximum), got 10"),
        (lambda: smr.at_or_below_third(-1, 9), "current must be 0..9 (0..maximum), got -1"),
        (lambda: smr.half_strength(0, 0), "original must be an int >= 1, got 0"),
        (lambda: smr.half_strength(4, 5), "afloat must be 0..4 (0..original), got 5"),
        (lambda: smr.points_with_crew(-1, 0), "points must be an int >= 0, got -1"),
        (lambda: smr.points_with_crew(100, -101), "percent must be an int >= -100, got -101"),
        (lambda: smr.training_numeral(6), "level must be 1..5 (I..V), got 6"),
        (lambda: smr.rating_name(0), "grade must be 1..5, got 0"),
        (lambda: smr.quality_name(6), "grade must be 1..5, got 6"),
    ],
)
def test_value_errors_name_argument_and_range(call: object, message: str) -> None:
    assert callable(call)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


# --- Properties --------------------------------------------------------------------------------

modifiers = st.integers(-2, 2)
rolls = st.integers(1, 10)
trainings = st.integers(1, 5)


@given(current=modifiers, by=st.integers(0, 50))
def test_reduced_modifier_bounds(current: int, by: int) -> None:
    result = smr.reduced_modifier(current, by)
    assert -2 <= result <= current


@given(current=st.integers(10, 500), by=st.integers(0, 500))
def test_reduced_radius_bounds(current: int, by: int) -> None:
    result = smr.reduced_radius_cm(current, by)
    assert 10 <= result <= current


@given(roll=rolls, modifier=modifiers)
def test_crew_roll_in_range(roll: int, modifier: int) -> None:
    assert 1 <= smr.crew_roll(roll, modifier) <= 10


@given(training=trainings, roll=st.integers(1, 9))
def test_grade_monotone_in_roll(training: int, roll: int) -> None:
    assert smr.grade_from_roll(training, roll) <= smr.grade_from_roll(training, roll + 1)


@given(training=st.integers(1, 4), roll=rolls)
def test_grade_monotone_in_training(training: int, roll: int) -> None:
    assert smr.grade_from_roll(training, roll) <= smr.grade_from_roll(training + 1, roll)


@given(roll=rolls, modifier=modifiers, extra=st.integers(-20, 20))
def test_under_fire_costs_exactly_two(roll: int, modifier: int, extra: int) -> None:
    calm = smr.test_total(roll, modifier, extra=extra)
    assert smr.test_total(roll, modifier, under_fire=True, extra=extra) == calm - 2


@pytest.mark.parametrize(("full", "text"), [(26, "8.7"), (12, "4"), (1, "0.3"), (0, "0"), (9, "3")])
def test_a_third_line_reads_to_one_place_and_whole_thirds_plainly(full: int, text: str) -> None:
    assert smr.third_text(full) == text
