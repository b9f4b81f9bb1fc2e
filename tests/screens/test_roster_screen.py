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
from tracker.services import campaigns, roster

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
        await fill_form(pilot, {"real": "2", "sector": "C4"})
        await pilot.press("down", "m")  # U-552: two markers, the first real
        await pilot.pause()
        await fill_form(pilot, {"real": "1", "sector": "F7"})
        assert [m.code for m in screen.view.markers] == ["M-01", "M-02", "M-03", "M-04", "M-05"]
        await pilot.press("q")

    app, _ = open_app(path)  # restart: turn 1 moves
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RosterScreen)
        markers = screen.query_one("#marker-table", DataTable)
        markers.focus()
        for sectors in (("C5", "D4", "C3"), ("C6", "D5", "B3")):  # turns 1 and 2
            for row, sector in enumerate(sectors):
                markers.move_cursor(row=row)
                await pilot.press("g")
                await pilot.pause()
                await fill_form(pilot, {"sector": sector})
        assert [m.sector for m in screen.view.markers[:3]] == ["C6", "D5", "B3"]
        # The hunt in B3: a patrol bomber and a destroyer against an Elusive Quarry sub.
        await pilot.press("s")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FormScreen)
        await fill_form(pilot, {"searcher": "patrol_bomber", "extra_asw_units": "1",
                                "elusive_quarry": True, "roll": "5"})  # fmt: skip
        assert isinstance(app.screen, RosterScreen)
        markers.move_cursor(row=2)  # M-03, a decoy
        await pilot.press("t")
        await pilot.pause()
        await fill_form(pilot, {"success": True})
        states = {m.code: m.state for m in screen.view.markers}
        assert states["M-03"] == "removed" and states["M-02"] == "concealed"
        rendered = app.export_screenshot()
    assert "decoy" not in rendered.replace("was a decoy", "")  # the opponent view names nothing
    side = roster.roster(app.factory, side_id=1, owner=True)
    assert [m.real for m in side.markers] == [False, True, False, True, False]


async def test_the_opponent_view_never_shows_which_marker_is_real(tmp_path: Path) -> None:
    app, campaign_id = open_app(tmp_path / "campaign.db")
    side = campaigns.get_overview(app.factory, campaign_id=campaign_id).sides[0].id
    sub = roster.save_unit(app.factory, side_id=side, fields=roster.UnitFields(
        name="U-47", unit_type="submarine", points=10, extra_decoys=2))  # fmt: skip
    roster.assign_markers(app.factory, unit_id=sub, real=3, sector="A1")
    roster.set_passphrase(app.factory, side_id=side, passphrase="scapa-flow")

    def shown() -> str:
        text = app.export_screenshot()
        return text.replace("&#160;", " ")

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        opponent = shown()
        assert "M-03" in opponent and "REAL" not in opponent and "decoy" not in opponent
        await pilot.press("v")  # asks for the passphrase
        await pilot.pause()
        await fill_form(pilot, {"passphrase": "wrong-one"})
        assert isinstance(app.screen, FormScreen)  # refused, the form stays
        await pilot.press("escape")
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
