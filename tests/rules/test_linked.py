"""What a ship carries between linked scenarios (tracker.rules.linked; RULES.md §SMR2)."""

from __future__ import annotations

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.db import BACKUP_REASON
from tracker.rules.linked import backup_reason, over_allowance, repair_room, restored


@pytest.mark.parametrize(
    ("stat", "amount", "value", "expected"),
    [
        ("speed_kn", -4, 24, 28),  # the knots a critical took come back
        ("speed_kn", 0, 24, 24),
        ("speed_kn", 5, 3, 0),  # a critical that added speed: never below 0 once cleared
        ("structure_now", -3, 5, 5),  # repaired as Structure, within the allowance
        ("flotation_now", -2, 4, 4),
        ("fire_markers", 2, 2, 2),  # fire markers come off with the turn
        ("", 0, 7, 7),
    ],
)
def test_a_cleared_critical_gives_back_only_the_speed_it_took(
    stat: str, amount: int, value: int, expected: int
) -> None:
    assert restored(stat, amount, value) == expected


@pytest.mark.parametrize(
    ("missing", "done", "limit", "expected"),
    [
        (7, 0, None, 7),  # no allowance: what the ship is missing
        (7, 1, 5, 4),  # the allowance left
        (2, 1, 5, 2),  # what she is missing, within the allowance
        (7, 5, 5, 0),  # the allowance used up
        (7, 6, 5, 0),  # used past it (a limit lowered since): nothing, never below 0
        (0, 0, None, 0),
        (0, 0, 3, 0),
    ],
)
def test_a_repair_gives_at_most_what_is_missing_within_the_allowance(
    missing: int, done: int, limit: int | None, expected: int
) -> None:
    assert repair_room(missing, done, limit) == expected


ALLOWS = "the campaign allows 5 Structure between scenarios; "


@pytest.mark.parametrize(
    ("amount", "done", "limit", "said"),
    [
        (3, 0, None, ""),
        (0, 9, 5, ""),  # nothing asked of this track
        (4, 1, 5, ""),  # exactly the allowance
        (5, 1, 5, ALLOWS + "1 already repaired, so at most 4"),
        (1, 6, 5, ALLOWS + "6 already repaired, so at most 0"),
    ],
)
def test_a_repair_past_the_allowance_says_how_much_is_left(
    amount: int, done: int, limit: int | None, said: str
) -> None:
    assert over_allowance("structure", amount, done, limit) == said


@settings(max_examples=examples(200), deadline=None)
@given(
    missing=st.integers(0, 9999),
    done=st.integers(0, 9999),
    limit=st.none() | st.integers(0, 9999),
    amount=st.integers(0, 9999),
)
def test_what_the_form_offers_is_exactly_what_the_allowance_accepts(
    missing: int, done: int, limit: int | None, amount: int
) -> None:
    room = repair_room(missing, done, limit)
    assert 0 <= room <= missing
    if amount <= missing:
        assert (amount <= room) == (not over_allowance("flotation", amount, done, limit))


@settings(max_examples=examples(60), deadline=None, derandomize=True, database=None)
@given(name=st.text(min_size=1, max_size=80), position=st.integers(1, 999))
def test_a_closed_scenario_s_backup_is_named_for_the_campaign_and_the_scenario_number(
    name: str, position: int
) -> None:
    reason = backup_reason(name, position)
    assert BACKUP_REASON.fullmatch(reason)  # a name every backup listing and restore accepts
    assert reason.endswith(f"closed-scenario-{position}")
    assert backup_reason("Norway 1940", 3) == "norway-1940-closed-scenario-3"
    assert (
        backup_reason("\uff2e\uff41\uff52\uff56\uff49\uff4b Troms\u00f6!", 2)
        == "narvik-tromso-closed-scenario-2"
    )
