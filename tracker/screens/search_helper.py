"""The hunt: the search target for a sector and the roll (RULES.md §Subs ¶4).

Against a marker on the roster the target comes from the service, which adds the hunted sub's
own abilities (Elusive Quarry): the hunter sees the final number only, never why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tracker.rules import was
from tracker.rules.dice import roll_text
from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec, FormScreen
from tracker.services.hunt import SearchParty

SEARCHER_LABELS = {
    "patrol_bomber": "Patrol bomber (4+)",
    "aircraft": "Other aircraft with ASW (5+)",
    "surface": "Surface unit with ASW (5+)",
    "submarine": "Submarine (5+, no modifiers)",
}
COUNTS = ("extra_asw_units", "sub_hunters", "enemy_units")


def _party(values: dict[str, Any]) -> SearchParty | None:
    if not all(isinstance(values.get(key), int) for key in COUNTS):
        return None
    return SearchParty(
        searcher=values["searcher"], night_or_weather=bool(values.get("night_or_weather")),
        **{key: values[key] for key in COUNTS},
    )  # fmt: skip


def _roll_text(values: dict[str, Any], target: int) -> str:
    roll = values.get("roll")
    if not isinstance(roll, int):
        return "\nType the d6, or press ctrl+r to roll."
    found = was.search_succeeds(roll, target)
    verdict = "FOUND: it may be attacked" if found else "not found"
    return f"\n{roll_text(roll)}: {verdict}" + (" (a 1 always fails)" if roll == 1 else "")


def search_helper_form(
    record: Callable[[SearchParty, int], Call[str]],
    marker: str,
    target_of: Callable[[SearchParty], Call[int]],
) -> FormScreen:
    """A form that works out a search against a marker: `target_of` gives its final target
    (hidden modifiers included), and `record` journals a roll against it."""
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
        FieldSpec("roll", "d6 rolled", kind="int", value="", low=1, high=6, optional=True),
    ]  # fmt: skip

    def preview(values: dict[str, Any]) -> str | Call[str]:
        party = _party(values)
        if party is None:
            return "Give the numbers of units present."

        def said(target: int) -> str:
            # The final number only: the hunted sub's own abilities are its owner's secret.
            text = f"Target: {target}+" if target <= 6 else f"Target: {target}+: cannot succeed"
            return text + _roll_text(values, target)

        return target_of(party).map(said)

    def submit(values: dict[str, Any]) -> str | Call[str]:
        roll, party = values.get("roll"), _party(values)
        if isinstance(roll, int) and party is not None:
            return record(party, roll)
        said = preview(values)
        if isinstance(said, Call):
            return said.map(lambda text: text.splitlines()[-1])
        return said.splitlines()[-1]

    return FormScreen(
        f"Search for marker {marker}", fields, submit, preview=preview,
        dice_field="roll", dice_sides=6,
        note="One search per square per turn, by the unit with the best chance; a marker is "
        "attacked only once a search found it this turn.",
    )  # fmt: skip
