"""Forms whose bounds are the ship's state (fuel to use, repairs the allowance leaves) say a
number is out of them as it is typed, with the bound the service refuses beyond."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.screens.form import parse_int
from tracker.screens.repairs import repair_fields
from tracker.screens.ship_forms import use_fuel_fields


@settings(max_examples=examples(60), deadline=None, derandomize=True, database=None)
@given(full=st.integers(0, 12), typed=st.integers(-3, 20))
def test_fuel_used_is_refused_as_typed_beyond_the_full_factors(full: int, typed: int) -> None:
    counter = cast(Any, SimpleNamespace(fuel=SimpleNamespace(full=full)))
    [spec] = use_fuel_fields(counter)
    value, problem = parse_int(str(typed), spec)
    if 1 <= typed <= (full or typed):  # none full: the service says so, the label too
        assert (value, problem) == (typed, None)
        assert full or "(of 0 full)" in spec.label
    else:
        assert value is None
        assert problem == (f"must be 1..{full}, got {typed}" if full else
                           f"must be 1 or more, got {typed}")  # fmt: skip


@settings(max_examples=examples(60), deadline=None, derandomize=True, database=None)
@given(left=st.tuples(st.integers(0, 9), st.integers(0, 9)), typed=st.integers(-2, 15))
def test_a_repair_is_refused_as_typed_beyond_what_the_allowance_leaves(
    left: tuple[int, int], typed: int
) -> None:
    structure, flotation, *_ = repair_fields(left, [], fuel=False)
    for spec, room in ((structure, left[0]), (flotation, left[1])):
        value, problem = parse_int(str(typed), spec)
        if 0 <= typed <= room:
            assert (value, problem) == (typed, None)
        else:
            assert value is None and problem == f"must be 0..{room}, got {typed}"
