"""The Squadron Record Sheet: commander, crew and a row per ship, for one squadron (SMR2)."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker.publish import sheet_pages
from tracker.rules.words import plural
from tracker.screens import calls, ship_forms
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.form import FormScreen
from tracker.screens.ship_forms import ShipSaved, Tested
from tracker.services import command, fleet, mines, sheet
from tracker.services.damage import ShipPick
from tracker.services.mines import CounterView
from tracker.services.views import RecordSheet, ShipView
from tracker.widgets.counter_panel import CounterPanel
from tracker.widgets.search_table import search_keys
from tracker.widgets.sheet_blocks import SheetBlocks
from tracker.widgets.sheet_table import SheetTable

LEGEND = (
    "Morale tests: S⅓ black smoke (Structure ≤ 1/3) · F⅓ white smoke (Flotation ≤ 1/3) · ½ "
    "squadron at half strength · OoC Out of Command this turn · Crits: criticals in force, the "
    "newest named · Points base→with crew %"
)
# Below 30 rows: the marks a player reads in the Morale column (help has the whole legend).
LEGEND_SHORT = "S⅓ black smoke · F⅓ white smoke · ½ half strength · OoC Out of Command"
COUNTER_KEYS = "u counter · o use fuel · O refuel"
SORT_KEY = "S"  # o uses fuel here
# The squadron's forms its keys open (r, w, k, m), each on the sheet and the ship selected.
FORMS = {
    "commander": ship_forms.commander_form,
    "crew": ship_forms.crew_form,
    "test": ship_forms.test_form,
    "reduction": ship_forms.reduction_form,
}
# A key hidden from the footer (Textual's show=False): help and the palette still list it.
hidden = partial(Binding, show=False)


class RecordSheetScreen(TrackerScreen):
    """One squadron's sheet; every action is a key in the Footer and an entry in the palette."""

    # Short words for the Footer; the tooltip is the name in the palette and the help screen.
    HELP_EXTRA = [
        ("enter", "Open the ship: batteries and critical hits"),
        *search_keys(SORT_KEY),
        ("legend", LEGEND),
    ]

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the campaign"),
        Binding("d", "damage", "Damage", tooltip="Record a hit or a repair (damage entry)"),
        Binding("a", "add_ship", "Add", tooltip="Add a ship"),
        Binding(
            "b",
            "build_squadron",
            "Class",
            tooltip="Add ships from a class of the library: how many, and their names",
        ),
        Binding(
            "L",
            "library_changes",
            "Library",
            tooltip="Bring ships up to a later change of their class in the library",
        ),
        Binding("e", "edit_ship", "Edit", tooltip="Edit the ship's data and state"),
        hidden("c", "copy_ship", "Sister", tooltip="Copy the ship as a sister ship"),
        Binding("x,delete", "delete_ship", "Delete", tooltip="Delete the ship"),
        hidden("t", "transfer_ship", "Transfer", tooltip="Transfer the ship to another squadron"),
        Binding("f", "fire(1)", "Fire+", tooltip="Add a fire marker to the ship"),
        hidden("F", "fire(-1)", "Fire-", tooltip="Remove a fire marker from the ship"),
        Binding("r", "form('commander')", "Commander", tooltip="Roll or buy the commander"),
        Binding("w", "form('crew')", "Crew", tooltip="Roll or buy the crew"),
        hidden(
            "g",
            "commander_ship",
            "Flagship",
            tooltip="Put the commander aboard the selected ship (a transfer, SMR2 §6.7)",
        ),
        Binding("k", "form('test')", "Test", tooltip="Command or crew test (d10)"),
        hidden("m", "form('reduction')", "Reduce", tooltip="Combat reductions to command and crew"),
        hidden(
            "M",
            "restore_command",
            "Restore",
            tooltip="Restore the commander's rated modifier and radius, by a rule you name",
        ),
        Binding("j", "journal", "Journal", tooltip="The campaign journal"),
        Binding("n", "next_turn", "Next turn", tooltip="Begin the scenario's next turn"),
        hidden("s", "edit_squadron", "Squadron", tooltip="Edit the squadron"),
        hidden(
            "I",
            "import_ships",
            "Import CSV",
            tooltip="Add ships to the squadron from a CSV file (checked first, all or none)",
        ),
        Binding(
            "u",
            "counter('counter')",
            "Counter",
            tooltip="Enter the ship's Second World War at Sea counter and fuel",
        ),
        hidden(
            "o", "counter('use_fuel')", "Use fuel", tooltip="Use fuel: full factors become empty"
        ),
        hidden(
            "O",
            "counter('refuel')",
            "Refuel",
            tooltip="Refuel empty fuel factors (lost ones need a port repair)",
        ),
        hidden(
            "P",
            "print_sheet",
            "Print",
            tooltip="Print the record sheet to an HTML page (A4 or Letter) or Markdown",
        ),
    ]
    # The umpire's view reads the sheet, opens its ships and the journal, and prints it to a
    # file (the database is not touched); every change to the squadron is left out.
    READ_ONLY_ACTIONS = frozenset({"back", "journal", "print_sheet"})
    FOOTER_DROPS = (
        "sort", "filter", "library_changes", "build_squadron", "journal", "counter('counter')",
        "delete_ship", "form('crew')", "form('commander')", "add_ship",
    )  # fmt: skip

    def __init__(self, squadron_id: int) -> None:
        super().__init__()
        self.squadron_id = squadron_id
        self.record: RecordSheet | None = None
        self.select_ship_id: int | None = None  # a ship just added: the cursor goes to it
        # A form just closed: once the sheet is read again, a ship left at zero asks what
        # happened to it.
        self.ask_if_at_zero = False

    def body(self) -> ComposeResult:
        yield Static("", id="sheet-heading", markup=False)
        yield SheetBlocks(id="sheet-blocks")
        yield SheetTable(id="ship-table", title="Ships", sort_key=SORT_KEY, zebra_stripes=True)
        yield Static("", id="sheet-empty", markup=False)
        yield CounterPanel("", id="counter-panel", markup=False)
        yield Static(LEGEND, id="sheet-legend", markup=False)
        yield Static(LEGEND_SHORT, id="sheet-legend-short", markup=False)

    def on_mount(self) -> None:
        self.query_one(CounterPanel).border_subtitle = self.hint(COUNTER_KEYS)
        self.query_one(SheetTable).focus()

    def reload(self) -> None:
        # The first read shows it is under way where the ships will be; later ones leave the
        # sheet as it is until the new one is in.
        self.call(
            Call(sheet.load_record_sheet, self.factory, squadron_id=self.squadron_id),
            then=self._show, refused=self._gone,
            busy=self.query_one(DataTable) if self.record is None else None,
        )  # fmt: skip

    def _show(self, record: RecordSheet) -> None:
        self.record = record
        self.title = "Squadron Record Sheet"
        self.sub_title = record.campaign_name
        kind, scenario = sheet_pages.heading(record)
        self.query_one("#sheet-heading", Static).update(
            f"{record.side_name} · {kind} {record.squadron_name}    Scenario: {scenario}"
        )
        self.query_one(SheetBlocks).show(record, hints=not self.read_only)
        self.query_one(SheetTable).fill(record.ships, self.size.width, self.select_ship_id)
        self.select_ship_id = None
        empty = self.query_one("#sheet-empty", Static)
        empty.update("No ships in this squadron." + self.hint(" Press a to add one."))
        empty.display = not record.ships
        self._show_counter()
        if self.ask_if_at_zero:
            self.ask_if_at_zero = False
            self._ask_if_at_zero(record)

    def _show_counter(self) -> None:
        counters = self.record.counters if self.record else {}
        self.query_one(CounterPanel).show(self._ship(), counters, hints=not self.read_only)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_counter()

    def _ship(self) -> ShipView | None:
        return self.query_one(SheetTable).selected(self.record.ships if self.record else ())

    def _need_ship(self) -> ShipView | None:
        ship = self._ship()
        if ship is None:
            self.missing("No ship selected: press a to add one.")
        return ship

    def _record(self) -> RecordSheet | None:
        """The sheet as read, or None, said so, before the first read is back."""
        if self.record is None:
            self.missing("The sheet is not read yet: try again in a moment.")
        return self.record

    def _open(self, form: FormScreen) -> None:
        self.app.push_screen(form, self._after_form)

    def _after_form(self, result: object) -> None:
        if isinstance(result, ShipSaved):
            self.select_ship_id = result.ship_id
        if isinstance(result, str):
            self.notify(result, markup=False)
        if isinstance(result, Tested):
            verdict = "passed" if result.result.passed else "FAILED"
            self.notify(
                f"Test of {result.result.who} {verdict}: total {result.result.total}",
                severity="information" if result.result.passed else "warning", markup=False,
            )  # fmt: skip
        self.ask_if_at_zero = True
        self.reload()

    def _ask_if_at_zero(self, record: RecordSheet) -> None:
        """A ship edited down to zero asks what happened, as a hit to zero does."""
        for ship in record.ships:
            at_zero = ship.structure_now == 0 or ship.flotation_now == 0
            if at_zero and not ship.sunk and not ship.condition:
                from tracker.screens.zero_outcome import ask_zero_outcome

                ask_zero_outcome(self, ship.id, ship.name, self._notes)
                return

    def _notes(self, notes: list[str] | None) -> None:
        self.tell("\n".join(notes or ()), severity="warning")

    def _refused(self, error: Exception) -> None:
        """A change the services refused: said as they word it, and the sheet read again, so it
        shows the squadron as it stands."""
        self.tell(calls.message(error), severity="error")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        ship = self._ship()
        if ship is not None:
            from tracker.screens.ship_detail import ShipDetailScreen

            self.app.push_screen(ShipDetailScreen(ship.id))

    def current_campaign_id(self) -> int | None:
        return self.record.campaign_id if self.record else None

    def action_damage(self) -> None:
        if (record := self._record()) is None:
            return
        ship = self._ship()
        afloat = tuple(
            ShipPick(id=s.id, name=s.name, side=record.side_name,
                     squadron=record.squadron_name, sunk=False)
            for s in record.ships if not s.sunk
        )  # fmt: skip
        from tracker.screens.damage_entry import open_damage_entry

        open_damage_entry(self.app, record.campaign_id, ship.id if ship else None, afloat)

    def action_next_turn(self) -> None:
        if self.record is not None:
            from tracker.screens.next_turn import begin_next_turn

            begin_next_turn(self, self.record.campaign_id, self.reload)

    def action_import_ships(self) -> None:
        from tracker.screens.csv_import import open_csv_import

        open_csv_import(self, "ships", self.squadron_id)

    def action_add_ship(self) -> None:
        def submit(values: dict[str, Any]) -> Call[ShipSaved]:
            return Call(fleet.create_ship, self.factory, squadron_id=self.squadron_id,
                        fields=values).map(ShipSaved)  # fmt: skip

        self.open_form("Add ship", ship_forms.ship_fields(None), submit, done=self._after_form)

    def action_build_squadron(self) -> None:
        def done(ids: tuple[int, ...] | None) -> None:
            if ids:
                self.select_ship_id = ids[0]
                self.notify(f"{plural(len(ids), 'ship')} added from the library")
            self.reload()

        from tracker.screens.class_picker import ClassPickerScreen

        self.app.push_screen(ClassPickerScreen(self.factory, self.squadron_id), done)

    def action_library_changes(self) -> None:
        if self.record is not None:
            from tracker.screens.library_changes import offer_library_changes

            offer_library_changes(self, self.record.campaign_id, "ship")

    def action_edit_ship(self) -> None:
        if (ship := self._need_ship()) is None:
            return

        def submit(values: dict[str, Any]) -> Call[None]:
            return Call(fleet.update_ship, self.factory, ship_id=ship.id,
                        fields={**values, "version": ship.version})  # fmt: skip

        self.open_form(
            f"Edit {ship.name}", ship_forms.ship_fields(ship), submit, done=self._after_form
        )

    def action_copy_ship(self) -> None:
        if (ship := self._need_ship()) is not None:
            self._open(ship_forms.sister_form(self, ship))

    def action_delete_ship(self) -> None:
        if (ship := self._need_ship()) is None:
            return
        self.confirm_call(
            f"Delete {ship.name} and its batteries? A ship that took part in a scenario is "
            "retired instead: kept in that scenario's history, gone from the sheet.",
            Call(fleet.delete_ship, self.factory, ship_id=ship.id),
            said=lambda summary: f"{summary}. ctrl+z undoes it.",
            refused=self._refused,
        )

    def action_transfer_ship(self) -> None:
        ship = self._need_ship()
        if ship is None or self.record is None:
            return
        self.call(Call(sheet.squadrons_of_side, self.factory, side_id=self.record.side_id),
                  then=lambda squadrons: self._transfer_form(ship, squadrons))  # fmt: skip

    def _transfer_form(self, ship: ShipView, squadrons: list[tuple[int, str]]) -> None:
        others = [(name, squadron_id) for squadron_id, name in squadrons
                  if squadron_id != self.squadron_id]  # fmt: skip
        if not others:
            self.notify("No other squadron on this side to transfer to.", severity="warning")
            return
        self._open(ship_forms.transfer_form(self, ship, others))

    def action_fire(self, delta: int) -> None:
        if (ship := self._need_ship()) is None:
            return
        # A marker more or less, counted by the service from the ship as it is then: f pressed
        # twice before the first is back adds two, and another player's marker is kept.
        self.call(Call(fleet.add_fire_markers, self.factory, ship_id=ship.id, delta=delta),
                  then=lambda _none: self.reload(), refused=self._refused)  # fmt: skip

    def action_form(self, kind: str) -> None:
        """The squadron's form `kind` (FORMS: commander, crew, test, reduction), on the ship
        under the cursor."""
        if (record := self._record()) is not None:
            self._open(FORMS[kind](self, record, self._ship()))

    def action_commander_ship(self) -> None:
        if (ship := self._need_ship()) is None:
            return
        call = Call(
            command.set_commander_ship, self.factory, squadron_id=self.squadron_id, ship_id=ship.id
        )
        self.call(call, then=self.tell, refused=self._refused)

    def action_restore_command(self) -> None:
        if (record := self._record()) is None:
            return
        if record.commander_refusal:  # said now, not after the rule is typed
            self.missing(record.commander_refusal)
            return
        self._open(ship_forms.restore_form(self, self.squadron_id))

    def action_edit_squadron(self) -> None:
        if (record := self._record()) is not None:
            ship_forms.edit_squadron(self, record, done=self._after_form)

    def action_counter(self, kind: str) -> None:
        if (ship := self._need_ship()) is None:
            return

        def opened(counter: CounterView) -> None:
            self._open(ship_forms.counter_form(kind, self, ship, counter))

        # The form edits the real values, as the owner sees them.
        self.call(Call(mines.counter, self.factory, ship_id=ship.id), then=opened)

    def action_print_sheet(self) -> None:
        if (record := self._record()) is not None:
            from tracker.screens.sheet_print import print_sheet

            print_sheet(self, record)
