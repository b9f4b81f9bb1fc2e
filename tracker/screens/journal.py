"""The campaign journal: every change, newest first, filtered and searched; undo from here."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Select, Static

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.services import history
from tracker.services.history import EntryView, JournalFilters
from tracker.widgets.plain import plain_options
from tracker.widgets.search_table import SEARCH_KEYS, SearchTable
from tracker.widgets.tables import fit_columns

LIMIT = 500
# The choices across the top, each a Select, and the argument of the read each narrows.
FILTERS = {"scenario": "scenario_id", "side": "side_id", "ship": "ship_id", "kind": "kind"}
COLUMNS = (
    ("#", 5),
    ("Scenario", 16),
    ("Turn", 4),
    ("Kind", 9),
    ("What happened", 58),
    ("Dice", 14),
)
# When the columns do not all fit, they give way in this order, their text wrapping onto more
# lines: what happened keeps the most room, the dice their rolls whole.
GIVE_WAY = (
    ("What happened", 50),
    ("Scenario", 20),
    ("Dice", 16),
    ("What happened", 24),
    ("Kind", 8),
    ("Scenario", 14),
    ("Dice", 12),
    ("What happened", 16),
)


def entry_row(entry: EntryView) -> list[Any]:
    style = "dim strike" if entry.undone else ""
    return [
        entry.id,
        Text(entry.scenario, overflow="ellipsis", no_wrap=True),
        entry.turn or "",
        entry.kind,
        Text(entry.summary, style=style, overflow="ellipsis", no_wrap=True),
        entry.dice,
    ]


class JournalScreen(TrackerScreen):
    """Filters across the top; the entries below; enter shows the ship's service record. `/`
    filters the entries shown as the player types (any column, literally) and `o` sorts them;
    the search box above reads the whole journal again, its summaries only."""

    HELP_EXTRA = SEARCH_KEYS
    FOOTER_DROPS = ("sort",)  # the table's key: in help when the footer is full
    ENTER_ACTION = "service_record"
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back"),
        Binding("u", "undo_entry", "Undo entry", tooltip="Undo the selected journal entry"),
        Binding("k", "decide", "Decide", tooltip="Decide the selected merged entry held: keep "
                "this copy's values, or take the other copy's"),
        Binding("enter", "service_record", "Ship record",
                tooltip="Show the selected ship's service record"),
        Binding("slash", "search", "Filter", key_display="/",
                tooltip="Filter the entries: type any column's text; escape clears"),
        Binding("s", "search_all", "Search all", show=False,
                tooltip="Search every entry's summary, beyond the newest 500"),
        Binding("c", "clear_filters", "Clear", tooltip="Clear every filter"),
    ]  # fmt: skip
    READ_ONLY_ACTIONS = frozenset(
        {"back", "service_record", "search", "search_all", "clear_filters"}
    )

    def __init__(self, campaign_id: int, ship_id: int | None = None) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.start_ship_id = ship_id
        self.entries: list[EntryView] = []

    def body(self) -> ComposeResult:
        with Horizontal(id="journal-filters"):
            yield Input(placeholder="search all entries (s)", id="journal-search", compact=True)
            for name in FILTERS:
                yield Select[Any]([], prompt=name, id=f"filter-{name}", compact=True)
        yield SearchTable(
            id="journal-table", title="Entries", zebra_stripes=True, classes="keys-here"
        )
        yield Static("", id="journal-status", markup=False)

    def on_mount(self) -> None:
        self.title = "Journal"
        self.load(Call(history.journal_filters, self.factory, campaign_id=self.campaign_id),
                  self._show_filters)  # fmt: skip
        table = self.query_one(SearchTable).add_sized_columns(COLUMNS)
        fit_columns(table, GIVE_WAY, wrap=("Scenario", "Kind", "What happened", "Dice")).focus()

    def _show_filters(self, filters: JournalFilters) -> None:
        self.query_one("#filter-scenario", Select).set_options(plain_options(filters.scenarios))
        self.query_one("#filter-side", Select).set_options(plain_options(filters.sides))
        self.query_one("#filter-ship", Select).set_options(plain_options(filters.ships))
        self.query_one("#filter-kind", Select).set_options([(k, k) for k in filters.kinds])
        if self.start_ship_id is not None:
            self.query_one("#filter-ship", Select).value = self.start_ship_id

    def _value(self, name: str) -> Any:
        value = self.query_one(f"#filter-{name}", Select).value
        return None if value is Select.NULL else value

    def reload(self) -> None:
        self.load(Call(
            history.list_entries,
            self.factory,
            campaign_id=self.campaign_id,
            **{argument: self._value(name) for name, argument in FILTERS.items()},
            search=self.query_one("#journal-search", Input).value,
            limit=LIMIT,
        ), self._show)  # fmt: skip

    def _show(self, entries: list[EntryView]) -> None:
        self.entries = entries
        self.query_one(SearchTable).show((str(entry.id), entry_row(entry)) for entry in entries)
        shown = [f"{len(entries)} entries" + (" (newest 500)" if len(entries) == LIMIT else "")]
        if self._value("ship") is not None:
            shown.append("service record of the ship chosen above")
        shown.append(
            "struck-through entries were undone" + self.hint(" · u undoes the selected entry")
        )
        self.query_one("#journal-status", Static).update(" · ".join(shown))

    @on(Input.Changed, "#journal-search")
    @on(Select.Changed)
    def _filters_changed(self) -> None:
        self.reload()

    def _selected(self) -> EntryView | None:
        if (entry := self.query_one(SearchTable).selected(self.entries)) is None:
            self.missing("No journal entry listed.")
        return entry

    def action_service_record(self) -> None:
        if (entry := self._selected()) is None:
            return
        if entry.ship_id is None:
            self.notify("That entry is not about one ship.", severity="warning")
            return
        self.query_one("#filter-ship", Select).value = entry.ship_id

    def action_undo_entry(self) -> None:
        if (entry := self._selected()) is None:
            return
        undo = Call(history.undo_entry, self.factory, entry_id=entry.id)
        self.call(undo, then=lambda result: self.tell(result.summary, title="Undone"))

    def action_decide(self) -> None:
        if (entry := self._selected()) is None:
            return
        import_module("tracker.screens.sync_form").decide(self, entry.id)

    def action_search(self) -> None:
        """The table's filter line, from wherever the focus is (a filter above)."""
        table = self.query_one(SearchTable)
        table.focus()
        table.action_filter()

    def action_search_all(self) -> None:
        self.query_one("#journal-search", Input).focus()

    def action_clear_filters(self) -> None:
        for name in FILTERS:
            self.query_one(f"#filter-{name}", Select).clear()
        self.query_one("#journal-search", Input).value = ""
        self.query_one(SearchTable).set_filter("")
        self.reload()
