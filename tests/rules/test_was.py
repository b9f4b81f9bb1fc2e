"""Tests for the War at Sea fan submarine rules (RULES.md §Subs-3.6)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.rules import was
from tracker.rules.was import (
    DECOY_COST,
    MARKERS_PER_SUB,
    MAX_EXTRA_DECOYS,
    SEA_MOVE_SECTORS,
    SEARCHERS,
    best_searcher,
    extra_decoy_cost,
    search_breakdown,
    search_succeeds,
    search_target,
    sub_mine_damage,
    torpedo_die_hits,
)

ROLLS = range(1, 7)
NON_SUB = ("patrol_bomber", "aircraft", "surface")


def render(steps: list[tuple[str, int]]) -> str:
    """Format a breakdown the way a screen would: base, then signed steps, then the total."""
    (base_label, _), *rest = steps
    parts = [base_label]
    for label, value in rest:
        parts.append(label if label.startswith("clamp") or value == 0 else f"{label} {value:+d}")
    return f"{', '.join(parts)} = {sum(value for _, value in steps)}+"


def d7_literal(
    searcher: str, extra: int, hunters: int, enemies: int, night: bool, elusive: bool
) -> int:
    """RULES.md §Subs's D-7 pseudo-code, written out independently of the module."""
    if searcher == "submarine":
        return 5
    base = 4 if searcher == "patrol_bomber" else 5
    target = max(2, base - extra - (0 if elusive else hunters))
    return target + enemies + (1 if night else 0) + (1 if elusive else 0)


# --- public surface -----------------------------------------------------------------------------


def test_exposes_exactly_the_agreed_names() -> None:
    public = {name for name in vars(was) if not name.startswith("_")}
    imported = {"annotations", "Any", "Sequence", "StrEnum", "checks"}
    assert public - imported == {
        "search_target",
        "search_succeeds",
        "extra_decoy_cost",
        "sub_mine_damage",
        "torpedo_die_hits",
        "SEARCHERS",
        "best_searcher",
        "search_breakdown",
        "MARKERS_PER_SUB",
        "DECOY_COST",
        "MAX_EXTRA_DECOYS",
        "SEA_MOVE_SECTORS",
        "ConcealCause",
        "reconceal_markers",
        "reconceal_refusal",
        "torpedo_hits",
        "crowded_squares",
        "square",
        "drift_refusal",
    }


def test_constants_from_the_seed() -> None:
    assert SEARCHERS == ("patrol_bomber", "aircraft", "surface", "submarine")
    assert MARKERS_PER_SUB == 2  # RULES.md §Subs ¶1: 2 markers, one the sub, one the decoy
    assert DECOY_COST == 5  # seed note: "each additional token costs 5pts"
    assert MAX_EXTRA_DECOYS == 2  # seed note: "limited to 1-2 extra tokens"
    assert SEA_MOVE_SECTORS == 1  # RULES.md §Subs ¶3: "move one space per turn"


# --- the worked examples, each one ----------------------------------------------------------------


def test_base_difficulties() -> None:
    # Seed §4: "Patrol Bombers: 4+", other ASW aircraft 5+, surface ASW units 5+.
    assert search_target("patrol_bomber") == 4
    assert search_target("aircraft") == 5
    assert search_target("surface") == 5


def test_seed_patrol_bomber_at_night_is_5() -> None:
    # "A patrol bomber searching for a sub at night, difficulty raised to 5+."
    assert search_target("patrol_bomber", night_or_weather=True) == 5


def test_seed_two_destroyers_need_4() -> None:
    # "2 destroyers searching a square would need a 4+".
    assert search_target("surface", extra_asw_units=1) == 4


def test_seed_patrol_bomber_and_destroyer_need_3() -> None:
    # "a patrol bomber and a destroyer search on a 3+".
    assert search_target("patrol_bomber", extra_asw_units=1) == 3


def test_seed_two_destroyers_one_sub_hunter_need_3() -> None:
    # "2 destroyers, 1 w/ the 'sub hunt' SA need a 3+ to locate a sub."
    assert search_target("surface", extra_asw_units=1, sub_hunters=1) == 3


def test_seed_two_destroyers_one_sub_hunter_and_patrol_bomber_need_2() -> None:
    # "2 destroyers, 1 w/ 'sub hunt' and a patrol bomber would locate the sub on a 2+".
    assert best_searcher(["surface", "surface", "patrol_bomber"]) == "patrol_bomber"
    assert search_target("patrol_bomber", extra_asw_units=2, sub_hunters=1) == 2


def test_seed_four_javelins_and_four_pbys_still_miss_on_a_1() -> None:
    # "4 Javelins & 4 PBY's can still miss finding the U-552 on a search check result of 1".
    # One PBY rolls; the other 3 PBYs and the 4 Javelins are extra ASW units, all Javelins hunt.
    target = search_target("patrol_bomber", extra_asw_units=7, sub_hunters=4)
    assert target == 2
    assert search_succeeds(1, target) is False
    assert all(search_succeeds(roll, target) for roll in range(2, 7))


def test_seed_main_example_pby_javelin_fletcher_is_2() -> None:
    # PBY Catalina rolls at 4+; +1 per destroyer (Javelin, Fletcher), +1 Sub Hunt on Javelin,
    # "the best result the allied player can get is a 2+".
    assert best_searcher(["surface", "surface", "patrol_bomber"]) == "patrol_bomber"
    assert search_target("patrol_bomber", extra_asw_units=2, sub_hunters=1) == 2


def test_seed_main_example_with_z20_and_bf110_is_4() -> None:
    # "If the square also contained a Z-20 destroyer and a Bf-110, the difficulty would be ... 4+".
    assert search_target("patrol_bomber", extra_asw_units=2, sub_hunters=1, enemy_units=2) == 4


def test_clamp_comes_before_the_penalties_d7() -> None:
    # Clamping only at the end would give max(2, 4 - 3 + 2) = 3+, but the seed says 4+.
    base, bonus, penalty = 4, 3, 2
    clamp_at_end = max(2, base - bonus + penalty)
    assert clamp_at_end == 3
    actual = search_target("patrol_bomber", extra_asw_units=2, sub_hunters=1, enemy_units=2)
    assert actual == 4
    assert actual != clamp_at_end


def test_seed_main_example_breakdown_renders_as_agreed() -> None:
    steps = search_breakdown("patrol_bomber", extra_asw_units=2, sub_hunters=1, enemy_units=2)
    assert steps == [
        ("base 4+", 4),
        ("2 extra ASW units", -2),
        ("Sub Hunter", -1),
        ("clamp to 2+", 1),
        ("2 enemy units", 2),
    ]
    assert render(steps) == (
        "base 4+, 2 extra ASW units -2, Sub Hunter -1, clamp to 2+, 2 enemy units +2 = 4+"
    )


def test_seed_submarines_search_on_5_flat() -> None:
    # "Submarines search for other subs on a 5+ ... they do not gain/suffer any ... modifiers."
    assert search_target("submarine") == 5


def test_seed_sunderland_with_z20_can_fail_and_attack_instead() -> None:
    # Seed §4: a Sunderland leads the hunt for U-510 with a Z-20 in the square and fails.
    target = search_target("patrol_bomber", enemy_units=1)
    assert target == 5
    assert search_succeeds(4, target) is False
    assert search_succeeds(5, target) is True


def test_seed_mines_one_and_two() -> None:
    # Seed §12: "On a 1 the sub suffers 1 point of hull damage, on a 2 it suffers 2 points".
    assert sub_mine_damage(1) == 1
    assert sub_mine_damage(2) == 2


def test_seed_night_torpedo_hits_on_5_and_6() -> None:
    # Seed §9e: at night, vs a target hit previously, "hits on a roll of 5 and 6".
    assert torpedo_die_hits(5, night=True, target_hit_earlier=True) is True
    assert torpedo_die_hits(6, night=True, target_hit_earlier=True) is True
    assert torpedo_die_hits(4, night=True, target_hit_earlier=True) is False


def test_seed_decoy_purchase_limit() -> None:
    # Seed note: 5 pts each, "limited to 1-2 extra tokens" (no "2 subs and 30 tokens").
    assert extra_decoy_cost(1) == 5
    assert extra_decoy_cost(2) == 10
    with pytest.raises(ValueError, match="extra_decoys"):
        extra_decoy_cost(30)


# --- every modifier alone ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("searcher", "kwargs", "expected"),
    [
        ("patrol_bomber", {}, 4),
        ("patrol_bomber", {"extra_asw_units": 1}, 3),
        ("patrol_bomber", {"sub_hunters": 1}, 3),
        ("patrol_bomber", {"enemy_units": 1}, 5),
        ("patrol_bomber", {"night_or_weather": True}, 5),
        ("patrol_bomber", {"elusive_quarry": True}, 5),
        ("aircraft", {}, 5),
        ("aircraft", {"extra_asw_units": 1}, 4),
        ("aircraft", {"sub_hunters": 1}, 4),
        ("aircraft", {"enemy_units": 1}, 6),
        ("aircraft", {"night_or_weather": True}, 6),
        ("aircraft", {"elusive_quarry": True}, 6),
        ("surface", {}, 5),
        ("surface", {"extra_asw_units": 1}, 4),
        ("surface", {"sub_hunters": 1}, 4),
        ("surface", {"enemy_units": 1}, 6),
        ("surface", {"night_or_weather": True}, 6),
        ("surface", {"elusive_quarry": True}, 6),
    ],
)
def test_each_modifier_alone(searcher: str, kwargs: dict[str, Any], expected: int) -> None:
    assert search_target(searcher, **kwargs) == expected


@pytest.mark.parametrize(
    ("searcher", "kwargs", "expected"),
    [
        # Friendly bonuses stack one per unit, down to the 2+ clamp.
        ("surface", {"extra_asw_units": 2}, 3),
        ("surface", {"extra_asw_units": 3}, 2),
        ("surface", {"extra_asw_units": 10}, 2),
        ("surface", {"sub_hunters": 2}, 3),
        ("surface", {"extra_asw_units": 1, "sub_hunters": 2}, 2),
        # Penalties stack: each enemy +1, night/weather once.
        ("surface", {"enemy_units": 2}, 7),
        ("patrol_bomber", {"enemy_units": 1, "night_or_weather": True}, 6),
        ("patrol_bomber", {"enemy_units": 2, "night_or_weather": True}, 7),
        # Bonuses and penalties together, clamp in between.
        ("patrol_bomber", {"extra_asw_units": 1, "enemy_units": 1}, 4),
        ("patrol_bomber", {"extra_asw_units": 3, "night_or_weather": True}, 3),
        ("surface", {"extra_asw_units": 5, "sub_hunters": 2, "enemy_units": 3}, 5),
        ("aircraft", {"extra_asw_units": 1, "sub_hunters": 1, "night_or_weather": True}, 4),
        # Everything at once.
        (
            "patrol_bomber",
            {
                "extra_asw_units": 3,
                "sub_hunters": 2,
                "enemy_units": 1,
                "night_or_weather": True,
                "elusive_quarry": True,
            },
            2 + 1 + 1 + 1,
        ),
    ],
)
def test_modifiers_combined(searcher: str, kwargs: dict[str, Any], expected: int) -> None:
    assert search_target(searcher, **kwargs) == expected


# --- Elusive Quarry ----------------------------------------------------------------------------


def test_elusive_quarry_cancels_sub_hunters_and_adds_one() -> None:
    # Without Elusive Quarry two Sub Hunters help (5 - 1 - 2 = 2+).
    assert search_target("surface", extra_asw_units=1, sub_hunters=2) == 2
    # With it they do not help and the search is 1 harder: 5 - 1 = 4, +1 = 5+.
    assert search_target("surface", extra_asw_units=1, sub_hunters=2, elusive_quarry=True) == 5
    # Sub Hunters are then worth exactly nothing.
    assert search_target("surface", extra_asw_units=1, elusive_quarry=True) == 5


def test_elusive_quarry_keeps_extra_asw_units() -> None:
    assert search_target("patrol_bomber", extra_asw_units=1, elusive_quarry=True) == 4


def test_elusive_quarry_breakdown_shows_the_cancelled_sub_hunter() -> None:
    steps = search_breakdown(
        "patrol_bomber", extra_asw_units=2, sub_hunters=1, enemy_units=2, elusive_quarry=True
    )
    assert steps == [
        ("base 4+", 4),
        ("2 extra ASW units", -2),
        ("Sub Hunter cancelled by Elusive Quarry", 0),
        ("2 enemy units", 2),
        ("Elusive Quarry", 1),
    ]
    assert render(steps) == (
        "base 4+, 2 extra ASW units -2, Sub Hunter cancelled by Elusive Quarry, "
        "2 enemy units +2, Elusive Quarry +1 = 5+"
    )


# --- submarine searcher ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"extra_asw_units": 5},
        {"sub_hunters": 3},
        {"enemy_units": 4},
        {"night_or_weather": True},
        {"elusive_quarry": True},
        {
            "extra_asw_units": 20,
            "sub_hunters": 20,
            "enemy_units": 20,
            "night_or_weather": True,
            "elusive_quarry": True,
        },
    ],
)
def test_submarine_searcher_ignores_every_modifier(kwargs: dict[str, Any]) -> None:
    assert search_target("submarine", **kwargs) == 5
    assert search_breakdown("submarine", **kwargs) == [("base 5+ (submarine: no modifiers)", 5)]


def test_submarine_searcher_still_validates_its_arguments() -> None:
    with pytest.raises(ValueError, match="enemy_units"):
        search_target("submarine", enemy_units=-1)


# --- search_succeeds ---------------------------------------------------------------------------


@pytest.mark.parametrize("target", [7, 8, 12, 27])
def test_target_7_or_more_is_impossible(target: int) -> None:
    assert not any(search_succeeds(roll, target) for roll in ROLLS)


def test_search_can_reach_7_plus() -> None:
    assert search_target("aircraft", enemy_units=1, night_or_weather=True) == 7


@pytest.mark.parametrize("target", [2, 3, 4, 5, 6])
def test_natural_1_always_fails(target: int) -> None:
    assert search_succeeds(1, target) is False


@pytest.mark.parametrize(("roll", "target"), [(r, t) for r in ROLLS for t in range(2, 8)])
def test_search_succeeds_table(roll: int, target: int) -> None:
    assert search_succeeds(roll, target) is (roll != 1 and roll >= target)


# --- mines and torpedoes -----------------------------------------------------------------------


@pytest.mark.parametrize(("roll", "damage"), [(1, 1), (2, 2), (3, 0), (4, 0), (5, 0), (6, 0)])
def test_sub_mine_damage(roll: int, damage: int) -> None:
    assert sub_mine_damage(roll) == damage


TORPEDO_CASES = [
    (roll, night, earlier, roll == 6 or (roll == 5 and night and earlier))
    for roll in ROLLS
    for night in (False, True)
    for earlier in (False, True)
]


@pytest.mark.parametrize(("roll", "night", "earlier", "hits"), TORPEDO_CASES)
def test_torpedo_die_hits(roll: int, night: bool, earlier: bool, hits: bool) -> None:
    assert torpedo_die_hits(roll, night=night, target_hit_earlier=earlier) is hits


def test_torpedo_five_needs_both_night_and_an_earlier_hit() -> None:
    assert torpedo_die_hits(5) is False
    assert torpedo_die_hits(5, night=True) is False
    assert torpedo_die_hits(5, target_hit_earlier=True) is False
    assert torpedo_die_hits(6) is True


# --- decoys ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("extra", "cost"), [(0, 0), (1, 5), (2, 10)])
def test_extra_decoy_cost(extra: int, cost: int) -> None:
    assert extra_decoy_cost(extra) == cost


def test_three_extra_decoys_refused() -> None:
    message = "extra_decoys must be 0..2 (at most 2 extra decoys per submarine), got 3"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        extra_decoy_cost(3)


# --- best_searcher -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("present", "expected"),
    [
        (["patrol_bomber"], "patrol_bomber"),
        (["surface", "patrol_bomber", "aircraft"], "patrol_bomber"),
        (["surface", "aircraft"], "aircraft"),
        (["surface"], "surface"),
        (["aircraft"], "aircraft"),
        (["submarine", "surface"], "surface"),
        (["submarine", "aircraft"], "aircraft"),
        (["submarine", "patrol_bomber"], "patrol_bomber"),
        (["submarine"], "submarine"),
        (("submarine", "submarine"), "submarine"),
    ],
)
def test_best_searcher(present: list[str], expected: str) -> None:
    assert best_searcher(present) == expected


@pytest.mark.parametrize(
    ("searchers", "pattern"),
    [
        ([], "searchers must name at least one searcher"),
        ("surface", "searchers must be a sequence"),
        (None, "searchers must be a sequence"),
        (["surface", "battleship"], "searchers item must be one of patrol_bomber"),
        ([3], "searchers item must be one of"),
    ],
)
def test_best_searcher_refuses(searchers: Any, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        best_searcher(searchers)


# --- argument validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"searcher": "battleship"},
            "searcher must be one of patrol_bomber, aircraft, surface, submarine, got 'battleship'",
        ),
        (
            {"searcher": None},
            "searcher must be one of patrol_bomber, aircraft, surface, submarine, got None",
        ),
        ({"extra_asw_units": -1}, "extra_asw_units must be 0..20, got -1"),
        ({"extra_asw_units": 21}, "extra_asw_units must be 0..20, got 21"),
        ({"extra_asw_units": True}, "extra_asw_units must be 0..20, got True"),
        ({"extra_asw_units": 1.0}, "extra_asw_units must be 0..20, got 1.0"),
        ({"sub_hunters": -1}, "sub_hunters must be 0..20, got -1"),
        ({"sub_hunters": False}, "sub_hunters must be 0..20, got False"),
        ({"enemy_units": 21}, "enemy_units must be 0..20, got 21"),
        ({"enemy_units": "2"}, "enemy_units must be 0..20, got '2'"),
        ({"night_or_weather": 1}, "night_or_weather must be True or False, got 1"),
        ({"elusive_quarry": None}, "elusive_quarry must be True or False, got None"),
    ],
)
@pytest.mark.parametrize("function", [search_target, search_breakdown])
def test_search_arguments_refused(function: Any, kwargs: dict[str, Any], message: str) -> None:
    call = {"searcher": "patrol_bomber", **kwargs}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        function(**call)


@pytest.mark.parametrize("bad", [0, 7, -1, True, 3.0, "4", None])
@pytest.mark.parametrize(
    "function",
    [
        lambda roll: search_succeeds(roll, 4),
        sub_mine_damage,
        torpedo_die_hits,
    ],
    ids=["search_succeeds", "sub_mine_damage", "torpedo_die_hits"],
)
def test_roll_must_be_a_d6(function: Any, bad: Any) -> None:
    with pytest.raises(ValueError, match=f"^roll must be 1..6, got {re.escape(repr(bad))}$"):
        function(bad)


@pytest.mark.parametrize("bad", [1, 0, -3, True, 4.0, "4", None])
def test_search_succeeds_refuses_bad_target(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"^target must be an int >= 2 \(7 or more cannot"):
        search_succeeds(4, bad)


@pytest.mark.parametrize("bad", [-1, True, 1.0, "1", None])
def test_extra_decoys_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"^extra_decoys must be 0\.\.2 \(at most 2 extra decoys"):
        extra_decoy_cost(bad)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"night": 1}, "night"), ({"target_hit_earlier": "yes"}, "target_hit_earlier")],
)
def test_torpedo_flags_must_be_bool(kwargs: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} must be True or False"):
        torpedo_die_hits(6, **kwargs)


# --- properties --------------------------------------------------------------------------------

counts = st.integers(min_value=0, max_value=20)
below_max = st.integers(min_value=0, max_value=19)
searchers = st.sampled_from(SEARCHERS)
flags = st.booleans()


@given(searchers, counts, counts, counts, flags, flags)
def test_target_never_below_2_and_matches_d7(
    searcher: str, extra: int, hunters: int, enemies: int, night: bool, elusive: bool
) -> None:
    target = search_target(
        searcher,
        extra_asw_units=extra,
        sub_hunters=hunters,
        enemy_units=enemies,
        night_or_weather=night,
        elusive_quarry=elusive,
    )
    assert target >= 2
    assert target == d7_literal(searcher, extra, hunters, enemies, night, elusive)


@given(searchers, counts, counts, counts, flags, flags)
def test_breakdown_sums_to_the_target(
    searcher: str, extra: int, hunters: int, enemies: int, night: bool, elusive: bool
) -> None:
    kwargs: dict[str, Any] = {
        "extra_asw_units": extra,
        "sub_hunters": hunters,
        "enemy_units": enemies,
        "night_or_weather": night,
        "elusive_quarry": elusive,
    }
    steps = search_breakdown(searcher, **kwargs)
    assert steps[0][0].startswith(f"base {steps[0][1]}+")
    assert sum(value for _, value in steps) == search_target(searcher, **kwargs)
    clamp = [i for i, (label, _) in enumerate(steps) if label.startswith("clamp")]
    penalties = [i for i, (_, value) in enumerate(steps) if value > 0][1:]  # skip the base
    penalties = [i for i in penalties if i not in clamp]
    assert all(c < p for c in clamp for p in penalties)


@given(searchers, counts, counts, below_max, flags, flags)
def test_an_extra_enemy_unit_never_makes_it_easier(
    searcher: str, extra: int, hunters: int, enemies: int, night: bool, elusive: bool
) -> None:
    def target(n: int) -> int:
        return search_target(
            searcher,
            extra_asw_units=extra,
            sub_hunters=hunters,
            enemy_units=n,
            night_or_weather=night,
            elusive_quarry=elusive,
        )

    assert target(enemies + 1) >= target(enemies)


@given(searchers, below_max, below_max, counts, flags, flags)
def test_an_extra_friendly_unit_never_makes_it_harder(
    searcher: str, extra: int, hunters: int, enemies: int, night: bool, elusive: bool
) -> None:
    def target(n_extra: int, n_hunters: int) -> int:
        return search_target(
            searcher,
            extra_asw_units=n_extra,
            sub_hunters=n_hunters,
            enemy_units=enemies,
            night_or_weather=night,
            elusive_quarry=elusive,
        )

    assert target(extra + 1, hunters) <= target(extra, hunters)
    assert target(extra, hunters + 1) <= target(extra, hunters)


@given(searchers, counts, counts, counts, flags)
def test_night_and_elusive_never_make_it_easier(
    searcher: str, extra: int, hunters: int, enemies: int, other: bool
) -> None:
    common: dict[str, Any] = {
        "extra_asw_units": extra,
        "sub_hunters": hunters,
        "enemy_units": enemies,
    }
    assert search_target(
        searcher, **common, night_or_weather=True, elusive_quarry=other
    ) >= search_target(searcher, **common, night_or_weather=False, elusive_quarry=other)
    assert search_target(
        searcher, **common, night_or_weather=other, elusive_quarry=True
    ) >= search_target(searcher, **common, night_or_weather=other, elusive_quarry=False)


@given(
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=2, max_value=30),
)
def test_search_succeeds_is_monotone_in_roll(low: int, high: int, target: int) -> None:
    low, high = min(low, high), max(low, high)
    if search_succeeds(low, target):
        assert search_succeeds(high, target)


@given(st.lists(searchers, min_size=1, max_size=8))
def test_best_searcher_has_the_lowest_base(present: list[str]) -> None:
    best = best_searcher(present)
    assert best in present
    assert all(search_target(best) <= search_target(other) for other in present)
    assert (best == "submarine") == (set(present) == {"submarine"})


# --- re-concealment (§10-11) and a torpedo attack's hits (§9e) ------------------------------


@pytest.mark.parametrize(
    ("cause", "markers"),
    [("moved_into_weather", 1), ("no_enemy_placed", 1), ("got_away", 2), ("weather_entered", 1)],
)
def test_seed_10_only_getting_away_places_two_markers(cause: str, markers: int) -> None:
    assert was.reconceal_markers(was.ConcealCause(cause)) == markers


@given(cause=st.sampled_from(list(was.ConcealCause)), moved=st.booleans())
def test_seed_11_a_sub_that_did_not_move_stays_revealed_unless_weather_entered(
    cause: was.ConcealCause, moved: bool
) -> None:
    refusal = was.reconceal_refusal(cause, moved_this_turn=moved)
    allowed = moved or cause is was.ConcealCause.WEATHER_ENTERED
    assert (refusal is None) is allowed
    if refusal is not None:
        assert "remains revealed (§11)" in refusal


@given(rolls=st.lists(st.integers(1, 6), min_size=1, max_size=10), night=st.booleans(),
       earlier=st.booleans())  # fmt: skip
def test_torpedo_hits_count_the_dice_that_hit(rolls: list[int], night: bool, earlier: bool) -> None:
    hits = was.torpedo_hits(rolls, night=night, target_hit_earlier=earlier)
    assert hits == sum(torpedo_die_hits(r, night=night, target_hit_earlier=earlier) for r in rolls)


@pytest.mark.parametrize("rolls", [[], "56", [0], [7], 6])
def test_torpedo_hits_refuse_what_is_not_a_list_of_dice(rolls: Any) -> None:
    with pytest.raises(ValueError, match="roll"):
        was.torpedo_hits(rolls)


# --- one sub per square (§3) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("placed", "occupied", "crowded"),
    [
        (["a1", "b2"], [], []),
        (["a1", "a1"], [], [1]),
        (["a1", "b2"], ["b2"], [1]),
        (["a1", "a1", "a1"], ["a1"], [0, 1, 2]),
        (["", ""], [""], []),  # off the map: no square
        (["c3"], ["a1", "b2"], []),
    ],
)
def test_par3_crowded_squares_table(
    placed: list[str], occupied: list[str], crowded: list[int]
) -> None:
    assert was.crowded_squares(placed, occupied) == crowded


@given(placed=st.lists(st.sampled_from(["", "a1", "b2", "c3"]), max_size=5),
       occupied=st.lists(st.sampled_from(["", "a1", "b2", "c3"]), max_size=4))  # fmt: skip
def test_par3_a_placement_is_free_exactly_when_every_square_is_its_own(
    placed: list[str], occupied: list[str]
) -> None:
    crowded = was.crowded_squares(placed, occupied)
    squares = [square for square in placed if square]
    free = len(set(squares)) == len(squares) and not set(squares) & set(occupied)
    assert (crowded == []) == free
    for index in crowded:  # each refused square is held or named before
        assert placed[index] in occupied or placed[index] in placed[:index]


@pytest.mark.parametrize("bad", ["a1", ["a1", 3], None])
def test_par3_crowded_squares_refuses_what_is_not_squares(bad: Any) -> None:
    with pytest.raises(ValueError, match="placed must be a sequence of squares"):
        was.crowded_squares(bad)


# --- drifting minefields (§13) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turn", "complete", "laid", "last", "refused"),
    [
        (3, True, 3, None, None),  # at the end of the turn it was laid
        (2, True, 3, None, "it was laid on turn 3"),
        (4, True, None, 3, None),  # laid in an earlier scenario; last drifted on turn 3
        (3, True, 1, 3, "it already drifted on turn 3"),
        (2, True, 1, 3, "it drifted on turn 3 already"),
        (5, False, None, None, "still being sown"),
        (None, True, None, None, "give the turn"),
    ],
)  # fmt: skip
def test_par13_drift_refusal_table(
    turn: int | None, complete: bool, laid: int | None, last: int | None, refused: str | None
) -> None:
    refusal = was.drift_refusal(turn, complete=complete, laid_turn=laid, last_drift_turn=last)
    assert (refusal is None) == (refused is None)
    assert refused is None or refused in (refusal or "")


@given(laid=st.none() | st.integers(1, 9), turns=st.lists(st.integers(1, 9), max_size=12))
def test_par13_a_minefield_drifts_once_a_turn_from_the_turn_it_was_laid(
    laid: int | None, turns: list[int]
) -> None:
    """Whatever order the turns are typed in, the drifts let through are each after the last and
    none before the turn it was laid."""
    drifted: list[int] = []
    for turn in turns:
        last = drifted[-1] if drifted else None
        if was.drift_refusal(turn, complete=True, laid_turn=laid, last_drift_turn=last) is None:
            drifted.append(turn)
    expected: list[int] = []  # the turns a player may enter, in the order typed
    for turn in turns:
        if turn >= (laid or 1) and (not expected or turn > expected[-1]):
            expected.append(turn)
    assert drifted == expected
    assert drifted == sorted(set(drifted))  # once a turn
