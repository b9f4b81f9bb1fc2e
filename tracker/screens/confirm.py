"""Yes/no confirmation before anything is deleted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Label

DELETE = "Yes, delete (y)"


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True only when the player says yes."""

    BINDINGS = [
        Binding("y", "dismiss(True)", "Yes"),
        Binding("n,escape", "dismiss(False)", "No"),
    ]

    def __init__(self, question: str, *, yes: str = DELETE) -> None:
        super().__init__()
        self.question = question
        self.yes_label = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Label(self.question, id="confirm-question", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes_label, variant="error", action="screen.dismiss(True)")
                yield Button(
                    "No (n)", variant="primary", id="confirm-no", action="screen.dismiss(False)"
                )

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()


def confirm(
    screen: Screen[Any], question: str, then: Callable[[], object], *, yes: str = DELETE
) -> None:
    """Ask `question` over the screen; `then()` runs only once the player says yes (`yes`: the
    words of that button)."""

    def answered(said: bool | None) -> None:
        if said:
            then()

    screen.app.push_screen(ConfirmScreen(question, yes=yes), answered)
