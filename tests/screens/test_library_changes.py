"""A later change to the library, brought to chosen units in the app (L on the roster): the
dialog lists what differs, only the ticked unit changes, and ctrl+z undoes it."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import open_or_create, press_to
from textual.widgets import SelectionList, Static

from tracker.app import TrackerApp
from tracker.db import SessionFactory
from tracker.screens.library_changes import LibraryChangesScreen
from tracker.screens.roster import RosterScreen
from tracker.services import building, campaigns, library, roster

CARD = b"name,nation,unit_type,points,hull_points,attack_main\n" + (
    b"Hipper,Germany,cruiser,30,4,5 4 - -\n"
)


def _fleet_from_cards(factory: SessionFactory) -> int:
    campaign_id = campaigns.create_campaign(factory, name="Rheinuebung").id
    side_id = campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine").id
    library.import_library(factory, raw=CARD)
    (card,) = library.cards(factory)
    building.add_units(factory, side_id=side_id, picks=[(card.id, ""), (card.id, "Hipper (2)")])
    library.import_library(factory, raw=CARD.replace(b",30,4,", b",35,5,"))
    return campaign_id


async def test_the_ticked_unit_is_brought_up_to_its_card_and_undone(tmp_path: Path) -> None:
    factory, campaign_id = open_or_create(tmp_path / "campaign.db", _fleet_from_cards)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = await press_to(pilot, "f", screen=RosterScreen)
        dialog = await press_to(pilot, "L", screen=LibraryChangesScreen)
        prompts = [str(option.prompt) for option in dialog.query_one(SelectionList)._options]
        assert prompts == [
            f"{name}: Points 30 -> 35; Hull points 4 -> 5" for name in ("Hipper", "Hipper (2)")
        ]
        await pilot.press("down")
        detail = str(dialog.query_one("#changes-detail", Static).render())
        assert (
            detail
            == "Hipper (2), of the card Hipper (Germany):\nPoints 30 -> 35\nHull points 4 -> 5"
        )
        await pilot.press("space", "ctrl+s")
        assert app.screen is screen
        side_id = screen.side_id
        units = roster.roster(factory, side_id=side_id).units
        assert [(u.name, u.points, u.hull_points) for u in units] == [
            ("Hipper", 30, 4), ("Hipper (2)", 35, 5),
        ]  # fmt: skip
        await pilot.press("ctrl+z")
        await pilot.pause()
    assert [u.points for u in roster.roster(factory, side_id=side_id).units] == [30, 30]
