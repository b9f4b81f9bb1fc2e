"""The campaign's mine damage table, typed in from the players' rulebook (SWWAS mine variant)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec
from tracker.screens.rule_table import RuleTableScreen, roll_text, row_bindings
from tracker.services import mines
from tracker.services.rule_tables import RuleRow, RuleTable
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import fit_columns

INTRO = (
    "The Second World War at Sea mine-warfare variant's Mine Damage Table is not in this tracker: "
    "type your rulebook's rows here, once per campaign. A row covers the modified roll low..high "
    "(the d6 plus the modifiers: +1 for each minefield beyond the first on the boundary, at most "
    "+3; +2 at Speed 3 or more) for long counters, small counters or all."
)
# Each word the service takes, and what the tracker does with it when a ship rolls that row.
EFFECT_WORDS = (
    ("none", "the ship passes (it did not strike a mine)"),
    ("speed-N", "speed rating down N"),
    ("gunnery-N", "gunnery factors down N"),
    ("fuel-N", "N fuel factors lost, full ones first; only a friendly port repairs them"),
    ("hull-N", "N hull boxes of damage"),
    ("crippled", "steering or propulsion crippled"),
    ("sunk", "the ship sinks"),
)
COLUMNS = (("Modified roll", 13), ("Applies to", 10), ("Effects", 30), ("Note", 50))
GIVE_WAY = (("Note", 30), ("Effects", 20), ("Note", 12), ("Effects", 10))
APPLIES_OPTIONS = [
    ("all counters", "all"),
    ("long counters", "long"),
    ("small counters", "small"),
]


def effects_help(*, flowing: bool = False) -> Text:
    """The effect words as the Effects field accepts them: one line each, or `flowing` one
    after the other (a short terminal shows them all so)."""
    text = Text("Separate them with spaces or commas (speed-1 fuel-2); none stands alone.\n")
    for number, (word, meaning) in enumerate(EFFECT_WORDS):
        text.append(f"{word}: " if flowing else f"{word:<11}", style="bold")
        text.append(meaning)
        if number < len(EFFECT_WORDS) - 1:
            text.append(" · " if flowing else "\n")
    return text


def gaps_text(table: RuleTable) -> tuple[str, bool]:
    """The modified rolls no row covers, and whether that calls for the warning style."""
    if not table.rows:
        return (
            "No rows yet: press a to type your rulebook's table. Until then every mine roll asks "
            "you for the result.",
            True,
        )
    if not table.gaps:
        return "Every modified roll 1..11 has a row for long and small counters.", False
    return "Gaps: " + "; ".join(table.gaps) + ". A roll in a gap asks you for the result.", True


def row_cells(row: RuleRow) -> list[Any]:
    """One table row; the player's words are plain Text (never markup)."""
    return [roll_text(row), row.applies_to, Text(row.effect), Text(row.note)]


class MineTableScreen(RuleTableScreen[RuleRow]):
    """The rows in roll order; a adds a row, e or enter edits, x deletes."""

    BINDINGS = row_bindings("mine damage table row")

    def body(self) -> ComposeResult:
        yield Static(INTRO, id="mine-table-intro", markup=False)
        yield PlainTable(id="mine-rows", cursor_type="row", zebra_stripes=True)
        yield Static("", id="mine-gaps", markup=False)
        yield Static(effects_help(), id="mine-effects", classes="effect-words")
        yield Static(effects_help(flowing=True), id="mine-effects-flowing", classes="effect-words")

    def on_mount(self) -> None:
        self.title = "Mine damage table"
        for words in self.query(".effect-words"):
            words.border_title = "Effect words"
        table = self.query_one(PlainTable).add_sized_columns(COLUMNS)
        fit_columns(table, GIVE_WAY, wrap=("Effects", "Note")).focus()

    def reload(self) -> None:
        self.load(Call(mines.mine_table, self.factory, campaign_id=self.campaign_id), self._show)

    def _show(self, table_view: RuleTable) -> None:
        self.show_rows(table_view.rows, [row_cells(row) for row in table_view.rows])
        message, warn = gaps_text(table_view)
        if self.read_only and not self.rows:
            message = "No rows yet: until they are typed in, every mine roll asks for its result."
        gaps = self.query_one("#mine-gaps", Static)
        gaps.update(message)
        gaps.set_class(warn, "-warning")

    def _fields(self, row: RuleRow | None) -> list[FieldSpec]:
        return [
            FieldSpec("low", "Modified roll from", kind="int", value=row.low if row else 1,
                      low=-5, high=20),
            FieldSpec("high", "Modified roll to", kind="int", value=row.high if row else 1,
                      low=-5, high=20),
            FieldSpec("applies_to", "Applies to", kind="select",
                      value=row.applies_to if row else "all", options=APPLIES_OPTIONS),
            FieldSpec("effects", "Effects", value=row.effect if row else "",
                      placeholder="none, speed-1 fuel-2, crippled, sunk ..."),
            FieldSpec("note", "Note (as your rulebook says)", value=row.note if row else ""),
        ]  # fmt: skip

    def _open(self, row: RuleRow | None) -> None:
        self.open_form(
            "Edit mine damage table row" if row else "Add mine damage table row",
            self._fields(row),
            self.calling(
                mines.save_mine_row, campaign_id=self.campaign_id, row_id=row.id if row else None
            ),
            note=f"Effects: {', '.join(word for word, _ in EFFECT_WORDS)}. Rows may not overlap; "
            "gaps are allowed.",
        )

    def describe(self, row: RuleRow) -> str:
        return f"the mine table row {row.low}-{row.high} ({row.applies_to}): {row.effect}"

    def delete_row(self, row: RuleRow) -> Call[None]:
        return Call(mines.delete_mine_row, self.factory, row_id=row.id)
