"""The Squadron Record Sheet: commander, crew and a row per ship, for one squadron (SMR2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Static

from tracker.rules import smr
from tracker.safe_output import ExistingFile
from tracker.screens import calls, ship_forms
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.class_picker import ClassPickerScreen
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.csv_import import open_csv_import
from tracker.screens.damage_entry import open_damage_entry
from tracker.screens.form import FieldSpec, FormScreen, replace_first
from tracker.screens.journal import JournalScreen
from tracker.screens.library_changes import offer_library_changes
from tracker.screens.next_turn import begin_next_turn
from tracker.screens.ship_detail import ShipDetailScreen, counter_summary, has_counter
from tracker.screens.zero_outcome import ask_zero_outcome
from tracker.services import command, fleet, mines, printing, sheet
from tracker.services.damage import ShipPick
from tracker.services.mines import CounterView
from tracker.services.views import RecordSheet, ShipView, TestResult
from tracker.services.visibility import Viewer
from tracker.widgets.search_table import SearchTable, SortAs, search_keys
from tracker.widgets.tables import cell_width, give_way
from tracker.widgets.tones import ALERT, NOTICE, toned
from tracker.widgets.track_bar import track_bar

# (label, width): damage comes first, then the criticals in force; at 120 columns the last
# columns (the ship's data, not its state) scroll into view with the cursor.
SHIP_COLUMNS = (
    ("Ship", 12), ("Structure", 14), ("Flotation", 14), ("Fire", 4), ("Morale", 9), ("Crits", 12),
    ("Type", 4), ("Class", 9), ("Nation", 9), ("Sz Kn Ar", 8), ("Points", 9), ("Base", 4),
)  # fmt: skip
LEGEND = (
    "Morale tests: S⅓ black smoke (Structure ≤ 1/3) · F⅓ white smoke (Flotation ≤ 1/3) · ½ "
    "squadron at half strength · OoC Out of Command this turn · Crits: criticals in force, the "
    "newest named · Points base→with crew %"
)
COUNTER_KEYS = "u counter · o use fuel · O refuel"
SORT_KEY = "S"  # o uses fuel here
# The columns whose width follows what they hold, (narrowest, widest): names are not cut while
# the table has room.
FLEXIBLE = {"Ship": (8, 24), "Crits": (8, 30), "Class": (5, 16), "Nation": (6, 16)}
# When the columns up to Points do not fit, they give way in this order, each down to the width
# named, so that Points stays on screen at 120 columns: the nation and the class first (the
# ship's data), then the criticals (the newest one's effect is in the ship's view too), the
# ship's name last.
GIVE_WAY = (("Nation", 9), ("Class", 9), ("Crits", 8), ("Nation", 6), ("Class", 5), ("Ship", 8))


def commander_block(record: RecordSheet, hints: bool = True) -> str:
    """The commander's box: rating, modifier and radius now/base, unit limit, cost."""
    commander = record.commander
    if commander is None:
        return "No commander yet." + ("\nPress r to roll or buy one." if hints else "")
    how = (
        f"rolled {commander.roll} at {smr.training_numeral(commander.training)}"
        if commander.acquisition == "random"
        else f"bought at {smr.training_numeral(commander.training)}"
    )
    unit = "stands" if commander.air else "ships"
    if commander.status == "lost":
        return (
            f"{commander.name or 'The commander'}: LOST"
            + (f" with {record.commander_ship}" if record.commander_ship else "")
            + "\nShips Out of Command (SMR2 §3.4)\nSMR2 §10.3 is not in this tracker:\n"
            + ("r types" if hints else "type")
            + " your rulebook's replacement"
        )
    aboard = f" · aboard {record.commander_ship}" if record.commander_ship else ""
    return (
        f"{commander.name or '(unnamed)'}{aboard}\n"
        f"{commander.rating} · {how}\n"
        f"Modifier {commander.modifier_now:+d} (base {commander.modifier_base:+d})\n"
        f"Radius {commander.radius_now_cm} cm (base {commander.radius_base_cm})\n"
        f"Commands {commander.command_limit} {unit} · cost {commander.cost}"
    )


def crew_block(record: RecordSheet, hints: bool = True) -> str:
    """The crew's box: quality, roll, modifier now/base, points percentage, optional rule."""
    crew = record.crew
    rule = "on" if record.crew_roll_adds_commander else "off"
    if crew is None:
        hint = "\nPress w to roll or buy one." if hints else ""
        return f"No crew rating yet.{hint}\nOptional commander rule: {rule}" + own_crews(record)
    text = (
        f"{crew.quality} · {printing.crew_how(crew)}\n"
        f"Modifier {crew.modifier_now:+d} (base {crew.modifier_base:+d})\n"
        f"Points {crew.cost_percent:+d}% on each ship\n"
        f"Optional commander rule: {rule}"
    )
    return text + own_crews(record)


def own_crews(record: RecordSheet) -> str:
    """The ships that sail with a crew of their own, taken from their first squadron (§3.2)."""
    return "".join(
        f"\n{ship.name}: own crew {ship.own_crew.quality} {ship.own_crew.modifier_now:+d}"
        for ship in record.ships
        if ship.own_crew is not None
    )


def strength_lines(original: int, afloat: int, half: bool) -> str:
    """Original ships afloat and half strength, worded alike on the sheet and the scenario."""
    if not original:
        return "Afloat: no original ships\nHalf strength: -"
    return (
        f"Afloat {afloat} of {original} original\n"
        f"Half strength: {'YES: morale tests' if half else 'no'}"
    )


def totals_block(record: RecordSheet) -> str:
    """Squadron totals: points, original ships afloat, half strength, ships beyond his limit."""
    strength = strength_lines(record.original_count, record.original_afloat, record.half_strength)
    text = f"Points {record.points_total}\n{strength}\nScale {record.model_scale}"
    afloat = sum(1 for ship in record.ships if not ship.sunk)
    if record.commander and afloat > record.commander.command_limit:
        # SMR2 §3.3: only that many may take In Command actions in a turn.
        text += f"\n{afloat} ships, he commands {record.commander.command_limit}"
    return text


def ship_status(ship: ShipView) -> Text:
    """Sunk, the morale tests she owes (S⅓, F⅓, ½: services.sheet.morale_marks), Out of
    Command (OoC)."""
    if ship.sunk:
        return toned("SUNK", ALERT)
    if ship.condition:
        return toned(ship.condition, ALERT, overflow="ellipsis", no_wrap=True)
    text = toned(" ".join(ship.morale), ALERT)
    if ship.out_of_command:
        text.append(" OoC" if ship.morale else "OoC", style=NOTICE)
    return text


def criticals_cell(ship: ShipView) -> Text:
    """The critical hits in force: how many, then the newest one's effect (`2 B turret out`)."""
    if not ship.criticals_in_force:
        return Text("")
    return toned(f"{ship.criticals_in_force} {ship.newest_critical}", NOTICE,
                 overflow="ellipsis", no_wrap=True)  # fmt: skip


def ship_row(ship: ShipView) -> list[Any]:
    """One row of the ships table; names are plain Text so markup in them shows as typed."""
    return [
        Text(ship.name, style="bold", overflow="ellipsis", no_wrap=True),
        SortAs(
            track_bar(ship.structure_now, ship.structure_max, flagged=ship.structure_third),
            ship.structure_now,
        ),
        SortAs(
            track_bar(ship.flotation_now, ship.flotation_max, flagged=ship.flotation_third),
            ship.flotation_now,
        ),
        toned(str(ship.fire_markers or ""), ALERT),
        ship_status(ship),
        criticals_cell(ship),
        Text(ship.type_abbrev),
        Text(ship.class_name, overflow="ellipsis", no_wrap=True),
        Text(ship.nation, overflow="ellipsis", no_wrap=True),
        f"{ship.size_modifier:+d} {ship.speed_kn:>2} {ship.armour_class}",
        SortAs(f"{ship.points_base}→{ship.points_total}", ship.points_total),
        f"{ship.base_width_cm:g}",
    ]


def column_widths(rows: list[list[Any]], room: int) -> list[int]:
    """The width of each column of SHIP_COLUMNS for these rows in a table `room` cells wide."""
    labels = [label for label, _ in SHIP_COLUMNS]
    widths = [width for _, width in SHIP_COLUMNS]
    for label, (low, high) in FLEXIBLE.items():
        at = labels.index(label)
        held = max((cell_width(row[at]) for row in rows), default=0)
        widths[at] = min(max(held, len(label), low), high)
    shown = labels.index("Points") + 1
    return give_way(widths[:shown], labels, GIVE_WAY, room) + widths[shown:]


@dataclass(frozen=True)
class ShipSaved:
    """A form added a ship: the sheet puts its cursor on it."""

    ship_id: int


@dataclass(frozen=True)
class Tested:
    """A command or crew test recorded from the sheet, for its toast."""

    result: TestResult


class RecordSheetScreen(TrackerScreen):
    """One squadron's sheet; every action is a key in the Footer and an entry in the palette."""

    # Short words for the Footer; the tooltip is the name in the palette and the help screen.
    HELP_EXTRA = [("enter", "Open the ship: batteries and critical hits"), *search_keys(SORT_KEY)]

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
        Binding("c", "copy_ship", "Sister", tooltip="Copy the ship as a sister ship", show=False),
        Binding("x,delete", "delete_ship", "Delete", tooltip="Delete the ship"),
        Binding(
            "t",
            "transfer_ship",
            "Transfer",
            tooltip="Transfer the ship to another squadron",
            show=False,
        ),
        Binding("f", "fire(1)", "Fire+", tooltip="Add a fire marker to the ship"),
        Binding("F", "fire(-1)", "Fire-", tooltip="Remove a fire marker from the ship", show=False),
        Binding("r", "commander", "Commander", tooltip="Roll or buy the commander"),
        Binding("w", "crew", "Crew", tooltip="Roll or buy the crew"),
        Binding(
            "g",
            "commander_ship",
            "Flagship",
            tooltip="Put the commander aboard the selected ship (a transfer, SMR2 §6.7)",
            show=False,
        ),
        Binding("k", "test", "Test", tooltip="Command or crew test (d10)"),
        Binding(
            "m", "reduce", "Reduce", tooltip="Combat reductions to command and crew", show=False
        ),
        Binding(
            "M",
            "restore_command",
            "Restore",
            tooltip="Restore the commander's rated modifier and radius, by a rule you name",
            show=False,
        ),
        Binding("j", "journal", "Journal", tooltip="The campaign journal"),
        Binding("n", "next_turn", "Next turn", tooltip="Begin the scenario's next turn"),
        Binding("s", "edit_squadron", "Squadron", tooltip="Edit the squadron", show=False),
        Binding(
            "I",
            "import_ships",
            "Import CSV",
            show=False,
            tooltip="Add ships to the squadron from a CSV file (checked first, all or none)",
        ),
        Binding(
            "u",
            "counter",
            "Counter",
            tooltip="Enter the ship's Second World War at Sea counter and fuel",
        ),
        Binding(
            "o", "use_fuel", "Use fuel", tooltip="Use fuel: full factors become empty", show=False
        ),
        Binding(
            "O",
            "refuel",
            "Refuel",
            tooltip="Refuel empty fuel factors (lost ones need a port repair)",
            show=False,
        ),
        Binding(
            "P",
            "print_sheet",
            "Print",
            tooltip="Print the record sheet to an HTML page (A4 or Letter) or Markdown",
            show=False,
        ),
    ]
    # The umpire's view reads the sheet, opens its ships and the journal, and prints it to a
    # file (the database is not touched); every change to the squadron is left out.
    READ_ONLY_ACTIONS = frozenset({"back", "journal", "print_sheet"})
    # The keys the footer leaves out first when they do not all fit on one line, so that it
    # ends with a whole key at any width: help (?) and the palette (ctrl+p) still list them.
    FOOTER_DROPS = (
        "sort", "filter", "library_changes", "build_squadron", "journal", "counter",
        "delete_ship", "crew", "commander", "add_ship",
    )  # fmt: skip

    def __init__(self, squadron_id: int) -> None:
        super().__init__()
        self.squadron_id = squadron_id
        self.record: RecordSheet | None = None
        self.counters: dict[int, CounterView] = {}
        self.select_ship_id: int | None = None  # a ship just added: the cursor goes to it
        # A form just closed: once the sheet is read again, a ship left at zero asks what
        # happened to it.
        self.ask_if_at_zero = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="sheet-heading", markup=False)
        with Horizontal(id="sheet-blocks"):
            yield Static("", id="commander-block", markup=False)
            yield Static("", id="crew-block", markup=False)
            yield Static("", id="totals-block", markup=False)
        yield SearchTable(id="ship-table", title="Ships", sort_key=SORT_KEY, zebra_stripes=True)
        yield Static("", id="sheet-empty", markup=False)
        yield Static("", id="counter-panel", markup=False)
        yield Static(LEGEND, id="sheet-legend", markup=False)
        yield Footer(compact=True)

    def on_resize(self) -> None:
        if self.record is not None:
            self._fill_table(self.record)

    def _fill_table(self, record: RecordSheet) -> None:
        """The ships' rows, in columns fitted to the table's width, filtered and sorted as the
        player chose; the cursor stays on its ship wherever the ship is now, and a ship just
        added takes it."""
        table = self.query_one(SearchTable)
        rows = [ship_row(ship) for ship in record.ships]
        room = table.scrollable_content_region.width or self.size.width
        table.set_widths(column_widths(rows, room))
        table.show((str(ship.id), cells) for ship, cells in zip(record.ships, rows, strict=True))
        if self.select_ship_id is not None:
            table.select_key(str(self.select_ship_id))
        self.select_ship_id = None

    def on_mount(self) -> None:
        self.query_one("#commander-block").border_title = "Commander"
        self.query_one("#crew-block").border_title = "Crew"
        self.query_one("#totals-block").border_title = "Squadron"
        self.query_one("#counter-panel").border_subtitle = self.hint(COUNTER_KEYS)
        table = self.query_one(DataTable)
        # Keep the red of a flagged track visible under the cursor.
        table.cursor_foreground_priority = "renderable"
        for label, width in SHIP_COLUMNS:
            table.add_column(label, width=width)
        self.query_one(DataTable).focus()

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
        if not record.scenario:
            scenario = "no scenario yet"
        elif record.scenario_status == "in_play":
            scenario = f"{record.scenario}, turn {record.turn}"
        else:
            scenario = f"{record.scenario} ({record.scenario_status.replace('_', ' ')})"
        kind = "Air group" if record.air else "Squadron"
        self.query_one("#sheet-heading", Static).update(
            f"{record.side_name} · {kind} {record.squadron_name}    Scenario: {scenario}"
        )
        hints = not self.read_only
        self.query_one("#commander-block", Static).update(commander_block(record, hints))
        self.query_one("#crew-block", Static).update(crew_block(record, hints))
        self.query_one("#totals-block", Static).update(totals_block(record))
        self._fill_table(record)
        ids = [ship.id for ship in record.ships]
        self.query_one("#sheet-empty", Static).update(
            "" if record.ships else "No ships in this squadron." + self.hint(" Press a to add one.")
        )
        self._show_counter()
        # In front of both players: a minelayer's mines show in the ledger's owner view.
        self.load(Call(mines.ship_counters, self.factory, ship_ids=ids, viewer=Viewer.OPPONENT),
                  self._show_counters)  # fmt: skip
        if self.ask_if_at_zero:
            self.ask_if_at_zero = False
            self._ask_if_at_zero()

    def _show_counters(self, counters: dict[int, CounterView]) -> None:
        self.counters = counters
        self._show_counter()

    def _show_counter(self) -> None:
        """The highlighted ship's counter, once any ship of the squadron has counter values.

        A squadron played with Stations Manned and Ready! alone never shows the panel.
        """
        panel = self.query_one("#counter-panel", Static)
        panel.display = any(has_counter(counter) for counter in self.counters.values())
        ship = self._ship()
        counter = self.counters.get(ship.id) if ship else None
        if not panel.display or ship is None or counter is None:
            return
        panel.border_title = Text(f"Second World War at Sea counter: {ship.name}")  # not markup
        if has_counter(counter):
            panel.update(counter_summary(counter))
        else:
            panel.update(Text(f"{ship.name} has no counter values yet"
                              + self.hint(": press u to enter them") + ".",
                              style="dim"))  # fmt: skip

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_counter()

    def _ship(self) -> ShipView | None:
        if self.record is None:
            return None
        key = self.query_one(SearchTable).selected_key()
        return next((ship for ship in self.record.ships if str(ship.id) == key), None)

    def _unread(self) -> None:
        self.missing("The sheet is not read yet: try again in a moment.")

    def _need_ship(self) -> ShipView | None:
        ship = self._ship()
        if ship is None:
            self.missing("No ship selected: press a to add one.")
        return ship

    def _form(self, title: str, fields: list[FieldSpec], submit: Any, **kwargs: Any) -> None:
        self.app.push_screen(
            FormScreen(title, fields, submit, rng=self.rng, **kwargs), self._after_form
        )

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

    def _ask_if_at_zero(self) -> None:
        """A ship edited down to zero asks what happened, as a hit to zero does."""
        if self.record is None:
            return
        for ship in self.record.ships:
            at_zero = ship.structure_now == 0 or ship.flotation_now == 0
            if at_zero and not ship.sunk and not ship.condition:
                ask_zero_outcome(self, ship.id, ship.name, self._notes)
                return

    def _notes(self, notes: list[str] | None) -> None:
        if notes:
            self.notify("\n".join(notes), severity="warning")
        self.reload()

    def _changed(self, call: Call[Any], said: Callable[[Any], str | None] | None = None) -> None:
        """A change made from the sheet's own keys, then the sheet read again; `said` words its
        result for a toast."""

        def done(result: Any) -> None:
            words = said(result) if said is not None else None
            if words:
                self.notify(words, markup=False)
            self.reload()

        self.call(call, then=done, refused=self._refused)

    def _refused(self, error: Exception) -> None:
        """A change the services refused: said as they word it, and the sheet read again, so it
        shows the squadron as it stands."""
        self.notify(calls.message(error), severity="error", markup=False)
        self.reload()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        ship = self._ship()
        if ship is not None:
            self.app.push_screen(ShipDetailScreen(ship.id))

    def action_back(self) -> None:
        self.dismiss()

    def current_campaign_id(self) -> int | None:
        return self.record.campaign_id if self.record else None

    def action_damage(self) -> None:
        if self.record is None:
            self._unread()
            return
        ship = self._ship()
        afloat = tuple(
            ShipPick(id=s.id, name=s.name, side=self.record.side_name,
                     squadron=self.record.squadron_name, sunk=False)
            for s in self.record.ships if not s.sunk
        )  # fmt: skip
        open_damage_entry(self.app, self.record.campaign_id, ship.id if ship else None, afloat)

    def action_next_turn(self) -> None:
        if self.record is not None:
            begin_next_turn(self, self.record.campaign_id, self.reload)

    def action_import_ships(self) -> None:
        open_csv_import(self, "ships", self.squadron_id)

    def action_journal(self) -> None:
        if self.record is not None:
            self.app.push_screen(JournalScreen(self.record.campaign_id))

    def action_add_ship(self) -> None:
        def submit(values: dict[str, Any]) -> Call[ShipSaved]:
            return Call(fleet.create_ship, self.factory, squadron_id=self.squadron_id,
                        fields=values).map(ShipSaved)  # fmt: skip

        self._form("Add ship", ship_forms.ship_fields(None), submit)

    def action_build_squadron(self) -> None:
        def done(ids: tuple[int, ...] | None) -> None:
            if ids:
                self.select_ship_id = ids[0]
                self.notify(f"{len(ids)} ship{'s' * (len(ids) != 1)} added from the library")
            self.reload()

        self.app.push_screen(ClassPickerScreen(self.factory, self.squadron_id), done)

    def action_library_changes(self) -> None:
        if self.record is not None:
            offer_library_changes(self, self.record.campaign_id, "ship")

    def action_edit_ship(self) -> None:
        ship = self._need_ship()
        if ship is None:
            return

        def submit(values: dict[str, Any]) -> Call[None]:
            return Call(fleet.update_ship, self.factory, ship_id=ship.id,
                        fields={**values, "version": ship.version})  # fmt: skip

        self._form(f"Edit {ship.name}", ship_forms.ship_fields(ship), submit)

    def action_copy_ship(self) -> None:
        ship = self._need_ship()
        if ship is None:
            return

        def submit(values: dict[str, Any]) -> Call[ShipSaved]:
            return Call(fleet.copy_ship, self.factory, ship_id=ship.id,
                        name=values["name"]).map(ShipSaved)  # fmt: skip

        self._form(
            f"Sister ship of {ship.name}",
            [FieldSpec("name", "Name of the sister ship")],
            submit,
            note="Same class, data and batteries; undamaged.",
        )

    def action_delete_ship(self) -> None:
        ship = self._need_ship()
        if ship is None:
            return

        def done(yes: bool | None) -> None:
            if yes:
                self._changed(Call(fleet.delete_ship, self.factory, ship_id=ship.id),
                              lambda summary: f"{summary}. ctrl+z undoes it.")  # fmt: skip

        self.app.push_screen(
            ConfirmScreen(
                f"Delete {ship.name} and its batteries? A ship that took part in a scenario is "
                "retired instead: kept in that scenario's history, gone from the sheet."
            ),
            done,
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

        def submit(values: dict[str, Any]) -> Call[str]:
            return Call(fleet.transfer_ship, self.factory, ship_id=ship.id,
                        to_squadron_id=values["squadron"])  # fmt: skip

        self._form(
            f"Transfer {ship.name}",
            [FieldSpec("squadron", "To squadron", kind="select", value=others[0][1],
                       options=others)],
            submit,
            note="It keeps its own crew; during a battle it is Out of Command until the end of "
            "the turn (SMR2 §3.2, §3.4).",
        )  # fmt: skip

    def action_fire(self, delta: int) -> None:
        ship = self._need_ship()
        if ship is None:
            return
        # A marker more or less, counted by the service from the ship as it is then: f pressed
        # twice before the first is back adds two, and another player's marker is kept.
        self.call(Call(fleet.add_fire_markers, self.factory, ship_id=ship.id, delta=delta),
                  then=lambda _none: self.reload(), refused=self._refused)  # fmt: skip

    def action_commander(self) -> None:
        if self.record is None:
            self._unread()
            return
        version = self.record.commander.version if self.record.commander else None

        def submit(values: dict[str, Any]) -> Call[None]:
            return Call(command.set_commander, self.factory, squadron_id=self.squadron_id,
                        **values, version=version)  # fmt: skip

        lost = self.record.commander is not None and self.record.commander.status == "lost"
        self._form(
            "Replacement commander: roll or buy" if lost else "Commander: roll or buy",
            ship_forms.commander_fields(self.record.commander),
            submit,
            preview=ship_forms.commander_preview(self.record.air),
            dice_field="roll",
        )

    def action_commander_ship(self) -> None:
        ship = self._need_ship()
        if ship is None:
            return
        self._changed(
            Call(command.set_commander_ship, self.factory, squadron_id=self.squadron_id,
                 ship_id=ship.id),
            lambda summary: summary,
        )  # fmt: skip

    def action_crew(self) -> None:
        if self.record is None:
            self._unread()
            return
        version = self.record.crew.version if self.record.crew else None

        def submit(values: dict[str, Any]) -> Call[None]:
            return Call(command.set_crew, self.factory, squadron_id=self.squadron_id, **values,
                        version=version)  # fmt: skip

        self._form(
            "Crew: roll or buy",
            ship_forms.crew_fields(self.record.crew),
            submit,
            preview=ship_forms.crew_preview(self.record),
            dice_field="roll",
        )

    def action_test(self) -> None:
        if self.record is None:
            self._unread()
            return
        record = self.record
        ship = self._ship()

        def submit(values: dict[str, Any]) -> Call[Tested]:
            # A crew test is of the selected ship's crew; the commander tests aboard his ship.
            crew_ship = ship if ship is not None and values["subject"] == "crew" else None
            return Call(command.record_test, self.factory, squadron_id=self.squadron_id,
                        ship_id=crew_ship.id if crew_ship else None,
                        **values).map(Tested)  # fmt: skip

        own = ship is not None and ship.own_crew is not None
        self._form(
            f"Command / crew test of {record.squadron_name}"
            + (f" (crew: {ship.name}{', her own' if own else ''})" if ship else ""),
            ship_forms.test_fields(record, bool(ship and ship.fire_markers)),
            submit,
            preview=ship_forms.test_preview(record, ship),
            dice_field="roll",
            note="d10 + modifier, -2 under any fire marker, + situation: 6 or more passes."
            + (f" A crew test is of {ship.name}'s own crew." if ship and own else ""),
        )

    def action_reduce(self) -> None:
        ship = self._ship()
        own = ship if ship is not None and ship.own_crew is not None else None

        def submit(values: dict[str, Any]) -> Call[None]:
            return Call(command.reduce_command, self.factory, squadron_id=self.squadron_id,
                        ship_id=own.id if own else None, **values)  # fmt: skip

        note = "Floors: modifier -2, radius 10 cm; the number of ships commanded never drops."
        if own is not None:
            note += f" The crew reduction goes to {own.name}'s own crew."
        self._form("Combat reductions", ship_forms.reduction_fields(), submit, note=note)

    def action_restore_command(self) -> None:
        def submit(values: dict[str, Any]) -> Call[str]:
            return Call(command.restore_command, self.factory, squadron_id=self.squadron_id,
                        rule=values["rule"])  # fmt: skip

        self._form(
            "Restore the commander",
            [FieldSpec("rule", "By the rule", placeholder="e.g. our repair rule, 12.2")],
            submit,
            note="Combat reductions stay with the commander, re-rolled or re-bought (SMR2 "
            "§3.5); the seed gives no rule that ends them: name the one your group plays.",
        )

    def action_edit_squadron(self) -> None:
        if self.record is None:
            self._unread()
            return
        record = self.record

        def submit(values: dict[str, Any]) -> Call[None]:
            return Call(fleet.update_squadron, self.factory, squadron_id=self.squadron_id,
                        **values, version=record.squadron_version)  # fmt: skip

        self._form(
            f"Edit squadron {record.squadron_name}",
            ship_forms.squadron_fields(record.squadron_name, record.air, record.notes),
            submit,
        )

    def _counter_form(
        self,
        title: str,
        fields: Callable[[CounterView], list[FieldSpec]],
        service: Callable[..., str],
        note: Callable[[CounterView], str],
    ) -> None:
        """A form on the selected ship's counter whose values go to one mines service."""
        ship = self._need_ship()
        if ship is None:
            return

        def opened(counter: CounterView) -> None:
            def submit(values: dict[str, Any]) -> Call[str]:
                return Call(service, self.factory, ship_id=ship.id, version=counter.version,
                            **values)  # fmt: skip

            self._form(title.format(name=ship.name), fields(counter), submit, note=note(counter))

        # The form edits the real values, as the owner sees them.
        self.call(Call(mines.counter, self.factory, ship_id=ship.id), then=opened)

    def action_counter(self) -> None:
        self._counter_form(
            "Counter of {name}", ship_forms.counter_fields, mines.save_counter,
            ship_forms.counter_note,
        )  # fmt: skip

    def action_use_fuel(self) -> None:
        self._counter_form(
            "{name} uses fuel", ship_forms.use_fuel_fields, mines.use_fuel,
            ship_forms.use_fuel_note,
        )  # fmt: skip

    def action_refuel(self) -> None:
        self._counter_form(
            "Refuel {name}", ship_forms.refuel_fields, mines.refuel_ship, ship_forms.refuel_note
        )

    def action_print_sheet(self) -> None:
        """Write the sheet to a file: HTML for A4 or Letter paper, or Markdown for notes."""
        if self.record is None:
            self._unread()
            return

        def where(fmt: str) -> Call[Any]:
            return Call(printing.default_sheet_path, self.factory, squadron_id=self.squadron_id,
                        fmt=fmt)  # fmt: skip

        self.call(where("html"), then=lambda html: self.call(
            where("markdown"), then=lambda md: self._print_form(str(html), str(md))))  # fmt: skip

    def _print_form(self, html_path: str, md_path: str) -> None:
        if self.record is None:
            return

        def target(values: dict[str, Any]) -> str:
            # The default follows the format; a path the player typed is kept as typed.
            path = str(values.get("path") or "").strip()
            return md_path if values.get("fmt") == "markdown" and path == html_path else path

        def write(values: dict[str, Any], replace: bool) -> Call[Any]:
            call = Call(
                printing.write_sheet,
                self.factory, squadron_id=self.squadron_id, path=target(values),
                fmt=values["fmt"], paper=values["paper"], replace=replace,
                new_only=self.read_only, viewer=Viewer.UMPIRE if self.read_only else Viewer.OWNER,
            )  # fmt: skip
            # A file that exists is replaced only once the player says yes.
            return call.turning(ExistingFile, lambda exc: replace_first(
                exc, "this sheet", lambda: write(values, replace=True)))  # fmt: skip

        def done(written: object) -> None:
            # Nothing on the sheet changed; the path is shown as typed, brackets and all.
            if written is not None:
                self.notify(f"Record sheet written to {written}", markup=False)

        def preview(values: dict[str, Any]) -> str:
            paper = {"a4": " for A4 paper", "letter": " for Letter paper"}.get(values["paper"], "")
            return f"Writes {target(values) or '(no file)'}" + (
                "" if values.get("fmt") == "markdown" else paper
            )

        fields = [
            FieldSpec("fmt", "Format", kind="select", value="html",
                      options=[("HTML page to print", "html"), ("Markdown", "markdown")]),
            FieldSpec("paper", "Paper", kind="select", value="a4",
                      options=[("A4", "a4"), ("Letter", "letter")]),
            FieldSpec("path", "File", value=html_path),
        ]  # fmt: skip
        note = "The squadron as it stands now, with boxes and lines for pencil."
        self.app.push_screen(
            FormScreen(f"Print {self.record.squadron_name}", fields,
                       lambda values: write(values, replace=False), note=note,
                       preview=preview, rng=self.rng, read_only_ok=True),
            done,
        )  # fmt: skip
