"""A campaign carried from one battle to the next, as a player does it, with a restart between."""

from __future__ import annotations

from pathlib import Path

from campaign_files import sample_app
from textual.widgets import DataTable, Input
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.screens.campaign import CampaignScreen
from tracker.screens.form import FormScreen
from tracker.screens.participants import ParticipantsScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.repairs import RepairsScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import campaigns, continuity, damage, repairs, scenarios


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
        yard = app.screen
        assert isinstance(yard, RepairsScreen)
        assert yard.rows[0].name == "Exeter" and yard.rows[0].outstanding == (5, 2)
        await pilot.press("enter")  # repair Exeter
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        app.screen.query_one("#field-structure", Input).value = "3"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert yard.rows[0].repaired_structure == 3
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
    assert continuity.check_continuity(app.factory, campaign_id=campaign_id) == []
    assert damage.find_ships(app.factory, campaign_id=campaign_id, query="exeter")[0].name == (
        "Exeter"
    )


async def test_the_repair_form_offers_what_the_allowance_leaves_and_not_for_a_sunk_ship(
    tmp_path: Path,
) -> None:
    from tracker.db import session_scope
    from tracker.models import Campaign

    path = tmp_path / "campaign.db"
    app = start(path)
    factory = app.factory
    ships = {p.name: p.id for p in damage.find_ships(factory, campaign_id=1, query="")}
    first = campaigns.get_overview(factory, campaign_id=1).scenarios[0].id
    scenarios.set_participants(factory, scenario_id=first, ship_ids=list(ships.values()))
    scenarios.start_scenario(factory, scenario_id=first)
    damage.record_hit(factory, request=damage.HitRequest(ships["Exeter"], structure=8))
    damage.record_hit(factory, request=damage.HitRequest(ships["Ajax"], structure=99))
    damage.confirm_condition(factory, ship_id=ships["Ajax"], outcome="Sunk")
    scenarios.close_scenario(factory, scenario_id=first)
    with session_scope(factory) as session:
        campaign = session.get(Campaign, 1)
        assert campaign is not None
        campaign.repair_limit_structure = 5
    repairs.repair_ship(factory, ship_id=ships["Exeter"], structure=1)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        repairs_screen = app.screen
        assert isinstance(repairs_screen, RepairsScreen)
        table = repairs_screen.query_one(DataTable)
        names = [row.name for row in repairs_screen.rows]
        table.move_cursor(row=names.index("Exeter"))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        labels = [str(label.render()) for label in app.screen.query(".form-label")]
        assert "Structure repaired (up to 4)" in labels  # 7 missing, 5 allowed, 1 done
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is repairs_screen
        table.move_cursor(row=names.index("Ajax"))
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is repairs_screen
        assert every_toast(app)[-1].message == "Ajax is sunk: a sunk ship is not repaired."
