"""The benchmark's generator (bench/generate.py) picks each value within the bounds and among
the words its model declares: a bound or a word changed in the model is followed by the
generated campaigns, which the campaign-file check then takes (test_exchange_bulk)."""

from __future__ import annotations

import random
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import create_model
from sqlmodel import Field, SQLModel

from tracker.models.fields import field
from tracker.models.fleet import Ship
from tracker.models.kinds import Stored

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the generator lives beside the package, in bench/
    sys.path.insert(0, str(ROOT))

from bench.generate import declared_words, pick  # noqa: E402

SETTINGS = settings(max_examples=examples(200), deadline=None, derandomize=True, database=None)
BOUND = st.integers(-50, 50)


def _bounded(low: int | None, high: int | None) -> Any:
    bounds = {key: value for key, value in (("ge", low), ("le", high)) if value is not None}
    return create_model("Counted", __base__=SQLModel, count=(int, Field(0, **bounds)))


@SETTINGS
@given(declared=st.tuples(BOUND, BOUND).map(sorted), wanted=st.tuples(BOUND, BOUND).map(sorted),
       seed=st.integers(0, 2**32))  # fmt: skip
def test_a_picked_number_is_within_the_declared_bounds_and_the_wanted_ones_where_they_meet(
    declared: list[int], wanted: list[int], seed: int
) -> None:
    model = _bounded(*declared)
    value = pick(random.Random(seed), model, "count", *wanted)
    assert declared[0] <= value <= declared[1]
    if wanted[0] <= declared[1] and declared[0] <= wanted[1]:
        assert wanted[0] <= value <= wanted[1]


@SETTINGS
@given(declared=st.tuples(BOUND, BOUND).map(sorted), seed=st.integers(0, 2**32))
def test_a_number_wanted_anywhere_is_anywhere_in_the_declared_bounds(
    declared: list[int], seed: int
) -> None:
    value = pick(random.Random(seed), _bounded(*declared), "count")
    assert declared[0] <= value <= declared[1]


def test_a_field_with_no_bounds_and_no_wish_is_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="declares no bounds"):
        pick(random.Random(1), _bounded(None, None), "count")


def test_the_generators_ships_follow_the_ship_family() -> None:
    rng = random.Random(7)
    speeds = {pick(rng, Ship, "speed_kn", 50, 90) for _ in range(200)}
    assert max(speeds) == 60 and min(speeds) >= 50  # Ship: speed 0..60 knots


class Weather(StrEnum):
    CALM = "calm"
    SQUALL = "squall"


def test_the_words_picked_are_the_models_words() -> None:
    model = create_model(
        "Sea", __base__=SQLModel, weather=(Stored[Weather], field("calm", label="Weather"))
    )
    assert declared_words(model, "weather") == ("calm", "squall")
    assert set(declared_words(Ship, "counter_size")) == {"", "long", "small"}
    with pytest.raises(ValueError, match="declares no words"):
        declared_words(Ship, "name")
