"""The roster's tables: a unit card's row and its columns' widths, a marker's row as the viewer
may see it, and the seals of markers just placed."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tracker.screens.card_detail import attacks_line, type_text
from tracker.services.markers import Assignment
from tracker.services.roster import MarkerView, UnitView
from tracker.services.visibility import HIDDEN
from tracker.widgets.tones import ERROR, GOOD_STRONG, toned


def damage_text(unit: UnitView) -> str:
    """The Dmg column: the placeholder for a concealed sub's damage in the opponent view."""
    if unit.damage is None:
        return HIDDEN
    return f"{unit.damage}" + (
        " destroyed" if unit.destroyed else " crippled" if unit.crippled else ""
    )


def marker_row(marker: MarkerView, owner: bool, names: dict[int, str]) -> list[Any]:
    """A marker row: in the opponent view only what the service let it see (its unit and
    whether it is real: services.visibility.marker_as_seen)."""
    row: list[Any] = [marker.code, Text(marker.sector or "-"), marker.state]
    if owner:
        who = names.get(marker.unit_id or 0, "?")
        row.append(Text(f"{who}: {'REAL' if marker.real else 'decoy'}",
                        style=GOOD_STRONG if marker.real else "dim"))  # fmt: skip
    elif marker.real is False:
        row.append(Text("decoy", style="dim"))
    elif marker.unit_id:
        row.append(Text(names.get(marker.unit_id, "?"), style="bold"))
    elif marker.state == "removed":
        row.append(Text("-", style="dim"))
    else:
        row.append(Text("submarine?", style="dim"))
    row.append(marker.seal)
    return row


UNIT_COLUMNS = ("Unit", "Type", "Pts", "Spd", "A/VA/HP", "Dmg", "Attacks", "Abilities")
# When the units' columns do not all fit, they give way in this order, each down to the width
# named: the abilities first (the card's detail has them whole), then the attack dice, the
# unit's name last.
UNIT_GIVE_WAY = (("Abilities", 9), ("Attacks", 16), ("Unit", 10))
# (tables.Fit) The unit, its attacks and abilities wrap onto more lines, never cut.
UNIT_FIT = (UNIT_GIVE_WAY, ("Unit", "Attacks", "Abilities"))


def unit_row(unit: UnitView) -> list[Any]:
    """A unit card's row, its attack dice in the card's order; a destroyed unit says so."""
    return [
        Text(unit.name, style="bold"), type_text(unit), unit.points, unit.speed,
        f"{unit.armor}/{unit.vital_armor}/{unit.hull_points}",
        toned(damage_text(unit), ERROR if unit.damage else ""),
        Text(attacks_line(unit.attacks, unit.air_to_air), overflow="ellipsis", no_wrap=True),
        Text(", ".join(unit.abilities), overflow="ellipsis", no_wrap=True),
    ]  # fmt: skip


def seals_said(result: Assignment) -> str:
    """The public seals of markers just placed, to be said aloud or written down."""
    seals = ", ".join(
        f"{code} {seal}" for code, seal in zip(result.codes, result.seals, strict=True)
    )
    return f"Public seals: {seals}: say them aloud or write them down"
