"""What the player typed, checked against the one declaration of each field: every refusal is
a message in the player's words beside a field of the form; a stored row is read as it is."""

from __future__ import annotations

from typing import Any

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tracker.models.fields import read
from tracker.models.fleet import Battery, BatteryRead
from tracker.services.campaigns import SideCreate
from tracker.services.command import CommanderUpdate
from tracker.services.errors import InvalidInput
from tracker.services.fields import checked, rules
from tracker.services.fleet import BatteryUpdate, ShipCreate, SquadronCreate
from tracker.services.roster import UnitCreate

MODELS: list[type[BaseModel]] = [
    ShipCreate, SquadronCreate, UnitCreate, SideCreate, CommanderUpdate, BatteryUpdate,
]  # fmt: skip
_junk = (
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False)
    | st.text(max_size=80) | st.text(min_size=4001, max_size=4100) | st.lists(st.integers())
)  # fmt: skip


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
@settings(max_examples=examples(150), deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_every_refusal_names_a_field_in_the_players_words(
    model: type[BaseModel], data: st.DataObject
) -> None:
    keys = [rule.key for rule in rules(model)]
    values = data.draw(st.dictionaries(st.sampled_from([*keys, "typo"]), _junk), label="typed")
    try:
        checked(model, values)
    except InvalidInput as exc:
        assert exc.errors
        for key, message in exc.errors.items():
            assert key in values or key in keys, f"{key} is not a field of the form"
            # pydantic's own wording ("Input should be ...") never reaches the player.
            assert not message.startswith(("Input should", "Value error", "Field required"))
            assert message and message[0].islower() and "pydantic" not in message


@settings(max_examples=examples(60), deadline=None, derandomize=True, database=None)
@given(guns=st.integers(-(2**31), 2**31 - 1), notes=st.text(max_size=500))
def test_a_stored_row_out_of_todays_bounds_is_read_as_stored(guns: int, notes: str) -> None:
    row = Battery(id=1, ship_id=1, mount="turret", guns=guns, notes=notes, version=3)
    shown: Any = read(BatteryRead, row)
    assert (shown.guns, shown.notes, shown.version) == (guns, notes, 3)
