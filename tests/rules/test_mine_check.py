"""The task force's mine check and the players' mine damage table (RULES.md §Mines)."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.rules.mine_check import (
    MineEffect,
    draw_order,
    mine_table_problems,
    parse_mine_effects,
    quarter_of,
)
from tracker.rules.swwas import mine_check_halts

# --- quarter_of (P-B3, B1) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "expected"),
    [(1, 1), (2, 1), (3, 1), (4, 1), (5, 2), (8, 2), (9, 3), (12, 3), (13, 4), (100, 25)],
)
def test_quarter_of_rounds_up(size: int, expected: int) -> None:
    assert quarter_of(size) == expected


@pytest.mark.parametrize("size", [0, -1, -4, True, False, 4.0, "4", None])
def test_quarter_of_refuses_anything_but_a_positive_int(size: Any) -> None:
    with pytest.raises(ValueError, match=r"task_force_size must be an int >= 1"):
        quarter_of(size)


@given(st.integers(1, 500))
def test_quarter_of_is_a_quarter_rounded_up_and_at_least_one(size: int) -> None:
    quarter = quarter_of(size)
    assert quarter == math.ceil(size / 4)
    assert quarter >= 1
    assert quarter <= size
    # It is the same threshold mine_check_halts uses.
    assert mine_check_halts(quarter, size) is True
    assert mine_check_halts(quarter - 1, size) is False


# --- MineEffect ----------------------------------------------------------------


def test_mine_effect_default_is_no_effect() -> None:
    effect = MineEffect()
    assert effect.struck is False
    assert effect.words() == "none"


@pytest.mark.parametrize(
    "effect",
    [
        MineEffect(speed=1),
        MineEffect(gunnery=1),
        MineEffect(fuel=1),
        MineEffect(hull=1),
        MineEffect(crippled=True),
        MineEffect(sunk=True),
    ],
)
def test_mine_effect_any_single_result_counts_as_struck(effect: MineEffect) -> None:
    assert effect.struck is True
    assert effect.words() != "none"


@pytest.mark.parametrize(
    ("effect", "words"),
    [
        (MineEffect(fuel=2), "fuel-2"),
        (MineEffect(sunk=True), "sunk"),
        (MineEffect(speed=1, fuel=2, crippled=True), "speed-1 fuel-2 crippled"),
        (MineEffect(hull=12, gunnery=3), "gunnery-3 hull-12"),
        (
            MineEffect(speed=1, gunnery=2, fuel=3, hull=4, crippled=True, sunk=True),
            "speed-1 gunnery-2 fuel-3 hull-4 crippled sunk",
        ),
    ],
)
def test_mine_effect_words_in_a_fixed_order(effect: MineEffect, words: str) -> None:
    assert effect.words() == words


def test_mine_effect_is_frozen() -> None:
    effect = MineEffect(fuel=1)
    with pytest.raises(AttributeError):
        effect.fuel = 2  # type: ignore[misc]


# --- parse_mine_effects -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fuel-2, speed-1 crippled", MineEffect(speed=1, fuel=2, crippled=True)),
        ("none", MineEffect()),
        ("  NONE  ", MineEffect()),
        ("-", MineEffect()),
        ("sunk", MineEffect(sunk=True)),
        ("Sunk", MineEffect(sunk=True)),
        ("Fuel-2;Speed-1", MineEffect(speed=1, fuel=2)),
        ("hull-1,,gunnery-2", MineEffect(gunnery=2, hull=1)),
        ("hull-10\tcrippled\nsunk", MineEffect(hull=10, crippled=True, sunk=True)),
        ("fuel-1 fuel-2", MineEffect(fuel=3)),
        ("speed-1, speed-1, speed-1", MineEffect(speed=3)),
        ("crippled crippled", MineEffect(crippled=True)),
        ("hull-99", MineEffect(hull=99)),
    ],
)
def test_parse_mine_effects_examples(text: str, expected: MineEffect) -> None:
    assert parse_mine_effects(text) == expected


def test_parse_none_is_not_struck_and_crippled_is() -> None:
    assert parse_mine_effects("none").struck is False
    assert parse_mine_effects("crippled").struck is True


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("fuel-2 sinks", "sinks"),
        ("bogus", "bogus"),
        ("fuel", "fuel"),
        ("fuel-", "fuel-"),
        ("fuel-x", "fuel-x"),
        ("speed--1", "speed--1"),
        ("speed+1", "speed+1"),
        ("armour-2", "armour-2"),
        ("fuel-100", "fuel-100"),
    ],
)
def test_parse_unknown_word_is_named_with_the_known_words(text: str, word: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_mine_effects(text)
    message = str(info.value)
    assert repr(word) in message
    for known in ("none", "speed-N", "gunnery-N", "fuel-N", "hull-N", "crippled", "sunk"):
        assert known in message


def test_parse_names_the_first_unknown_word() -> None:
    with pytest.raises(ValueError, match="'first'") as info:
        parse_mine_effects("fuel-1 first second")
    assert "second" not in str(info.value)


@pytest.mark.parametrize("text", ["none sunk", "sunk none", "none, fuel-1", "none none"])
def test_parse_none_cannot_be_combined(text: str) -> None:
    with pytest.raises(ValueError, match="none cannot be combined"):
        parse_mine_effects(text)


@pytest.mark.parametrize("text", ["", "   ", " , ;\t", "\n"])
def test_parse_empty_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="must not be empty"):
        parse_mine_effects(text)


@pytest.mark.parametrize("text", [None, 3, b"sunk", ["sunk"]])
def test_parse_refuses_non_text(text: Any) -> None:
    with pytest.raises(ValueError, match="effects must be text"):
        parse_mine_effects(text)


amounts = st.integers(min_value=0, max_value=20)
effects = st.builds(
    MineEffect,
    speed=amounts,
    gunnery=amounts,
    fuel=amounts,
    hull=amounts,
    crippled=st.booleans(),
    sunk=st.booleans(),
)


@given(effects)
def test_words_round_trip_through_parse(effect: MineEffect) -> None:
    words = effect.words()
    assert parse_mine_effects(words) == effect
    assert effect.struck is (words != "none")


@given(effects, st.randoms(use_true_random=False), st.sampled_from((" ", ", ", ";", ",", " ; ")))
def test_parse_ignores_word_order_separators_and_case(
    effect: MineEffect, rnd: random.Random, separator: str
) -> None:
    words = effect.words().split()
    rnd.shuffle(words)
    assert parse_mine_effects(separator.join(words).upper()) == effect


# --- mine_table_problems and its compact ranges -------------------------------------------------

Row = tuple[int, int, str]


@pytest.mark.parametrize(
    "rows",
    [
        [(1, 11, "all")],
        [(1, 3, "all"), (4, 6, "long"), (4, 6, "small"), (7, 11, "all")],
        [(7, 11, "all"), (1, 6, "all")],  # row order does not matter
        [(1, 5, "long"), (1, 5, "small"), (6, 11, "all")],  # same range, different cups
        [(1, 11, "long"), (1, 11, "small")],
    ],
)
def test_full_table_has_no_problems(rows: list[Row]) -> None:
    assert mine_table_problems(rows) == ([], [])


def test_overlap_between_an_all_row_and_a_long_row_is_reported_for_long_only() -> None:
    overlaps, gaps = mine_table_problems([(1, 6, "all"), (5, 6, "long"), (7, 11, "all")])
    assert overlaps == ["rows 1 and 2 both cover 5-6 for long counters"]
    assert gaps == []


def test_overlap_between_an_all_row_and_a_small_row_is_reported_for_small_only() -> None:
    overlaps, gaps = mine_table_problems([(1, 11, "all"), (3, 4, "small")])
    assert overlaps == ["rows 1 and 2 both cover 3-4 for small counters"]
    assert gaps == []


def test_overlap_between_two_all_rows_is_reported_for_both_cups() -> None:
    overlaps, gaps = mine_table_problems([(1, 6, "all"), (7, 11, "all"), (6, 6, "all")])
    assert overlaps == [
        "rows 1 and 3 both cover 6 for long counters",
        "rows 1 and 3 both cover 6 for small counters",
    ]
    assert gaps == []


def test_overlap_of_two_long_rows_is_reported() -> None:
    overlaps, _ = mine_table_problems([(1, 4, "long"), (4, 11, "long"), (1, 11, "small")])
    assert overlaps == ["rows 1 and 2 both cover 4 for long counters"]


@pytest.mark.parametrize(
    ("rows", "long_gap", "small_gap"),
    [
        ([(1, 6, "all")], "7-11", "7-11"),
        ([], "1-11", "1-11"),
        ([(1, 10, "all")], "11", "11"),
        ([(2, 11, "all")], "1", "1"),
        ([(1, 2, "all"), (4, 4, "all"), (6, 6, "long")], "3, 5, 7-11", "3, 5-11"),
        ([(1, 1, "all"), (3, 3, "all"), (5, 5, "all")], "2, 4, 6-11", "2, 4, 6-11"),
        ([(1, 11, "small")], "1-11", None),
        ([(1, 11, "long"), (1, 5, "small"), (8, 11, "small")], None, "6-7"),
    ],
)
def test_gaps_are_listed_as_compact_ranges(
    rows: list[Row], long_gap: str | None, small_gap: str | None
) -> None:
    overlaps, gaps = mine_table_problems(rows)
    assert overlaps == []
    expected = []
    if long_gap is not None:
        expected.append(f"long counters: no row for {long_gap}")
    if small_gap is not None:
        expected.append(f"small counters: no row for {small_gap}")
    assert gaps == expected


@pytest.mark.parametrize("applies", ["both", "Long", "", "ALL", None])
def test_bad_applies_to_raises(applies: Any) -> None:
    with pytest.raises(ValueError, match="applies_to must be all, long or small") as info:
        mine_table_problems([(1, 6, "all"), (7, 11, applies)])
    assert repr(applies) in str(info.value)


def test_overlap_does_not_invent_gaps_in_the_rest_of_the_row() -> None:
    overlaps, gaps = mine_table_problems([(1, 6, "all"), (6, 11, "all")])
    assert overlaps == [
        "rows 1 and 2 both cover 6 for long counters",
        "rows 1 and 2 both cover 6 for small counters",
    ]
    assert gaps == []  # every roll 1..11 is covered by some row


def parse_gap(line: str, cup: str) -> list[tuple[int, int]]:
    """The (low, high) spans of one gap line, checking its wording."""
    prefix = f"{cup} counters: no row for "
    assert line.startswith(prefix)
    spans = []
    for part in line[len(prefix) :].split(", "):
        low, _, high = part.partition("-")
        spans.append((int(low), int(high or low)))
        if high:
            assert int(low) < int(high)  # a single roll is written "5", not "5-5"
    return spans


@st.composite
def tables_without_overlaps(draw: st.DrawFn) -> tuple[list[Row], dict[str, set[int]]]:
    """Rows that cut 1..11 into segments, each for all, long, small, both or none, shuffled;
    with the rolls each cup should be missing."""
    cuts = draw(st.sets(st.integers(2, 11)))
    bounds = [1, *sorted(cuts), 12]
    rows: list[Row] = []
    covered: dict[str, set[int]] = {"long": set(), "small": set()}
    for low, stop in itertools.pairwise(bounds):
        high = stop - 1
        kind = draw(st.sampled_from(("all", "long", "small", "split", "none")))
        cups = {"all": ("long", "small"), "split": ("long", "small")}.get(kind, (kind,))
        if kind == "split":
            rows += [(low, high, "long"), (low, high, "small")]
        elif kind != "none":
            rows.append((low, high, kind))
        for cup in cups:
            if cup in covered:
                covered[cup].update(range(low, high + 1))
    missing = {cup: set(range(1, 12)) - covered[cup] for cup in covered}
    return draw(st.permutations(rows)), missing


@given(tables_without_overlaps())
def test_gaps_name_exactly_the_uncovered_rolls_as_maximal_spans(
    table: tuple[list[Row], dict[str, set[int]]],
) -> None:
    rows, missing = table
    overlaps, gaps = mine_table_problems(rows)
    assert overlaps == []
    lines = {line.split(" ")[0]: line for line in gaps}
    assert set(lines) == {cup for cup in ("long", "small") if missing[cup]}
    assert gaps == sorted(gaps)  # long before small
    for cup, line in lines.items():
        spans = parse_gap(line, cup)
        rolls = [roll for low, high in spans for roll in range(low, high + 1)]
        assert rolls == sorted(missing[cup])  # each missing roll once, in order
        for (_, end), (start, _) in itertools.pairwise(spans):
            assert start > end + 1  # spans are maximal: adjacent ones would have merged


rows_in_range = st.lists(
    st.tuples(st.integers(1, 11), st.integers(0, 5), st.sampled_from(("all", "long", "small"))).map(
        lambda row: (row[0], min(11, row[0] + row[1]), row[2])
    ),
    max_size=6,
)


@given(rows_in_range)
def test_an_overlap_is_reported_for_a_cup_exactly_when_two_rows_share_a_roll(
    rows: list[Row],
) -> None:
    overlaps, _ = mine_table_problems(rows)

    def covers(index: int, roll: int, cup: str) -> bool:
        low, high, applies = rows[index]
        return low <= roll <= high and applies in ("all", cup)

    for cup in ("long", "small"):
        shared = any(
            sum(covers(index, roll, cup) for index in range(len(rows))) > 1 for roll in range(1, 12)
        )
        reported = [line for line in overlaps if line.endswith(f" for {cup} counters")]
        assert bool(reported) is shared
        for line in reported:
            # rows I and J both cover R1-R2, R3 for CUP counters
            head, spans = line.split(" both cover ")
            words = head.split()
            first, second = int(words[1]) - 1, int(words[3]) - 1
            assert first < second
            for span in spans.removesuffix(f" for {cup} counters").split(", "):
                low, _, high = span.partition("-")
                for roll in range(int(low), int(high or low) + 1):
                    assert covers(first, roll, cup) and covers(second, roll, cup)


# --- draw_order --------------------------------------------------------------------------

LONG_SHIPS = ["L1", "L2", "L3"]
SMALL_SHIPS = ["S1", "S2", "S3", "S4", "S5"]


def test_draw_order_alternates_from_long_then_empties_small() -> None:
    order = draw_order(LONG_SHIPS, SMALL_SHIPS, first="long", rng=random.Random(1))
    cups = [cup for cup, _ in order]
    assert cups == ["long", "small", "long", "small", "long", "small", "small", "small"]


def test_draw_order_alternates_from_small() -> None:
    order = draw_order(LONG_SHIPS, SMALL_SHIPS, first="small", rng=random.Random(1))
    cups = [cup for cup, _ in order]
    assert cups == ["small", "long", "small", "long", "small", "long", "small", "small"]


def test_draw_order_bigger_long_cup_finishes_with_long() -> None:
    order = draw_order(SMALL_SHIPS, LONG_SHIPS, first="long", rng=random.Random(1))
    cups = [cup for cup, _ in order]
    assert cups == ["long", "small", "long", "small", "long", "small", "long", "long"]


@pytest.mark.parametrize("first", ["long", "small"])
@pytest.mark.parametrize("seed", range(5))
def test_draw_order_draws_every_ship_once_from_its_own_cup(first: str, seed: int) -> None:
    order = draw_order(LONG_SHIPS, SMALL_SHIPS, first=first, rng=random.Random(seed))
    assert len(order) == 8
    assert sorted(ship for cup, ship in order if cup == "long") == LONG_SHIPS
    assert sorted(ship for cup, ship in order if cup == "small") == SMALL_SHIPS


def test_draw_order_same_seed_same_order_whatever_the_global_random() -> None:
    random.seed(1)
    once = draw_order(LONG_SHIPS, SMALL_SHIPS, first="long", rng=random.Random(42))
    random.seed(2)
    again = draw_order(LONG_SHIPS, SMALL_SHIPS, first="long", rng=random.Random(42))
    assert once == again


def test_draw_order_is_random_within_each_cup() -> None:
    orders = [
        draw_order(LONG_SHIPS, SMALL_SHIPS, first="long", rng=random.Random(seed))
        for seed in range(200)
    ]
    assert {order[0][1] for order in orders} == set(LONG_SHIPS)
    assert {order[1][1] for order in orders} == set(SMALL_SHIPS)
    assert len({tuple(order) for order in orders}) > 50


@pytest.mark.parametrize("first", ["long", "small"])
def test_draw_order_with_no_long_ships_draws_all_small(first: str) -> None:
    order = draw_order([], SMALL_SHIPS, first=first, rng=random.Random(3))
    assert [cup for cup, _ in order] == ["small"] * 5
    assert sorted(ship for _, ship in order) == SMALL_SHIPS


@pytest.mark.parametrize("first", ["long", "small"])
def test_draw_order_with_no_small_ships_draws_all_long(first: str) -> None:
    order = draw_order(LONG_SHIPS, (), first=first, rng=random.Random(3))
    assert [cup for cup, _ in order] == ["long"] * 3
    assert sorted(ship for _, ship in order) == LONG_SHIPS


def test_draw_order_of_no_ships_is_empty() -> None:
    assert draw_order([], [], first="small", rng=random.Random(0)) == []


def test_draw_order_leaves_the_callers_lists_alone() -> None:
    long, small = list(LONG_SHIPS), list(SMALL_SHIPS)
    draw_order(long, small, first="long", rng=random.Random(5))
    assert long == LONG_SHIPS
    assert small == SMALL_SHIPS


@pytest.mark.parametrize("first", ["Long", "SMALL", "all", "", "l", None])
def test_draw_order_bad_first_raises(first: Any) -> None:
    with pytest.raises(ValueError, match="first must be long or small") as info:
        draw_order(LONG_SHIPS, SMALL_SHIPS, first=first, rng=random.Random(0))
    assert repr(first) in str(info.value)


ships = st.lists(st.integers(0, 9), max_size=12)


@given(ships, ships, st.sampled_from(("long", "small")), st.integers(0, 2**32))
def test_draw_order_is_an_alternating_permutation(
    long: list[int], small: list[int], first: str, seed: int
) -> None:
    order = draw_order(long, small, first=first, rng=random.Random(seed))
    assert len(order) == len(long) + len(small)
    assert Counter(ship for cup, ship in order if cup == "long") == Counter(long)
    assert Counter(ship for cup, ship in order if cup == "small") == Counter(small)

    cups = [cup for cup, _ in order]
    both = 2 * min(len(long), len(small))
    other = "small" if first == "long" else "long"
    # While both cups hold ships the draws alternate, starting with the chosen cup ...
    assert cups[:both] == [first, other] * (both // 2)
    # ... and once one is empty every further draw comes from the other.
    rest = "long" if len(long) > len(small) else "small"
    assert cups[both:] == [rest] * (len(cups) - both)
    assert draw_order(long, small, first=first, rng=random.Random(seed)) == order
