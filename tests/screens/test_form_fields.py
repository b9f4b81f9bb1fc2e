"""Each form field of a model is the model's field: its bounds cannot differ from what the
service checks, and any number the form lets through the service takes, and no other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tracker.models.fleet import tracks_above_max
from tracker.rules import swwas
from tracker.screens import ledger_forms, ship_forms
from tracker.screens.form import FieldSpec, parse_int
from tracker.screens.hit_form import hit_fields
from tracker.screens.repairs import repair_fields
from tracker.screens.roster_forms import entered_fields, marker_fields, move_fields, unit_fields
from tracker.screens.ship_detail import battery_fields
from tracker.screens.welcome import campaign_fields
from tracker.services.campaigns import CampaignCreate, ScenarioCreate, SideCreate
from tracker.services.command import CommanderUpdate, CommandLoss, CrewUpdate, TestRoll
from tracker.services.damage import HitAmounts
from tracker.services.errors import InvalidInput
from tracker.services.fields import checked, rules
from tracker.services.fleet import BatteryUpdate, ShipCreate, SquadronCreate
from tracker.services.markers import MarkerPlace
from tracker.services.mines import (
    AirDrop,
    CounterUpdate,
    CounterView,
    MinefieldCreate,
    MinefieldTurn,
    SeaBoundaryBase,
)
from tracker.services.repairs import RepairAmounts
from tracker.services.roster import UnitCreate

# A ship with no counter entered yet, as the counter form opens on it.
BLANK_COUNTER = CounterView(
    ship_id=1, name="Ajax", side_id=1, side_name="Blue", counter_size="", speed_rating=0,
    speed_lost=0, torpedo_factors=0, mines_loaded=0, mines_laid=0, sowing_id=None,
    gunnery_lost=0, hull_boxes=0, hull_damage=0, crippled=False, sunk=False,
    fuel=swwas.Fuel(full=0, empty=0, lost=0),
)  # fmt: skip

# Every form built from a model, with the model it comes from and a row its service accepts.
FORMS: dict[str, tuple[Callable[[], list[FieldSpec]], type[BaseModel], dict[str, Any]]] = {
    "ship": (
        lambda: ship_forms.ship_fields(None),
        ShipCreate,
        {"name": "Ajax", "structure_max": 9999, "flotation_max": 9999},
    ),
    "squadron": (ship_forms.squadron_fields, SquadronCreate, {"name": "Alpha"}),
    "unit": (
        lambda: unit_fields(None),
        UnitCreate,
        {"name": "U-47", "unit_type": "submarine", "hull_points": 20},
    ),
    "side": (lambda: ship_forms.side_fields(None), SideCreate, {"name": "Blue"}),
    "scenario": (
        lambda: ship_forms.scenario_fields(None),
        ScenarioCreate,
        {"title": "River Plate"},
    ),
    "commander": (
        lambda: ship_forms.commander_fields(None),
        CommanderUpdate,
        {"name": "Harwood", "training": 3, "acquisition": "direct"},
    ),
    "crew": (lambda: ship_forms.crew_fields(None), CrewUpdate, {"training": 3}),
    "battery": (lambda: battery_fields(None), BatteryUpdate, {"mount": "turret"}),
    "counter": (lambda: ship_forms.counter_fields(BLANK_COUNTER), CounterUpdate, {}),
    "minefield": (
        lambda: [*ledger_forms.sector_fields(), *ledger_forms.sow_fields({})],
        MinefieldCreate,
        {"sector": "K7"},
    ),
    "minefield turn": (ledger_forms.complete_fields, MinefieldTurn, {}),
    "boundary": (
        ledger_forms.boundary_fields,
        SeaBoundaryBase,
        {"area_a": "North Sea", "area_b": "Skagerrak"},
    ),
    "marker move": (move_fields, MarkerPlace, {"sector": "A1"}),
    "decoy note": (lambda: marker_fields(3), MarkerPlace, {"sector": "A1"}),
    "mine roll": (entered_fields, MarkerPlace, {"sector": "A1"}),
    "campaign": (lambda: campaign_fields(None), CampaignCreate, {"name": "Plate"}),
    "hit": (lambda: hit_fields([("Ajax (Alpha)", 1)], None), HitAmounts, {}),
    "combat reductions": (ship_forms.reduction_fields, CommandLoss, {}),
    "repairs": (lambda: repair_fields((4, 2), [], fuel=True), RepairAmounts, {}),
    "air drop": (ledger_forms.aerial_fields, AirDrop, {}),
    "command or crew test": (
        lambda: ship_forms.test_fields(False),
        TestRoll,
        {"roll": 6},
    ),
}
# Model fields a form does not ask for: asked in another shape (the unit's attacks, one field
# per row), or kept by the campaign (a scenario's place, status and turn).
NOT_ASKED = {
    "unit": {"attacks"},
    "scenario": {"position", "status", "turn", "outcome", "notes"},
    # The version the form was opened with is sent by the screen, never typed.
    "commander": {"version"},
    "crew": {"version"},
    "battery": {"version"},
    "counter": {"version"},
    # A minefield's status is the ledger's to keep (sown, complete, swept).
    "minefield": {"status", "version"},
    "minefield turn": {"version"},
    # The turn of a move is the scenario's, not typed.
    "marker move": {"turn", "version"},
    "decoy note": {"turn", "version"},
    "mine roll": {"turn", "version"},
}
# A form whose numbers the ship's state bounds below its model's declaration, as the service
# refuses beyond it: the repairs the allowance leaves (the form above is opened with 4 and 2).
STATE_BOUND = {"repairs": {"structure": 4, "flotation": 2}}
# A form that asks for one declared field several times, under keys of its own.
SAME_AS = {"decoy note": lambda key: "sector" if key.startswith("sector_") else key}


def _int_specs(form: str) -> list[FieldSpec]:
    """The form's whole-number fields its model declares (a count the form is opened with,
    as the decoy note's real marker, is bounded by the row, not by a declaration)."""
    declared = FORMS[form][1].model_fields
    return [spec for spec in FORMS[form][0]() if spec.kind == "int" and spec.key in declared]


@pytest.mark.parametrize("form", FORMS)
def test_a_forms_fields_have_the_bounds_its_model_declares(form: str) -> None:
    build, model, _ = FORMS[form]
    key_of = SAME_AS.get(form, lambda key: key)
    specs = {key_of(spec.key): spec for spec in build()}
    declared = {rule.key: rule for rule in rules(model)}
    assert declared.keys() - specs.keys() == NOT_ASKED.get(form, set())
    for key, spec in specs.items():
        if key not in declared:
            continue  # not a field of the model (a unit's attack row)
        rule = declared[key]
        high = STATE_BOUND.get(form, {}).get(key, rule.high)
        assert (spec.kind, spec.low, spec.high, spec.optional) == (
            rule.kind, rule.low, high, rule.optional,
        ), f"{form}.{key}: the form's bounds differ from the model's"  # fmt: skip


def _service_refuses(model: type[BaseModel], row: dict[str, Any], key: str, value: int) -> bool:
    """Whether the service refuses the field's value for its own bounds. A track above its
    maximum is a rule of two fields, which one field of the form cannot know: the service says
    it on the field (tests/services/test_ship_tracks.py)."""
    try:
        checked(model, {**row, key: value})
    except InvalidInput as exc:
        return exc.errors.get(key) not in (None, tracks_above_max({**row, key: value}).get(key))
    return False


@pytest.mark.parametrize("form", [form for form in FORMS if _int_specs(form)])
@settings(max_examples=examples(300), deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_the_form_takes_a_number_exactly_when_its_service_does(
    form: str, data: st.DataObject
) -> None:
    _, model, row = FORMS[form]
    spec = data.draw(st.sampled_from(_int_specs(form)), label="field")
    edges = [bound + step for bound in (spec.low, spec.high) if bound is not None
             for step in (-1, 0, 1)]  # fmt: skip
    value = data.draw(
        st.sampled_from(edges) | st.integers(-(2**40), 2**40) | st.integers(-200, 200),
        label="value",
    )
    _, form_error = parse_int(str(value), spec)
    beyond_state = value > STATE_BOUND.get(form, {}).get(spec.key, value)
    refused = beyond_state or _service_refuses(model, row, spec.key, value)
    assert (form_error is None) == (not refused)
