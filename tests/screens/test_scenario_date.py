"""A new campaign's scenario has no date until the player types one: its form shows none (not
the sample's 13 Dec 1939, greyed as if given), and saved blank it stays without one."""

from __future__ import annotations

import random
import re
from pathlib import Path

from campaign_files import fill_form, migrated_engine, press_to
from textual.widgets import Input

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.form import FormScreen
from tracker.services import campaigns, demo


async def test_a_new_campaigns_scenario_has_no_date_until_one_is_typed(tmp_path: Path) -> None:
    factory = session_factory(migrated_engine(tmp_path / "campaign.db"))
    demo.create_sample_campaign(factory)  # the sample keeps its own date
    campaign_id = campaigns.create_campaign(factory, name="Norway 1940").id
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        form = await press_to(pilot, "p", screen=FormScreen)
        date = form.query_one("#field-date", Input)
        # Nothing in the field, and nothing shown in it that reads as a date.
        assert date.value == ""
        assert not re.search(r"\d", date.placeholder), date.placeholder
        await fill_form(pilot, {"title": "Narvik"})
        assert isinstance(app.screen, CampaignScreen)
    (scenario,) = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios
    assert (scenario.title, scenario.date) == ("Narvik", "")
    sample = next(c for c in campaigns.list_campaigns(factory) if c.name == demo.SAMPLE_NAME)
    assert campaigns.get_overview(factory, campaign_id=sample.id).scenarios[0].date == (
        "13 Dec 1939")  # fmt: skip
