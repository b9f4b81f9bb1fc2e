"""The campaign's typed-in rule tables, critical-hit and mine damage, read in one shape: a RuleTable
of RuleRows, rows by their lowest roll, the die its highest number (services/rule_tables.py)."""

from __future__ import annotations

import itertools

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.db import SessionFactory
from tracker.services import campaigns, rule_tables
from tracker.services.rule_tables import RuleRow, RuleTable

GENERATED = settings(
    max_examples=examples(15), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
NAMES = itertools.count()


@st.composite
def spans(draw: st.DrawFn, top: int) -> list[tuple[int, int]]:
    """Rows that do not overlap, low..high within 1..top, in no particular order."""
    cuts = sorted(draw(st.sets(st.integers(1, top - 1), max_size=4)))
    edges = [0, *cuts, top]
    rows = [(low + 1, high) for low, high in itertools.pairwise(edges)]
    kept = draw(st.lists(st.sampled_from(rows), min_size=1, unique=True))
    return draw(st.permutations(kept))


def _shape(table: RuleTable) -> list[tuple[str, int, int]]:
    return [(row.table, row.low, row.high) for row in table.rows]


@GENERATED
@given(critical=spans(10), mine=spans(11))
def test_both_tables_read_back_in_one_shape_by_lowest_roll(
    factory: SessionFactory, critical: list[tuple[int, int]], mine: list[tuple[int, int]]
) -> None:
    campaign_id = campaigns.create_campaign(factory, name=f"Tables {next(NAMES)}").id
    for low, high in critical:
        rule_tables.save_table_row(factory, campaign_id=campaign_id, kind="underwater",
                                   low=low, high=high, effect=f"Flooding {low}")  # fmt: skip
    for low, high in mine:
        rule_tables.save_mine_row(factory, campaign_id=campaign_id, low=low, high=high,
                                  effects="none" if low % 2 else "fuel-1")  # fmt: skip

    crits = rule_tables.critical_table(factory, campaign_id=campaign_id, kind="underwater")
    mines = rule_tables.mine_table(factory, campaign_id=campaign_id)
    assert isinstance(crits, RuleTable) and isinstance(mines, RuleTable)
    assert all(isinstance(row, RuleRow) for row in (*crits.rows, *mines.rows))
    assert _shape(crits) == [("underwater", low, high) for low, high in sorted(critical)]
    assert _shape(mines) == [("mine", low, high) for low, high in sorted(mine)]
    assert [row.effect for row in crits.rows] == [f"Flooding {low}" for low, _ in sorted(critical)]
    assert [row.effect for row in mines.rows] == [
        "none" if low % 2 else "fuel-1" for low, _ in sorted(mine)
    ]
    dice = rule_tables.table_dice(factory, campaign_id=campaign_id, kinds=("underwater",))
    assert crits.die == dice["underwater"] == max(high for _, high in critical)
    assert mines.die == max(high for _, high in mine)
    # The other critical table is empty: no rows, no die to roll.
    other = rule_tables.critical_table(factory, campaign_id=campaign_id, kind="structural")
    assert (other.rows, other.die) == ((), None)
    # Both critical tables read together, in the order asked: what the tables screen shows.
    both = rule_tables.critical_tables(
        factory, campaign_id=campaign_id, kinds=("structural", "underwater")
    )
    assert [table.table for table in both] == ["structural", "underwater"]
    assert [_shape(table) for table in both] == [[], _shape(crits)]
