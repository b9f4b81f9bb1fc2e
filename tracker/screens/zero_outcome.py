"""The question a track at zero asks: what happened to the ship (the seeds do not say)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec
from tracker.services import damage

NOTE = (
    "SMR2 §8.7 and §9.8 are not in this tracker: say what your rulebook makes of it. "
    "The list is the campaign's own (edit it in the campaign options)."
)


def ask_zero_outcome(
    screen: TrackerScreen, ship_id: int, name: str, done: Callable[[list[str] | None], None]
) -> None:
    """Read the campaign's list of outcomes through the path, then ask for the one the player
    picks or types; `done` gets the notes of the outcome recorded."""

    def submit(values: dict[str, Any]) -> Call[list[str]]:
        outcome = values["typed"].strip() or values["outcome"]
        return Call(damage.confirm_condition, screen.factory, ship_id=ship_id, outcome=outcome)

    def ask(outcomes: Sequence[str]) -> None:
        fields = [
            FieldSpec("outcome", "What happened", kind="select", value=outcomes[0],
                      options=[(o, o) for o in outcomes]),
            FieldSpec("typed", "Or type it", placeholder="e.g. towed by Ajax"),
        ]  # fmt: skip
        title = f"{name}: Structure or Flotation at zero"
        screen.open_form(title, fields, submit, note=NOTE, done=done)

    screen.call(Call(damage.zero_outcomes, screen.factory, ship_id=ship_id), then=ask)
