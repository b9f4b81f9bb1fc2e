"""Between scenarios: every ship's carried damage since its last battle, and its repairs (12.2)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec
from tracker.screens.ship_history import ShipHistoryScreen
from tracker.services import continuity, damage, repairs
from tracker.services.continuity import SinceLastBattle
from tracker.services.damage import CriticalView
from tracker.services.repairs import RepairAmounts
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import fit_columns, forget, refill, under_cursor
from tracker.widgets.tones import ALERT, CAUTION, GOOD, NOTICE, toned

# What a player repairs by comes first (the ship, what she has now and what is still to repair),
# then where it came from, which scrolls into view with the cursor on a narrow terminal.
COLUMNS = (
    ("Ship", 16), ("", 4), ("Now S/F", 8), ("Outstanding", 11), ("Crits", 5), ("Side", 12),
    ("Last battle", 18), ("End S/F", 8), ("Repaired", 9),
)  # fmt: skip
# Shown once a ship of the campaign has fuel factors: fuel lost to mines (SWWAS variant).
FUEL_COLUMN = ("Fuel✕", 5)
FUEL_NOTE = " Fuel✕ is fuel lost to mines: only a repair in a friendly port restores it."
# When the columns do not all fit, the names give way in this order, wrapping onto more lines.
FUEL_AT = 5  # after the criticals
GIVE_WAY = (("Last battle", 20), ("Ship", 24), ("Side", 10), ("Ship", 16))
INTRO = (
    "Since last battle: End is the state at the close of the ship's last scenario; "
    "Repaired is what was repaired since; Outstanding is what is still to repair."
)


def since_row(row: SinceLastBattle, fuel_lost: int | None = None) -> list[Any]:
    """One ship of the "since last battle" table; `fuel_lost` adds the Fuel✕ cell."""
    end = f"{row.end_structure}/{row.end_flotation}" if row.end_structure is not None else "-"
    out_s, out_f = row.outstanding
    cells: list[Any] = [
        Text(row.name, style="bold"),
        toned("SUNK", ALERT) if row.sunk else "",
        f"{row.structure}/{row.flotation}",
        toned(f"{out_s}/{out_f}", NOTICE if out_s or out_f else ""),
        row.criticals or "",
        Text(row.side),
        Text(row.last_scenario or "none yet"),
        end,
        f"+{row.repaired_structure}/+{row.repaired_flotation}",
    ]
    if fuel_lost is not None:
        cells.insert(FUEL_AT, toned(str(fuel_lost or ""), CAUTION))
    return cells


class RepairsScreen(TrackerScreen):
    """The campaign's ships since their last battle; r repairs the selected one."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the campaign"),
        Binding("r", "repair", "Repair", tooltip="Repair the selected ship between scenarios"),
        Binding("h", "history", "History", tooltip="The ship's Structure and Flotation over time"),
    ]
    HELP_EXTRA = [("enter", "Repair the selected ship")]
    # The umpire's view reads "since last battle" and the continuity check; it repairs nothing.
    READ_ONLY_ACTIONS = frozenset({"back", "history"})
    ENTER_ACTION = "repair"

    def __init__(self, campaign_id: int) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.rows: list[SinceLastBattle] = []
        self.fuel_lost: dict[int, int] = {}
        self.fuel_column = False

    def body(self) -> ComposeResult:
        yield Static(INTRO, id="repairs-intro", markup=False)
        yield PlainTable(id="since-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="continuity", markup=False)

    def on_mount(self) -> None:
        self.title = "Repairs between scenarios"
        fit_columns(self.query_one(PlainTable), GIVE_WAY, wrap=("Ship", "Side", "Last battle"))
        self._columns()
        self.query_one(DataTable).focus()

    def _columns(self) -> None:
        columns = [*COLUMNS[:FUEL_AT], FUEL_COLUMN, *COLUMNS[FUEL_AT:]]
        table = self.query_one(PlainTable).clear(columns=True)
        table.add_sized_columns(columns if self.fuel_column else COLUMNS)
        forget(table)

    def reload(self) -> None:
        campaign = {"campaign_id": self.campaign_id}
        self.load(Call(continuity.since_last_battle, self.factory, **campaign), self._show)
        self.load(
            Call(continuity.check_continuity, self.factory, **campaign), self._show_continuity
        )

    def _show(self, since: list[SinceLastBattle]) -> None:
        self.rows = since
        # The fuel of the ships afloat (a sunk ship's is no longer counted).
        afloat = [row for row in since if not row.sunk]
        self.fuel_lost = {row.ship_id: row.fuel.lost for row in afloat}
        fuel_column = any(row.fuel.total for row in afloat)
        if fuel_column != self.fuel_column:
            self.fuel_column = fuel_column
            self._columns()
        rows = []
        for row in self.rows:
            lost = self.fuel_lost.get(row.ship_id, 0) if fuel_column else None
            rows.append((str(row.ship_id), since_row(row, lost)))
        refill(self.query_one(DataTable), rows)
        self.query_one("#repairs-intro", Static).update(INTRO + (FUEL_NOTE if fuel_column else ""))

    def _show_continuity(self, problems: list[str]) -> None:
        said = (
            toned("Continuity check FAILED:\n" + "\n".join(problems), ALERT) if problems else
            toned("Continuity check: every scenario began where the last one ended, plus the "
                  "repairs between.", GOOD)
        )  # fmt: skip
        self.query_one("#continuity", Static).update(said)

    def _selected(self) -> SinceLastBattle | None:
        return under_cursor(self.query_one(DataTable), self.rows)

    def help_extra(self) -> list[tuple[str, str]]:
        return [] if self.read_only else super().help_extra()

    def action_history(self) -> None:
        row = self._selected()
        if row is not None:
            maxima = (row.structure_max, row.flotation_max)
            self.app.push_screen(ShipHistoryScreen(row.ship_id, row.name, maxima))

    def action_repair(self) -> None:
        if (row := self._selected()) is None:
            return
        if row.sunk:
            self.notify(f"{row.name} is sunk: a sunk ship is not repaired.", severity="warning",
                        markup=False)  # fmt: skip
            return
        self.call(Call(damage.list_criticals, self.factory, ship_id=row.ship_id),
                  then=lambda found: self._repairs_left(row, found))  # fmt: skip

    def _repairs_left(self, row: SinceLastBattle, found: list[CriticalView]) -> None:
        self.call(Call(repairs.repairs_left, self.factory, ship_id=row.ship_id),
                  then=lambda left: self._repair(row, found, left))  # fmt: skip

    def _repair(
        self, row: SinceLastBattle, found: list[CriticalView], left: tuple[int, int]
    ) -> None:
        criticals = [c for c in found if c.status == "active"]
        fields = repair_fields(left, criticals, fuel=bool(self.fuel_lost.get(row.ship_id)))

        def submit(values: dict[str, Any]) -> Call[str]:
            cleared = [c.id for c in criticals if values.pop(f"crit_{c.id}")]
            repair = self.calling(repairs.repair_ship, ship_id=row.ship_id, clear_criticals=cleared)
            return repair(values)

        def done(summary: str | None) -> None:
            if summary:
                self.tell(summary, title="Repaired")

        note = (
            "SMR2 §12.2 is not in this tracker: the campaign's own allowance, if any, is "
            "enforced (set it on the campaign form)."
        )
        if lost := self.fuel_lost.get(row.ship_id, 0):
            note += f" {row.name} has {lost} fuel factors lost to mines."
        self.open_form(f"Repair {row.name}", fields, submit, note=note, done=done)


def repair_fields(
    left: tuple[int, int], criticals: list[CriticalView], *, fuel: bool
) -> list[FieldSpec]:
    """A ship's repairs between scenarios; `left`, what the campaign's allowance leaves of
    Structure and Flotation; `fuel`, whether the ship has fuel lost to mines."""
    structure, flotation = specs_from(RepairAmounts)
    return [
        replace(structure, label=f"{structure.label} (up to {left[0]})", high=left[0]),
        replace(flotation, label=f"{flotation.label} (up to {left[1]})", high=left[1]),
        FieldSpec("in_port", "In a friendly port", kind="bool", value=True),
        *([FieldSpec("fuel", "Restore fuel lost to mines (friendly port)", kind="bool",
                     value=True)] if fuel else []),
        *(FieldSpec(f"crit_{c.id}", f"Clear: {c.effect}"[:40], kind="bool", value=False)
          for c in criticals),
        FieldSpec("notes", "Notes"),
    ]  # fmt: skip
