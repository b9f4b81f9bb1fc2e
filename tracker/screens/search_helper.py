"""The hunt: the search target for a sector, step by step, and the roll (seed 004 §4)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tracker.rules import was
from tracker.screens.form import FieldSpec, FormScreen

SEARCHER_LABELS = {
    "patrol_bomber": "Patrol bomber (4+)",
    "aircraft": "Other aircraft with ASW (5+)",
    "surface": "Surface unit with ASW (5+)",
    "submarine": "Submarine (5+, no modifiers)",
}


def search_preview(values: dict[str, Any]) -> str:
    """The target with each modifier, then what the roll does."""
    extra, hunters, enemies = (values.get(k) for k in ("extra_asw_units", "sub_hunters",
                                                       "enemy_units"))  # fmt: skip
    if not (isinstance(extra, int) and isinstance(hunters, int) and isinstance(enemies, int)):
        return "Give the numbers of units present."
    steps = was.search_breakdown(
        values["searcher"], extra_asw_units=extra, sub_hunters=hunters, enemy_units=enemies,
        night_or_weather=bool(values.get("night_or_weather")),
        elusive_quarry=bool(values.get("elusive_quarry")),
    )  # fmt: skip
    target = sum(change for _, change in steps)
    shown = ", ".join(label if change == 0 or label.startswith("base") else f"{label} {change:+d}"
                      for label, change in steps)  # fmt: skip
    text = f"{shown} = {target}+" if target <= 6 else f"{shown} = {target}+: cannot succeed"
    roll = values.get("roll")
    if isinstance(roll, int):
        found = was.search_succeeds(roll, target)
        verdict = "FOUND: it may be attacked" if found else "not found"
        text += f"\nd6 {roll}: {verdict}" + (" (a 1 always fails)" if roll == 1 else "")
    else:
        text += "\nType the d6, or press ctrl+r to roll."
    return text


def search_helper_form(
    rng: random.Random | None = None,
    record: Callable[[int, int], str] | None = None,
    marker: str = "",
) -> FormScreen:
    """A form that works out a search; with `record`, a roll is journaled against the marker."""
    fields = [
        FieldSpec("searcher", "Best searcher present", kind="select", value="patrol_bomber",
                  options=[(label, key) for key, label in SEARCHER_LABELS.items()]),
        FieldSpec("extra_asw_units", "Other friendly ASW units", kind="int", value=0, low=0,
                  high=20),
        FieldSpec("sub_hunters", "Units with Sub Hunter", kind="int", value=0, low=0,
                  high=20),
        FieldSpec("enemy_units", "Enemy air/surface units there", kind="int", value=0, low=0,
                  high=20),
        FieldSpec("night_or_weather", "Night, smoke or weather", kind="bool", value=False),
        FieldSpec("elusive_quarry", "Hunted sub has Elusive Quarry", kind="bool", value=False),
        FieldSpec("roll", "d6 rolled", kind="int", value="", low=1, high=6, optional=True),
    ]  # fmt: skip

    def submit(values: dict[str, Any]) -> str:
        roll = values.get("roll")
        if record is not None and isinstance(roll, int):
            target = was.search_target(
                values["searcher"], extra_asw_units=values["extra_asw_units"],
                sub_hunters=values["sub_hunters"], enemy_units=values["enemy_units"],
                night_or_weather=values["night_or_weather"],
                elusive_quarry=values["elusive_quarry"],
            )  # fmt: skip
            return record(target, roll)
        return search_preview(values).splitlines()[-1]

    title = f"Search for marker {marker}" if marker else "Search for a submarine marker"
    return FormScreen(
        title, fields, submit, preview=search_preview,
        dice_field="roll", dice_sides=6, rng=rng,
        note="One search per sector with enemy markers; the unit with the best chance rolls.",
    )  # fmt: skip
