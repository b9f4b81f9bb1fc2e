"""The campaign's own critical-hit tables, typed in from the player's rulebook (SMR2 §8.8, §9.9)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec
from tracker.screens.rule_table import RuleTableScreen, roll_text, row_bindings
from tracker.services import rule_tables
from tracker.services.rule_tables import RuleRow, RuleTable
from tracker.widgets.plain import PlainTable

INTRO = (
    "The SMR2 critical-hit tables are not in this tracker: type your rulebook's rows here, once "
    "per campaign. A row covers die rolls low..high; the die is the table's highest number. A row "
    "may also change a stat at once (speed_kn, structure_now, flotation_now, fire_markers)."
)
KINDS = ("structural", "underwater")


def row_cells(row: RuleRow) -> list[Any]:
    """One row of the tables; the player's words are plain Text (never markup)."""
    change = f"{row.stat} {row.amount:+d}" if row.stat else ""
    return [row.table, roll_text(row), Text(row.effect), change]


class CriticalTablesScreen(RuleTableScreen[RuleRow]):
    """Both tables in one list; a adds a row, e edits, x deletes."""

    BINDINGS = row_bindings("critical table row")

    def body(self) -> ComposeResult:
        yield Static(INTRO, id="tables-intro", markup=False)
        yield PlainTable(id="table-rows", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.title = "Critical-hit tables"
        self.query_one(DataTable).add_columns("Table", "Roll", "Effect", "Stat change")
        self.query_one(DataTable).focus()

    def reload(self) -> None:
        self.load(Call(rule_tables.critical_tables, self.factory, campaign_id=self.campaign_id,
                       kinds=KINDS), self._show)  # fmt: skip

    def _show(self, tables: tuple[RuleTable, ...]) -> None:
        rows = [row for table in tables for row in table.rows]
        said = "No rows yet" + self.hint(": press a to type your rulebook's table") + "."
        self.show_rows(rows, [row_cells(row) for row in rows], Text(said, "dim"))

    def _fields(self, row: RuleRow | None) -> list[FieldSpec]:
        kind, low, high = (row.table, row.low, row.high) if row else ("structural", 1, 1)
        effect, stat, amount = (row.effect, row.stat, row.amount) if row else ("", "", 0)
        return [
            FieldSpec("kind", "Table", kind="select", value=kind, options=[(k, k) for k in KINDS]),
            FieldSpec("low", "Roll from", kind="int", value=low, low=1, high=100),
            FieldSpec("high", "Roll to", kind="int", value=high, low=1, high=100),
            FieldSpec("effect", "Effect (as your rulebook says)", value=effect),
            FieldSpec("stat", "Stat it changes (optional)", value=stat,
                      suggestions=rule_tables.CRITICAL_STATS),
            FieldSpec("amount", "By how much", kind="int", value=amount, low=-99, high=99),
        ]  # fmt: skip

    def _open(self, row: RuleRow | None) -> None:
        save = self.calling(
            rule_tables.save_table_row, campaign_id=self.campaign_id, row_id=row.id if row else None
        )

        def submit(values: dict[str, Any]) -> Call[int]:
            return save({**values, "stat": values["stat"].strip()})

        title = "Edit critical table row" if row else "Add critical table row"
        self.open_form(title, self._fields(row), submit)

    def describe(self, row: RuleRow) -> str:
        return f"{row.table} row {row.low}-{row.high} ({row.effect})"

    def delete_row(self, row: RuleRow) -> Call[None]:
        return Call(rule_tables.delete_table_row, self.factory, row_id=row.id)
