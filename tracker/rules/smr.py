"""Command & crew rules of *Stations Manned and Ready! Part 2* (SMR2: RULES.md §SMR2).

Levels and grades are plain ints: training level 1..5 stands for I..V, and a result grade
1..5 stands for Inept/Green .. Brilliant/Elite. Dice come from an injected ``random.Random``
so that callers (and tests) control the seed.

The rulebook's tables are read with the minus signs restored (the worked example's "inept 2"
commander and the "below 2 or 10 cm" floor both read as -2).
"""

from __future__ import annotations

import random

from tracker.rules import checks
from tracker.rules.dice import roll_text

# Training levels 1..5 (SMR2 §3), and the names of grades 1..5 (SMR2 §3.1, §3.2).
TRAINING_NUMERALS: tuple[str, ...] = ("I", "II", "III", "IV", "V")
COMMAND_RATINGS: tuple[str, ...] = ("Inept", "Poor", "Average", "Skilled", "Brilliant")
CREW_QUALITIES: tuple[str, ...] = ("Green", "Raw", "Average", "Veteran", "Elite")
# Ship types of the 2nd-edition list, the form's editable pick-list (RULES.md §SMR2).
TYPE_ABBREVIATIONS: tuple[str, ...] = (
    "BB", "BC", "SD", "BBL", "B", "BCD", "BBH", "CV", "CVL", "CVLM", "CVE", "CVEM", "CVS",
    "AC", "CA", "C", "CL", "CP", "CS", "CT", "CM", "CLAA", "DD", "DDE", "TB", "DDT",
)  # fmt: skip
SCALES: tuple[str, ...] = ("1/1200", "1/2400", "1/3000", "1/6000")  # SMR2 §2.3
PASS_MARK = 6  # the lowest modified d10 total that passes a test (SMR2 §3.6)
MODIFIER_FLOOR = -2  # combat lowers a modifier no lower (SMR2 §3.5)
RADIUS_FLOOR_CM = 10  # nor a command radius (SMR2 §3.5)
UNDER_FIRE_PENALTY = 2  # off a test roll under any fire marker (SMR2 §3.6)

# The training table's rows as the book prints them: (last d10 score of the band, grade).
# Rows I-II start at the worst column and rows IV-V end at the best one (RULES.md §SMR2).
_T2_BANDS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((7, 1), (9, 2), (10, 3)),
    2: ((3, 1), (7, 2), (9, 3), (10, 4)),
    3: ((1, 1), (3, 2), (7, 3), (9, 4), (10, 5)),
    4: ((1, 2), (3, 3), (7, 4), (10, 5)),
    5: ((1, 3), (3, 4), (10, 5)),
}

# Columns: size modifier -3/-2, -1/0, +1..+3 (minus signs restored).
_BASE_WIDTHS_CM: dict[str, tuple[float, float, float]] = {
    "1/1200": (3.0, 4.0, 5.0),
    "1/2400": (2.0, 3.0, 4.0),
    "1/3000": (2.0, 2.5, 3.0),
    "1/6000": (1.0, 2.0, 3.0),
}


def _training(value: object) -> int:
    return checks.check_range("training", value, 1, 5, "I..V")


def _grade(value: object) -> int:
    return checks.check_range("grade", value, 1, 5)


def training_numeral(level: int) -> str:
    """The Roman numeral I..V for training level 1..5 (SMR2 §3)."""
    return TRAINING_NUMERALS[checks.check_range("level", level, 1, 5, "I..V") - 1]


def rating_name(grade: int) -> str:
    """The commander rating name (Inept..Brilliant) for grade 1..5 (SMR2 §3.1)."""
    return COMMAND_RATINGS[_grade(grade) - 1]


def quality_name(grade: int) -> str:
    """The crew quality name (Green..Elite) for grade 1..5 (SMR2 §3.2)."""
    return CREW_QUALITIES[_grade(grade) - 1]


def parse_training(text: str) -> int:
    """Parse a training level written "I".."V" (any case) or "1".."5" into 1..5 (SMR2 §3)."""
    if isinstance(text, str):
        cleaned = text.strip().upper()
        if cleaned in TRAINING_NUMERALS:
            return TRAINING_NUMERALS.index(cleaned) + 1
        if cleaned in {"1", "2", "3", "4", "5"}:
            return int(cleaned)
    raise ValueError(f"training must be I..V or 1..5, got {text!r}")


def grade_from_roll(training: int, roll: int) -> int:
    """The grade 1..5 that a d10 roll gives at a training level (SMR2 §3)."""
    bands = _T2_BANDS[_training(training)]
    roll = checks.check_range("roll", roll, 1, 10)
    # The last band always ends at 10, so the loop always returns for a valid roll.
    for last_score, grade in bands:
        if roll <= last_score:
            return grade
    raise AssertionError("unreachable: the training bands cover 1..10")  # pragma: no cover


def grade_modifier(grade: int) -> int:
    """The command or crew modifier -2..+2 for grade 1..5 (SMR2 §3.1-3.2)."""
    return _grade(grade) - 3


def commander_cost(training: int, *, air: bool = False) -> int:
    """The points cost of a commander paid at a training level (SMR2 §3.1)."""
    level = _training(training)
    # The price follows the level paid for, never the rolled result (SMR2 §3.1 worked example).
    per_step = 25 if checks.check_bool("air", air) else 100
    return per_step * (level + 1) ** 2


def command_radius_cm(grade: int, *, air: bool = False) -> int:
    """The command radius in cm for a commander's grade (SMR2 §3.1)."""
    level = _grade(grade)
    per_step = 5 if checks.check_bool("air", air) else 10
    return per_step * (level + 1)


def command_limit(grade: int) -> int:
    """How many units (4..8) a commander of this grade can keep In Command (SMR2 §3.3)."""
    return _grade(grade) + 3


def crew_cost_percent(training: int) -> int:
    """The crew points adjustment in percent for a training level (SMR2 §3.2)."""
    # Keyed to the level paid for, mirroring the commander rule (RULES.md §SMR2).
    return 10 * (_training(training) - 3)


def points_with_crew(points: int, percent: int) -> int:
    """Return a ship's points after the crew percentage, rounded half up (SMR2 §3.2)."""
    points = checks.check_at_least("points", points, 0)
    percent = checks.check_at_least("percent", percent, -100)
    # Exact integer arithmetic: points*(100+percent)/100 rounded half up is
    # floor((2n + 100) / 200); n >= 0 here, so "half up" has no sign subtlety.
    scaled = points * (100 + percent)
    return (2 * scaled + 100) // 200


def crew_roll(roll: int, commander_modifier: int) -> int:
    """The crew d10 score after the optional commander modifier, clamped to 1..10 (§3.2)."""
    roll = checks.check_range("roll", roll, 1, 10)
    modifier = checks.check_range("commander_modifier", commander_modifier, -2, 2)
    return min(10, max(1, roll + modifier))


def test_total(roll: int, modifier: int, *, under_fire: bool = False, extra: int = 0) -> int:
    """The modified d10 total of a Command or Crew test (SMR2 §3.6)."""
    roll = checks.check_range("roll", roll, 1, 10)
    modifier = checks.check_range("modifier", modifier, -2, 2)
    penalty = UNDER_FIRE_PENALTY if checks.check_bool("under_fire", under_fire) else 0
    if not checks.is_int(extra):
        raise ValueError(f"extra must be an int (any value), got {extra!r}")
    # No natural-1/natural-10 special case: the seed does not give one (RULES.md §SMR2).
    return roll + modifier - penalty + extra


def test_words(roll: int, modifier: int, total: int, *, under_fire: bool, extra: int) -> str:
    """A test's dice as the journal and the reports write them: "roll 4 +1 -2 under fire = 3"."""
    fire = " -2 under fire" if under_fire else ""
    return f"{roll_text(roll)} {modifier:+d}{fire}{f' {extra:+d}' if extra else ''} = {total}"


def test_passes(roll: int, modifier: int, *, under_fire: bool = False, extra: int = 0) -> bool:
    """Whether a Command or Crew test succeeds: total of 6 or more (SMR2 §3.6)."""
    return test_total(roll, modifier, under_fire=under_fire, extra=extra) >= PASS_MARK


# These are rules, not pytest tests; stop pytest collecting them when a test module imports them.
test_total.__test__ = False  # type: ignore[attr-defined]
test_passes.__test__ = False  # type: ignore[attr-defined]


def reduced_modifier(current: int, by: int) -> int:
    """Return a command or crew modifier lowered by combat, never below -2 (SMR2 §3.5)."""
    current = checks.check_range("current", current, -2, 2)
    by = checks.check_at_least("by", by, 0)
    return max(MODIFIER_FLOOR, current - by)


def reduced_radius_cm(current: int, by: int) -> int:
    """Return a command radius lowered by combat, never below 10 cm (SMR2 §3.5)."""
    current = checks.check_at_least("current", current, RADIUS_FLOOR_CM)
    by = checks.check_at_least("by", by, 0)
    return max(RADIUS_FLOOR_CM, current - by)


def rerated_modifier(modifier_now: int, *, was: int, now: int) -> int:
    """The modifier of a commander or crew rated anew, from grade `was` to grade `now`:
    the combat reductions borne stay with him through a re-roll or re-buy (SMR2 §3.5)."""
    borne = max(0, grade_modifier(was) - modifier_now)
    return reduced_modifier(grade_modifier(now), borne)


def rerated_radius_cm(radius_now_cm: int, *, was: tuple[int, bool], now: tuple[int, bool]) -> int:
    """The command radius of a commander rated anew, `was` and `now` his (grade, air)
    before and after: the combat reductions borne stay with him (SMR2 §3.5)."""
    borne = max(0, command_radius_cm(was[0], air=was[1]) - radius_now_cm)
    return reduced_radius_cm(command_radius_cm(now[0], air=now[1]), borne)


def base_width_cm(size_modifier: int, scale: str) -> float:
    """The recommended base width in cm for a size modifier and scale (SMR2 §2.3)."""
    size = checks.check_range("size_modifier", size_modifier, -3, 3)
    if not isinstance(scale, str) or scale not in _BASE_WIDTHS_CM:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    column = 0 if size <= -2 else 1 if size <= 0 else 2
    return _BASE_WIDTHS_CM[scale][column]


def at_or_below_third(current: int, maximum: int) -> bool:
    """Whether a Structure or Flotation value is at 1/3 or less (SMR2 §2.2)."""
    maximum = checks.check_at_least("maximum", maximum, 1)
    current = checks.check_range("current", current, 0, maximum, "0..maximum")
    # Cross-multiplied so that a maximum not divisible by 3 needs no rounding rule.
    return current * 3 <= maximum


def third_text(full: int) -> str:
    """A track's 1/3 line in words (RULES.md §SMR2 morale): 8.7 for a full 26, 4 for 12."""
    return f"{full / 3:.1f}".removesuffix(".0")


def half_strength(original: int, afloat: int) -> bool:
    """Whether a formation is at half its original strength or less (SMR2 §3.4)."""
    original = checks.check_at_least("original", original, 1)
    # Only original members count, so afloat can never exceed the original size (SMR2 §3.4).
    afloat = checks.check_range("afloat", afloat, 0, original, "0..original")
    return afloat * 2 <= original


def roll_d10(rng: random.Random) -> int:
    """Return one d10 score 1..10 drawn from the injected random generator (SMR2 §2.2, §3)."""
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random instance, got {rng!r}")
    return rng.randint(1, 10)
