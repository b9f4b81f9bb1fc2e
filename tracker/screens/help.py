"""The keys of the screen the player came from, and the global ones."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from tracker.widgets.plain import PlainTable

GLOBAL_KEYS = (
    ("?", "This help"),
    ("ctrl+p", "Command palette: every action of this screen, by name"),
    ("q", "Quit (from any screen without a text field focused)"),
    ("ctrl+z / ctrl+y", "Undo / redo the campaign's newest change (kept in the journal)"),
    ("ctrl+s", "Save a form"),
    ("ctrl+r", "Roll the die a form asks for (d10 or d6), once per form"),
    ("escape", "Back, or cancel a form"),
)
# Keys of what the umpire's read-only view never does: undo and redo, roll a die into a form.
WRITING_KEYS = frozenset({"ctrl+z / ctrl+y", "ctrl+r"})
UMPIRE_NOTE = (
    "The umpire's read-only view: nothing can be changed and no secret is shown, "
    "so only the keys that look are here."
)


class HelpScreen(ModalScreen[None]):
    """A table of keys: the screen's own first, then the global ones."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

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

    def action_close(self) -> None:
        self.dismiss(None)
