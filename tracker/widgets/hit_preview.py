"""Damage entry's preview: what the line typed would do, or why it cannot be recorded."""

from __future__ import annotations

from rich.text import Text
from textual.visual import VisualType

from tracker.services.damage import DamageResult
from tracker.widgets.steady_text import SteadyText
from tracker.widgets.tones import ALERT, GOOD, NOTICE
from tracker.widgets.track_bar import track_bar


def preview_text(result: DamageResult, rolled_later: int) -> Text:
    """The hit as it would be recorded: bars before and after, criticals, consequences."""
    text = Text()
    text.append(result.ship_name, style="bold")
    text.append("\n")
    for track in (result.structure, result.flotation):
        for at, value in enumerate((track.before, track.after)):
            text.append("  →  " if at else f"{track.name:<10}")
            text.append_text(track_bar(value, track.maximum, flagged=value * 3 <= track.maximum))
        text.append("\n")
    if result.fire_before != result.fire_after:
        text.append(f"Fire markers {result.fire_before} → {result.fire_after}\n")
    if result.speed[0] != result.speed[1]:
        text.append(f"Speed {result.speed[0]} → {result.speed[1]} kn\n", style=NOTICE)
    for critical in result.criticals:
        text.append(f"+ {critical}\n", style=NOTICE)
    for _ in range(rolled_later):
        text.append("+ critical rolled on the campaign's table when you press Enter\n", NOTICE)
    for effect in result.fixed:
        text.append(f"repaired: {effect}\n", style=GOOD)
    for note in result.consequences:
        text.append(f"! {note}\n", style=ALERT)
    if result.set_up:
        text.append(f"{result.set_up} (no scenario has begun yet)\n")
    text.append("Enter records it.", style="dim")
    return text


class HitPreview(SteadyText):
    """The preview's box; its class -error (a border of the error's colour) while it says why
    the line cannot be recorded."""

    def show(self, content: VisualType, *, error: bool = False) -> None:
        self.update(content)
        self.set_class(error, "-error")
