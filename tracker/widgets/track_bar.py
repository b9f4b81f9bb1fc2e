"""A damage track (Structure or Flotation) drawn as a bar with its 1/3 mark."""

from __future__ import annotations

from rich.text import Text

from tracker.widgets.tones import ALERT, CAUTION, GOOD

FULL = "█"
EMPTY = "░"
MARK = "│"


def track_bar(now: int, maximum: int, *, width: int = 7, flagged: bool = False) -> Text:
    """`██│████░░░ 7/12`: filled to now, a line at 1/3 (the smoke-marker line), red when flagged."""
    filled = round(width * now / maximum) if maximum > 0 else 0
    if now > 0:
        filled = max(filled, 1)  # a ship with anything left never shows an empty track
    third = round(width / 3)
    bar = Text(no_wrap=True)
    style = ALERT if flagged else GOOD
    for cell in range(width):
        if cell == third:
            bar.append(MARK, style=CAUTION)
        bar.append(FULL if cell < filled else EMPTY, style=style if cell < filled else "dim")
    bar.append(f" {now:>2}/{maximum:<2}", style=ALERT if flagged else "")
    return bar
