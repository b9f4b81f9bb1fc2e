"""The minefield ledger and fuel loss: who sowed which minefields where, and every ship's fuel.

Second World War at Sea mine-warfare variant (RULES.md §Mines) with the War at Sea secured and
drifting minefields (RULES.md §Subs ¶12-13). Secret minefields show their owner, status and turns
only; the owner view (v) opens them with the side's passphrase, briefly, as on the roster.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker.rules.words import plural
from tracker.screens import ledger_forms as forms
from tracker.screens import ledger_rows as cells
from tracker.screens.calls import Call
from tracker.screens.csv_import import open_csv_import
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec, typed_dice
from tracker.screens.mine_check import MineCheckScreen, start_check_flow
from tracker.screens.mine_table import MineTableScreen
from tracker.screens.owner_view import OwnerViewScreen
from tracker.screens.roster_forms import mine_roll_fields
from tracker.services import campaigns, hunt, mines, roster
from tracker.services.errors import InvalidInput
from tracker.services.mines import Ledger, MinefieldCreate, MinefieldView
from tracker.services.roster import Roster, UnitView
from tracker.widgets.plain import PlainTable
from tracker.widgets.search_table import EMPTY_KEY, SEARCH_KEYS, SearchTable
from tracker.widgets.tables import fit_columns, refill, under_cursor
from tracker.widgets.tones import CAUTION


class LedgerScreen(OwnerViewScreen):
    """Minefields above, ships' counters and fuel below."""

    HELP_EXTRA = [("enter", "The selected minefield's path and notes"), *SEARCH_KEYS]
    FOOTER_DROPS = ("sort", "filter")  # the minefield table's keys: in help when the footer is full

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the campaign"),
        Binding("n", "sow", "Sow", tooltip="Begin sowing a minefield (or enter a laid one)"),
        Binding("c", "complete", "Complete", tooltip="The selected minefield is complete"),
        Binding("a", "aerial", "Air drop", tooltip="Aircraft drop minefields, a d6 each"),
        Binding("m", "check", "Mine check",
                tooltip="A task force enters the selected minefield (or resume the check)"),
        Binding("g", "drift", "Drift", tooltip="A drifting minefield scatters at end of turn"),
        Binding("w", "status", "Swept", tooltip="Mark the minefield swept or expended"),
        Binding("r", "reveal", "Reveal", tooltip="The owner reveals a secret minefield",
                show=False),
        Binding("v", "toggle_view", "Owner view",
                tooltip="Show or hide one side's secret minefields (passphrase)"),
        Binding("b", "boundary", "Boundary", tooltip="Add a boundary between two sea areas",
                show=False),
        Binding("t", "table", "Mine table", tooltip="The campaign's mine damage table"),
        Binding("u", "sub_mine", "Sub in mines", show=False,
                tooltip="A War at Sea submarine enters a mined sector: d6, 1-2 hull damage"),
        Binding("T", "torpedo", "Torpedo attack", show=False,
                tooltip="The ship selected below makes a torpedo attack (not while sowing)"),
        Binding("tab", "app.focus_next", "Table", show=False,
                tooltip="Switch between the minefields and the ships"),
        Binding("I", "import_counters", "Import CSV", show=False,
                tooltip="Ships' counters from a CSV file, matched by ship name (all or none)"),
        Binding("j", "journal", "Journal", tooltip="The campaign journal", show=False),
    ]  # fmt: skip
    # The umpire's view: the opponent view only. m is kept only to watch a check in progress
    # (see check_action); starting one is a write.
    READ_ONLY_ACTIONS = frozenset({"back", "table", "journal"})

    def __init__(self, campaign_id: int) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.view: Ledger | None = None
        self.sides: list[tuple[str, int]] = []
        self.running_check: int | None = None
        self.campaign_name = ""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "check" and self.read_only:
            return self.running_check is not None
        return super().check_action(action, parameters)

    def body(self) -> ComposeResult:
        yield Static("", id="ledger-heading", markup=False)
        yield SearchTable(
            id="minefield-table", title="Minefields", zebra_stripes=True, classes="keys-here"
        )
        yield Static("", id="minefield-detail", markup=False)
        yield PlainTable(
            id="counter-table", cursor_type="row", zebra_stripes=True, classes="keys-here"
        )

    def on_mount(self) -> None:
        fields = self.query_one("#minefield-table", SearchTable)
        fit_columns(fields.add_sized_columns(cells.MINEFIELD_COLUMNS), *cells.MINEFIELD_FIT)
        counters = self.query_one("#counter-table", PlainTable)
        fit_columns(counters.add_sized_columns(cells.COUNTER_COLUMNS), *cells.COUNTER_FIT)
        counters.border_title = "Ships' counters and fuel (■ full □ empty ✕ lost to mines)"
        fields.focus()

    def reload(self) -> None:
        # Three reads, in this order on the screen's queue: the last one draws what all read.
        owner = self.owner and not self.read_only
        self.load(Call(campaigns.side_names, self.factory, campaign_id=self.campaign_id),
                  self._sides_read)  # fmt: skip
        read = Call(mines.ledger, self.factory, campaign_id=self.campaign_id,
                    owner_side_id=self.owner_side_id if owner else None,
                    passphrase=self.passphrase if owner else None)  # fmt: skip
        self.load(read, self._ledger_read)
        self.load(Call(mines.current_check, self.factory, campaign_id=self.campaign_id),
                  self._show)  # fmt: skip

    def _sides_read(self, read: tuple[str, Sequence[tuple[str, int]]]) -> None:
        self.campaign_name, sides = read
        self.sides = list(sides)

    def _ledger_read(self, view: Ledger) -> None:
        self.view = view

    def _show(self, running: int | None) -> None:
        view = self.view
        if view is None:
            return
        self.title = f"Minefield ledger: {self.campaign_name}"
        owner_name = next((name for name, sid in self.sides if sid == self.owner_side_id), "")
        self.sub_title = f"OWNER VIEW: {owner_name}" if self.owner else "Opponent view"
        heading = Text()
        heading.append(f"Turn {view.turn}" if view.turn else "Between scenarios", style="bold")
        live = [field for field in view.minefields if field.status in ("sowing", "active")]
        heading.append(f" · {plural(len(live), 'minefield')} on the map, "
                       f"{len(view.minefields)} in all")  # fmt: skip
        secret = sum(1 for field in view.minefields if field.hidden)
        if secret:
            heading.append(f" · {secret} secret" + self.hint(" (v: owner view)"),
                           style="italic")  # fmt: skip
        if self.owner:
            heading.append(f" · OWNER VIEW of {owner_name}: hide it before the opponent looks "
                           "(v)", style=CAUTION)  # fmt: skip
        self.running_check = running
        self.refresh_bindings()
        if running is not None:
            shows = "m shows it" if self.read_only else "m resumes it"
            heading.append(f" · mine check #{running} in progress: {shows}",
                           style=CAUTION)  # fmt: skip
        if not view.boundaries:
            heading.append("\nNo boundaries yet" + self.hint(": b adds one (two sea areas of "
                           "your map)") + ".", style="dim")  # fmt: skip
        self.query_one("#ledger-heading", Static).update(heading)
        rows = [(str(field.id), cells.minefield_row(field)) for field in view.minefields]
        empty = ["", "", Text("No minefield yet" + self.hint(": n sows one, a drops them from the "
                                                         "air") + ".", style="dim")]  # fmt: skip
        self._table.show(rows, empty=empty)
        self._show_detail()
        # Refilled, not cleared and added to: a thousand ships' counters are built as the
        # player scrolls to them, and the cursor stays on its ship through a reload.
        counters = [(str(item.ship_id), cells.counter_row(item)) for item in view.counters]
        none = Text("No ship has a Second World War at Sea counter yet" +
                    self.hint(": u on a record sheet enters one") + ".", style="dim")  # fmt: skip
        refill(self.query_one("#counter-table", DataTable), counters or [(EMPTY_KEY, [none])])

    def _show_detail(self) -> str:
        field = self._table.selected(self.view.minefields if self.view else ())
        detail = ""
        if field is not None and not field.hidden:
            parts = [f"#{field.id} {field.where}" + (f": {field.notes}" if field.notes else "")]
            if field.path:
                parts.append("path: " + "; ".join(field.path))
            detail = "   ".join(parts)
        elif field is not None:
            detail = f"#{field.id}: secret: its place and notes show in its owner's view"
        self.query_one("#minefield-detail", Static).update(detail)
        return detail

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a minefield: its place, path and notes whole; on a ship: the keys."""
        if event.data_table.id == "minefield-table" and (detail := self._show_detail()):
            self.notify(detail, title="Minefield", markup=False)
        else:
            self.say_keys()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "minefield-table":
            self._show_detail()

    @property
    def _table(self) -> SearchTable:
        return self.query_one("#minefield-table", SearchTable)

    def _field(self) -> MinefieldView | None:
        none = "No minefield yet: n sows one, a drops them from the air."
        return self.row_of(
            self._table, self.view.minefields if self.view else (), none, "minefield"
        )

    def _boundaries(self) -> tuple[mines.BoundaryView, ...]:
        return self.view.boundaries if self.view else ()

    def _secret_fields(self, side_id: int | None = None) -> list[FieldSpec]:
        """The passphrase field, unless the owner view already holds it."""
        if self.passphrase and (side_id is None or side_id == self.owner_side_id):
            return []
        return [forms.passphrase_field()]

    def action_boundary(self) -> None:
        def submit(values: dict[str, Any]) -> Call[str]:
            said = f"Boundary {values['area_a']} | {values['area_b']} added"
            return Call(mines.add_boundary, self.factory, campaign_id=self.campaign_id,
                        **values).map(lambda _none: said)  # fmt: skip

        self.open_form(
            "Add a boundary",
            forms.boundary_fields(),
            submit,
            note="A boundary is the line between two areas of your map: A | B is B | A.",
        )

    def _with_subs(self, then: Callable[[dict[int, list[UnitView]]], None]) -> None:
        subs: dict[int, list[UnitView]] = {}
        if not self.sides:
            then(subs)

        def read(side_id: int, view: Roster) -> None:
            subs[side_id] = [unit for unit in view.units if unit.unit_type == "submarine"]
            if len(subs) == len(self.sides):
                then(subs)

        for _, side_id in self.sides:
            self.call(Call(roster.roster, self.factory, side_id=side_id),
                      then=partial(read, side_id))  # fmt: skip

    def action_sow(self) -> None:
        if not self.sides:
            self.missing("Add a side to the campaign first.")
            return
        self.call(Call(mines.counter_ships, self.factory, campaign_id=self.campaign_id),
                  then=lambda ships: self._with_subs(partial(self._sow, ships)))  # fmt: skip

    def _sow(self, ships: list[mines.CounterView], subs: dict[int, list[UnitView]]) -> None:
        """The sowing form: the minelayer is one of the owner's own ships afloat, or a War at
        Sea submarine of its roster; the choices follow the owner chosen."""
        layers = forms.minelayers(self.sides, ships, subs)
        owner = forms.side_field(self.sides)
        fields = [
            owner, *forms.place_fields(self._boundaries()), *forms.sow_fields(layers, owner.value),
            *self._secret_fields(),
        ]  # fmt: skip

        def submit(values: dict[str, Any]) -> Call[str]:
            place = forms.place_from(values)
            kind, _, layer_id = values.pop("layer").partition(":")
            values["layer_ship_id"] = int(layer_id) if kind == "ship" else None
            values["layer_unit_id"] = int(layer_id) if kind == "sub" else None
            if kind == "sub":  # a War at Sea submarine lays as a submarine, whatever was left
                values["laid_by"] = "submarine"
            verb = "laid" if values["complete"] else "being sown"
            sow = self.calling_secret(mines.sow_minefield, **place)(values)
            return sow.map(lambda field_id: f"Minefield #{field_id} {verb}")

        self.open_form("Sow a minefield", fields, submit,
                       note="A submarine lays the minefields it loaded instead of torpedo "
                       "factors, one at a time, and makes no torpedo attack until it is "
                       "complete.")  # fmt: skip

    def action_complete(self) -> None:
        if (field := self._field()) is None:
            return
        if field.status != "sowing":
            self.notify(f"Minefield #{field.id} is {field.status}, not being sown.",
                        severity="warning")  # fmt: skip
            return
        self.open_form(
            f"Complete minefield #{field.id}",
            forms.complete_fields(),
            self.editing(mines.complete_minefield, field, "minefield_id"),
        )

    def action_aerial(self) -> None:
        if not self.sides:
            self.missing("Add a side to the campaign first.")
            return
        fields = [
            forms.side_field(self.sides), *forms.place_fields(self._boundaries()),
            *forms.aerial_fields(), *specs_from(MinefieldCreate, keys=("drifting", "secret")),
            *self._secret_fields(),
        ]  # fmt: skip

        def submit(values: dict[str, Any]) -> Call[list[str]]:
            place = forms.place_from(values)
            drops = values.pop("drops")
            typed = typed_dice(values, "rolls", "d6 rolls are numbers 1..6, e.g. 5 2")
            if typed and drops is not None and drops != len(typed):
                raise InvalidInput({"drops": f"{len(typed)} rolls typed: leave this blank, or "
                                    "clear the rolls to have them rolled"})  # fmt: skip

            def roll() -> int:
                if values.get("secret"):  # its owner's dice: not in the log any screen shows
                    return self.rng.randint(1, 6)
                return self.dice.roll(6, f"air drop by {values['aircraft']}")

            rolls = typed or [roll() for _ in range(drops or 1)]
            return self.calling_secret(mines.aerial_drop, **place, rolls=rolls)(values)

        self.open_form("Aircraft drop minefields", fields, submit,
                       note="Capacity is the greater attack factor; a failed drop scatters "
                       "(recorded as scattered).")  # fmt: skip

    def action_drift(self) -> None:
        if (field := self._field()) is None:
            return
        fields = [*forms.drift_fields(self._boundaries()), *self._secret_fields(field.side_id)]
        drift = self.calling_secret(mines.drift, minefield_id=field.id, version=field.version)

        def submit(values: dict[str, Any]) -> Call[str]:
            place = forms.place_from(values, "to_")  # the drift's names: where it goes
            return drift({**values, **place})

        self.open_form(
            f"Minefield #{field.id} drifts",
            fields,
            submit,
            dice_field="d6",
            dice_sides=6,
            secret_die=field.secret,
            note="Drifting minefields scatter in the end-of-turn phase: "
            "give the new place (or roll the d6 direction, ctrl+r, and place it).",
        )

    def action_status(self) -> None:
        if (field := self._field()) is None:
            return
        self.open_form(
            f"Minefield #{field.id}",
            forms.status_fields(),
            self.editing(mines.set_status, field, "minefield_id"),
        )

    def action_reveal(self) -> None:
        if (field := self._field()) is None:
            return
        if not field.secret:
            self.notify(f"Minefield #{field.id} is not secret.", severity="warning")
            return
        self.open_form(f"Reveal minefield #{field.id}", self._secret_fields(field.side_id),
                       self.calling_secret(mines.reveal, minefield_id=field.id),
                       note="Its place and notes become public, for both sides.")  # fmt: skip

    def action_toggle_view(self) -> None:
        def check(passphrase: str, side_id: int) -> Call[Ledger]:
            return Call(mines.ledger, self.factory, campaign_id=self.campaign_id,
                        owner_side_id=side_id, passphrase=passphrase or None)  # fmt: skip

        if self.sides or self.owner or self.read_only:  # (the umpire's view hears why not)
            fields = [forms.side_field(self.sides), forms.passphrase_field()]
            self.ask_owner_view(
                check, fields, note="Only where the opponent cannot see the screen."
            )

    def action_import_counters(self) -> None:
        open_csv_import(self, "counters", self.campaign_id)

    def action_table(self) -> None:
        self.app.push_screen(MineTableScreen(self.campaign_id))

    def action_check(self) -> None:
        self.call(Call(mines.current_check, self.factory, campaign_id=self.campaign_id),
                  then=self._check)  # fmt: skip

    def _check(self, running: int | None) -> None:
        if running is not None:
            self.app.push_screen(MineCheckScreen(self.campaign_id, running))
            return
        if self.refuse_if_read_only():
            return
        if (field := self._field()) is None:
            return
        start_check_flow(self, field)

    def action_torpedo(self) -> None:
        counters = self.view.counters if self.view else ()
        if (ship := under_cursor(self.query_one("#counter-table", DataTable), counters)) is None:
            self.missing("No ship with a counter yet (u on the record sheet).")
            return
        self.open_form(f"{ship.name}: torpedo attack", forms.torpedo_fields(ship),
                       self.calling(mines.torpedo_attack, ship_id=ship.ship_id),
                       note="A submarine sowing a minefield makes no torpedo attack until it is "
                       "complete (the variant's rule).")  # fmt: skip

    def action_sub_mine(self) -> None:
        self._with_subs(self._sub_mine)

    def _sub_mine(self, of_side: dict[int, list[UnitView]]) -> None:
        subs = [
            (f"{side_name}: {unit.name}", unit.id)
            for side_name, side_id in self.sides
            for unit in of_side.get(side_id, ())
        ]
        if not subs:
            self.notify("No War at Sea submarine on any roster.", severity="warning")
            return
        fields = [
            FieldSpec("unit_id", "Submarine", kind="select", value=subs[0][1], options=subs),
            *mine_roll_fields(),
            forms.passphrase_field("Its side's"),
        ]  # fmt: skip

        def submit(values: dict[str, Any]) -> Call[str]:
            values["passphrase"] = values["passphrase"] or None
            return Call(hunt.mine_roll, self.factory, **values)

        self.open_form("A submarine enters a mined sector", fields, submit, dice_field="roll",
                       dice_sides=6, secret_die=True, note="War at Sea (RULES.md §Subs ¶12): the "
                       "owner rolls and applies it without revealing the sub.")  # fmt: skip
