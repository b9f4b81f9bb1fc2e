"""The campaign's own critical-hit tables, typed in from the player's rulebook (SMR2 §8.8, §9.9)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Static

from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec, FormScreen
from tracker.screens.rule_table import RuleTableScreen
from tracker.services import damage
from tracker.widgets.plain import PlainTable

INTRO = (
    "The SMR2 critical-hit tables are not in our sources: type your rulebook's rows here, once per "
    "campaign. A row covers die rolls low..high; the die is the table's highest number. A row may "
    "also change a stat at once (speed_kn, structure_now, flotation_now, fire_markers)."
)
KINDS = ("structural", "underwater")
Row = tuple[int, int, int, str, str, int]  # id, low, high, effect, stat, amount


class CriticalTablesScreen(RuleTableScreen[tuple[str, tuple[int, int, int, str, str, int]]]):
    """Both tables in one list; a adds a row, e edits, x deletes."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back"),
        Binding("a", "add", "Add row", tooltip="Add a critical table row"),
        Binding("e,enter", "edit", "Edit row", tooltip="Edit the critical table row"),
        Binding("x,delete", "delete", "Delete row", tooltip="Delete the critical table row"),
    ]
    READ_ONLY_ACTIONS = frozenset({"back"})

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(INTRO, id="tables-intro", markup=False)
        yield PlainTable(id="table-rows", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "Critical-hit tables"
        self.query_one(DataTable).add_columns("Table", "Roll", "Effect", "Stat change")
        self.query_one(DataTable).focus()

    def reload(self) -> None:
        found: list[tuple[str, Row]] = []

        def reader(kind: str) -> Callable[[Sequence[Row]], None]:
            def read(rows: Sequence[Row]) -> None:
                found.extend((kind, row) for row in rows)
                if kind == KINDS[-1]:  # the screen's calls run in order: this one comes last
                    self._show(found)

            return read

        for kind in KINDS:
            self.load(Call(damage.critical_table, self.factory, campaign_id=self.campaign_id,
                           kind=kind), reader(kind))  # fmt: skip

    def _show(self, rows: list[tuple[str, Row]]) -> None:
        self.rows = rows
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        for kind, (_, low, high, effect, stat, amount) in self.rows:
            roll = f"{low}" if low == high else f"{low}-{high}"
            change = f"{stat} {amount:+d}" if stat else ""
            table.add_row(kind, roll, Text(effect), change)
        if not self.rows:
            table.add_row(Text("No rows yet" + self.hint(": press a to type your rulebook's "
                                                         "table") + ".", "dim"))  # fmt: skip
        elif cursor >= 0:
            table.move_cursor(row=min(cursor, len(self.rows) - 1))

    def _fields(
        self, row: tuple[str, tuple[int, int, int, str, str, int]] | None
    ) -> list[FieldSpec]:
        kind, (_, low, high, effect, stat, amount) = row or ("structural", (0, 1, 1, "", "", 0))
        return [
            FieldSpec("kind", "Table", kind="select", value=kind, options=[(k, k) for k in KINDS]),
            FieldSpec("low", "Roll from", kind="int", value=low, low=1, high=100),
            FieldSpec("high", "Roll to", kind="int", value=high, low=1, high=100),
            FieldSpec("effect", "Effect (as your rulebook says)", value=effect),
            FieldSpec("stat", "Stat it changes (optional)", value=stat,
                      suggestions=damage.CRITICAL_STATS),
            FieldSpec("amount", "By how much", kind="int", value=amount, low=-99, high=99),
        ]  # fmt: skip

    def _open(self, row: tuple[str, tuple[int, int, int, str, str, int]] | None) -> None:
        campaign_id = self.campaign_id

        def submit(values: dict[str, Any]) -> Call[int]:
            return Call(
                damage.save_table_row,
                self.factory, campaign_id=campaign_id, row_id=row[1][0] if row else None,
                **{**values, "stat": values["stat"].strip()},
            )  # fmt: skip

        title = "Edit critical table row" if row else "Add critical table row"
        self.app.push_screen(FormScreen(title, self._fields(row), submit), lambda _: self.reload())

    def describe(self, row: tuple[str, tuple[int, int, int, str, str, int]]) -> str:
        kind, (_, low, high, effect, _, _) = row
        return f"{kind} row {low}-{high} ({effect})"

    def delete_row(self, row: tuple[str, tuple[int, int, int, str, str, int]]) -> Call[None]:
        return Call(damage.delete_table_row, self.factory, row_id=row[1][0])
