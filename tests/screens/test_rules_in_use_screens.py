"""Rules of the seeds where the screens show them: half strength alike on the record sheet and
the scenario, and the end-of-turn drift asked before the next turn (docs/RULES.md §SMR2, §Mines)."""

from __future__ import annotations

from pathlib import Path

from campaign_files import sample_app
from textual.widgets import Static

from tracker.screens.campaign import CampaignScreen
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import damage, mines, sheet


def _text(screen: object, widget_id: str) -> str:
    return str(screen.query_one(widget_id, Static).render())  # type: ignore[attr-defined]


async def _begin_first_scenario(pilot) -> ScenarioScreen:  # type: ignore[no-untyped-def]
    await pilot.pause()
    assert isinstance(pilot.app.screen, CampaignScreen)
    await pilot.press("tab", "enter")  # the scenario pane, its first scenario
    await pilot.pause()
    await pilot.press("p")
    await pilot.pause()
    await pilot.press("ctrl+s", "b")  # every ship afloat takes part; begin
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ScenarioScreen) and screen.detail is not None
    assert screen.detail.status == "in_play"
    return screen


async def test_half_strength_reads_the_same_on_the_sheet_and_the_scenario(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        scenario = await _begin_first_scenario(pilot)
        force_g = next(
            squadron_id
            for squadron_id, name in sheet.squadrons_of_side(app.factory, side_id=1)
            if name == "Force G"
        )
        ships = sheet.load_record_sheet(app.factory, squadron_id=force_g).ships
        for ship in ships[:2]:
            damage.confirm_condition(app.factory, ship_id=ship.id, outcome="Sunk")
        scenario.reload()
        await pilot.pause()
        heading = _text(scenario, "#scenario-heading")
        assert "Force G: Afloat 1 of 3 original · Half strength: YES: morale tests" in heading
        await pilot.press("escape", "shift+tab", "enter")  # the forces pane: Force G
        await pilot.pause()
        record = app.screen
        assert isinstance(record, RecordSheetScreen)
        totals = _text(record, "#totals-block")
        assert "Afloat 1 of 3 original\nHalf strength: YES: morale tests" in totals


async def test_the_next_turn_asks_first_while_a_drifting_minefield_has_not_drifted(
    tmp_path: Path,
) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=4)
    campaign_id = 1
    near = mines.add_boundary(app.factory, campaign_id=campaign_id, area_a="Plate", area_b="Lobos")
    far = mines.add_boundary(app.factory, campaign_id=campaign_id, area_a="Lobos", area_b="Sea")
    field = mines.sow_minefield(
        app.factory, side_id=2, laid_by="surface", boundary_id=near, complete=True, drifting=True
    )
    async with app.run_test(size=(120, 40)) as pilot:
        scenario = await _begin_first_scenario(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "End of turn 1: 1 drifting minefield has not drifted yet" in app.screen.question
        await pilot.press("n")  # not yet: drift it first, on turn 1
        await pilot.pause()
        assert app.screen is scenario and scenario.detail is not None
        assert scenario.detail.turn == 1
        mines.drift(app.factory, minefield_id=field, to_boundary_id=far)
        await pilot.press("n")  # nothing left to drift: the turn advances at once
        await pilot.pause()
        assert app.screen is scenario and scenario.detail.turn == 2
    view = next(
        f for f in mines.ledger(app.factory, campaign_id=campaign_id).minefields if f.id == field
    )
    assert view.path == ("turn 1: Lobos | Plate → Lobos | Sea",)
