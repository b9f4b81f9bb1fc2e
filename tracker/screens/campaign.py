"""A campaign: its sides and their squadrons, and its scenarios in order."""

from __future__ import annotations

from functools import partialmethod
from importlib import import_module
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label, Static, Tree

from tracker.rules.words import plural
from tracker.screens import calls
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.ship_forms import edit_squadron, scenario_fields, side_fields, squadron_fields
from tracker.services import campaigns, fleet, scenarios, sheet
from tracker.services.errors import InvalidInput
from tracker.services.views import (
    CampaignOverview,
    ScenarioView,
    SideView,
    SquadronRef,
)
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import refill, under_cursor

# What Enter on a side says: the keys that act on it, and where Enter does open something.
SIDE_KEYS = ("{side}: f opens its roster, e edits it, n adds a squadron; enter on one of its "
             "squadrons opens the record sheet")  # fmt: skip


class CampaignScreen(TrackerScreen):
    """Sides and squadrons as a tree; enter on a squadron opens its record sheet."""

    HELP_EXTRA = [
        ("enter", "Open the squadron's record sheet, or the scenario under the cursor"),
    ]

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the list of campaigns"),
        Binding("s", "new_side", "Side", tooltip="New side"),
        Binding(
            "n", "new_squadron", "Squadron", tooltip="New squadron in the side under the cursor"
        ),
        Binding("p", "new_scenario", "Scenario", tooltip="New scenario"),
        Binding(
            "e", "edit", "Edit", tooltip="Edit the side, squadron or scenario under the cursor"
        ),
        Binding(
            "x,delete",
            "delete",
            "Delete",
            tooltip="Delete the side, squadron or scenario under the cursor",
        ),
        Binding(
            "tab",
            "app.focus_next",
            "Pane",
            tooltip="Switch between forces and scenarios",
            show=False,
        ),
        Binding("r", "repairs", "Repairs", tooltip="Repairs between scenarios, since last battle"),
        Binding(
            "f", "roster", "Roster", tooltip="The side's War at Sea fleet roster with decoy notes"
        ),
        Binding("d", "damage", "Damage", tooltip="Record a hit or a repair (damage entry)"),
        Binding("m", "ledger", "Mines", tooltip="The minefield ledger and fuel loss"),
        Binding("j", "journal", "Journal", tooltip="The campaign journal"),
        Binding(
            "l",
            "library",
            "Library",
            tooltip="The library: ship classes and unit cards, searched and opened",
        ),
        Binding("a", "report", "Report", tooltip="The campaign's story: the campaign report"),
        Binding(
            "y", "sync", "Sync", tooltip="Copies played apart: pack for the other copy, or merge"
        ),
        Binding(
            "I",
            "import_library",
            "Library import",
            tooltip="Import cards or classes into the library: a dry run first, then the import",
        ),
        Binding(
            "ctrl+t",
            "tables",
            "Crit tables",
            tooltip="The campaign's critical-hit tables",
        ),
    ]
    # Every key stays in the footer: below about 160 columns the keys that add show together
    # under "New", those that open a campaign-wide screen under "Open" (help names each).
    FOOTER_GROUPS = (
        ("New", frozenset({"new_side", "new_squadron", "new_scenario"})),
        ("Open", frozenset({"repairs", "roster", "damage", "ledger", "journal", "library",
                            "report", "import_library", "tables", "sync"})),
    )  # fmt: skip
    # The umpire's view looks at the forces, the scenarios and every campaign-wide screen; it
    # adds, edits and records nothing (damage entry only records, so it stays closed).
    READ_ONLY_ACTIONS = frozenset(
        {"back", "repairs", "roster", "ledger", "journal", "tables", "report", "library", "sync"}
    )

    def __init__(self, campaign_id: int) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.overview: CampaignOverview | None = None
        # A squadron just created: the cursor goes to it on the next reload.
        self.select_squadron_id: int | None = None

    def body(self) -> ComposeResult:
        yield Static("", id="campaign-heading", markup=False)
        with Horizontal(id="campaign-body"):
            with Vertical(id="campaign-forces"):
                yield Label("Sides and squadrons (enter: record sheet)", classes="caption")
                yield Tree("Forces", id="forces-tree")
            with Vertical(id="campaign-scenarios"):
                yield Label("Scenarios", classes="caption")
                yield PlainTable(id="scenario-table", cursor_type="row")

    def on_mount(self) -> None:
        # Sized to fit beside the forces in a 120-column terminal.
        self.query_one("#scenario-table", PlainTable).add_sized_columns(
            (("#", 2), ("Scenario", 28), ("Date", 12), ("Status", 8), ("Turn", 4), ("Ships", 5))
        )
        tree = self.query_one(Tree)
        tree.show_root = False
        # Enter opens a squadron; it should not fold a side away under the player's cursor.
        tree.auto_expand = False
        tree.focus()

    def reload(self) -> None:
        self.load(Call(campaigns.get_overview, self.factory, campaign_id=self.campaign_id),
                  self._show)  # fmt: skip

    def _show(self, overview: CampaignOverview) -> None:
        self.overview = overview
        self.title = overview.campaign.name
        self.sub_title = "Campaign"
        heading = f"{overview.campaign.name}    scale {overview.campaign.model_scale}"
        if overview.campaign.notes:
            heading += f"\n{overview.campaign.notes}"
        self.query_one("#campaign-heading", Static).update(heading)
        tree: Tree[SideView | SquadronRef] = self.query_one(Tree)
        selected = tree.cursor_node.data if tree.cursor_node else None
        tree.clear()
        # Every side is added expanded under a hidden root, so a node's line is its place in
        # the order added: the cursor is set at once, never left off the tree for a moment
        # in which Enter would open nothing.
        lines: list[SideView | SquadronRef] = []  # each line's data, in turn
        for side in overview.sides:
            label = Text(side.name, style="bold")
            if side.nation:
                label.append(f"  ({side.nation})", style="dim")
            node = tree.root.add(label, data=side, expand=True)
            lines.append(side)
            for squadron in side.squadrons:
                node.add_leaf(
                    Text(f"{squadron.name}  ·  {plural(squadron.ships, 'ship')}"),
                    data=squadron,
                )
                lines.append(squadron)
        if not overview.sides:
            tree.root.add_leaf(Text("No sides yet" + self.hint(": press s to add one") + ".",
                                    style="dim italic"))  # fmt: skip
        # The squadron just made, or the squadron or side it was on (the last of them), else the
        # first squadron, else the first side.
        wanted = {
            (type(selected), getattr(selected, "id", None)),
            (SquadronRef, self.select_squadron_id),
        }
        was = [line for line, data in enumerate(lines) if (type(data), data.id) in wanted]
        squadrons = [line for line, data in enumerate(lines) if isinstance(data, SquadronRef)]
        if lines:
            chosen = was[-1] if was else squadrons[0] if squadrons else 0
            # Set even when the line is unchanged: the cursor's node must be the new one.
            tree.cursor_line = chosen
            if tree.cursor_node is not None:
                tree.scroll_to_node(tree.cursor_node, animate=False)
        self.select_squadron_id = None
        refill(self.query_one("#scenario-table", DataTable), ((str(s.id), [
            s.position, Text(s.title, overflow="ellipsis", no_wrap=True),
            Text(s.date or "-", overflow="ellipsis", no_wrap=True), s.status.replace("_", " "),
            s.turn, s.ships,
        ]) for s in overview.scenarios))  # fmt: skip

    def _cursor_data(self) -> SideView | SquadronRef | None:
        tree: Tree[SideView | SquadronRef] = self.query_one(Tree)
        return tree.cursor_node.data if tree.cursor_node else None

    def _cursor_side_id(self) -> int | None:
        data = self._cursor_data()
        if isinstance(data, SideView):
            return data.id
        if isinstance(data, SquadronRef):
            return data.side_id
        return None

    def on_tree_node_selected(self, event: Tree.NodeSelected[SideView | SquadronRef]) -> None:
        if isinstance(event.node.data, SquadronRef):
            self._open("record_sheet", "RecordSheetScreen", event.node.data.id)
        elif isinstance(event.node.data, SideView):  # a side has no screen of its own: say so
            self.notify(SIDE_KEYS.format(side=event.node.data.name), markup=False)

    def _open(self, module: str, screen: str, *args: Any) -> None:
        """Open a screen of tracker.screens, its module imported when first opened: imported
        with this screen, or behind it, every screen and its services were held in memory
        (about 10 MiB), most of them never opened at a sitting."""
        self.app.push_screen(getattr(import_module(f"tracker.screens.{module}"), screen)(*args))

    def _campaign_wide(self, module: str, screen: str) -> None:
        self._open(module, screen, self.campaign_id)

    action_ledger = partialmethod(_campaign_wide, "ledger", "LedgerScreen")
    action_repairs = partialmethod(_campaign_wide, "repairs", "RepairsScreen")
    action_report = partialmethod(_campaign_wide, "report", "ReportScreen")
    action_tables = partialmethod(_campaign_wide, "critical_tables", "CriticalTablesScreen")
    action_library = partialmethod(_open, "library", "LibraryScreen")

    def action_damage(self) -> None:
        from tracker.screens.damage_entry import open_damage_entry

        open_damage_entry(self.app, self.campaign_id)

    def action_roster(self) -> None:
        side_id = self._cursor_side_id()
        if side_id is None:
            self.missing("Put the cursor on a side (or one of its squadrons) first.")
            return
        self._open("roster", "RosterScreen", side_id)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        scenarios = self.overview.scenarios if self.overview else ()
        if scenario := under_cursor(event.data_table, scenarios):
            self._open("scenario", "ScenarioScreen", scenario.id)

    def action_sync(self) -> None:
        import_module("tracker.screens.sync_form").open_sync(self, self.campaign_id)

    def action_import_library(self) -> None:
        self._open("library_import", "LibraryImportScreen", self)

    def action_new_side(self) -> None:
        submit = self.calling(campaigns.create_side, campaign_id=self.campaign_id)
        self.open_form("New side", side_fields(None), submit)

    def action_new_squadron(self) -> None:
        side_id = self._cursor_side_id()
        if side_id is None:
            self.missing("Add a side first (s), then a squadron in it.")
            return

        def done(squadron_id: int | None) -> None:
            if squadron_id is not None:
                self.select_squadron_id = squadron_id
                self.reload()

        submit = self.calling(fleet.create_squadron, side_id=side_id)
        self.open_form("New squadron", squadron_fields(), submit, done=done)

    def _scenario_focused(self) -> ScenarioView | None:
        table = self.query_one("#scenario-table", DataTable)
        if not table.has_focus or self.overview is None:
            return None
        return under_cursor(table, self.overview.scenarios)

    def action_edit(self) -> None:
        scenario = self._scenario_focused()
        if scenario is not None:
            edit = self.editing(campaigns.update_scenario, scenario, "scenario_id")
            self.open_form(f"Edit {scenario.title}", scenario_fields(scenario), edit)
            return
        data = self._cursor_data()
        if isinstance(data, SideView):
            submit = self.editing(campaigns.update_side, data, "side_id")
            self.open_form(f"Edit side {data.name}", side_fields(data), submit)
        elif isinstance(data, SquadronRef):
            self.call(Call(sheet.load_record_sheet, self.factory, squadron_id=data.id),
                      then=lambda record: edit_squadron(self, record))  # fmt: skip

    def _delete_scenario(self, scenario: ScenarioView) -> None:
        def refused(exc: Exception) -> None:
            why = calls.message(exc)
            if scenario.status == "planned" and isinstance(exc, InvalidInput):
                self.confirm_call(
                    f"{why}.\nArchive {scenario.title!r} instead (kept, never played)?",
                    Call(scenarios.archive_scenario, self.factory, scenario_id=scenario.id),
                    yes="Archive (y)",
                )
            else:
                self.notify(why, severity="error")

        self.confirm_call(
            f"Delete scenario {scenario.title!r}?",
            Call(campaigns.delete_scenario, self.factory, scenario_id=scenario.id),
            refused=refused,
            check_first=True,
        )

    def action_delete(self) -> None:
        scenario = self._scenario_focused()
        if scenario is not None:
            self._delete_scenario(scenario)
            return
        if (data := self._cursor_data()) is None:
            return
        if isinstance(data, SideView):
            count = sum(squadron.ships for squadron in data.squadrons)
            question = (
                f"Delete side {data.name!r} with its {plural(len(data.squadrons), 'squadron')} "
                f"and {plural(count, 'ship')}?"
            )
            call: Call[None] = Call(campaigns.delete_side, self.factory, side_id=data.id)
        else:
            question = f"Delete squadron {data.name!r} and its {plural(data.ships, 'ship')}?"
            call = Call(fleet.delete_squadron, self.factory, squadron_id=data.id)
        # A squadron or side whose ships fought is refused before the player is asked.
        self.confirm_call(question, call, said=f"Deleted {data.name}", check_first=True)

    def action_new_scenario(self) -> None:
        submit = self.calling(campaigns.add_scenario, campaign_id=self.campaign_id)
        self.open_form("New scenario", scenario_fields(None), submit)
