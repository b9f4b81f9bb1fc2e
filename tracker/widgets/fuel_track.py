"""A ship's fuel factors as a row of boxes: full, empty and lost to mines (RULES.md §Mines)."""

from __future__ import annotations

from rich.text import Text

from tracker.rules.swwas import Fuel
from tracker.widgets.tones import ALERT, GOOD

FULL, EMPTY, LOST = "■", "□", "✕"
MAX_BOXES = 20  # past this the track is given as numbers only


def fuel_track(fuel: Fuel) -> Text:
    """Full factors first, then empty, then lost ones, with the counts after them: "■■■□✕ 3/1/1"
    reads as three full, one empty, one lost; a ship with no fuel factors shows a dash. Each
    state has its own glyph, so the track reads without colour too."""
    if fuel.total == 0:
        return Text("-", style="dim")
    text = Text()
    if fuel.total <= MAX_BOXES:
        text.append(FULL * fuel.full, style=GOOD)
        text.append(EMPTY * fuel.empty, style="dim")
        text.append(LOST * fuel.lost, style=ALERT)
        text.append(" ")
    text.append(f"{fuel.full}/{fuel.empty}/{fuel.lost}")
    return text
