"""A dialog's buttons do what its keys do: a confirmation's yes and no, a form's save, roll
and cancel, clicked with the mouse."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Button

from tracker.screens.confirm import ConfirmScreen
from tracker.screens.form import FieldSpec, FormScreen

ROLL = [FieldSpec("roll", "d10", kind="int", value="", low=1, high=10)]


async def _clicked(screen: Screen[Any], label: str) -> tuple[list[Any], Screen[Any]]:
    """The dialog's results once the button whose label starts with `label` is clicked."""
    results: list[Any] = []
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.push_screen(screen, results.append)
        await pilot.pause()
        button = next(b for b in screen.query(Button) if str(b.label).startswith(label))
        await pilot.click(button)
        await pilot.pause()
    return results, screen


@pytest.mark.parametrize(("label", "answer"), [("Yes", True), ("No", False)])
async def test_a_confirmation_answers_as_its_button_says(label: str, answer: bool) -> None:
    results, _ = await _clicked(ConfirmScreen("Delete Exeter?"), label)
    assert results == [answer]


async def test_a_forms_save_button_saves_and_cancel_closes_it_unsaved() -> None:
    fields = [FieldSpec("structure", "Structure", kind="int", value=3, low=0, high=99)]
    saved, _ = await _clicked(FormScreen("Edit", fields, lambda values: values), "Save")
    assert saved == [{"structure": 3}]
    cancelled, _ = await _clicked(FormScreen("Edit", fields, lambda values: values), "Cancel")
    assert cancelled == [None]


async def test_a_forms_roll_button_rolls_the_die_into_its_field() -> None:
    results, form = await _clicked(FormScreen("Roll", ROLL, lambda v: v, dice_field="roll"), "Roll")
    assert not results  # still open: the roll is in the field, not saved
    assert isinstance(form, FormScreen) and form.rolled is not None
