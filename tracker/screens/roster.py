"""The fleet roster with decoy notes: a side's War at Sea units and its submarine markers.

The opponent view is the default and never asks the service for a secret note. The owner view
needs the side's passphrase (when it has one) and falls back to the opponent view after a short
idle time and whenever the screen is left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker.rules import was
from tracker.screens import roster_forms
from tracker.screens.calls import Call
from tracker.screens.card_detail import CardDetailScreen
from tracker.screens.card_picker import CardPickerScreen
from tracker.screens.csv_import import open_csv_import
from tracker.screens.form import FieldSpec, typed_dice
from tracker.screens.library_changes import offer_library_changes
from tracker.screens.owner_view import SIDE_PASSPHRASE, OwnerViewScreen
from tracker.screens.roster_rows import UNIT_COLUMNS, UNIT_FIT, marker_row, seals_said, unit_row
from tracker.screens.sealed_notice import tell_sealed
from tracker.screens.search_helper import search_helper_form
from tracker.services import hunt, markers, roster, sealing
from tracker.services.errors import InvalidInput
from tracker.services.hunt import SearchParty
from tracker.services.roster import MarkerView, Roster, UnitView, unit_fields_from
from tracker.services.sealing import Sealed
from tracker.widgets.plain import PlainTable
from tracker.widgets.search_table import SEARCH_KEYS, SearchTable
from tracker.widgets.tables import fit_columns, refill
from tracker.widgets.tones import ALERT, CAUTION


class RosterScreen(OwnerViewScreen):
    """Units above, markers below; v shows the owner's notes (passphrase), briefly."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the campaign"),
        Binding("v", "toggle_view", "Owner view", tooltip="Show or hide the owner's decoy notes"),
        Binding("a", "add_unit", "Add", tooltip="Add a War at Sea unit"),
        Binding("b", "build_fleet", "Cards",
                tooltip="Build the fleet from the library's cards: search, pick, see the budget"),
        Binding("e", "edit_unit", "Edit", tooltip="Edit the selected unit"),
        Binding("x", "delete_unit", "Delete", tooltip="Delete the selected unit", show=False),
        Binding("y", "copy_unit", "Copy", tooltip="Copy the selected unit's card as a new unit",
                show=False),
        Binding("m", "assign", "Markers", tooltip="Place a submarine's markers, real one noted"),
        Binding("g", "move", "Move", tooltip="Move a marker to a sector"),
        Binding("t", "attack", "Attack", tooltip="Resolve an attack on a marker"),
        Binding("c", "reconceal", "Conceal",
                tooltip="Re-conceal a revealed sub: one marker, or two when it got away"),
        Binding("s", "search", "Search",
                tooltip="The hunt: search for the selected marker (the roll is journaled)"),
        Binding("k", "sub_attack", "Sub attacks", show=False,
                tooltip="The selected marker's submarine attacks: reveal, torpedo dice (night "
                "rule)"),
        Binding("n", "mine", "Mine roll", show=False,
                tooltip="The selected submarine enters a minefield: d6, 1-2 hull damage"),
        Binding("L", "library_changes", "Library",
                tooltip="Bring units up to a later change of their card in the library"),
        Binding("I", "import_units", "Import CSV", show=False,
                tooltip="Add unit cards from a CSV file (checked first, all or none)"),
        Binding("P", "passphrase", "Passphrase", tooltip="Set or change the side's passphrase",
                show=False),
    ]  # fmt: skip
    # The umpire's view: the opponent view only, never the owner's notes or the passphrase.
    READ_ONLY_ACTIONS = frozenset({"back"})
    HELP_EXTRA = [("enter", "Open the unit under the cursor: every field, and its abilities "
                   "with their text from its library card"), *SEARCH_KEYS]  # fmt: skip
    FOOTER_DROPS = ("sort", "filter")  # the unit table's keys: in help when the footer is full

    def __init__(self, side_id: int) -> None:
        super().__init__()
        self.side_id = side_id
        self.view: Roster | None = None

    def body(self) -> ComposeResult:
        yield Static("", id="roster-heading", markup=False)
        yield SearchTable(id="unit-table", title="Units", zebra_stripes=True, classes="keys-here")
        yield PlainTable(
            id="marker-table", cursor_type="row", zebra_stripes=True, classes="keys-here"
        )

    def on_mount(self) -> None:
        units = self.query_one("#unit-table", SearchTable)
        units.add_sized_columns((label, len(label)) for label in UNIT_COLUMNS)
        fit_columns(units, *UNIT_FIT)
        markers = self.query_one("#marker-table", DataTable)
        markers.add_columns("Marker", "Sector", "State", "Identity", "Seal")
        markers.border_title = "Submarine markers"
        units.focus()

    def current_campaign_id(self) -> int | None:
        return self.view.campaign_id if self.view else None

    def reload(self) -> None:
        owner = self.owner and not self.read_only
        self.load(Call(roster.roster, self.factory, side_id=self.side_id, owner=owner,
                       passphrase=self.passphrase if owner else None), self._show)  # fmt: skip

    def _show(self, view: Roster) -> None:
        self.view = view
        self.title = f"Fleet roster: {view.side_name}"
        self.sub_title = "OWNER VIEW: decoy notes shown" if view.owner_view else "Opponent view"
        heading = Text()
        heading.append(f"{view.side_name}  ", style="bold")
        over = view.points > view.budget
        heading.append(f"{view.points} of {view.budget} points", style=ALERT if over else "")
        heading.append(f" ({view.budget - view.points} left)   ")
        heading.append("notes encrypted" if view.encrypted else
                       "no passphrase set" + self.hint(" (P sets one)"))  # fmt: skip
        if view.owner_view:
            heading.append("   OWNER VIEW: hide it before the opponent looks (v)", CAUTION)
        self.query_one("#roster-heading", Static).update(heading)
        self._show_units()
        names = {unit.id: unit.name for unit in view.units}
        refill(
            self.query_one("#marker-table", DataTable),
            ((str(m.id), marker_row(m, view.owner_view, names)) for m in view.markers),
        )

    def _show_units(self) -> None:
        if self.view is None:
            return
        table = self.query_one("#unit-table", SearchTable)
        rows = [(str(unit.id), unit_row(unit)) for unit in self.view.units]
        # The filter also finds a unit by its card's nation, year and class: no column shows them.
        found_by = {str(u.id): f"{u.nation} {u.year or ''} {u.class_name}" for u in self.view.units}
        table.show(rows, also=found_by)

    def _unit(self) -> UnitView | None:
        units = self.view.units if self.view else ()
        table = self.query_one("#unit-table", SearchTable)
        return self.row_of(table, units, "No unit yet: press a to add one.", "unit")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a unit opens it whole, its abilities worded as its library card words them.

        Shown as the opponent sees it, owner view or not: the detail stays open past the owner
        view's idle time, so it never holds a concealed sub's damage."""
        if event.data_table.id != "unit-table":
            return
        key = str(event.row_key.value)

        def opened(view: Roster) -> None:
            unit = next((unit for unit in view.units if str(unit.id) == key), None)
            if unit is not None and self.is_current:
                self.app.push_screen(CardDetailScreen(unit))

        self.call(Call(roster.roster, self.factory, side_id=self.side_id, owner=False), then=opened)

    def _marker(self) -> MarkerView | None:
        markers = self.view.markers if self.view else ()
        none = "No marker yet: select a submarine and press m."
        return self.row_of(self.query_one("#marker-table", DataTable), markers, none)

    def action_toggle_view(self) -> None:
        def check(passphrase: str) -> Call[Roster]:
            return Call(roster.roster, self.factory, side_id=self.side_id, owner=True,
                        passphrase=passphrase)  # fmt: skip

        encrypted = self.view is not None and self.view.encrypted
        self.ask_owner_view(check, [SIDE_PASSPHRASE] if encrypted else [])

    def action_import_units(self) -> None:
        open_csv_import(self, "units", self.side_id)

    def _save_unit(
        self, unit_id: int | None = None, version: int | None = None
    ) -> Callable[[dict[str, Any]], Call[int]]:
        """A unit form's submit: the unit saved as a new one, or as `unit_id` at the `version`
        the form was opened with (refused when another player changed it since)."""

        def submit(values: dict[str, Any]) -> Call[int]:
            fields = {**unit_fields_from(values), "version": version}
            return Call(roster.save_unit, self.factory, side_id=self.side_id, unit_id=unit_id,
                        fields=fields)  # fmt: skip

        return submit

    def action_add_unit(self) -> None:
        self.open_form("Add unit", roster_forms.unit_fields(None), self._save_unit())

    def action_build_fleet(self) -> None:
        names = [unit.name for unit in self.view.units] if self.view else []
        side_name = self.view.side_name if self.view else "the side"
        nation = self.view.side_nation if self.view else ""
        self.app.push_screen(
            CardPickerScreen(self.factory, self.side_id, side_name, names, nation=nation)
        )

    def action_library_changes(self) -> None:
        if self.view is not None:
            offer_library_changes(self, self.view.campaign_id, "unit")

    def action_edit_unit(self) -> None:
        if (unit := self._unit()) is None:
            return
        if unit.damage is None:
            self.notify(f"{unit.name}'s damage is secret: edit it in the owner view (v).",
                        severity="warning")  # fmt: skip
            return

        fields = roster_forms.unit_fields(unit)
        self.open_form(f"Edit {unit.name}", fields, self._save_unit(unit.id, unit.version))

    def action_copy_unit(self) -> None:
        if (unit := self._unit()) is None:
            return
        fields = roster_forms.unit_fields(unit)
        fields[0] = FieldSpec("name", "Name of the copy")
        note = "Same card; give it its own name."
        self.open_form(f"Copy of {unit.name}", fields, self._save_unit(), note=note)

    def action_delete_unit(self) -> None:
        if (unit := self._unit()) is None:
            return

        self.confirm_call(
            f"Delete {unit.name} and its markers?",
            Call(roster.delete_unit, self.factory, unit_id=unit.id),
        )

    def _secret_fields(self) -> list[FieldSpec]:
        if self.view is not None and self.view.encrypted and not self.passphrase:
            return [SIDE_PASSPHRASE]
        return []

    def action_assign(self) -> None:
        if (unit := self._unit()) is None:
            return
        count = was.MARKERS_PER_SUB + unit.extra_decoys
        fields = [*roster_forms.marker_fields(count), *self._secret_fields()]

        def submit(values: dict[str, Any]) -> Call[str]:
            sectors = [values.pop(f"sector_{n}") for n in range(1, count + 1)]
            turn = self.view.turn if self.view else None
            fixed = {"sectors": sectors, "turn": turn, "rng": self.rng, "version": unit.version}
            assign = self.calling_secret(markers.assign_markers, unit_id=unit.id, **fixed)
            return assign(values).map(seals_said)

        self.open_form(
            f"Markers for {unit.name}",
            fields,
            submit,
            timeout=15,
            note="Each marker in its own sector (RULES.md §Subs ¶2-3). Do this where the opponent "
            "cannot see: the real one is your secret.",
        )

    def action_move(self) -> None:
        if (marker := self._marker()) is None:
            return

        turn = self.view.turn if self.view else None
        self.open_form(
            f"Move {marker.code}",
            roster_forms.move_fields(),
            self.editing(markers.move_marker, marker, "marker_id", turn=turn),
            severity="warning",
            note="One sub marker per sector (refused); one sector a turn (warned).",
        )

    def action_attack(self) -> None:
        if (marker := self._marker()) is None:
            return
        self.open_form(
            f"Attack on {marker.code}",
            [*roster_forms.attack_fields(), *self._secret_fields()],
            self.calling_secret(hunt.attack_marker, marker_id=marker.id),
            note="A success reveals it: a decoy is removed, the real sub is placed.",
        )

    def action_reconceal(self) -> None:
        if (unit := self._unit()) is None:
            return
        shown = [m.sector for m in self.view.markers if m.unit_id == unit.id
                 and m.state == "revealed"] if self.view else []  # fmt: skip
        fields = [*roster_forms.reconceal_fields(shown[0] if shown else ""), *self._secret_fields()]

        def submit(values: dict[str, Any]) -> Call[str]:
            sectors = [values.pop("sector_1"), values.pop("sector_2")]
            sectors = sectors[: was.reconceal_markers(values["cause"])]
            conceal = self.calling_secret(
                markers.reconceal, unit_id=unit.id, rng=self.rng, sectors=sectors
            )
            return conceal(values).map(seals_said)

        self.open_form(f"Re-conceal {unit.name}", fields, submit, timeout=15,
                       note="A revealed sub that did not move this turn stays revealed, unless a "
                       "squall or fog marker entered its square (RULES.md §Subs ¶11). Each marker "
                       "in its own sector.")  # fmt: skip

    def action_sub_attack(self) -> None:
        if (marker := self._marker()) is None:
            return
        fields = [*roster_forms.sub_attack_fields(), *self._secret_fields()]

        def submit(values: dict[str, Any]) -> Call[str]:
            dice = typed_dice(values, "torpedo_dice", "give the dice as numbers 1..6, e.g. 5 6 3")
            attack = self.calling_secret(hunt.sub_attacks, marker_id=marker.id, torpedo_dice=dice)
            return attack(values)

        self.open_form(
            f"{marker.code} attacks",
            fields,
            submit,
            note="A target in its own sector reveals it (any attack does, if the "
            "campaign plays that variant). A torpedo die hits on a 6; at night, against a target "
            "hit earlier this turn, on a 5 or 6 (§9e).",
        )

    def action_mine(self) -> None:
        if (unit := self._unit()) is None:
            return
        self.open_form(
            f"{unit.name} enters a minefield",
            [*roster_forms.mine_roll_fields(), *self._secret_fields()],
            self.calling_secret(hunt.mine_roll, unit_id=unit.id),
            dice_field="roll",
            dice_sides=6,
            secret_die=True,
            note="A 1 does 1 hull damage, a 2 does 2, else nothing (RULES.md §Subs ¶12). Kept "
            "secret. The sector must hold a minefield on the ledger.",
        )

    def action_passphrase(self) -> None:
        fields = roster_forms.passphrase_fields(self.view is not None and self.view.encrypted)

        def submit(values: dict[str, Any]) -> Call[Sealed]:
            # A typo here would lock the side's notes away for good: it is typed twice.
            if values.pop("again") != values["passphrase"]:
                raise InvalidInput({"again": "the two passphrases differ: type them again"})
            return Call(sealing.set_passphrase, self.factory, side_id=self.side_id, **values)

        def done(result: object) -> None:
            if isinstance(result, Sealed):
                tell_sealed(self, self.factory, result)
            self.reload()

        self.open_form("Side's passphrase", fields, submit, done=done)

    def action_search(self) -> None:
        if (marker := self._marker()) is None:
            return

        def record(party: SearchParty, roll: int) -> Call[str]:
            return Call(hunt.record_search, self.factory, marker_id=marker.id, party=party,
                        roll=roll)  # fmt: skip

        def target_of(party: SearchParty) -> Call[int]:
            return Call(hunt.search_target, self.factory, marker_id=marker.id, party=party)

        self.app.push_screen(search_helper_form(record, marker.code, target_of), self.tell)
