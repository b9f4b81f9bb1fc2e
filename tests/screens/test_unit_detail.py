"""Enter on a roster's unit opens it whole: its fields, its dice in the card's order, and each
ability with its text read from the library card it was built from (markup in it shown as
typed); an ability the card does not have shows its name alone."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import open_or_create, press_to
from library_app import FULL_CARD
from textual.widgets import Static

from tracker.app import TrackerApp
from tracker.db import SessionFactory
from tracker.screens.card_detail import CardDetailScreen
from tracker.screens.help import HelpScreen
from tracker.screens.roster import RosterScreen
from tracker.services import building, campaigns, library, roster


def _campaign(factory: SessionFactory) -> int:
    """A side holding a unit of the full card, and one of the same name it has given an
    ability of its own, the second unit after a filler unit of no card."""
    campaign_id = campaigns.create_campaign(factory, name="North Sea 1940").id
    side = campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine").id
    library.import_library(factory, raw=FULL_CARD.encode())
    (card,) = library.cards(factory)
    building.add_units(factory, side_id=side, picks=[(card.id, "")])
    (unit,) = roster.roster(factory, side_id=side).units
    fields = {"name": unit.name, "nation": unit.nation, "unit_type": "cruiser",
              "points": str(unit.points), "hull_points": str(unit.hull_points),
              "abilities": "Radar; Flagship; Night [i]Fighter[/i]", "attack_main": "6 5 4 -",
              "version": unit.version}  # fmt: skip
    roster.save_unit(factory, side_id=side, unit_id=unit.id,
                     fields=roster.unit_fields_from(fields))  # fmt: skip
    return campaign_id


async def test_enter_opens_a_unit_with_its_abilities_worded_as_its_card_words_them(
    tmp_path: Path,
) -> None:
    factory, campaign_id = open_or_create(tmp_path / "campaign.db", _campaign)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await press_to(pilot, "f", screen=RosterScreen)
        detail = await press_to(pilot, "enter", screen=CardDetailScreen)
        assert detail.title == "Unit: Kreuzer [b]K[/b] (Germany)"
        abilities = str(detail.query_one("#card-abilities", Static).render())
        assert abilities == (
            "Radar\n  reroll one miss\n  at night as well\nFlagship\n  +1\nNight [i]Fighter[/i]"
        )
        attacks = str(detail.query_one("#card-attacks", Static).render())
        assert attacks.splitlines()[1].split()[-4:] == ["6", "5", "4", "-"]
        fields = str(detail.query_one("#card-fields Static", Static).render())
        assert "Kreuzer [b]K[/b]" in fields and "Hull damage taken" in fields
        roster_screen = await press_to(pilot, "escape", screen=RosterScreen)
        help_screen = await press_to(pilot, "question_mark", screen=HelpScreen)
        assert dict(help_screen.keys)["enter"].startswith("Open the unit under the cursor")
        assert roster_screen is not None
