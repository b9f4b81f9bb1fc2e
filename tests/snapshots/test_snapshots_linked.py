"""Snapshots of the linked-scenario screens; each SVG was looked at before it was committed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import migrated_engine

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.services import campaigns, damage, demo, repairs, scenarios

SIZE = (120, 40)


@pytest.fixture
def played(tmp_path: Path) -> tuple[SessionFactory, int]:
    """The sample after its battle: Exeter damaged and partly repaired, a second battle planned."""
    engine = migrated_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    campaign_id = demo.create_sample_campaign(factory)
    ships = {p.name: p.id for p in damage.find_ships(factory, campaign_id=campaign_id, query="")}
    first = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios[0].id
    scenarios.set_participants(factory, scenario_id=first, ship_ids=list(ships.values()))
    scenarios.start_scenario(factory, scenario_id=first)
    damage.record_hit(
        factory,
        request=damage.HitRequest(
            ship_id=ships["Exeter"], structure=8, flotation=3,
            criticals=(damage.CriticalRequest(effect="A and B turrets out"),),
        ),
    )  # fmt: skip
    damage.record_hit(factory, request=damage.HitRequest(ship_id=ships["Ajax"], structure=3))
    damage.record_hit(
        factory, request=damage.HitRequest(ship_id=ships["Admiral Graf Spee"], structure=5)
    )
    scenarios.close_scenario(factory, scenario_id=first, outcome="Graf Spee to Montevideo")
    repairs.repair_ship(factory, ship_id=ships["Exeter"], structure=4, flotation=2)
    second = campaigns.add_scenario(
        factory, campaign_id=campaign_id, title="Exeter at the Falklands", date="Jan 1940"
    ).id
    scenarios.set_participants(factory, scenario_id=second, ship_ids=[ships["Exeter"]])
    scenarios.start_scenario(factory, scenario_id=second)
    damage.record_hit(factory, request=damage.HitRequest(ship_id=ships["Exeter"], structure=2))
    scenarios.close_scenario(factory, scenario_id=second, outcome="Storm damage")
    campaigns.add_scenario(factory, campaign_id=campaign_id, title="Home to Devonport")
    return factory, campaign_id


def app_for(factory: SessionFactory, campaign_id: int) -> TrackerApp:
    return TrackerApp(factory, rng=random.Random(4), open_campaign_id=campaign_id)


def test_campaign_screen_with_scenarios(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*played), terminal_size=SIZE)


def test_since_last_battle_table(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*played), terminal_size=SIZE, press=["r"])


def test_repair_step(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*played), terminal_size=SIZE, press=["r", "enter"])


def test_ship_history_plot(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*played), terminal_size=SIZE, press=["r", "h"])
