"""The dice panel: the app's last rolls, newest first, as the player may check them."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label

from tracker.rules.dice import RollRecord
from tracker.widgets.steady_text import SteadyText


class DicePanel(Vertical):
    def compose(self) -> ComposeResult:
        yield Label("Dice", classes="caption")
        yield SteadyText("", id="dice-log", markup=False)

    def show(self, log: list[RollRecord]) -> None:
        text = "\n".join(str(roll) for roll in log) if log else "No dice rolled yet."
        shown = self.query_one("#dice-log", SteadyText)
        if text != str(shown.content):  # the same rolls: not drawn again
            shown.update(text)
