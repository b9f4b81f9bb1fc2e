"""The fleet roster as a player uses it: a fleet, markers, two turns of moves, the hunt, a decoy."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from campaign_files import fill_form, open_or_create, press_to
from textual.widgets import DataTable

from tracker.app import TrackerApp
from tracker.db import SessionFactory
from tracker.screens.form import FormScreen
from tracker.screens.roster import RosterScreen
from tracker.services import campaigns, markers, roster, sealing

UNITS: list[dict[str, Any]] = [
    {"name": "U-66", "unit_type": "submarine", "points": "12", "hull_points": "2",
     "attack_torpedo": "3 3 2 -", "abilities": "Elusive Quarry; Wolfpack", "extra_decoys": "1"},
    {"name": "U-552", "unit_type": "submarine", "points": "13", "attack_torpedo": "3 2 2 -"},
    {"name": "Bismarck", "unit_type": "battleship", "points": "70", "hull_points": "6",
     "attack_main": "8 8 7 6"},
]  # fmt: skip


def _atlantic(factory: SessionFactory) -> int:
    campaign_id = campaigns.create_campaign(factory, name="Atlantic 1942").id
    campaigns.create_side(factory, campaign_id=campaign_id, name="Kriegsmarine")
    return campaign_id


def open_app(path: Path) -> tuple[TrackerApp, int]:
    factory, campaign_id = open_or_create(path, _atlantic)
    return TrackerApp(factory, rng=random.Random(8), open_campaign_id=campaign_id), campaign_id


async def test_a_fleet_with_decoys_two_turns_the_hunt_and_a_revealed_decoy(
    tmp_path: Path,
) -> None:
    path = tmp_path / "campaign.db"
    app, _ = open_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f")  # the roster of the side under the cursor
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RosterScreen)
        for unit in UNITS:
            await pilot.press("a")
            await pilot.pause()
            await fill_form(pilot, unit)
            assert isinstance(app.screen, RosterScreen), "the unit form should have closed"
        assert screen.view is not None and screen.view.points == 100  # 12 + 5 + 13 + 70
        await pilot.press("m")  # U-66 is the first unit: three markers, the second real
        await pilot.pause()
        await fill_form(pilot, {"real": "2", "sector_1": "C4", "sector_2": "D4", "sector_3": "C3"})
        await pilot.press("down", "m")  # U-552: two markers, the first real
        await pilot.pause()
        await fill_form(pilot, {"real": "1", "sector_1": "F7", "sector_2": "G7"})
        assert sorted(m.sector for m in screen.view.markers) == ["C3", "C4", "D4", "F7", "G7"]
        await pilot.press("q")

    app, _ = open_app(path)  # restart: two turns of moves
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RosterScreen)
        marker_table = screen.query_one("#marker-table", DataTable)
        marker_table.focus()
        start = {m.code: m.sector for m in screen.view.markers}
        codes = sorted(start, key=start.__getitem__)  # C3, C4, D4, F7, G7
        for turn in (1, 2):
            for code in codes[:3]:
                marker_table.move_cursor(row=[m.code for m in screen.view.markers].index(code))
                await pilot.press("g")
                await pilot.pause()
                await fill_form(pilot, {"sector": f"{start[code][0]}{int(start[code][1]) + turn}"})
                assert screen.view.markers[marker_table.cursor_row].code == code  # stays on its row
        moved = {m.code: m.sector for m in screen.view.markers}
        assert [moved[code] for code in codes[:3]] == ["C5", "C6", "D6"]
        rendered = app.export_screenshot()
    assert "decoy" not in rendered  # the opponent view names nothing
    side = roster.roster(app.factory, side_id=1, owner=True)
    real = {m.sector: m.real for m in side.markers}
    assert real == {"C5": False, "C6": False, "D6": True, "F7": True, "G7": False}


async def test_the_opponent_view_never_shows_which_marker_is_real(tmp_path: Path) -> None:
    app, campaign_id = open_app(tmp_path / "campaign.db")
    side = campaigns.get_overview(app.factory, campaign_id=campaign_id).sides[0].id
    sub = roster.save_unit(app.factory, side_id=side, fields=roster.UnitFields(
        name="U-47", unit_type="submarine", points=10, extra_decoys=2))  # fmt: skip
    markers.assign_markers(app.factory, unit_id=sub, real=3, sectors=["A1", "A2", "A3", "A4"])
    sealing.set_passphrase(app.factory, side_id=side, passphrase="scapa-flow")

    def shown() -> str:
        text = app.export_screenshot()
        return text.replace("&#160;", " ")

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        opponent = shown()
        assert "A3" in opponent and "REAL" not in opponent and "decoy" not in opponent
        await pilot.press("v")  # asks for the passphrase
        await pilot.pause()
        await fill_form(pilot, {"passphrase": "wrong-one"})
        assert isinstance(app.screen, FormScreen)  # refused, the form stays
        await pilot.press("escape", "y")  # what was typed is discarded once the player says so
        await pilot.pause()
        assert "REAL" not in shown()
        await pilot.press("v")
        await pilot.pause()
        await fill_form(pilot, {"passphrase": "scapa-flow"})
        owner = shown()
        assert "U-47: REAL" in owner and "U-47: decoy" in owner  # the check can see a secret
        await pilot.press("v")  # hidden again
        await pilot.pause()
        assert "REAL" not in shown()


async def test_a_unit_card_is_copied_under_a_new_name(tmp_path: Path) -> None:
    app, campaign_id = open_app(tmp_path / "campaign.db")
    side = campaigns.get_overview(app.factory, campaign_id=campaign_id).sides[0].id
    card = roster.UnitFields(
        name="Z 20 Karl Galster", unit_type="destroyer", points=8, armor=2, vital_armor=7,
        hull_points=2, attacks={"asw": [4, None, None, None]}, abilities="Close Escort",
    )  # fmt: skip
    roster.save_unit(app.factory, side_id=side, fields=card)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        await fill_form(pilot, {"name": "Z 21 Wilhelm Heidkamp"})
    units = roster.roster(app.factory, side_id=side).units
    assert [(u.name, u.points, u.attacks, u.abilities) for u in units] == [
        ("Z 20 Karl Galster", 8, {"asw": [4, None, None, None]}, ("Close Escort",)),
        ("Z 21 Wilhelm Heidkamp", 8, {"asw": [4, None, None, None]}, ("Close Escort",)),
    ]


async def test_a_new_passphrase_is_typed_twice(tmp_path: Path) -> None:
    app, _ = open_app(tmp_path / "campaign.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = await press_to(pilot, "f", screen=RosterScreen)
        await press_to(pilot, "P", screen=FormScreen)
        await fill_form(pilot, {"passphrase": "scapa-flow", "again": "scapa-flwo"})
        form = app.screen
        assert isinstance(form, FormScreen)  # refused: a typo would lock the notes away
        assert "differ" in str(form.query_one("#error-again").render())
        assert screen.view is not None and not screen.view.encrypted
        await fill_form(pilot, {"passphrase": "scapa-flow", "again": "scapa-flow"})
        assert app.screen is screen and screen.view is not None and screen.view.encrypted
        await pilot.press("q")
