"""The damage line: a hit typed in shorthand, its wrong word pointed at, earlier lines recalled."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Input

from tracker.rules.shorthand import ShorthandError, items_of, line_for, parse_line
from tracker.widgets.tones import ALERT, ERROR

PLACEHOLDER = 'exeter s3 f1 fm+1 crit "B turret out"'


def error_text(line: str, error: ShorthandError) -> Text:
    """The line with the offending word underlined, and the message under it."""
    text = Text(line + "\n")
    if error.end > error.start:
        text.stylize(ALERT, error.start, error.end)
        text.stylize("underline", error.start, error.end)
        text.append(" " * error.start + "^" * (error.end - error.start) + "\n", style=ALERT)
    text.append(error.message, style=ERROR)
    return text


class ShorthandLine(Input):
    """The line a hit is typed on; up and down recall the campaign's recorded lines, kept across
    restarts, and come back to what was typed."""

    TAKES_QUESTION_MARK = True  # typed, not help: "crit ?" asks the app to roll (f1 is help)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(placeholder=PLACEHOLDER, **kwargs)
        self.begin()

    def begin(self) -> None:
        """No line recalled and none known yet: the campaign's lines are read again."""
        self.lines: list[str] = []  # the campaign's recorded lines, oldest first
        self.recall_at: int | None = None  # the line shown, None: the player's own
        self.undone: str | None = None  # the newest line's hit, undone: ctrl+r repeats none of it
        self.draft = ""  # what the player had typed before the first up

    def empty(self) -> None:
        """An empty line, without an edit to preview: the caller shows what follows."""
        with self.prevent(Input.Changed):
            self.value = ""

    def recalled(self, lines: list[str]) -> None:
        """The campaign's lines as read, with any recorded since the read was asked."""
        self.lines = lines + [line for line in self.lines if line not in lines]

    def recorded(self, line: str) -> None:
        """The line recorded becomes the newest; the field is emptied for the next hit."""
        self.lines = [old for old in self.lines if old != line] + [line]
        self.recall_at, self.draft, self.undone = None, "", None
        self.empty()
        self.focus()

    def put(self, line: str, cursor: int | None = None) -> None:
        self.value = line
        self.cursor_position = len(line) if cursor is None else cursor

    def older(self) -> bool:
        """The previous recorded line; False when the campaign has none."""
        if not self.lines:
            return False
        if self.recall_at is None:
            self.draft = self.value
            self.recall_at = len(self.lines) - 1
        else:
            self.recall_at = max(0, self.recall_at - 1)
        self.put(self.lines[self.recall_at])
        return True

    def newer(self) -> bool:
        """A later line, or back to what was typed; False when no line is recalled."""
        if self.recall_at is None:
            return False
        self.recall_at += 1
        if self.recall_at >= len(self.lines):
            self.recall_at = None
            self.put(self.draft)
        else:
            self.put(self.lines[self.recall_at])
        return True

    def repeat(self) -> bool:
        """The last line's damage without its ship, the cursor before it for the next ship's
        name (a line whose hit was undone is not repeated); False when no line was recorded."""
        lines = [line for line in self.lines if line != self.undone]
        items = items_of(lines[-1]) if lines else ""
        if not items:
            return False
        self.recall_at = None
        self.put(" " + items, cursor=0)
        return True

    def items(self) -> str:
        """What the ship took, as typed (none while the line does not read)."""
        try:
            return items_of(self.value)
        except ShorthandError:
            return ""

    def name_ship(self, name: str) -> None:
        items = self.items()
        self.recall_at = None
        self.put(line_for(name, items) + ("" if items else " "))

    def pick_ship(self, name: str) -> None:
        """The ship picked from the finder, before what the line says she took."""
        try:
            rest = parse_line(self.value)
            items = self.value[len(rest.ship) :].strip() if rest.ship else self.value.strip()
        except ShorthandError:
            items = ""
        self.value = f'"{name}" {items}'.strip() + " "
        self.focus()
        self.cursor_position = len(self.value)
