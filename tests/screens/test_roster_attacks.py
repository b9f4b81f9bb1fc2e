"""The roster's Attacks column: a unit's attack rows in the card's printed order (main,
secondary, tertiary, AA, ASW, torpedo, bombs), whole while the table has room."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import migrated_engine
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.card_detail import SHORT, attacks_line
from tracker.screens.roster import RosterScreen
from tracker.screens.roster_rows import UNIT_COLUMNS, UNIT_GIVE_WAY
from tracker.services import campaigns, roster
from tracker.services.roster import ATTACK_LABELS, UnitFields
from tracker.widgets.search_table import SearchTable
from tracker.widgets.tables import Fit

DICE = st.lists(st.one_of(st.none(), st.integers(0, 12)), min_size=4, max_size=4)


@settings(max_examples=examples(50), derandomize=True)
@given(rows=st.dictionaries(st.sampled_from(list(ATTACK_LABELS)), DICE, min_size=1),
       seed=st.integers(0, 1000))  # fmt: skip
def test_the_attack_rows_read_in_the_cards_order_whatever_order_they_are_stored_in(
    rows: dict[str, list[int | None]], seed: int
) -> None:
    stored = list(rows.items())
    random.Random(seed).shuffle(stored)
    line = attacks_line(dict(stored))
    names = [part.split(" ")[0] for part in line.split(", ")]
    assert names == [SHORT[row] for row in ATTACK_LABELS if row in rows]


@settings(max_examples=examples(50), derandomize=True)
@given(held=st.lists(st.integers(0, 60), min_size=len(UNIT_COLUMNS), max_size=len(UNIT_COLUMNS)),
       room=st.integers(40, 200))  # fmt: skip
def test_the_unit_columns_are_whole_while_they_fit_and_the_abilities_give_way_first(
    held: list[int], room: int
) -> None:
    cells = [Text("x" * width) for width in held]
    widths = Fit(UNIT_GIVE_WAY).widths(UNIT_COLUMNS, [cells], room)
    whole = [max(width, len(label)) for width, label in zip(held, UNIT_COLUMNS, strict=True)]
    attacks, abilities = UNIT_COLUMNS.index("Attacks"), UNIT_COLUMNS.index("Abilities")
    if sum(whole) + 2 * len(whole) <= room:
        assert widths == whole
    else:
        assert sum(widths) + 2 * len(widths) <= room or widths[abilities] <= 9
        if widths[attacks] < whole[attacks]:  # the abilities gave all they could first
            assert widths[abilities] == min(whole[abilities], 9)


# A battleship's card: its guns' rows, stored in the reverse of the card's order.
GUNS = ("anti_air", "tertiary", "secondary", "main")
EVERY_ROW = {row: [n + 5, n + 2, n, None] for n, row in enumerate(GUNS)}


def _app(path: Path) -> TrackerApp:
    factory = session_factory(migrated_engine(path))
    campaign_id = campaigns.create_campaign(factory, name="Atlantic 1942").id
    side_id = campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine").id
    roster.save_unit(factory, side_id=side_id, fields=UnitFields(
        name="Bismarck", unit_type="battleship", nation="Germany", points=50, speed="2",
        armor=5, vital_armor=9, hull_points=5, attacks=EVERY_ROW,
        abilities="Fire Control Radar\nLucky Shot\nBlue Water Navy\nFlagship 2"))  # fmt: skip
    return TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id)


async def test_a_battleships_attacks_show_whole_in_the_cards_order_at_120_columns(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RosterScreen)
        table = screen.query_one("#unit-table", SearchTable)
        cell = table.get_cell_at((0, UNIT_COLUMNS.index("Attacks")))
        assert cell.plain == "Main 8 5 3 -, Sec 7 4 2 -, Ter 6 3 1 -, AA 5 2 0 -"
        expected = cell.plain
        attacks = table.ordered_columns[UNIT_COLUMNS.index("Attacks")]
        assert attacks.width >= len(expected)
        # The table fits its window: the abilities gave way, nothing runs off the right edge.
        assert table.virtual_size.width <= table.scrollable_content_region.width
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width
