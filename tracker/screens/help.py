"""The keys of the screen the player came from, and the global ones."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import actions
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical
from textual.dom import DOMNode
from textual.keys import _character_to_key, key_to_character
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, DataTable, Input, Label, OptionList, Select, Static

from tracker.widgets.plain import PlainTable
from tracker.widgets.shorthand_line import ShorthandLine

GLOBAL_KEYS = (
    ("? / f1", "This help (f1 in the damage line, where ? is typed: crit ? rolls)"),
    ("ctrl+p", "Command palette: every action of this screen, by name"),
    ("q", "Quit (from any screen without a text field focused)"),
    ("ctrl+z / ctrl+y", "Undo / redo the campaign's newest change (kept in the journal)"),
    ("ctrl+s", "Save a form"),
    ("ctrl+r", "Roll the die a form asks for (d10 or d6), once per form"),
    ("escape", "Back, or cancel a form"),
    ("tab / shift+tab", "The next or the previous field, table or button"),
    ("ctrl+c", "Copy the selected text"),
    ("ctrl+q", "Quit, even from a text field"),
)
# What help calls the keys of a widget, by the first of its classes named here.
WIDGET_KINDS: tuple[tuple[type[Any], str], ...] = (
    (ShorthandLine, "Damage line"), (DataTable, "Table"), (Input, "Text field"),
    (Select, "Choice"), (Checkbox, "Tick box"), (Button, "Button"), (OptionList, "List"),
    (ScrollableContainer, "Scrolling"),
)  # fmt: skip
# Keys of what the umpire's read-only view never does: undo and redo, roll a die into a form.
WRITING_KEYS = frozenset({"ctrl+z / ctrl+y", "ctrl+r"})
UMPIRE_NOTE = (
    "The umpire's read-only view: nothing can be changed and no secret is shown, "
    "so only the keys that look are here."
)


# Textual's names of the punctuation keys ("slash"), and the character each is.
PUNCTUATION = {_character_to_key(character): character for character in string.punctuation}


def shown_key(key: str) -> str:
    """A key as help names it: "?" for question_mark, "/" for slash, "space" as it is."""
    character = PUNCTUATION.get(key) or key_to_character(key)
    return character if character and character.isprintable() and not character.isspace() else key


def node_keys(node: DOMNode) -> list[tuple[str, str]]:
    """(key, words) of every key the node takes now: each binding it allows, and each key its
    on_key takes (its help_keys)."""
    rows = []
    for key, bindings in node._bindings.key_to_bindings.items():
        for binding in bindings:
            namespace, name, parameters = actions.parse(binding.action)
            if namespace or node.check_action(name, parameters) is not False:
                rows.append((shown_key(key), binding.tooltip or binding.description or name))
    help_keys = getattr(node, "help_keys", None)
    return rows + (list(help_keys()) if callable(help_keys) else [])


def _kind(node: DOMNode) -> str:
    return next((words for kind, words in WIDGET_KINDS if isinstance(node, kind)),
                type(node).__name__)  # fmt: skip


def help_rows(screen: Screen[Any], own: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The screen's own keys (`own`: its bindings and the keys it handles for a widget), then
    every other key it reacts to: each widget's (a table's enter, a text field's keys, what an
    on_key takes), by kind of widget, and the app's and every screen's not in GLOBAL_KEYS. A
    widget's key the screen names is not named again (the screen's words say what it does)."""
    named = {key for keys, _ in own for key in keys.split(" / ")}
    grouped: dict[str, list[str]] = {}  # words -> keys: two tables' keys are named once
    for node in screen.query("*"):
        for key, words in node_keys(node):
            if key not in named:
                grouped.setdefault(f"{_kind(node)}: {words}", []).append(key)
    named |= {key for keys, _ in GLOBAL_KEYS for key in keys.split(" / ")}
    for anywhere in (screen, screen.app):
        for key, words in node_keys(anywhere):
            if key not in named:
                grouped.setdefault(words, []).append(key)
    return [*own, *((" / ".join(dict.fromkeys(keys)), words) for words, keys in grouped.items())]


class HelpScreen(ModalScreen[None]):
    """A table of keys: the screen's own first, then the global ones."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(
        self, screen_name: str, keys: Sequence[tuple[str, str]], *, read_only: bool = False
    ) -> None:
        super().__init__()
        self.screen_name = screen_name
        self.keys = list(keys)
        self.read_only = read_only

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Label(f"Keys: {self.screen_name}", id="help-title", markup=False)
            if self.read_only:
                yield Static(UMPIRE_NOTE, id="help-umpire", markup=False)
            yield PlainTable(id="help-table", cursor_type="none", show_cursor=False)
            yield Static("Press escape to close.", id="help-footer")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        global_keys = [k for k in GLOBAL_KEYS if not (self.read_only and k[0] in WRITING_KEYS)]
        rows = [*self.keys, *global_keys]
        key_width = max(len(key) for key, _ in rows)
        # The actions wrap within the dialog (at most 100 columns, as styles/help.tcss has
        # it) rather than run past an 80-column window: its border, padding, cell padding and
        # scrollbar take the 12 columns left over.
        table.add_column("Key", width=key_width)
        table.add_column("Action", width=min(100, self.app.size.width) - key_width - 12)
        for key, description in rows:
            table.add_row(key, Text(description), height=None)
