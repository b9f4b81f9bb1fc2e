"""The question a track at zero asks: what happened to the ship (the seeds do not say)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec, FormScreen
from tracker.services import damage
from tracker.services.common import SessionFactory

NOTE = (
    "SMR2 §8.7 and §9.8 are not in this tracker: say what your rulebook makes of it. "
    "The list is the campaign's own (edit it in the campaign options)."
)


def ask_zero_outcome(
    screen: TrackerScreen, ship_id: int, name: str, done: Callable[[list[str] | None], None]
) -> None:
    """Read the campaign's list of outcomes through the path, then ask; `done` gets the notes."""

    def ask(outcomes: Sequence[str]) -> None:
        screen.app.push_screen(zero_outcome_form(screen.factory, ship_id, name, outcomes), done)

    screen.call(Call(damage.zero_outcomes, screen.factory, ship_id=ship_id), then=ask)


def zero_outcome_form(
    factory: SessionFactory, ship_id: int, name: str, outcomes: Sequence[str]
) -> FormScreen:
    """A form that records the outcome the player picks or types; it dismisses with the notes."""
    fields = [
        FieldSpec("outcome", "What happened", kind="select", value=outcomes[0],
                  options=[(o, o) for o in outcomes]),
        FieldSpec("typed", "Or type it", placeholder="e.g. towed by Ajax"),
    ]  # fmt: skip

    def submit(values: dict[str, Any]) -> Call[list[str]]:
        outcome = values["typed"].strip() or values["outcome"]
        return Call(damage.confirm_condition, factory, ship_id=ship_id, outcome=outcome)

    return FormScreen(f"{name}: Structure or Flotation at zero", fields, submit, note=NOTE)
