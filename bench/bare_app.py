"""The baseline: a bare Textual app that paints one label (figures 1 and 5 of the benchmark)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Label

TEXT = "bench baseline: one label"


class BareApp(App[None]):
    """Nothing but a label; q quits, as in the tracker."""

    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Label(TEXT)


if __name__ == "__main__":
    BareApp().run()
