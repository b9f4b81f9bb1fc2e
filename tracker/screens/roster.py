"""The fleet roster with decoy notes: a side's War at Sea units and its submarine markers.

The opponent view is the default and never asks the service for a secret note. The owner view
needs the side's passphrase (when it has one) and falls back to the opponent view after a short
idle time and whenever the screen is left.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Static

from tracker.rules import was
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.csv_import import open_csv_import
from tracker.screens.form import FieldSpec, FormScreen
from tracker.screens.owner_view import OwnerViewScreen
from tracker.screens.search_helper import search_helper_form
from tracker.services import roster
from tracker.services.errors import InvalidInput
from tracker.services.roster import (
    ATTACK_LABELS,
    UNIT_TYPES,
    MarkerView,
    Roster,
    UnitView,
    unit_fields_from,
)
from tracker.widgets.plain import PlainTable


def dice_text(dice: list[int | None] | None) -> str:
    """An attack row as the card shows it: `3 2 1 -`."""
    return " ".join("-" if d is None else str(d) for d in (dice or [None] * 4))


def unit_fields(unit: UnitView | None) -> list[FieldSpec]:
    """The unit card form."""
    attacks = unit.attacks if unit else {}
    return [
        FieldSpec("name", "Name", value=unit.name if unit else ""),
        FieldSpec("unit_type", "Type", kind="select", value=unit.unit_type if unit else "destroyer",
                  options=[(t, t) for t in UNIT_TYPES]),
        FieldSpec("nation", "Nation", value=unit.nation if unit else ""),
        FieldSpec("points", "Points", kind="int", value=unit.points if unit else 0, low=0,
                  high=999),
        FieldSpec("year", "Year (blank: unknown)", kind="int",
                  value=unit.year if unit and unit.year else "", low=1900, high=1950,
                  optional=True),
        FieldSpec("speed", "Speed (1-3, A for aircraft)", value=unit.speed if unit else ""),
        FieldSpec("armor", "Armor", kind="int", value=unit.armor if unit else 1, low=0, high=30),
        FieldSpec("vital_armor", "Vital armor", kind="int", value=unit.vital_armor if unit else 1,
                  low=0, high=30),
        FieldSpec("hull_points", "Hull points", kind="int", value=unit.hull_points if unit else 1,
                  low=1, high=20),
        FieldSpec("damage", "Hull damage taken", kind="int", value=unit.damage if unit else 0,
                  low=0, high=20),
        *(FieldSpec(f"attack_{row}", f"{label}, dice r0-r3",
                    value=dice_text(attacks.get(row)) if row in attacks else "")
          for row, label in ATTACK_LABELS.items()),
        FieldSpec("abilities", "Abilities (; between)",
                  value="; ".join(unit.abilities) if unit else "",
                  suggestions=("Sub Hunter", "Elusive Quarry", "Pinpointer", "ASW Pinpointer",
                               "Infiltrator", "Wolfpack", "Submerged Shot")),
        FieldSpec("extra_decoys", f"Extra decoys ({was.DECOY_COST} pts each)", kind="int",
                  value=unit.extra_decoys if unit else 0, low=0, high=was.MAX_EXTRA_DECOYS),
        FieldSpec("notes", "Notes", value=unit.notes if unit else ""),
    ]  # fmt: skip


def marker_row(marker: MarkerView, owner: bool, names: dict[int, str]) -> list[Any]:
    """A marker row: in the opponent view only what the table shows face-down."""
    row: list[Any] = [marker.code, Text(marker.sector or "-"), marker.state]
    if owner:
        who = names.get(marker.unit_id or 0, "?")
        row.append(Text(f"{who}: {'REAL' if marker.real else 'decoy'}",
                        style="bold green" if marker.real else "dim"))  # fmt: skip
    elif marker.state == "revealed" and marker.unit_id:
        row.append(Text(names.get(marker.unit_id, "?"), style="bold"))
    elif marker.state == "removed":
        row.append(Text("-", style="dim"))
    else:
        row.append(Text("submarine?", style="dim"))
    row.append(marker.seal)
    return row


class RosterScreen(OwnerViewScreen):
    """Units above, markers below; v shows the owner's notes (passphrase), briefly."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the campaign"),
        Binding("v", "toggle_view", "Owner view", tooltip="Show or hide the owner's decoy notes"),
        Binding("a", "add_unit", "Add", tooltip="Add a War at Sea unit"),
        Binding("e", "edit_unit", "Edit", tooltip="Edit the selected unit"),
        Binding("x", "delete_unit", "Delete", tooltip="Delete the selected unit", show=False),
        Binding("y", "copy_unit", "Copy", tooltip="Copy the selected unit's card as a new unit",
                show=False),
        Binding("m", "assign", "Markers", tooltip="Place a submarine's markers, real one noted"),
        Binding("g", "move", "Move", tooltip="Move a marker to a sector"),
        Binding("t", "attack", "Attack", tooltip="Resolve an attack on a marker"),
        Binding("c", "reconceal", "Conceal", tooltip="Re-conceal a revealed sub as two markers"),
        Binding("s", "search", "Search",
                tooltip="The hunt: search for the selected marker (the roll is journaled)"),
        Binding("k", "sub_attack", "Sub attacks", show=False,
                tooltip="The selected marker's submarine attacks (may reveal it)"),
        Binding("n", "mine", "Mine roll", show=False,
                tooltip="The selected submarine enters a minefield: d6, 1-2 hull damage"),
        Binding("I", "import_units", "Import CSV", show=False,
                tooltip="Add unit cards from a CSV file (checked first, all or none)"),
        Binding("P", "passphrase", "Passphrase", tooltip="Set or change the side's passphrase",
                show=False),
    ]  # fmt: skip
    # The umpire's view: the opponent view only, never the owner's notes or the passphrase.
    READ_ONLY_ACTIONS = frozenset({"back"})

    def __init__(self, side_id: int) -> None:
        super().__init__()
        self.side_id = side_id
        self.view: Roster | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="roster-heading", markup=False)
        yield PlainTable(id="unit-table", cursor_type="row", zebra_stripes=True)
        yield PlainTable(id="marker-table", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        units = self.query_one("#unit-table", DataTable)
        units.add_columns("Unit", "Type", "Pts", "Spd", "A/VA/HP", "Dmg", "Attacks", "Abilities")
        units.border_title = "Units"
        markers = self.query_one("#marker-table", DataTable)
        markers.add_columns("Marker", "Sector", "State", "Identity", "Seal")
        markers.border_title = "Submarine markers"
        units.focus()

    def current_campaign_id(self) -> int | None:
        return self.view.campaign_id if self.view else None

    def reload(self) -> None:
        owner = self.owner and not self.read_only
        self.view = view = roster.roster(
            self.factory, side_id=self.side_id, owner=owner,
            passphrase=self.passphrase if owner else None,
        )  # fmt: skip
        self.title = f"Fleet roster: {view.side_name}"
        self.sub_title = "OWNER VIEW: decoy notes shown" if view.owner_view else "Opponent view"
        heading = Text()
        heading.append(f"{view.side_name}  ", style="bold")
        over = view.points > view.budget
        heading.append(f"{view.points} of {view.budget} points", style="bold red" if over else "")
        heading.append(f" ({view.budget - view.points} left)   ")
        heading.append("notes encrypted" if view.encrypted else
                       "no passphrase set" + self.hint(" (P sets one)"))  # fmt: skip
        if view.owner_view:
            heading.append("   OWNER VIEW: hide it before the opponent looks (v)", "bold yellow")
        self.query_one("#roster-heading", Static).update(heading)
        units = self.query_one("#unit-table", DataTable)
        units.clear()
        for unit in view.units:
            attacks = ", ".join(f"{ATTACK_LABELS[k][:3]} {dice_text(v)}" for k, v in
                                unit.attacks.items() if k in ATTACK_LABELS)  # fmt: skip
            units.add_row(
                Text(unit.name, style="bold"), unit.unit_type, unit.points, unit.speed,
                f"{unit.armor}/{unit.vital_armor}/{unit.hull_points}",
                Text(f"{unit.damage}" + (" crippled" if unit.crippled else ""),
                     style="red" if unit.damage else ""),
                Text(attacks, overflow="ellipsis", no_wrap=True),
                Text(", ".join(unit.abilities), overflow="ellipsis", no_wrap=True),
            )  # fmt: skip
        names = {unit.id: unit.name for unit in view.units}
        markers = self.query_one("#marker-table", DataTable)
        markers.clear()
        for marker in view.markers:
            markers.add_row(*marker_row(marker, view.owner_view, names))

    def _unit(self) -> UnitView | None:
        if self.view is None or not self.view.units:
            self.notify("No unit yet: press a to add one.", severity="warning")
            return None
        row = self.query_one("#unit-table", DataTable).cursor_row
        return self.view.units[min(max(row, 0), len(self.view.units) - 1)]

    def _marker_row(self) -> int:
        count = len(self.view.markers) if self.view else 0
        return min(max(self.query_one("#marker-table", DataTable).cursor_row, 0), max(count - 1, 0))

    def _marker(self) -> MarkerView | None:
        if self.view is None or not self.view.markers:
            self.notify("No marker yet: select a submarine and press m.", severity="warning")
            return None
        return self.view.markers[self._marker_row()]

    def _form(self, title: str, fields: list[FieldSpec], submit: Any, **kwargs: Any) -> None:
        def done(result: object) -> None:
            if isinstance(result, str):
                self.notify(result)
            if isinstance(result, roster.Assignment):
                self.notify(f"Markers {', '.join(result.codes)}; public seal {result.seal}: "
                            "say it aloud or write it down", timeout=15)  # fmt: skip
            if isinstance(result, list):
                for warning in result:
                    self.notify(warning, severity="warning")
            self.reload()

        self.app.push_screen(FormScreen(title, fields, submit, **kwargs), done)

    def action_back(self) -> None:
        self._hide()
        self.dismiss()

    def action_toggle_view(self) -> None:
        def check(passphrase: str) -> None:
            roster.roster(self.factory, side_id=self.side_id, owner=True, passphrase=passphrase)

        self.ask_owner_view(self.view is not None and self.view.encrypted, check)

    def action_import_units(self) -> None:
        open_csv_import(self, "units", self.side_id)

    def action_add_unit(self) -> None:
        def submit(values: dict[str, Any]) -> int:
            return roster.save_unit(self.factory, side_id=self.side_id,
                                    fields=unit_fields_from(values))  # fmt: skip

        self._form("Add unit", unit_fields(None), submit)

    def action_edit_unit(self) -> None:
        unit = self._unit()
        if unit is None:
            return

        def submit(values: dict[str, Any]) -> int:
            return roster.save_unit(self.factory, side_id=self.side_id, unit_id=unit.id,
                                    fields=unit_fields_from(values))  # fmt: skip

        self._form(f"Edit {unit.name}", unit_fields(unit), submit)

    def action_copy_unit(self) -> None:
        unit = self._unit()
        if unit is None:
            return
        fields = unit_fields(unit)
        fields[0] = FieldSpec("name", "Name of the copy")

        def submit(values: dict[str, Any]) -> int:
            return roster.save_unit(self.factory, side_id=self.side_id,
                                    fields=unit_fields_from(values))  # fmt: skip

        self._form(f"Copy of {unit.name}", fields, submit, note="Same card; give it its own name.")

    def action_delete_unit(self) -> None:
        unit = self._unit()
        if unit is None:
            return

        def done(yes: bool | None) -> None:
            if yes:
                roster.delete_unit(self.factory, unit_id=unit.id)
                self.reload()

        self.app.push_screen(ConfirmScreen(f"Delete {unit.name} and its markers?"), done)

    def _secret_fields(self) -> list[FieldSpec]:
        if self.view is not None and self.view.encrypted and not self.passphrase:
            return [FieldSpec("passphrase", "Side's passphrase", password=True)]
        return []

    def _with_passphrase(self, values: dict[str, Any]) -> str | None:
        return values.pop("passphrase", None) or self.passphrase

    def action_assign(self) -> None:
        unit = self._unit()
        if unit is None:
            return
        count = was.MARKERS_PER_SUB + unit.extra_decoys
        fields = [
            FieldSpec("real", f"Which marker is real (1..{count})", kind="int", value="",
                      low=1, high=count),
            FieldSpec("sector", "Sector placed in"),
            *self._secret_fields(),
        ]  # fmt: skip

        def submit(values: dict[str, Any]) -> roster.Assignment:
            passphrase = self._with_passphrase(values)
            return roster.assign_markers(
                self.factory, unit_id=unit.id, passphrase=passphrase,
                turn=self.view.turn if self.view else None, **values,
            )  # fmt: skip

        self._form(
            f"Markers for {unit.name}",
            fields,
            submit,
            note="Do this where the opponent cannot see: the real one is your secret.",
        )

    def action_move(self) -> None:
        marker = self._marker()
        if marker is None:
            return

        turn = self.view.turn if self.view else None

        def submit(values: dict[str, Any]) -> list[str]:
            return roster.move_marker(self.factory, marker_id=marker.id, turn=turn, **values)

        self._form(
            f"Move {marker.code}",
            [FieldSpec("sector", "To sector")],
            submit,
            note="One sector a turn, one sub marker per sector: the tracker warns.",
        )

    def action_attack(self) -> None:
        marker = self._marker()
        if marker is None:
            return
        fields = [
            FieldSpec("success", "The attack succeeded (enough hits)", kind="bool", value=True),
            FieldSpec("damage", "Hull damage if it is the real sub", kind="int", value=0, low=0,
                      high=20),
            *self._secret_fields(),
        ]  # fmt: skip

        def submit(values: dict[str, Any]) -> str:
            passphrase = self._with_passphrase(values)
            return roster.attack_marker(self.factory, marker_id=marker.id, passphrase=passphrase,
                                        **values)  # fmt: skip

        self._form(
            f"Attack on {marker.code}",
            fields,
            submit,
            note="A success reveals it: a decoy is removed, the real sub is placed.",
        )

    def action_reconceal(self) -> None:
        unit = self._unit()
        if unit is None:
            return
        fields = [
            FieldSpec("real", f"Which new marker is real (1..{was.MARKERS_PER_SUB})", kind="int",
                      value="", low=1, high=was.MARKERS_PER_SUB),
            *self._secret_fields(),
        ]  # fmt: skip

        def submit(values: dict[str, Any]) -> roster.Assignment:
            passphrase = self._with_passphrase(values)
            return roster.reconceal(self.factory, unit_id=unit.id, passphrase=passphrase,
                                    **values)  # fmt: skip

        self._form(
            f"Re-conceal {unit.name}",
            fields,
            submit,
            note="Fog, smoke or storm entered, or no enemy placed in its sector (seed §10).",
        )

    def action_sub_attack(self) -> None:
        marker = self._marker()
        if marker is None:
            return
        fields = [
            FieldSpec("same_sector", "Its target is in its own sector", kind="bool", value=True),
            *self._secret_fields(),
        ]

        def submit(values: dict[str, Any]) -> str:
            passphrase = self._with_passphrase(values)
            return roster.sub_attacks(self.factory, marker_id=marker.id, passphrase=passphrase,
                                      **values)  # fmt: skip

        self._form(
            f"{marker.code} attacks",
            fields,
            submit,
            note="Seed §9: a target in its own sector reveals it (any attack does, if the "
            "campaign plays that variant). Resolve the attack itself as usual.",
        )

    def action_mine(self) -> None:
        unit = self._unit()
        if unit is None:
            return
        fields = [FieldSpec("roll", "d6 rolled", kind="int", value="", low=1, high=6),
                  *self._secret_fields()]  # fmt: skip

        def submit(values: dict[str, Any]) -> str:
            passphrase = self._with_passphrase(values)
            return roster.mine_roll(self.factory, unit_id=unit.id, passphrase=passphrase,
                                    **values)  # fmt: skip

        self._form(
            f"{unit.name} enters a minefield",
            fields,
            submit,
            dice_field="roll",
            dice_sides=6,
            rng=self.rng,
            note="Seed §12: 1 -> 1 hull damage, 2 -> 2, else nothing. Kept secret.",
        )

    def action_passphrase(self) -> None:
        fields = [FieldSpec("passphrase", "New passphrase (6 or more)", password=True),
                  FieldSpec("again", "The new passphrase again", password=True)]  # fmt: skip
        if self.view is not None and self.view.encrypted:
            fields.insert(0, FieldSpec("old_passphrase", "Current passphrase", password=True))

        def submit(values: dict[str, Any]) -> str:
            # A typo here would lock the side's notes away for good: it is typed twice.
            if values.pop("again") != values["passphrase"]:
                raise InvalidInput({"again": "the two passphrases differ: type them again"})
            roster.set_passphrase(self.factory, side_id=self.side_id, **values)
            return "Passphrase set: the notes are encrypted in the file."

        self._form("Side's passphrase", fields, submit)

    def action_search(self) -> None:
        marker = self.view.markers[self._marker_row()] if self.view and self.view.markers else None

        def record(target: int, roll: int) -> str:
            assert marker is not None
            return roster.record_search(self.factory, marker_id=marker.id, target=target,
                                        roll=roll)  # fmt: skip

        self.app.push_screen(
            search_helper_form(self.rng, record if marker else None,
                               marker.code if marker else ""),
            lambda verdict: self._verdict(verdict),
        )  # fmt: skip

    def _verdict(self, verdict: str | None) -> None:
        if verdict:
            self.notify(verdict)
