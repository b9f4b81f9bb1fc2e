"""The roster's units searched and sorted: keys act on the unit under the cursor whatever the
filter and sort, and the cursor stays on its unit after an edit or another player's change."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import fill_form, migrated_engine

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.form import FormScreen
from tracker.screens.roster import RosterScreen
from tracker.services import campaigns, roster
from tracker.widgets.search_table import SearchTable

# Illustrative cards: what tells them apart here is their names and points.
UNITS = [("U-66", "submarine", 12), ("Bismarck", "battleship", 50), ("U-552", "submarine", 13),
         ("Z 20 Karl Galster", "destroyer", 8)]  # fmt: skip


def _fleet(path: Path) -> tuple[TrackerApp, int]:
    factory = session_factory(migrated_engine(path))
    campaign_id = campaigns.create_campaign(factory, name="Atlantic 1942").id
    side_id = campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine").id
    for name, kind, points in UNITS:
        roster.save_unit(factory, side_id=side_id, fields={
            "name": name, "unit_type": kind, "nation": "Germany", "points": points, "speed": "2",
            "armor": 3, "vital_armor": 5, "hull_points": 2})  # fmt: skip
    return TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id), side_id


async def test_an_edit_on_a_filtered_sorted_roster_changes_the_unit_under_the_cursor(
    tmp_path: Path,
) -> None:
    app, side_id = _fleet(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f")
        screen = app.screen
        assert isinstance(screen, RosterScreen)
        units = screen.query_one("#unit-table", SearchTable)
        await pilot.press("slash", *"GALST", "enter")
        galster = [str(u.id) for u in screen.view.units if u.name == "Z 20 Karl Galster"]
        assert units.shown_keys == galster
        assert str(units.border_title) == "Units · 1 of 4"
        await pilot.press("e")
        assert isinstance(app.screen, FormScreen)
        await fill_form(pilot, {"points": "9"})
        assert isinstance(app.screen, RosterScreen)
        edited = {u.name: u.points for u in roster.roster(app.factory, side_id=side_id).units}
        assert edited == {"U-66": 12, "Bismarck": 50, "U-552": 13, "Z 20 Karl Galster": 9}
        # Sorted by points, highest first: the cursor stays on the destroyer.
        await pilot.press("slash", "escape", "right", "right", "o", "o")
        names = {str(u.id): u.name for u in screen.view.units}
        assert [names[key] for key in units.shown_keys] == [
            "Bismarck", "U-552", "U-66", "Z 20 Karl Galster"]  # fmt: skip
        assert names[units.selected_key() or ""] == "Z 20 Karl Galster"
        # Another player adds a unit: the reload keeps the sort and the cursor on its unit.
        roster.save_unit(app.factory, side_id=side_id, fields={
            "name": "Tirpitz", "unit_type": "battleship", "nation": "Germany", "points": 0,
            "speed": "2", "armor": 3, "vital_armor": 5, "hull_points": 2})  # fmt: skip
        screen.reload()
        await pilot.pause()
        names = {str(u.id): u.name for u in screen.view.units}
        assert [names[key] for key in units.shown_keys][-1] == "Tirpitz"
        assert names[units.selected_key() or ""] == "Z 20 Karl Galster"
        await pilot.press("up", "x", "y")  # delete the unit shown above it
        left = [u.name for u in roster.roster(app.factory, side_id=side_id).units]
        assert "U-66" not in left and len(left) == 4


async def test_the_filter_finds_a_unit_by_its_nation_and_year_though_no_column_shows_them(
    tmp_path: Path,
) -> None:
    factory = session_factory(migrated_engine(tmp_path / "campaign.db"))
    campaign_id = campaigns.create_campaign(factory, name="Mediterranean").id
    side_id = campaigns.create_side(factory, campaign_id=campaign_id, name="Axis").id
    fleet = [("Zara", "Italy", 1931), ("Littorio", "Italy", 1940), ("Z 20", "Germany", 1939)]
    for name, nation, year in fleet:
        roster.save_unit(factory, side_id=side_id, fields={
            "name": name, "unit_type": "cruiser", "nation": nation, "year": year, "points": 5,
            "speed": "2", "armor": 3, "vital_armor": 5, "hull_points": 2})  # fmt: skip
    app = TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f")
        screen = app.screen
        assert isinstance(screen, RosterScreen)
        units = screen.query_one("#unit-table", SearchTable)
        names = {str(u.id): u.name for u in screen.view.units}
        for typed, found in (
            ("ITALY", ["Zara", "Littorio"]),
            ("1939", ["Z 20"]),
            ("194", ["Littorio"]),
        ):
            await pilot.press("slash", *typed, "enter")
            assert sorted(names[key] for key in units.shown_keys) == sorted(found), typed
            await pilot.press("slash", "escape")
        assert len(units.shown_keys) == 3
