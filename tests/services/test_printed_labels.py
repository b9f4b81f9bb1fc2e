"""A printed sheet names a ship's fields as the ship's family declares them (their `printed`
label, else their form's): a label changed in the model is the sheet's at once. On SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from string import ascii_letters

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.models.fields import printed_label
from tracker.publish import sheet_pages
from tracker.services.views import ShipView

LABEL = st.text(st.sampled_from(ascii_letters + " "), max_size=12).map(str.strip).filter(bool)


def _markdown(factory: SessionFactory, squadron_id: int) -> str:
    return sheet_pages.squadron_page(factory, squadron_id=squadron_id, fmt="markdown")


def _header(factory: SessionFactory, squadron_id: int) -> str:
    lines = _markdown(factory, squadron_id).splitlines()
    return next(line for line in lines if line.startswith("| Ship |"))


def test_the_sheets_table_of_ships_names_each_field_by_its_printed_label(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    add_ship(world.alpha_id, "Exeter")
    labels = [printed_label(ShipView, key) for key in sheet_pages.TABLED]
    assert _header(factory, world.alpha_id) == "| " + " | ".join(["Ship", *labels, "Status"]) + " |"


@settings(
    max_examples=examples(10), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip
@given(key=st.sampled_from(sheet_pages.TABLED), label=LABEL)
def test_a_printed_label_changed_in_the_model_is_the_sheets(
    world: World, factory: SessionFactory, add_ship: Callable[..., int], key: str, label: str
) -> None:
    if not _markdown(factory, world.alpha_id).count("### "):
        add_ship(world.alpha_id, "Exeter")
    with pytest.MonkeyPatch.context() as patch:
        extra = ShipView.model_fields[key].json_schema_extra
        assert isinstance(extra, dict)
        patch.setitem(extra, "printed", label)
        cells = _header(factory, world.alpha_id).strip("| ").split(" | ")
    assert cells[1 + sheet_pages.TABLED.index(key)] == label
