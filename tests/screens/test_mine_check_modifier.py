"""The mine check's modifier on screen is the rule's (rules.swwas.mine_drm, RULES.md §Mines): the
setup form's preview and the check's heading say what the rule says, cause by cause, and work
none of it out again; a different reading of the rule shows on both at once."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import migrated_engine
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Static

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.rules import swwas
from tracker.screens import mine_check
from tracker.screens.mine_check import MineCheckScreen
from tracker.services import campaigns, fleet, mines
from tracker.services.fleet import ShipFields


def _reading(minefields: int, speed: int) -> swwas.MineDrm:
    """A reading no arithmetic of the screen's could give: +1 a minefield, uncapped, and the
    speed itself."""
    return swwas.MineDrm(minefields=minefields, speed=speed)


@given(minefields=st.integers(1, 20), speed=st.integers(0, 20))
def test_the_setup_preview_says_the_rules_modifier_cause_by_cause(
    minefields: int, speed: int
) -> None:
    drm = swwas.mine_drm(minefields, speed)
    said = mine_check.setup_preview({"minefields": minefields, "speed": speed})
    assert f"+{drm.total} (+{drm.minefields} minefields, +{drm.speed} speed)" in said


def test_the_setup_preview_follows_the_rule_whatever_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(swwas, "mine_drm", _reading)
    said = mine_check.setup_preview({"minefields": 5, "speed": 1})
    assert "+6 (+5 minefields, +1 speed)" in said


async def test_the_checks_heading_says_the_modifier_the_rule_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(swwas, "mine_drm", _reading)
    factory = session_factory(migrated_engine(tmp_path / "campaign.db"))
    campaign = campaigns.create_campaign(factory, name="North Sea 1940").id
    navy = campaigns.create_side(factory, campaign_id=campaign, name="Royal Navy").id
    kms = campaigns.create_side(factory, campaign_id=campaign, name="Kriegsmarine").id
    force = fleet.create_squadron(factory, side_id=navy, name="Force H")
    ship = fleet.create_ship(factory, squadron_id=force, fields=ShipFields(name="Hood"))
    mines.save_counter(factory, ship_id=ship, counter_size="long", speed_rating=3)
    boundary = mines.add_boundary(factory, campaign_id=campaign, area_a="North Sea",
                                  area_b="Skagerrak")  # fmt: skip
    field = mines.sow_minefield(factory, side_id=kms, laid_by="surface", boundary_id=boundary,
                                complete=True)  # fmt: skip
    check = mines.start_check(factory, minefield_id=field, ship_ids=[ship], speed=3,
                              minefields=4, seed=1)  # fmt: skip
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.push_screen(MineCheckScreen(campaign, check))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MineCheckScreen) and screen.view is not None
        heading = str(screen.query_one("#check-heading", Static).render())
        assert "modifier +7 (+4 minefields, +3 speed)" in heading
        assert screen.view.draws[0].drm == 7
