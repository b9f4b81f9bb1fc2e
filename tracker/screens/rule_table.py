"""What the campaign's typed-in rule tables share (critical hits, mine damage): a list of rows
the player adds (a), edits (e or enter) and deletes (x, after a confirmation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.services.rule_tables import RuleRow
from tracker.widgets.search_table import EMPTY_KEY
from tracker.widgets.tables import refill, under_cursor

R = TypeVar("R")


def row_bindings(row: str) -> list[BindingType]:
    return [
        Binding("escape", "back", "Back", tooltip="Back"),
        Binding("a", "add", "Add row", tooltip=f"Add a {row}"),
        Binding("e,enter", "edit", "Edit row", tooltip=f"Edit the {row}"),
        Binding("x,delete", "delete", "Delete row", tooltip=f"Delete the {row}"),
    ]


def roll_text(row: RuleRow) -> str:
    """The rolls a row covers: `7`, or `7-8`."""
    return f"{row.low}" if row.low == row.high else f"{row.low}-{row.high}"


class RuleTableScreen(TrackerScreen, Generic[R]):
    """Subclasses give `rows`, `_open(row or None)`, `describe(row)` and `delete_row(row)`."""

    ENTER_ACTION = "edit"

    def __init__(self, campaign_id: int) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.rows: Sequence[R] = ()

    def _open(self, row: R | None) -> None:
        raise NotImplementedError

    def describe(self, row: R) -> str:
        """The row as the delete confirmation names it."""
        raise NotImplementedError

    def delete_row(self, row: R) -> Call[Any]:
        """The service call that deletes the row."""
        raise NotImplementedError

    def show_rows(self, rows: Sequence[R], cells: Sequence[list[Any]], empty: Any = None) -> None:
        """The rows (each shown as its cells), the cursor kept on its row; `empty` is the line
        shown when there is none."""
        self.rows = rows
        lines = [(str(n), line) for n, line in enumerate(cells)]
        refill(self.query_one(DataTable), lines or ([(EMPTY_KEY, [empty])] if empty else []))

    def _selected(self) -> R | None:
        return under_cursor(self.query_one(DataTable), self.rows)

    def action_add(self) -> None:
        self._open(None)

    def action_edit(self) -> None:
        row = self._selected()
        if row is not None:
            self._open(row)

    def action_delete(self) -> None:
        if (row := self._selected()) is not None:
            self.confirm_call(f"Delete {self.describe(row)}?", self.delete_row(row))
