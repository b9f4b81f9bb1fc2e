"""The ship finder (tracker.services.damage.find_ships): the ships it offers, in its order, for
any campaign's ships; an empty line reads only the ships it lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import fresh_factory
from sqlalchemy import event, text

from tracker.db import SessionFactory, session_scope
from tracker.rules.shorthand import rank_names
from tracker.services import campaigns, damage, fleet
from tracker.services.fleet import ShipFields

NAMES = ("Ajax", "Achilles", "Exeter", "Hotspur", "Hostile", "Havock", "Hood", "Hoodoo")


def _fleet(factory: SessionFactory, ships: list[tuple[str, bool, bool]]) -> tuple[int, list[int]]:
    """A campaign whose ships are (name, sunk, retired), each named once; its id and theirs."""
    campaign = campaigns.create_campaign(factory, name="C")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue")
    squadron = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
    ids = []
    for number, (name, sunk, retired) in enumerate(ships):
        fields = ShipFields(name=f"{name} {number}", structure_max=9, flotation_max=8)
        ship_id = fleet.create_ship(factory, squadron_id=squadron, fields=fields)
        with session_scope(factory) as session:
            session.connection().execute(
                text("UPDATE ship SET sunk = :sunk, retired = :retired WHERE id = :id"),
                {"sunk": sunk, "retired": retired, "id": ship_id},
            )
        ids.append(ship_id)
    return campaign.id, ids


def _expected(
    ships: list[tuple[str, bool, bool]], ids: list[int], query: str, first: int | None, limit: int
) -> list[int]:
    """The finder's rule, over every ship: the names' ranks (rank_names), afloat before sunk, and
    for an empty line the ship given first; retired ships never."""
    kept = [(ship_id, f"{name} {n}", sunk)
            for n, (ship_id, (name, sunk, retired)) in enumerate(zip(ids, ships, strict=True))
            if not retired]  # fmt: skip
    ranked = [kept[index] for index in rank_names(query, [name for _, name, _ in kept])]
    ranked.sort(key=lambda ship: ship[2])
    if first is not None and not query.strip():
        ranked.sort(key=lambda ship: ship[0] != first)
    return [ship_id for ship_id, _, _ in ranked[:limit]]


@settings(max_examples=examples(25), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    ships=st.lists(
        st.tuples(st.sampled_from(NAMES), st.booleans(), st.booleans()), min_size=1, max_size=12
    ),
    query=st.sampled_from(["", "  ", "ho", "hood", "a", "x"]),
    first=st.one_of(st.none(), st.integers(0, 11)),
    limit=st.integers(1, 9),
)
def test_the_finder_offers_the_ships_its_rule_ranks_first(
    tmp_path_factory: pytest.TempPathFactory,
    migrated_template: Path,
    ships: list[tuple[str, bool, bool]],
    query: str,
    first: int | None,
    limit: int,
) -> None:
    with fresh_factory(tmp_path_factory, migrated_template, "finder") as factory:
        campaign_id, ids = _fleet(factory, ships)
        given = ids[first] if first is not None and first < len(ids) else None
        found = damage.find_ships(factory, campaign_id=campaign_id, query=query, limit=limit,
                                  first=given)  # fmt: skip
        assert [pick.id for pick in found] == _expected(ships, ids, query, given, limit)


def test_an_empty_line_reads_only_the_ships_it_lists(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> None:
    """Every ship of a campaign matches an empty line: the database orders them and gives the
    eight listed, not the whole campaign's to be ranked (on every opening of damage entry)."""
    with fresh_factory(tmp_path_factory, migrated_template, "blank") as factory:
        campaign_id, ids = _fleet(factory, [(name, False, False) for name in NAMES * 2])
        with session_scope(factory) as session:
            engine = session.get_bind()
        said: list[str] = []

        def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            if statement.lstrip().upper().startswith("SELECT"):
                said.append(statement)

        event.listen(engine, "after_cursor_execute", note)
        try:
            found = damage.find_ships(factory, campaign_id=campaign_id, query="", first=ids[-1])
        finally:
            event.remove(engine, "after_cursor_execute", note)
        assert [pick.id for pick in found] == [ids[-1], *ids[:7]]
        assert len(said) == 1 and "LIMIT" in said[0].upper()
