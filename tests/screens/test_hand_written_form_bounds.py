"""The forms still written field by field (the rule tables' rows, a mine check's set-up) ask for
numbers within the bounds their model declares, the one declaration their services check
against (services.fields.require_declared): a bound changed on either side fails here."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from test_form_fields import FORMS as MODEL_FORMS

from tracker import screens
from tracker.models import MineCheck
from tracker.models.damage import CriticalTableRowBase
from tracker.models.mines import MineTableRowBase
from tracker.screens import mine_check
from tracker.screens.critical_tables import CriticalTablesScreen
from tracker.screens.form import FieldSpec, parse_int
from tracker.screens.mine_table import MineTableScreen
from tracker.services.fields import require_declared, rules


def _mine_check_fields() -> list[FieldSpec]:
    """The set-up form a task force entering a minefield fills in, as the ledger opens it."""
    opened: list[list[FieldSpec]] = []
    screen = SimpleNamespace(
        current_campaign_id=lambda: 1,
        open_form=lambda title, fields, submit, **options: opened.append(fields),
    )
    field = SimpleNamespace(id=1, count_here=1)
    mine_check._ask_setup(cast(Any, screen), cast(Any, field), [1, 2])
    (fields,) = opened
    return list(fields)


# Each form written by hand, with the model whose declarations its service checks.
FORMS: dict[str, tuple[Callable[[], list[FieldSpec]], type[BaseModel]]] = {
    "mine table row": (lambda: MineTableScreen._fields(cast(Any, None), None), MineTableRowBase),
    "critical table row": (
        lambda: CriticalTablesScreen._fields(cast(Any, None), None),
        CriticalTableRowBase,
    ),
    "mine check": (_mine_check_fields, MineCheck),
}


def _declared_numbers(form: str) -> list[FieldSpec]:
    build, model = FORMS[form]
    return [spec for spec in build() if spec.kind == "int" and spec.key in model.model_fields]


@pytest.mark.parametrize("form", FORMS)
def test_a_hand_written_forms_numbers_have_the_bounds_its_model_declares(form: str) -> None:
    _, model = FORMS[form]
    specs = _declared_numbers(form)
    assert specs, f"{form}: no number of the form is its model's"
    for spec in specs:
        (rule,) = rules(model, (spec.key,))
        assert (spec.low, spec.high) == (rule.low, rule.high), (
            f"{form}.{spec.key}: the form asks for {spec.low}..{spec.high}, "
            f"the model declares {rule.low}..{rule.high}"
        )


@pytest.mark.parametrize("form", FORMS)
@settings(max_examples=examples(150), deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_the_form_takes_a_number_exactly_when_its_service_does(
    form: str, data: st.DataObject
) -> None:
    _, model = FORMS[form]
    spec = data.draw(st.sampled_from(_declared_numbers(form)), label="field")
    edges = [bound + step for bound in (spec.low, spec.high) if bound is not None
             for step in (-1, 0, 1)]  # fmt: skip
    value = data.draw(st.sampled_from(edges) | st.integers(-(2**40), 2**40), label="value")
    _, form_error = parse_int(str(value), spec)
    errors: dict[str, str] = {}
    require_declared(errors, model, **{spec.key: value})
    assert (form_error is None) == (spec.key not in errors)


def _models_forms_are_built_from() -> set[str]:
    """The models every screen's specs_from call builds a form from, by name."""
    found = set()
    for path in Path(screens.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "specs_from" and node.args
                    and isinstance(node.args[0], ast.Name)):  # fmt: skip
                found.add(node.args[0].id)
    return found


def test_every_model_a_form_is_built_from_has_its_bounds_compared() -> None:
    built = _models_forms_are_built_from()
    assert len(built) >= 10, built  # the scan finds the forms
    compared = {model.__name__ for _, model, _ in MODEL_FORMS.values()}
    assert built <= compared, f"add {sorted(built - compared)} to test_form_fields.FORMS"
