"""Escape on a form: an untouched one closes at once; one the player typed in asks first, and
keeps what was typed on no."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.widgets import Checkbox, Input, Select

from tracker.screens.confirm import ConfirmScreen
from tracker.screens.form import FieldSpec, FormScreen

FIELDS = [
    FieldSpec("name", "Name", value="Exeter"),
    FieldSpec("structure", "Structure", kind="int", value=3, low=0, high=99),
    FieldSpec("sunk", "Sunk", kind="bool", value=False),
    FieldSpec("kind", "Kind", kind="select", value="structural",
              options=[("structural", "structural"), ("underwater", "underwater")]),
]  # fmt: skip
# Each field changed as a player would leave it: another name, another number, ticked, picked.
CHANGED: dict[str, Any] = {"name": "Exeter II", "structure": "4", "sunk": True,
                           "kind": "underwater"}  # fmt: skip


class FormApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[Any] = []
        self.saved: list[dict[str, Any]] = []

    def on_mount(self) -> None:
        def submit(values: dict[str, Any]) -> str:
            self.saved.append(values)
            return "saved"

        self.push_screen(FormScreen("Edit Exeter", FIELDS, submit), self.results.append)


# Each field as the form opens: what its widget holds.
OPENED: dict[str, Any] = {"name": "Exeter", "structure": "3", "sunk": False, "kind": "structural"}


async def with_field(pilot: Any, key: str, value: Any) -> FormScreen:
    """The open form, with one field set as the player left it."""
    await pilot.pause()
    form = pilot.app.screen
    assert isinstance(form, FormScreen)
    widget = form.query_one(f"#field-{key}")
    assert isinstance(widget, (Input, Checkbox, Select))
    assert widget.value == OPENED[key]
    widget.value = value
    await pilot.pause()
    return form


async def test_escape_on_an_untouched_form_closes_it_at_once() -> None:
    app = FormApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None] and not isinstance(app.screen, (FormScreen, ConfirmScreen))


@pytest.mark.parametrize("key", list(CHANGED))
async def test_escape_on_a_filled_form_asks_and_no_keeps_what_was_typed(key: str) -> None:
    app = FormApp()
    async with app.run_test() as pilot:
        form = await with_field(pilot, key, CHANGED[key])
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "discard" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is form and app.results == []
        assert form.query_one(f"#field-{key}").value == CHANGED[key]  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert app.results == [None] and app.saved == []


@pytest.mark.parametrize("key", list(CHANGED))
async def test_a_field_changed_and_changed_back_leaves_the_form_untouched(key: str) -> None:
    app = FormApp()
    async with app.run_test() as pilot:
        form = await with_field(pilot, key, CHANGED[key])
        form.query_one(f"#field-{key}").value = OPENED[key]  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]
