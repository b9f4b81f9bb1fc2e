"""A campaign-wide screen's read takes the same SQL statements at any size of campaign: every
ship's line is read with the others' (a table at a time), never by statements of its own
(counted, not timed)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from service_helpers import World, appoint, statements
from sqlalchemy import Engine

from tracker.db import SessionFactory
from tracker.services import (
    campaigns,
    continuity,
    csv_import,
    damage,
    fleet,
    mines,
    repairs,
    scenarios,
)

# Each read, given the campaign's world and the last scenario played.
Read = Callable[[SessionFactory, World, int], object]
READS: dict[str, Read] = {
    "repairs: since the last battle": lambda factory, world, _: continuity.since_last_battle(
        factory, campaign_id=world.campaign_id
    ),
    "repairs: the continuity check": lambda factory, world, _: continuity.check_continuity(
        factory, campaign_id=world.campaign_id
    ),
    "scenario: its ships": lambda factory, _, scenario_id: continuity.scenario_detail(
        factory, scenario_id=scenario_id
    ),
}


def _ships(factory: SessionFactory, world: World, names: list[str]) -> list[int]:
    """A squadron with a commander for each ship named; every ship of the campaign."""
    for name in names:
        squadron = fleet.create_squadron(factory, side_id=world.blue_id, name=f"{name}'s")
        appoint(factory, squadron, name=f"Capt of {name}", training=3, roll=5)
        raw = f"name,structure_max,flotation_max\n{name},10,8\n".encode()
        report = csv_import.import_csv(factory, kind="ships", raw=raw, target_id=squadron)
        assert report.ok, report.problems
    return [p.id for p in damage.find_ships(factory, campaign_id=world.campaign_id, query="")]


def _battle(factory: SessionFactory, world: World, title: str, ship_ids: list[int]) -> int:
    """A scenario played by every ship (each hit once), closed, then each ship repaired."""
    scenario = campaigns.add_scenario(factory, campaign_id=world.campaign_id, title=title)
    scenarios.set_participants(factory, scenario_id=scenario.id, ship_ids=ship_ids)
    scenarios.start_scenario(factory, scenario_id=scenario.id)
    for ship_id in ship_ids:
        damage.record_hit(factory, request=damage.HitRequest(ship_id=ship_id, structure=2))
    scenarios.close_scenario(factory, scenario_id=scenario.id, outcome="Drawn")
    for ship_id in ship_ids:
        repairs.repair_ship(factory, ship_id=ship_id, structure=1)
    return scenario.id


@pytest.mark.parametrize("read", sorted(READS))
def test_a_screens_read_takes_the_same_statements_for_two_ships_or_seven(
    engine: Engine, factory: SessionFactory, world: World, read: str
) -> None:
    counted = []
    ships: list[int] = []
    for names in (["Ajax", "Exeter"], ["Achilles", "Hood", "Renown", "Hardy", "Hunter"]):
        ships = _ships(factory, world, names)
        _battle(factory, world, f"Battle of {len(ships)}", ships)
        last = _battle(factory, world, f"Second battle of {len(ships)}", ships)
        with statements(engine) as seen:
            READS[read](factory, world, last)
        counted.append(len(seen))
    assert len(ships) == 7
    assert counted[0] == counted[1], counted


def test_each_ships_line_is_its_own_when_read_with_the_others(
    factory: SessionFactory, world: World
) -> None:
    """Read a table at a time, each ship's end, repairs and history are hers: two ships in four
    battles, five in the last two (each hit 2, repaired 1 after each)."""
    for names in (["Ajax", "Exeter"], ["Achilles", "Hood", "Renown", "Hardy", "Hunter"]):
        ships = _ships(factory, world, names)
        _battle(factory, world, f"Battle of {len(ships)}", ships)
        _battle(factory, world, f"Second battle of {len(ships)}", ships)
    since = continuity.since_last_battle(factory, campaign_id=world.campaign_id)
    shown = {row.name: (row.last_scenario, row.end_structure, row.repaired_structure,
                        row.structure) for row in since}  # fmt: skip
    assert shown == {
        **{name: ("Second battle of 7", 5, 1, 6) for name in ("Ajax", "Exeter")},
        **{name: ("Second battle of 7", 7, 1, 8)
           for name in ("Achilles", "Hood", "Renown", "Hardy", "Hunter")},
    }  # fmt: skip
    assert continuity.check_continuity(factory, campaign_id=world.campaign_id) == []
    ajax = next(row.ship_id for row in since if row.name == "Ajax")
    history = continuity.ship_history(factory, ship_id=ajax)
    assert [(p.start, p.end) for p in history] == [
        ((10, 8), (8, 8)),
        ((9, 8), (7, 8)),
        ((8, 8), (6, 8)),
        ((7, 8), (5, 8)),
    ]


WHERE = ["Belt | Sea 0", "Belt | Sea 1", "Belt | Sea 2", "Belt | Sea 3", "Belt | Sea 4"]


def test_the_owners_ledger_takes_the_same_statements_for_one_secret_minefield_or_five(
    engine: Engine, factory: SessionFactory, world: World
) -> None:
    """The owner's view opens each secret minefield's sealed place: its boundary is found among
    the campaign's, read once, not by a statement of its own (RULES.md §Mines)."""
    boundaries = [
        mines.add_boundary(factory, campaign_id=world.campaign_id, area_a=f"Sea {n}", area_b="Belt")
        for n in range(5)
    ]
    counted = []
    for sown in (boundaries[:1], boundaries[1:]):
        for boundary in sown:
            mines.sow_minefield(factory, side_id=world.red_id, laid_by="surface", sector="",
                                boundary_id=boundary, secret=True)  # fmt: skip
        with statements(engine) as seen:
            ledger = mines.ledger(factory, campaign_id=world.campaign_id,
                                  owner_side_id=world.red_id)  # fmt: skip
        counted.append(len(seen))
    assert [(view.boundary_id, view.where) for view in ledger.minefields] == [
        (boundary, label) for boundary, label in zip(boundaries, WHERE, strict=True)
    ]
    assert counted[0] == counted[1], counted
