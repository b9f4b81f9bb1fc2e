"""Names made of markup and escapes, typed into every field a player names things with, are
shown as typed on every screen, in toasts, in the help and in the palette; nothing crashes.

Textual reads a str as markup in a DataTable cell, a toast, a Static, a border title, a Select
or SelectionList prompt: a ship named `Crash[/]` ended the app, a speed of `[u]` showed empty.
"""

from __future__ import annotations

import io
import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to
from depth import examples
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from textual.command import CommandPalette
from textual.widgets import DataTable, Input
from textual.widgets._toast import Toast

from tracker.app import TrackerApp
from tracker.db import SessionFactory, make_engine, migrate, session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.form import FormScreen
from tracker.screens.help import HelpScreen
from tracker.screens.journal import JournalScreen
from tracker.screens.ledger import LedgerScreen
from tracker.screens.participants import ParticipantsScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.repairs import RepairsScreen
from tracker.screens.roster import RosterScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.screens.ship_detail import ShipDetailScreen
from tracker.screens.welcome import WelcomeScreen
from tracker.services import campaigns, command, damage, fleet, markers, mines, roster, scenarios
from tracker.services.fleet import ShipFields

# Markup a name might hold by accident or on purpose, escapes, plain letters, and the first
# characters of a spreadsheet's formula (=, +, -, @: shown as typed, never run).
PIECES = ["[", "]", "[/]", "[b]", "[u]", "[@click=q]", "\\[", "\\", "[red]", "[[", "]]",
          "[/b]", "[link=x]", "&", "<i>", "Ex", "a", "7", ":", "%s", "{0}", "=", "+", "-",
          "@"]  # fmt: skip
MARKUP = ("[", "\\")
# A unit's speed (at most 4 characters), one the name does not hold, so it is looked for alone.
SPEEDS = ("[u]", "[b]", "[/]", "[i]")
# Names that together hold every piece above, escapes included, each walked on every screen.
EVERY_PIECE = ("=\\[b]Ex[/b]&", "[@click=q]7:", "+[[red]]]{0}", "-<i>[link=x]", "@%s[u]a[/]")
# Each example is a walk over every screen (about 12 s of CPU). The names above put every piece on
# every screen; the generated ones add combinations of them. 10 generated names once left six
# pieces (both escapes among them) out; TRACKER_MARKUP_EXAMPLES=100 for a long run. Otherwise two,
# times the run's depth (tests/depth.py).
MAX_EXAMPLES = int(os.environ.get("TRACKER_MARKUP_EXAMPLES", "0")) or examples(2)


@st.composite
def names(draw: st.DrawFn) -> str:
    """A name of 2 to 12 characters holding markup or an escape, no space at either end."""
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4))
    name = "".join(pieces)[:12]
    if not any(mark in name for mark in MARKUP):
        name = ("[" + name)[:12]
    return name if len(name) > 1 else name + "x"


def test_the_named_examples_hold_every_piece_and_are_names_a_player_could_type() -> None:
    assert [piece for piece in PIECES if not any(piece in name for name in EVERY_PIECE)] == []
    for name in EVERY_PIECE:
        assert 1 < len(name) <= 12 and name == name.strip(), name
        assert any(mark in name for mark in MARKUP), name


def speed_of(name: str) -> str:
    return next(speed for speed in SPEEDS if speed not in name)


def build(factory: SessionFactory, name: str) -> None:
    """One campaign whose every name, note and effect is `name`, through the services."""
    campaign = campaigns.create_campaign(factory, name=name, notes=name)
    scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title=name, date=name)
    side = campaigns.create_side(factory, campaign_id=campaign.id, name=name, nation=name)
    squadron = fleet.create_squadron(factory, side_id=side.id, name=name, notes=name)
    fields = ShipFields(name=name, class_name=name, structure_max=9, flotation_max=9, notes=name)
    ship = fleet.create_ship(factory, squadron_id=squadron, fields=fields)
    command.set_commander(
        factory, squadron_id=squadron, name=name, training=4, acquisition="direct"
    )
    unit = roster.save_unit(factory, side_id=side.id, fields=roster.UnitFields(
        name=name, unit_type="submarine", points=10, speed=speed_of(name), abilities=name,
        notes=name))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=[name[:12], name[:11] + "2"])
    boundary = mines.add_boundary(factory, campaign_id=campaign.id, area_a=name, area_b="B")
    mines.sow_minefield(factory, side_id=side.id, laid_by="surface", boundary_id=boundary,
                        complete=True, notes=name, layer_name=name)  # fmt: skip
    scenarios.set_participants(factory, scenario_id=scenario.id, ship_ids=[ship])
    scenarios.start_scenario(factory, scenario_id=scenario.id)
    damage.record_hit(factory, request=damage.HitRequest(
        ship_id=ship, structure=1, criticals=(damage.CriticalRequest(effect=name),)))  # fmt: skip


def screen_text(app: TrackerApp) -> str:
    """What the terminal shows now, as plain text (export_screenshot's render, as text)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False)  # fmt: skip
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))  # fmt: skip
    return console.export_text(styles=False)


class Walk:
    """The player's keys, each leading to a screen on which the name must show as typed."""

    def __init__(self, pilot: Any, name: str) -> None:
        self.pilot = pilot
        self.app: TrackerApp = pilot.app
        self.name = name

    async def to(self, *keys: str, screen: type[Any], shows: int = 1) -> Any:
        current = await press_to(self.pilot, *keys, screen=screen)
        await self.pilot.pause()
        self.shows(shows)
        return current

    def shows(self, times: int = 1) -> None:
        text = screen_text(self.app)
        where = type(self.app.screen).__name__
        assert text.count(self.name) >= times, f"{where} shows {self.name!r} {times}x:\n{text}"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("markup") / "campaign.db"
    engine = make_engine(str(path))
    migrate(engine)
    engine.dispose()
    return path


async def walk_every_screen(app: TrackerApp, name: str) -> None:
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        walk = Walk(pilot, name)
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        walk.shows()
        # Heading, notes, the side (its nation too), the squadron, the scenario and its date.
        campaign = await walk.to("enter", screen=CampaignScreen, shows=7)
        # Heading (squadron, side), the ship and its class, the commander.
        await walk.to("enter", screen=RecordSheetScreen, shows=4)
        await pilot.press("F")  # no fire marker to remove: a toast names the ship
        await pilot.pause()
        toasts = [toast.render().plain for toast in app.screen.query(Toast)]
        assert f"{name} has no fire markers to remove." in toasts, (toasts, screen_text(app))
        await walk.to("question_mark", screen=HelpScreen, shows=0)
        await walk.to("escape", screen=RecordSheetScreen)
        form = await walk.to("s", screen=FormScreen)  # the squadron's name in the form
        assert form.query_one("#field-name", Input).value == name
        await walk.to("escape", screen=RecordSheetScreen)
        await walk.to("t", screen=RecordSheetScreen)  # no other squadron: a toast says so
        # The ship's name (title) and the critical's effect.
        await walk.to("enter", screen=ShipDetailScreen, shows=2)
        await walk.to("j", screen=JournalScreen)  # the hit names the ship
        await walk.to("escape", screen=ShipDetailScreen)
        await walk.to("escape", screen=RecordSheetScreen)
        entry = await walk.to("d", screen=DamageEntryScreen)
        entry.query_one("#shorthand", Input).value = f"{name} s1"
        await pilot.pause()  # the edit starts the preview's read of the ships: the next waits
        await pilot.pause()
        walk.shows(3)  # typed, found in the list of ships, and previewed
        await walk.to("escape", screen=ConfirmScreen, shows=0)  # leave the line unrecorded?
        await walk.to("y", screen=RecordSheetScreen)
        await walk.to("escape", screen=CampaignScreen)
        # The unit, its speed and abilities, the marker's sector: in the owner's view too.
        fleet_screen = await walk.to("f", screen=RosterScreen)
        assert speed_of(name) in screen_text(app)  # `[u]` once showed empty
        fleet_screen.action_toggle_view()
        await pilot.pause()
        walk.shows(2)
        await walk.to("escape", screen=CampaignScreen)
        ledger = await walk.to("m", screen=LedgerScreen, shows=1)  # the boundary's sea area
        ledger.query_one("#minefield-table", DataTable).move_cursor(row=0)
        await pilot.pause()
        walk.shows(2)  # the notes and the layer, in the minefield's detail
        await walk.to("escape", screen=CampaignScreen)
        await walk.to("r", screen=RepairsScreen)
        await walk.to("escape", screen=CampaignScreen)
        campaign.query_one("#scenario-table", DataTable).focus()
        scenario = await walk.to("enter", screen=ScenarioScreen, shows=2)
        # Ships are chosen before the scenario begins: the dialog, as it would open then.
        app.push_screen(ParticipantsScreen(f"Ships taking part in {name}", [(name, 1, True)]))
        await walk.to(screen=ParticipantsScreen, shows=2)
        await walk.to("escape", screen=ScenarioScreen)
        assert scenario.title == name
        await walk.to("ctrl+p", screen=CommandPalette, shows=0)
        await pilot.press(*name)  # the search text is shown as typed
        await pilot.pause()
        walk.shows()
        await press_to(pilot, "escape", screen=ScenarioScreen)
        await pilot.press("escape", "escape")
        await pilot.pause()
        await pilot.press("q")


@pytest.mark.slow
@settings(
    max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
    phases=[Phase.explicit, Phase.generate],  # one app run per example: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
@given(name=names())
@example(name=EVERY_PIECE[0])
@example(name=EVERY_PIECE[1])
@example(name=EVERY_PIECE[2])
@example(name=EVERY_PIECE[3])
@example(name=EVERY_PIECE[4])
def test_names_of_markup_show_as_typed_on_every_screen(
    name: str, template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import asyncio

    path = tmp_path_factory.mktemp("example") / "campaign.db"
    shutil.copyfile(template, path)
    engine = make_engine(str(path))
    factory = session_factory(engine)
    build(factory, name)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=None)
    try:
        asyncio.run(walk_every_screen(app, name))
    finally:
        engine.dispose()
