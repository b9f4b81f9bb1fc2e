"""A ship opened from the record sheet: its data, batteries, torpedoes, SRAA/DP, radar, notes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.damage_entry import open_damage_entry
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec
from tracker.screens.journal import JournalScreen
from tracker.screens.ship_history import ShipHistoryScreen
from tracker.services import damage, fleet, mines, sheet
from tracker.services.damage import CriticalView
from tracker.services.fleet import BatteryUpdate
from tracker.services.mines import CounterView
from tracker.services.views import BatteryView, ShipView
from tracker.services.visibility import Viewer
from tracker.widgets.counter_panel import counter_summary, has_counter
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import refill
from tracker.widgets.track_bar import track_bar


def battery_fields(battery: BatteryView | None) -> list[FieldSpec]:
    """Mount type (SMR2 §2.4 definitions), calibre, guns, IP and range bands."""
    return specs_from(BatteryUpdate, battery,
                      mount={} if battery else {"value": "turret"},
                      calibre={"placeholder": '8in, 150mm, 5"'})  # fmt: skip


def battery_cells(b: BatteryView) -> list[object]:
    return [b.mount, Text(b.calibre), b.guns, Text(b.ip), Text(b.range_bands), Text(b.notes)]


def ship_summary(ship: ShipView, where: str, counter: CounterView | None = None) -> Text:
    text = Text()
    text.append(ship.name, style="bold")
    text.append(f"  {ship.type_abbrev} {ship.class_name} class · {ship.nation} · {where}\n")
    text.append(
        f"Size {ship.size_modifier:+d} · {ship.speed_kn} kn · armour {ship.armour_class or '-'}"
        f" · points {ship.points_base} {ship.crew_percent:+d}% = {ship.points_total}"
        f" · base width {ship.base_width_cm:g} cm\n"
    )
    text.append("Structure ")
    text.append_text(
        track_bar(ship.structure_now, ship.structure_max, flagged=ship.structure_third)
    )
    text.append("   Flotation ")
    text.append_text(
        track_bar(ship.flotation_now, ship.flotation_max, flagged=ship.flotation_third)
    )
    text.append(f"   Fire markers {ship.fire_markers}\n")
    text.append(
        f"Torpedoes: {ship.torpedoes or '-'} · SRAA / DP: {ship.sraa_dp or '-'}"
        f" · Radar: {ship.radar or '-'}\n"
    )
    text.append(f"Notes: {ship.notes or '-'}")
    if counter is not None and has_counter(counter):
        text.append("\nSecond World War at Sea: ")
        text.append_text(counter_summary(counter))
    return text


class ShipDetailScreen(TrackerScreen):
    """One ship in full; batteries are added, edited and removed here."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("d", "damage", "Damage", tooltip="Record a hit or a repair on this ship"),
        Binding("a", "add_battery", "Add battery"),
        Binding("e", "edit_battery", "Edit battery"),
        Binding("x,delete", "delete_battery", "Delete battery"),
        Binding("j", "service_record", "Service record", tooltip="This ship's journal entries"),
        Binding("h", "history", "History", tooltip="Structure and Flotation over the campaign"),
    ]
    READ_ONLY_ACTIONS = frozenset({"back", "service_record", "history"})

    def __init__(self, ship_id: int) -> None:
        super().__init__()
        self.ship_id = ship_id
        self.ship: ShipView | None = None
        self.where = ""

    def body(self) -> ComposeResult:
        yield Static("", id="ship-summary", markup=False)
        yield PlainTable(id="battery-table", cursor_type="row", zebra_stripes=True)
        yield PlainTable(id="critical-table", cursor_type="none", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one("#battery-table", DataTable)
        table.add_columns("Mount", "Calibre", "Guns", "IP", "Range bands", "Notes")
        table.border_title = "Batteries"
        table.focus()
        criticals = self.query_one("#critical-table", DataTable)
        criticals.add_columns("No.", "Critical", "Effect", "Roll", "Turn", "Status")
        criticals.border_title = "Critical hits (fix N in damage entry repairs number N)"

    def reload(self) -> None:
        # The screen's calls run in order: the ship is in hand when its counter comes back.
        self.load(Call(sheet.load_ship, self.factory, ship_id=self.ship_id), self._show_ship)
        # In front of both players: a minelayer's mines show in the ledger's owner view only.
        self.load(Call(mines.counter, self.factory, ship_id=self.ship_id, viewer=Viewer.OPPONENT),
                  self._show_counter)  # fmt: skip
        self.load(Call(damage.list_criticals, self.factory, ship_id=self.ship_id),
                  self._show_criticals)  # fmt: skip

    def _show_ship(self, found: tuple[ShipView, str]) -> None:
        self.ship, self.where = found
        self.title = self.ship.name
        self.sub_title = "Ship"
        rows = [(str(b.id), battery_cells(b)) for b in self.ship.batteries]
        refill(self.query_one("#battery-table", DataTable), rows)

    def _show_counter(self, counter: CounterView | None) -> None:
        if self.ship is not None:
            summary = ship_summary(self.ship, self.where, counter)
            self.query_one("#ship-summary", Static).update(summary)

    def _show_criticals(self, found: list[CriticalView]) -> None:
        rows = [
            (
                str(c.id),
                [c.number or "", c.kind, Text(c.effect), c.roll or "", c.turn or "", c.status],
            )
            for c in found
        ]
        refill(self.query_one("#critical-table", DataTable), rows)

    def current_campaign_id(self) -> int | None:
        return self.ship.campaign_id if self.ship else None

    def action_damage(self) -> None:
        if self.ship is not None:
            open_damage_entry(self.app, self.ship.campaign_id, self.ship_id)

    def action_history(self) -> None:
        if self.ship is not None:
            maxima = (self.ship.structure_max, self.ship.flotation_max)
            self.app.push_screen(ShipHistoryScreen(self.ship_id, self.ship.name, maxima))

    def action_service_record(self) -> None:
        if self.ship is not None:
            self.app.push_screen(JournalScreen(self.ship.campaign_id, ship_id=self.ship_id))

    def _battery(self) -> BatteryView | None:
        batteries = self.ship.batteries if self.ship else ()
        table = self.query_one("#battery-table", DataTable)
        return self.row_of(table, batteries, "No battery selected: press a to add one.")

    def _open_form(self, battery: BatteryView | None) -> None:
        self.open_form(
            "Edit battery" if battery else "Add battery",
            battery_fields(battery),
            self.editing(fleet.save_battery, battery, "battery_id", ship_id=self.ship_id),
        )

    def action_add_battery(self) -> None:
        self._open_form(None)

    def action_edit_battery(self) -> None:
        if (battery := self._battery()) is not None:
            self._open_form(battery)

    def action_delete_battery(self) -> None:
        if (battery := self._battery()) is not None:
            self.confirm_call(
                f"Delete the {battery.guns} x {battery.calibre} {battery.mount}?",
                Call(fleet.delete_battery, self.factory, battery_id=battery.id),
            )
