"""The War at Sea card list players share, read as it is: a list of nations, each with its
`name`, `alliance` (0 Axis, 1 Allies) and `units`, each unit a card in its own words (`type`
"Ship - Destroyer", the attacks as four range bands of "6" or "-", `special_abilities` as name
to text, `planes`, `class`, `set`). Each unit becomes a card entry as the library's own JSON
holds one (services.library reads both alike); nothing of the list ships with the tracker.
"""

from __future__ import annotations

from typing import Any

# The list's attack bands, by the card's attack rows (services.roster.ATTACK_ROWS).
BANDS = {
    "main": "main_gunnery_attack", "secondary": "secondary_gunnery_attack",
    "tertiary": "tertiary_gunnery_attack", "anti_air": "anti_aircraft_attack",
    "asw": "anti_submarine_attack", "torpedo": "torpedo_attack", "bomb": "bomb_attack",
}  # fmt: skip
# The list's words for a card's own fields, where they differ.
SAME = ("name", "points", "year", "flagship", "armor", "vital_armor", "hull_points", "rarity",
        "set_number", "back_text")  # fmt: skip
RENAMED = {"set_name": "set", "class_name": "class", "plane_capacity": "planes"}
ALLIANCES = {0: "Axis", 1: "Allies"}


def is_card_list(document: Any) -> bool:
    """Whether a JSON document is the shared card list: nations, each with its units."""
    if not isinstance(document, list) or not document:
        return False
    return all(isinstance(n, dict) and isinstance(n.get("units"), list) for n in document)


def _die(text: Any) -> int | None:
    """A band's die count: "6" is 6, "-" none; anything else is out of range, for the card's
    check to name (-1)."""
    if text == "-" or text is None:
        return None
    return int(text) if isinstance(text, (str, int)) and str(text).isdigit() else -1


def _card(nation: dict[str, Any], unit: dict[str, Any]) -> dict[str, Any]:
    card: dict[str, Any] = {key: unit[key] for key in SAME if unit.get(key) is not None}
    card |= {ours: unit[theirs] for ours, theirs in RENAMED.items() if unit.get(theirs) is not None}
    card["nation"] = str(nation.get("name") or "")
    alliance = nation.get("alliance")
    card["alliance"] = (
        ALLIANCES.get(alliance, "") if isinstance(alliance, int) else str(alliance or "")
    )
    kind = str(unit.get("type") or "")
    card["unit_type"] = kind.rsplit(" - ", 1)[-1].strip().lower()  # "Ship - Destroyer"
    if unit.get("speed") is not None:
        card["speed"] = str(unit["speed"])
    air = unit.get("aircraft_gunnery_attack") or []
    if air:  # a fighter's attack on aircraft: its air-to-air dice
        card["air_to_air"] = _die(air[0])
    card["attacks"] = {row: [_die(d) for d in unit[band]]
                       for row, band in BANDS.items() if unit.get(band)}  # fmt: skip
    abilities = unit.get("special_abilities") or {}
    if isinstance(abilities, dict):  # name to text, in the card's order
        abilities = [{"name": str(name), "text": str(text)} for name, text in abilities.items()]
    card["abilities"] = abilities
    return card


def card_entries(document: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """Each unit of the list as (where it is, a card entry), nation by nation in the list's
    order; a unit that is no object is left as it is, for the reader to refuse by its place."""
    found = []
    for nation in document:
        for index, unit in enumerate(nation["units"]):
            where = f"{nation.get('name') or 'a nation'}, unit {index + 1}"
            found.append((where, _card(nation, unit) if isinstance(unit, dict) else unit))
    return found
