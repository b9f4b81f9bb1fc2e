"""A campaign carried from one battle to the next, as a player does it, with a restart between."""

from __future__ import annotations

from pathlib import Path

from campaign_files import sample_app
from textual.widgets import DataTable, Input

from tracker.app import TrackerApp
from tracker.screens.campaign import CampaignScreen
from tracker.screens.form import FormScreen
from tracker.screens.participants import ParticipantsScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.repairs import RepairsScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import campaigns, damage, scenarios


def start(path: Path) -> TrackerApp:
    return sample_app(path, seed=2)


async def test_close_repair_and_carry_into_the_next_scenario(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    app = start(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)
        await pilot.press("tab", "enter")  # the scenario pane, its first scenario
        await pilot.pause()
        assert isinstance(app.screen, ScenarioScreen)
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ParticipantsScreen)
        await pilot.press("ctrl+s")  # every ship afloat, ticked by default
        await pilot.pause()
        await pilot.press("b", "d")
        await pilot.pause()
        await pilot.press(*"exeter s5 f2", "enter")
        await pilot.pause()
        await pilot.press("escape", "c")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        await pilot.press(*"Spee to Montevideo", "ctrl+s")
        await pilot.pause()
        assert app.screen.detail.status == "closed"  # type: ignore[attr-defined]
        await pilot.press("q")

    app = start(path)  # restart between the battles
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        repairs = app.screen
        assert isinstance(repairs, RepairsScreen)
        assert repairs.rows[0].name == "Exeter" and repairs.rows[0].outstanding == (5, 2)
        await pilot.press("enter")  # repair Exeter
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        app.screen.query_one("#field-structure", Input).value = "3"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert repairs.rows[0].repaired_structure == 3
        await pilot.press("q")

    campaign_id = 1
    second = campaigns.add_scenario(app.factory, campaign_id=campaign_id, title="Breakout").id
    app = start(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("tab", "down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ScenarioScreen) and app.screen.scenario_id == second
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("ctrl+s", "b")
        await pilot.pause()
        await pilot.press("escape", "shift+tab", "enter")  # the forces pane: Force G
        await pilot.pause()
        sheet = app.screen
        assert isinstance(sheet, RecordSheetScreen)
        assert sheet.record is not None
        exeter = sheet.record.ships[0]
        assert (exeter.structure_now, exeter.flotation_now) == (10, 7)
        assert sheet.query_one(DataTable).row_count == 3
    assert scenarios.check_continuity(app.factory, campaign_id=campaign_id) == []
    assert damage.find_ships(app.factory, campaign_id=campaign_id, query="exeter")[0].name == (
        "Exeter"
    )
