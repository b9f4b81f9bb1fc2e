"""A unit card's attack dice (RULES.md §Subs: four dice counts, ranges 0 to 3) are read one way
wherever a player types them: the roster's unit form, its CSV import and the library's files
each name a wrong row by its column (attack_main) in the same words."""

from __future__ import annotations

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.services import csv_import, library, roster
from tracker.services.errors import InvalidInput

WORD = st.one_of(st.just("-"), st.integers(0, 40).map(str), st.sampled_from(["x", "3.5", "-1"]))
CELL = st.lists(WORD, min_size=1, max_size=6).map(" ".join)


def _said(problems: tuple[str, ...], column: str) -> list[str]:
    """What an import's report says of one column of its only row."""
    return [line.removeprefix(f"row 2, {column}: ") for line in problems if f", {column}:" in line]


def test_every_reader_of_a_cards_dice_says_the_same_of_them(
    factory: SessionFactory, world: World
) -> None:
    @settings(max_examples=examples(30), deadline=None, derandomize=True, database=None)
    @given(row=st.sampled_from(roster.ATTACK_ROWS), cell=CELL)
    def read(row: str, cell: str) -> None:
        column = f"attack_{row}"
        units = csv_import.import_csv(
            factory, kind="units", target_id=world.red_id, dry_run=True,
            raw=f"name,unit_type,points,{column}\nZ 1,destroyer,5,{cell}\n".encode(),
        )  # fmt: skip
        cards = library.import_library(
            factory, dry_run=True,
            raw=f"name,nation,unit_type,points,{column}\nZ 1,Germany,destroyer,5,{cell}\n".encode(),
        )  # fmt: skip
        try:
            roster.unit_fields_from({"name": "Z 1", column: cell})
            form: list[str] = []
        except InvalidInput as exc:
            assert set(exc.errors) == {column}
            form = [exc.errors[column]]
        assert _said(units.problems, column) == _said(cards.problems, column)
        if form:  # malformed as typed: said before any row is checked against the card
            assert _said(units.problems, column) == form
        assert not [line for line in units.problems + cards.problems if "attacks" in line]

    read()


@pytest.mark.parametrize(
    ("dice", "said"),
    [([25, 3, 2, None], "four dice counts 0..20 (or - for none), ranges 0 to 3"),
     ([3, 2, 1], "four dice counts 0..20 (or - for none), ranges 0 to 3")],
)  # fmt: skip
def test_the_unit_service_names_a_wrong_row_by_its_forms_field(
    factory: SessionFactory, world: World, dice: list[int | None], said: str
) -> None:
    fields = {"name": "U-47", "unit_type": "submarine", "points": 10, "attacks": {"torpedo": dice}}
    with pytest.raises(InvalidInput) as refused:
        roster.save_unit(factory, side_id=world.red_id, fields=fields)
    assert refused.value.errors == {"attack_torpedo": said}
