"""What the JSON columns of a campaign document and its notes must hold, so that the screens
can read them (services.document_checks refuses a file whose rows do not): a journal entry's
detail and dice, a minefield's drift path, a snapshot's criticals and counter, a unit's or a
card's attacks and abilities, a marker's note and a secret minefield's place.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from tracker.rules.checks import is_int


def _texts(value: Any, *keys: str) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(key, ""), str) for key in keys)


def _path(value: Any) -> bool:
    """A drifting minefield's moves: [{"turn", "from", "to", "d6"}]."""
    return isinstance(value, list) and all(
        _texts(step, "from", "to") and {"from", "to"} <= step.keys()
        and all(step.get(key) is None or is_int(step[key]) for key in ("turn", "d6"))
        for step in value
    )  # fmt: skip


def _dice(value: Any) -> bool:
    """An entry's dice as the journal shows them: the criticals rolled, or numbers (a d6 or a
    d10, the modifiers with their sign and what they add up to, a seed)."""
    if value is None:
        return True
    if not isinstance(value, dict):
        return False
    if "criticals" in value:
        rolls = value["criticals"]
        return isinstance(rolls, list) and all(
            _texts(roll, "kind") and roll.get("kind") and is_int(roll.get("roll")) for roll in rolls
        )
    rolled = value.get("d10") is not None
    return (
        all(number is None or isinstance(number, int) for number in value.values())
        and ("drm" not in value or (is_int(value["drm"]) and "modified" in value))
        and not (rolled and "total" in value and not is_int(value.get("modifier")))
        and not (rolled and value.get("commander_modifier") is not None
                 and "modified" not in value)
    )  # fmt: skip


def _detail(value: Any) -> bool:
    return (isinstance(value, dict) and _dice(value.get("dice"))
            and all(value.get(key) is None or isinstance(value[key], dict)
                    for key in ("before", "after")))  # fmt: skip


def _attacks(value: Any) -> bool:
    """A unit card's attack dice: {"main": [r0, r1, r2, r3], ...}, null where the card has -."""
    return isinstance(value, dict) and all(
        isinstance(dice, list) and len(dice) == 4
        and all(die is None or (is_int(die) and 0 <= die <= 20) for die in dice)
        for dice in value.values()
    )  # fmt: skip


def _criticals(value: Any) -> bool:
    return isinstance(value, list) and all(_texts(item, "kind", "effect") for item in value)


def _marker_note(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("real"), bool)
            and isinstance(value.get("salt"), str))  # fmt: skip


def _sealed_place(value: Any) -> bool:
    """A secret minefield's place and notes (mines.places.store)."""
    areas = value.get("boundary") if isinstance(value, dict) else None
    return (_texts(value, "sector", "notes", "layer_name") and _path(value.get("path", []))
            and (areas is None or (isinstance(areas, list) and len(areas) == 2
                                   and all(isinstance(area, str) for area in areas))))  # fmt: skip


# The text columns that hold JSON, and what the screens read from them.
JSON_SHAPES: dict[tuple[str, str], Callable[[Any], bool]] = {
    ("journalentry", "detail"): _detail,
    ("minefield", "path"): _path,
    ("shipsnapshot", "criticals"): _criticals,
    ("shipsnapshot", "counter"): lambda value: isinstance(value, dict),
    ("wasunit", "attacks"): _attacks,
    ("unitcard", "attacks"): _attacks,
    ("unitcard", "abilities"): lambda value: (
        isinstance(value, list)
        and all(_texts(item, "name", "text") and "name" in item for item in value)
    ),
}
# Notes kept plain ("plain:{json}") or sealed under the side's passphrase ("fernet:token").
NOTES: dict[tuple[str, str], Callable[[Any], bool]] = {
    ("submarker", "secret"): _marker_note,
    ("minefield", "sealed"): _sealed_place,
}


def shape_problem(name: str, column: str, value: str, locked: bool) -> str | None:
    """What is wrong with what a JSON column or a note holds, or None."""
    if (name, column) in NOTES:
        if name == "minefield" and not value:
            return None  # a minefield that is not secret keeps its place in its columns
        if value.startswith("fernet:"):
            return None if locked else "is sealed, but its side has no passphrase to open it"
        shape = NOTES[name, column]
        if not value.startswith("plain:"):
            return "is neither a plain nor a sealed note"
        value = value[len("plain:") :]
    else:
        shape = JSON_SHAPES[name, column]
    try:
        return None if shape(loads_json(value)) else "does not hold what tracker writes there"
    except (ValueError, RecursionError):
        return "is not JSON"


def loads_json(text: str) -> Any:
    """JSON text read by orjson (several times faster), or by the standard reader for what
    orjson refuses and it reads (a whole number past 64 bits, NaN): the same values either way."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
