"""What a coloured word means, and the theme's colour for it.

Screens colour by meaning (`text.append("SUNK", style=ALERT)`, or `toned("SUNK", ALERT)`), never
by a colour's name: the app gives each meaning the colour its current theme made readable on
its own background (`$text-error`, `$text-warning`, `$text-success`), so a light theme never
shows yellow on white. A meaning is a Rich style name that the app's console resolves when it
draws, so a table already on screen follows a change of theme.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.style import Style
from rich.text import Text
from rich.theme import Theme
from textual.color import Color

# Lost or refused: a ship sunk or crippled, fire, a failed check, an entry that cannot be read.
ALERT = "tracker.alert"
# Harm of lesser weight: damage taken, a crippled counter, an error's explanation.
ERROR = "tracker.error"
# Look now: an owner view left open, a halt in the mine check, fuel lost to mines.
CAUTION = "tracker.caution"
# Worth a look: a speed or gunnery lost, a critical to roll, a hint at what to type.
NOTICE = "tracker.notice"
# In order: repaired, nothing struck, a continuity check passed, full fuel.
GOOD = "tracker.good"
# In order, and the point of the line: a real marker, rows ready to import.
GOOD_STRONG = "tracker.good-strong"
# Shown to its owner only: a secret minefield's real place.
SECRET = "tracker.secret"

# Each meaning: the theme variable that colours it, and the attributes it adds.
TONES: dict[str, tuple[str, str]] = {
    ALERT: ("text-error", "bold"),
    ERROR: ("text-error", ""),
    CAUTION: ("text-warning", "bold"),
    NOTICE: ("text-warning", ""),
    GOOD: ("text-success", ""),
    GOOD_STRONG: ("text-success", "bold"),
    SECRET: ("text-warning", "italic"),
}


def tone_styles(variables: Mapping[str, str]) -> dict[str, Style]:
    """Each meaning's Rich style under a theme, from that theme's CSS variables."""
    styles = {}
    for name, (variable, attributes) in TONES.items():
        colour = Style(color=Color.parse(variables[variable]).rich_color)
        styles[name] = Style.parse(attributes) + colour if attributes else colour
    return styles


def tone_theme(variables: Mapping[str, str]) -> Theme:
    """The meanings as a Rich theme, for the app's console to resolve when it draws."""
    return Theme(tone_styles(variables), inherit=True)


def toned(value: str, tone: str, **options: Any) -> Text:
    """`value` as plain text (never markup) coloured by its meaning.

    The meaning is put on the characters rather than as the Text's own style, because a
    Static reads a Text's own style as Textual CSS, where a meaning's name means nothing.
    """
    text = Text(value, **options)
    if tone:
        text.stylize(tone)
    return text
