"""The report screens as a player reaches them: a on the campaign screen, a on a scenario's; a
scenario not closed has no report yet; names typed with markup show as typed."""

from __future__ import annotations

import io
from pathlib import Path

from campaign_files import press_to, sample_app
from rich.console import Console, Group
from toasts import every_toast

from tracker.screens.campaign import CampaignScreen
from tracker.screens.report import ReportScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import campaigns, damage, fleet, scenarios


def _text(screen: ReportScreen) -> str:
    """What the report shows, as plain text (what a player reads)."""
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(Group(*screen.shown))
    return out.getvalue()


async def test_each_report_opens_from_its_screen_and_shows_names_as_typed(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=2)
    factory, campaign_id = app.factory, app.open_campaign_id
    assert factory is not None and campaign_id is not None
    first = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios[0]
    ships = damage.find_ships(factory, campaign_id=campaign_id, query="")
    named = "[b]Exeter[/b] [red]x"
    fields = fleet.ShipFields(name=named, structure_max=4, flotation_max=4)
    squadron = campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].squadrons[0].id
    marked = fleet.create_ship(factory, squadron_id=squadron, fields=fields)
    scenarios.set_participants(factory, scenario_id=first.id,
                               ship_ids=[*(s.id for s in ships), marked])  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        # Still planned: the scenario screen says so and opens nothing.
        scenario = await press_to(pilot, "tab", "enter", screen=ScenarioScreen)
        await press_to(pilot, "a", screen=ScenarioScreen)
        assert "closed" in str(every_toast(app)[-1].message)
        scenarios.start_scenario(factory, scenario_id=first.id)
        damage.record_hit(factory, request=damage.HitRequest(ship_id=marked, structure=2))
        scenarios.close_scenario(factory, scenario_id=first.id, outcome="[i]won[/i]")
        scenario.reload()
        await pilot.pause()
        report = await press_to(pilot, "a", screen=ReportScreen)
        await pilot.pause()
        shown = _text(report)
        assert f"After-action report: 1. {first.title}" in shown
        assert named in shown and "[i]won[/i]" in shown and "4→2/4" in shown
        await press_to(pilot, "escape", "escape", screen=CampaignScreen)
        story = await press_to(pilot, "a", screen=ReportScreen)
        await pilot.pause()
        shown = _text(story)
        assert "the campaign's story" in shown and named in shown
        assert "[i]won[/i]" in shown
