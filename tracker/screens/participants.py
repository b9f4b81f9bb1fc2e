"""Choosing the ships that take part in a scenario."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, SelectionList, Static

from tracker.widgets.tick_box import TickList


class ParticipantsScreen(ModalScreen[list[int] | None]):
    """Tick the ships taking part; space or enter toggles, ctrl+s saves, escape cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save", priority=True),
    ]

    def __init__(self, title: str, choices: list[tuple[str, int, bool]]) -> None:
        super().__init__()
        self.choices = choices
        self.heading = title

    def compose(self) -> ComposeResult:
        with Vertical(id="participants-dialog"):
            yield Label(self.heading, id="participants-title", markup=False)
            yield Static(
                "space or enter ticks a ship · ctrl+s saves · escape cancels", classes="caption"
            )
            # Text, not str: a str prompt is read as markup, and these are ships' names.
            choices = [(Text(name), value, ticked) for name, value, ticked in self.choices]
            yield TickList[int](*choices, id="participants-list")

    def action_save(self) -> None:
        self.dismiss(list(self.query_one(SelectionList).selected))

    def action_cancel(self) -> None:
        self.dismiss(None)
