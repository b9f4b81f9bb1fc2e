"""What a screen shows comes back as its family's read model: each field it shares with the form
is the one declaration (label, help, bounds), and a stored row is read as stored, with what the
rules derive from it beside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from tracker.models.campaign import Campaign
from tracker.models.fields import printed_label, read, rule_of
from tracker.models.fleet import Crew, Ship
from tracker.publish import sheet_pages
from tracker.rules.swwas import Fuel
from tracker.screens import ship_forms
from tracker.screens.form import FieldSpec
from tracker.screens.roster_forms import move_fields, unit_fields
from tracker.screens.welcome import campaign_fields
from tracker.services import mines, roster, views


def _counter() -> Any:
    row = Ship(id=1, side_id=1, squadron_id=1, original_squadron_id=1, name="Ajax")
    return read(mines.CounterView, row, ship_id=1, side_name="Blue", mines_laid=0,
                sowing_id=None, fuel=Fuel(full=0, empty=0, lost=0))  # fmt: skip


# Each read model a screen shows, with the form that edits what it shows.
READS: dict[str, tuple[type[BaseModel], Callable[[], list[FieldSpec]]]] = {
    "ship": (views.ShipView, lambda: ship_forms.ship_fields(None)),
    "commander": (views.CommanderView, lambda: ship_forms.commander_fields(None)),
    "crew": (views.CrewView, lambda: ship_forms.crew_fields(None)),
    "unit": (roster.UnitView, lambda: unit_fields(None)),
    "campaign": (views.CampaignSummary, lambda: campaign_fields(None)),
    "scenario": (views.ScenarioView, lambda: ship_forms.scenario_fields(None)),
    "side": (views.SideView, lambda: ship_forms.side_fields(None)),
    "marker": (roster.MarkerView, move_fields),
    "counter": (mines.CounterView, lambda: ship_forms.counter_fields(_counter())),
}


@pytest.mark.parametrize("name", READS)
def test_a_read_models_labels_are_the_ones_its_form_shows(name: str) -> None:
    model, form = READS[name]
    specs = [spec for spec in form() if spec.key in model.model_fields]
    # Only the unit card's attack rows are asked in another shape (one field a row).
    others = {spec.key for spec in form()} - {spec.key for spec in specs}
    assert specs and all(key.startswith("attack_") for key in others), others
    for spec in specs:
        rule = rule_of(spec.key, model.model_fields[spec.key])
        # The form adds what a blank means to the label, never other words.
        assert spec.label.startswith(rule.label), (spec.key, spec.label, rule.label)
        assert (spec.low, spec.high, spec.options) == (rule.low, rule.high, rule.options)


@pytest.mark.parametrize("name", READS)
def test_a_read_model_is_frozen(name: str) -> None:
    model, _ = READS[name]
    assert model.model_config.get("frozen") is True


# Stored values, today's bounds or not: an older file's row is shown as it is.
_int = st.integers(-(2**31), 2**31 - 1)
_text = st.text(max_size=80)


@given(
    values=st.fixed_dictionaries(
        {"name": _text, "class_name": _text, "speed_kn": _int, "structure_max": _int,
         "structure_now": _int, "fire_markers": _int, "notes": st.text(max_size=500)}
    ),
    derived=st.fixed_dictionaries({"crew_percent": _int, "points_total": _int,
                                   "out_of_command": st.booleans()}),
)  # fmt: skip
def test_a_ship_row_is_read_as_stored_with_what_is_derived(
    values: dict[str, Any], derived: dict[str, Any]
) -> None:
    row = Ship(id=7, side_id=1, squadron_id=2, original_squadron_id=2, version=4, **values)
    shown: Any = read(views.ShipView, row, structure_third=False, flotation_third=False,
                      base_width_cm=1.0, **derived)  # fmt: skip
    for key, value in {**values, **derived, "id": 7, "version": 4, "squadron_id": 2}.items():
        assert getattr(shown, key) == value, key
    # What neither the row nor the caller gives takes the read model's default.
    assert (shown.batteries, shown.own_crew, shown.criticals_in_force) == ((), None, 0)


@given(training=_int, roll=st.none() | _int, grade=_int, quality=_text)
def test_a_derived_value_wins_over_the_rows(
    training: int, roll: int | None, grade: int, quality: str
) -> None:
    row = Crew(id=1, campaign_id=1, training=training, roll=roll, grade=grade, modifier_now=0)
    shown: Any = read(views.CrewView, row, quality=quality, modifier_base=0, cost_percent=0,
                      grade=grade + 1)  # fmt: skip
    assert (shown.training, shown.roll, shown.quality, shown.grade) == (
        training, roll, quality, grade + 1
    )  # fmt: skip


def _printed_ship(**values: Any) -> Any:
    row = Ship(id=1, side_id=1, squadron_id=1, original_squadron_id=1, **values)
    derived = {"structure_third": False, "flotation_third": False, "crew_percent": 0,
               "points_total": 0, "base_width_cm": 1.0, "out_of_command": False}  # fmt: skip
    return read(views.ShipView, row, **derived)


@pytest.mark.parametrize("key", ["size_modifier", "speed_kn", "armour_class", "points_base",
                                 "torpedoes", "sraa_dp", "radar"])  # fmt: skip
def test_a_printed_label_is_the_ships_declaration(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ship = _printed_ship(name="Ajax", torpedoes="2x4", sraa_dp="4", radar="279")
    labels = dict(sheet_pages.ship_data(ship))
    assert printed_label(views.ShipView, key) in labels
    # Declared once: the print follows a change of the declaration, with nothing else changed.
    extra = views.ShipView.model_fields[key].json_schema_extra
    assert isinstance(extra, dict)
    monkeypatch.setitem(extra, "printed", "Renamed")
    assert "Renamed" in dict(sheet_pages.ship_data(ship))


def test_a_counter_read_again_after_an_undo_is_the_same_counter_in_another_version() -> None:
    counter = _counter()
    assert counter.model_copy(update={"version": 9}) == counter
    assert counter.model_copy(update={"hull_damage": 1}) != counter


@given(name=st.text(min_size=1, max_size=80), notes=_text, points=_int)
def test_the_campaign_form_opens_on_the_campaigns_read_model(
    name: str, notes: str, points: int
) -> None:
    row = Campaign(id=1, name=name, notes=notes, was_fleet_points=points)
    summary = read(views.CampaignSummary, row, sides=0, ships=0, current_scenario="")
    shown = {spec.key: spec.value for spec in campaign_fields(summary)}
    assert (shown["name"], shown["notes"], shown["was_fleet_points"]) == (name, notes, points)
