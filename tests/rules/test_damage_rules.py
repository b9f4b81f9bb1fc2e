"""Damage arithmetic and what follows from it (tracker.rules.damage; SMR2 §2.2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.rules.damage import (
    TrackChange,
    apply_loss,
    apply_repair,
    consequences,
    outcome_sinks,
    smoke,
)

# --- apply_loss ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "lost", "expected"),
    [
        (5, 3, (2, 0)),
        (5, 5, (0, 0)),
        (5, 8, (0, 3)),
        (0, 4, (0, 4)),
        (5, 0, (5, 0)),
        (0, 0, (0, 0)),
        (999, 1, (998, 0)),
    ],
)
def test_apply_loss_clamps_at_zero_and_reports_the_overflow(
    now: int, lost: int, expected: tuple[int, int]
) -> None:
    assert apply_loss(now, lost) == expected


@pytest.mark.parametrize(("now", "lost"), [(-1, 0), (3, -1)])
def test_apply_loss_refuses_negative_numbers(now: int, lost: int) -> None:
    with pytest.raises(ValueError, match="0 or more"):
        apply_loss(now, lost)


@given(now=st.integers(0, 2000), lost=st.integers(0, 2000))
def test_apply_loss_never_goes_negative_and_accounts_for_every_point(now: int, lost: int) -> None:
    new, overflow = apply_loss(now, lost)
    assert new >= 0 and overflow >= 0
    # Every point lost either came off the track or is the overflow beyond zero.
    assert new + (lost - overflow) == now
    assert new == max(0, now - lost)
    assert overflow == 0 or new == 0
    if lost <= now:
        assert overflow == 0 and new == now - lost


# --- apply_repair -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "maximum", "repaired", "expected"),
    [(5, 9, 4, 9), (5, 9, 0, 5), (0, 9, 3, 3), (9, 9, 0, 9)],
)
def test_apply_repair_up_to_the_maximum(
    now: int, maximum: int, repaired: int, expected: int
) -> None:
    assert apply_repair(now, maximum, repaired) == expected


@pytest.mark.parametrize(
    ("now", "maximum", "repaired", "message"),
    [
        (5, 9, 5, "at most 4 can be repaired (5/9), got 5"),
        (9, 9, 1, "at most 0 can be repaired (9/9), got 1"),
        (0, 3, 10, "at most 3 can be repaired (0/3), got 10"),
    ],
)
def test_apply_repair_above_the_maximum_says_how_much_fits(
    now: int, maximum: int, repaired: int, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        apply_repair(now, maximum, repaired)
    assert str(caught.value) == message


def test_apply_repair_refuses_a_negative_repair() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        apply_repair(5, 9, -1)


@given(
    maximum=st.integers(1, 500),
    now_part=st.floats(0, 1),
    repaired=st.integers(0, 600),
)
def test_apply_repair_either_fits_or_names_the_room_left(
    maximum: int, now_part: float, repaired: int
) -> None:
    now = int(maximum * now_part)
    try:
        value = apply_repair(now, maximum, repaired)
    except ValueError as exc:
        assert now + repaired > maximum
        assert f"at most {maximum - now} " in str(exc)
    else:
        assert value == now + repaired <= maximum


# --- consequences -------------------------------------------------------------------------------


def _track(name: str, before: int, after: int, maximum: int, overflow: int = 0) -> TrackChange:
    return TrackChange(name=name, before=before, after=after, maximum=maximum, overflow=overflow)


def test_smoke_is_black_for_structure_and_white_for_flotation() -> None:
    assert smoke("Structure") == "black smoke"
    assert smoke("Flotation") == "white smoke"


CONSEQUENCES = [
    # Crossing 1/3 (current * 3 <= max): the marker, and a morale test.
    ("Structure", 9, 3, 9, 0, ["Exeter at or below 1/3 Structure (black smoke): morale test"]),
    ("Flotation", 8, 2, 8, 0, ["Exeter at or below 1/3 Flotation (white smoke): morale test"]),
    ("Structure", 10, 3, 10, 0, ["Exeter at or below 1/3 Structure (black smoke): morale test"]),
    # Just above 1/3: 4 * 3 = 12 > 10, 3 * 3 = 9 > 8.
    ("Structure", 10, 4, 10, 0, []),
    ("Flotation", 8, 3, 8, 0, []),
    # Reaching zero asks what happened (the smoke note gives way to it).
    ("Structure", 9, 0, 9, 0, ["Exeter: Structure at zero: confirm what happened"]),
    ("Flotation", 2, 0, 8, 0, ["Exeter: Flotation at zero: confirm what happened"]),
    (
        "Structure",
        9,
        0,
        9,
        2,
        [
            "Exeter: Structure at zero: confirm what happened",
            "Exeter: 2 Structure beyond zero not applied",
        ],
    ),
    # Already at zero and hit again: only the overflow is named.
    ("Flotation", 0, 0, 8, 3, ["Exeter: 3 Flotation beyond zero not applied"]),
    # Climbing back above 1/3 takes the marker off.
    ("Structure", 3, 4, 9, 0, ["Exeter back above 1/3 Structure: black smoke removed"]),
    ("Flotation", 0, 5, 8, 0, ["Exeter back above 1/3 Flotation: white smoke removed"]),
    # No crossing, no note.
    ("Structure", 9, 9, 9, 0, []),
    ("Structure", 9, 4, 9, 0, []),
    ("Structure", 3, 2, 9, 0, []),
    ("Structure", 0, 1, 9, 0, []),
    ("Flotation", 2, 3, 9, 0, []),
]


@pytest.mark.parametrize(("name", "before", "after", "maximum", "overflow", "notes"), CONSEQUENCES)
def test_consequences_name_what_the_change_calls_for(
    name: str, before: int, after: int, maximum: int, overflow: int, notes: list[str]
) -> None:
    assert consequences("Exeter", _track(name, before, after, maximum, overflow)) == notes


@given(
    maximum=st.integers(1, 60),
    before_part=st.floats(0, 1),
    after_part=st.floats(0, 1),
    overflow=st.integers(0, 5),
    name=st.sampled_from(["Structure", "Flotation"]),
)
def test_consequences_follow_the_one_third_rule(
    maximum: int, before_part: float, after_part: float, overflow: int, name: str
) -> None:
    before, after = int(maximum * before_part), int(maximum * after_part)
    notes = consequences("Ajax", _track(name, before, after, maximum, overflow))
    text = " | ".join(notes)
    was, now = 3 * before <= maximum, 3 * after <= maximum
    zero = after == 0 and before > 0
    assert ("confirm what happened" in text) == zero
    assert ("morale test" in text) == (now and not was and not zero)
    assert ("removed" in text) == (was and not now)
    assert ("beyond zero" in text) == bool(overflow)
    marker = "black smoke" if name == "Structure" else "white smoke"
    other = "white smoke" if name == "Structure" else "black smoke"
    assert other not in text
    if "morale test" in text or "removed" in text:
        assert marker in text
    assert len(notes) <= 2


# --- outcome_sinks (RULES.md §SMR2 "Structure, Flotation and the 1/3 line") ----------------------


@pytest.mark.parametrize(
    ("outcome", "sinks"),
    [
        ("Sunk", True),
        (" sunk ", True),
        ("SUNK", True),
        ("Sunk by a torpedo", True),
        ("Sunk: hull used up by a mine", True),
        ("Scuttled", True),
        ("scuttled by her crew", True),
        ("Dead in the water", False),
        ("Other", False),
        ("Towed home, nearly sunk", False),
        ("Sunken hopes", False),
        ("", False),
    ],
)
def test_an_outcome_sinks_the_ship_when_its_first_word_says_so(outcome: str, sinks: bool) -> None:
    assert outcome_sinks(outcome) is sinks


@given(first=st.sampled_from(["sunk", "Scuttled"]), rest=st.text(max_size=40))
def test_any_words_after_sunk_or_scuttled_still_sink(first: str, rest: str) -> None:
    assert outcome_sinks(f"{first} {rest}")
