"""The baselines of figures 1, 5 and 12: a bare Textual app that paints one label.

`python bench/bare_app.py` is the bare app itself (figure 1's first paint). With `--stack FILE`
it is the stack's floor (figure 5's memory): the same app, in a process that has also imported
SQLAlchemy and SQLModel and opened FILE through them, as every tracker process must.
"""

from __future__ import annotations

import sys
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Label

TEXT = "bench baseline: one label"


class BareApp(App[None]):
    """Nothing but a label; q quits, as in the tracker."""

    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Label(TEXT)


def open_with_the_stack(path: str) -> Any:
    """The campaign file opened through SQLAlchemy, with SQLModel imported: the engine, kept."""
    import sqlalchemy
    import sqlmodel  # noqa: F401  (imported for what it costs)

    engine = sqlalchemy.create_engine(f"sqlite:///{path}")
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text("SELECT count(*) FROM sqlite_master")).scalar_one()
    return engine


if __name__ == "__main__":
    kept = open_with_the_stack(sys.argv[2]) if sys.argv[1:2] == ["--stack"] else None
    BareApp().run()
    if kept is not None:
        # Closed as the tracker closes it: its last connection gone, SQLite removes the -wal
        # and -shm it made. Left behind, they told the tracker's next start that another
        # program had changed the file, which then read it all through first (figure 1 took
        # the full check, 0.9 s on the large campaign, on every run).
        kept.dispose()
