"""x on the campaign screen: a side, a squadron or a scenario that cannot be deleted says why
at once, before anything is asked; one that can is asked about first, then deleted."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from campaign_files import sample_engine
from textual.widgets import Tree
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.confirm import ConfirmScreen
from tracker.services import campaigns, fleet, scenarios, sheet
from tracker.services.views import SideView, SquadronRef


async def _on(pilot: Any, wanted: str) -> None:
    """The campaign tree's cursor on the side or squadron named."""
    tree: Tree[Any] = pilot.app.screen.query_one(Tree)
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        data = node.data if node is not None else None
        if isinstance(data, SideView | SquadronRef) and data.name == wanted:
            tree.cursor_line = line
            await pilot.pause()
            return
    raise AssertionError(f"{wanted} is not in the tree")


async def test_a_squadron_or_side_that_fought_is_refused_before_anything_is_asked(
    tmp_path: Path,
) -> None:
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    side, fought = overview.sides[0], overview.sides[0].squadrons[0]
    battle = overview.scenarios[0].id
    ships = sheet.load_record_sheet(factory, squadron_id=fought.id).ships
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=[s.id for s in ships])
    scenarios.start_scenario(factory, scenario_id=battle)
    scenarios.close_scenario(factory, scenario_id=battle)
    fleet.create_squadron(factory, side_id=side.id, name="Spare")
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)
        for refused in (fought.name, side.name):
            await _on(pilot, refused)
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, CampaignScreen), f"{refused}: asked first"
            assert "cannot be deleted" in every_toast(app)[-1].message
        await _on(pilot, "Spare")
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert every_toast(app)[-1].message == "Deleted Spare"
    names = [
        s.name for s in campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].squadrons
    ]
    assert names == [fought.name]
    engine.dispose()
