"""What the campaign's typed-in rule tables share (critical hits, mine damage): a list of rows
the player adds (a), edits (e or enter) and deletes (x, after a confirmation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from textual.widgets import DataTable

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.confirm import confirm

R = TypeVar("R")


class RuleTableScreen(TrackerScreen, Generic[R]):
    """Subclasses give `rows`, `_open(row or None)`, `describe(row)` and `delete_row(row)`."""

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

    def _selected(self) -> R | None:
        if not self.rows:
            return None
        return self.rows[min(max(self.query_one(DataTable).cursor_row, 0), len(self.rows) - 1)]

    def action_back(self) -> None:
        self.dismiss()

    def action_add(self) -> None:
        self._open(None)

    def action_edit(self) -> None:
        row = self._selected()
        if row is not None:
            self._open(row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # A DataTable takes enter itself (RowSelected); the screen's enter binding never sees it.
        if not self.refuse_if_read_only():
            self.action_edit()

    def action_delete(self) -> None:
        row = self._selected()
        if row is None:
            return

        confirm(
            self,
            f"Delete {self.describe(row)}?",
            lambda: self.call(self.delete_row(row), then=lambda _none: self.reload()),
        )
