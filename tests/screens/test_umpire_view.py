"""The umpire's read-only view (tracker --umpire) as a public screen: every screen looked at, every
key that would write or show a secret pressed, and afterwards the campaign file and its rows are as
they were, no secret was on the screen, and no footer offered a key that does nothing there."""

from __future__ import annotations

import hashlib
import html
import importlib
import pkgutil
import random
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from campaign_files import (
    PASSPHRASE,
    full_sample_campaign,
    migrated_engine,
    press_to,
    run_sql,
    sidecars,
)
from textual import actions
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input

import tracker.screens
from tracker.app import UMPIRE_LABEL, TrackerApp
from tracker.db import make_engine, session_factory
from tracker.screens.base import TrackerScreen
from tracker.screens.campaign import CampaignScreen
from tracker.screens.critical_tables import CriticalTablesScreen
from tracker.screens.form import FormScreen
from tracker.screens.help import HelpScreen
from tracker.screens.journal import JournalScreen
from tracker.screens.ledger import LedgerScreen
from tracker.screens.mine_check import MineCheckScreen
from tracker.screens.mine_table import MineTableScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.repairs import RepairsScreen
from tracker.screens.roster import RosterScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.screens.ship_detail import ShipDetailScreen
from tracker.screens.ship_history import ShipHistoryScreen
from tracker.screens.welcome import WelcomeScreen
from tracker.services import campaigns, mines, roster

# What only a side's owner may see: secret minefields' places, minelayers and notes (one side
# with a passphrase, one without), which submarine marker is the real one, and the passphrase.
SECRETS = ("off Lobos", "Teviot Bank", "Punta del Este", "Tacoma", "REAL", ": decoy", PASSPHRASE)
# The app's own keys a footer may show besides the screen's, and a search table's (they look).
APP_ACTIONS = frozenset({"quit", "help", "command_palette", "filter", "sort"})
S = TypeVar("S", bound=Screen[Any])


@dataclass(frozen=True)
class Campaign:
    path: Path
    campaign_id: int
    other_side_id: int  # the side without a passphrase: its secrets need none to be shown
    running_check: int


def _campaign_file(tmp_path: Path) -> Campaign:
    """The sample with rows in every table, a passphrase on the first side, secret minefields
    on both sides, and a mine check in progress; its WAL folded back into the file."""
    path = tmp_path / "campaign.db"
    engine = migrated_engine(path)
    factory = session_factory(engine)
    filled = full_sample_campaign(factory)
    other = campaigns.get_overview(factory, campaign_id=filled.campaign_id).sides[1].id
    ledger = mines.ledger(factory, campaign_id=filled.campaign_id)
    public = next(f.id for f in ledger.minefields if not f.secret)
    mines.sow_minefield(
        factory, side_id=other, laid_by="surface", boundary_id=ledger.boundaries[0].id,
        complete=True, secret=True, notes="Punta del Este", layer_name="Tacoma",
    )  # fmt: skip
    exeter = next(s.ship_id for s in mines.counter_ships(factory, campaign_id=filled.campaign_id)
                  if s.name == "Exeter")  # fmt: skip
    mines.save_counter(factory, ship_id=exeter, counter_size="small", speed_rating=2)
    check = mines.start_check(
        factory, minefield_id=public, ship_ids=[filled.ship_id, exeter], speed=2, seed=3
    )
    engine.dispose()
    run_sql(path, "PRAGMA wal_checkpoint(TRUNCATE)")
    assert sidecars(path) == []
    return Campaign(path, filled.campaign_id, other, check)


def _state(path: Path) -> tuple[str, list[str]]:
    """The file's bytes (as a digest) and a whole-database dump, read apart from tracker."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return digest, list(conn.iterdump())
    finally:
        conn.close()


def _umpire_app(path: Path) -> tuple[TrackerApp, Any]:
    engine = make_engine(str(path), read_only=True)
    return TrackerApp(session_factory(engine), rng=random.Random(4), read_only=True), engine


@dataclass
class Calls:
    """The secret-reading services' calls, with the arguments they were given."""

    made: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def spy(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.made.append((name, kwargs))
            return real(*args, **kwargs)

        return call


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    spied = Calls()
    monkeypatch.setattr(roster, "roster", spied.spy("roster", roster.roster))
    monkeypatch.setattr(mines, "ledger", spied.spy("ledger", mines.ledger))
    yield spied


def _name(action: str) -> tuple[str, str]:
    namespace, name, _ = actions.parse(action)
    return namespace, name


def _writing_bindings(screen: TrackerScreen) -> list[Binding]:
    """The screen's own bindings the umpire's view leaves out now."""
    return [
        binding
        for binding in screen.BINDINGS
        if isinstance(binding, Binding) and not screen.allows(binding.action)
    ]


class Walk:
    """A player at the umpire's screen: every screen looked at is kept to search for secrets."""

    def __init__(self, pilot: Any) -> None:
        self.pilot = pilot
        self.app: TrackerApp = pilot.app
        self.seen: list[str] = []

    def look(self) -> str:
        text = html.unescape(self.app.export_screenshot()).replace("\xa0", " ")
        self.seen.append(text)
        if isinstance(self.app.screen, TrackerScreen):
            assert UMPIRE_LABEL in text, f"{type(self.app.screen).__name__} lacks the label"
        return text

    async def to(self, *keys: str, screen: type[S]) -> S:
        current = await press_to(self.pilot, *keys, screen=screen)
        self.look()
        return current

    def footer(self) -> set[str]:
        return {_name(getattr(key, "action"))[1] for key in self.app.screen.query("FooterKey")}  # noqa: B009

    async def refused(self, screen: TrackerScreen, *more_keys: str) -> None:
        """Press each key the umpire's view leaves out, and `more_keys`: nothing opens, and the
        footer, the help screen and the palette offer none of them."""
        writing = _writing_bindings(screen)
        assert writing, f"{type(screen).__name__} has nothing to refuse?"
        left_out = {_name(binding.action)[1] for binding in writing}
        footer = self.footer()
        allowed = screen.READ_ONLY_ACTIONS | APP_ACTIONS | {"check"}
        assert footer, "no footer"
        assert footer <= allowed, footer - allowed
        assert not footer & left_out
        names = {binding.tooltip or binding.description for binding in writing}
        kept = {
            binding.tooltip or binding.description
            for binding in screen.BINDINGS
            if isinstance(binding, Binding) and binding not in writing
        }
        palette = {command.title for command in self.app.get_system_commands(screen)}
        assert not (palette & names) - kept
        assert not {"Undo", "Redo"} & palette
        for binding in writing:
            for key in binding.key.split(","):
                await self.pilot.press(key)
                await self.pilot.pause()
                assert self.app.screen is screen, f"{key} left {type(screen).__name__}"
                self.look()
        for key in ("ctrl+z", "ctrl+y", *more_keys):
            await self.pilot.press(key)
            await self.pilot.pause()
            assert self.app.screen is screen, f"{key} left {type(screen).__name__}"
        help_screen = await self.to("question_mark", screen=HelpScreen)
        listed = {description for _, description in help_screen.keys}
        assert not (listed & names) - kept
        assert "umpire" in self.look()
        assert "ctrl+z / ctrl+y" not in self.look()
        await self.to("escape", screen=type(screen))


@pytest.mark.slow
async def test_every_screen_of_the_umpire_view_writes_nothing_and_shows_no_secret(
    tmp_path: Path, calls: Calls
) -> None:
    made = _campaign_file(tmp_path)
    before = _state(made.path)
    app, engine = _umpire_app(made.path)
    printed = tmp_path / "force-g.html"
    async with app.run_test(size=(120, 40)) as pilot:
        walk = Walk(pilot)
        await pilot.pause()
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        assert "n new campaign" not in walk.look()
        await walk.refused(welcome)

        campaign = await walk.to("enter", screen=CampaignScreen)
        await walk.refused(campaign)

        sheet = await walk.to("enter", screen=RecordSheetScreen)
        await walk.refused(sheet)
        # Printing writes a file beside the database, never to it: the one form kept.
        form = await walk.to("P", screen=FormScreen)
        form.query_one("#field-path", Input).value = str(printed)
        await walk.to("ctrl+s", screen=RecordSheetScreen)
        assert printed.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

        ship = await walk.to("enter", screen=ShipDetailScreen)
        await walk.refused(ship)
        await walk.to("h", screen=ShipHistoryScreen)
        await walk.to("escape", screen=ShipDetailScreen)
        journal = await walk.to("j", screen=JournalScreen)
        await walk.refused(journal)
        await walk.to("escape", screen=ShipDetailScreen)
        await walk.to("escape", screen=RecordSheetScreen)
        await walk.to("escape", screen=CampaignScreen)

        for side in range(2):  # the side with a passphrase, then the side without
            while side and campaign._cursor_side_id() != made.other_side_id:
                await pilot.press("down")
                await pilot.pause()
            fleet = await walk.to("f", screen=RosterScreen)
            await walk.refused(fleet)
            fleet.action_toggle_view()  # even called past its disabled key, it refuses
            await pilot.pause()
            assert app.screen is fleet and fleet.view is not None and not fleet.view.owner_view
            walk.look()
            await walk.to("escape", screen=CampaignScreen)

        ledger = await walk.to("m", screen=LedgerScreen)
        await walk.refused(ledger)
        assert "check" in walk.footer()  # a mine check in progress may be watched
        ledger.action_toggle_view()
        await pilot.pause()
        assert app.screen is ledger and not ledger.owner
        assert ledger.view is not None
        assert all(f.hidden for f in ledger.view.minefields if f.secret)
        table = ledger.query_one("#minefield-table", DataTable)
        for row in range(len(ledger.view.minefields)):
            table.move_cursor(row=row)
            await pilot.pause()
            walk.look()
        check = await walk.to("m", screen=MineCheckScreen)
        assert check.check_id == made.running_check
        await walk.refused(check, "enter")
        await walk.to("t", screen=MineTableScreen)
        await walk.to("escape", screen=MineCheckScreen)
        await walk.to("escape", screen=LedgerScreen)
        mine_table = await walk.to("t", screen=MineTableScreen)
        await walk.refused(mine_table, "enter")
        await walk.to("escape", screen=LedgerScreen)
        journal = await walk.to("j", screen=JournalScreen)
        await walk.refused(journal)
        for word in ("Lobos", "Teviot", "Punta", "Tacoma"):  # not even found by a search
            journal.query_one("#journal-search", Input).value = word
            await pilot.pause()
            assert journal.entries == [], word  # (the search box shows the word typed)
        journal.query_one("#journal-search", Input).value = ""
        await pilot.pause()
        assert journal.entries
        await walk.to("escape", screen=LedgerScreen)
        await walk.to("escape", screen=CampaignScreen)

        repairs = await walk.to("r", screen=RepairsScreen)
        await walk.refused(repairs, "enter")
        await walk.to("h", screen=ShipHistoryScreen)
        await walk.to("escape", screen=RepairsScreen)
        await walk.to("escape", screen=CampaignScreen)
        tables = await walk.to("ctrl+t", screen=CriticalTablesScreen)
        await walk.refused(tables, "enter")
        await walk.to("escape", screen=CampaignScreen)
        campaign.query_one("#scenario-table", DataTable).focus()
        scenario = await walk.to("enter", screen=ScenarioScreen)
        await walk.refused(scenario)
        await walk.to("escape", screen=CampaignScreen)
        await walk.to("escape", screen=WelcomeScreen)
        await pilot.press("q")
    engine.dispose()

    assert _state(made.path) == before
    wal = made.path.parent / f"{made.path.name}-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # not a page written
    for text in walk.seen:
        for secret in SECRETS:
            assert secret not in text
    assert calls.made, "the spies saw no call"
    for name, kwargs in calls.made:
        assert not kwargs.get("owner") and not kwargs.get("owner_side_id"), (name, kwargs)
        assert not kwargs.get("passphrase"), (name, kwargs)


async def test_the_normal_view_keeps_its_keys(tmp_path: Path) -> None:
    """Outside the umpire's view nothing is left out: the same screens offer every key."""
    made = _campaign_file(tmp_path)
    engine = make_engine(str(made.path))
    app = TrackerApp(
        session_factory(engine), rng=random.Random(4), open_campaign_id=made.campaign_id
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for keys, kind in (((), CampaignScreen), (("f",), RosterScreen)):
            screen = await press_to(pilot, *keys, screen=kind)
            bindings = [b for b in screen.BINDINGS if isinstance(b, Binding)]
            assert bindings and all(screen.allows(binding.action) for binding in bindings)
            assert {"Undo", "Redo"} <= {c.title for c in app.get_system_commands(screen)}
        assert UMPIRE_LABEL not in html.unescape(app.export_screenshot()).replace("\xa0", " ")
        await pilot.press("q")
    engine.dispose()


def _every_tracker_screen() -> list[type[TrackerScreen]]:
    # Every screen module, whichever the run has imported so far: the same list in any order.
    for module in pkgutil.iter_modules(tracker.screens.__path__, "tracker.screens."):
        importlib.import_module(module.name)
    found: list[type[TrackerScreen]] = []
    todo: list[type[Screen[Any]]] = [TrackerScreen]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            # The tracker's own screens (a test's probe screen is no screen of the app).
            tracker_own = sub.__module__.startswith("tracker.")
            if "BINDINGS" in vars(sub) and issubclass(sub, TrackerScreen) and tracker_own:
                found.append(sub)
    return found


# What the umpire's view keeps, screen by screen: keeping one more is a decision to make here.
KEPT = {
    "WelcomeScreen": {"open"},
    # The reports are for everyone: only what is revealed (RULES.md §Secrets).
    "CampaignScreen": {
        "back",
        "repairs",
        "roster",
        "ledger",
        "journal",
        "tables",
        "report",
        "library",
        "sync",  # a packet of what the umpire sees, to a new file only; no merge
    },
    "LibraryScreen": {"back"},
    "CardDetailScreen": {"back"},
    "RecordSheetScreen": {"back", "journal", "print_sheet"},
    "ShipDetailScreen": {"back", "service_record", "history"},
    "ShipHistoryScreen": {"back"},
    "JournalScreen": {"back", "service_record", "search", "search_all", "clear_filters"},
    "ScenarioScreen": {"back", "report"},
    "ReportScreen": {"back"},
    "RepairsScreen": {"back", "history"},
    "RosterScreen": {"back"},
    "LedgerScreen": {"back", "table", "journal"},  # and m, only to watch a check in progress
    "MineCheckScreen": {"back", "table"},
    "MineTableScreen": {"back"},
    "CriticalTablesScreen": {"back"},
    "DamageEntryScreen": {"back", "tables", "newer_line"},  # not reachable from the others
}


def test_the_kept_actions_are_these() -> None:
    kept = {cls.__name__: set(cls.READ_ONLY_ACTIONS) for cls in _every_tracker_screen()}
    assert kept == KEPT


@pytest.mark.parametrize("screen", _every_tracker_screen(), ids=lambda cls: cls.__name__)
def test_each_kept_action_is_one_of_the_screens_own(screen: type[TrackerScreen]) -> None:
    """A typo in an allowlist would keep nothing and hide it: each name is a bound action."""
    bound = {_name(b.action)[1] for b in screen.BINDINGS if isinstance(b, Binding)}
    assert bound >= screen.READ_ONLY_ACTIONS, screen.READ_ONLY_ACTIONS - bound


async def test_a_file_without_campaigns_offers_none_to_make(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    migrated_engine(path).dispose()
    before = _state(path)
    app, engine = _umpire_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        text = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert "the umpire's view shows them once a player adds one" in text
        assert "Press n" not in text and "n new campaign" not in text
        for key in ("n", "s", "enter"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("q")
    engine.dispose()
    assert _state(path) == before


async def test_print_offers_the_file_beside_the_campaign(tmp_path: Path) -> None:
    made = _campaign_file(tmp_path)
    app, engine = _umpire_app(made.path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "enter", screen=CampaignScreen)
        await press_to(pilot, "enter", screen=RecordSheetScreen)
        form = await press_to(pilot, "P", screen=FormScreen)
        offered = form.query_one("#field-path", Input).value
        await pilot.press("escape", "q")
    engine.dispose()
    assert offered == str(made.path.parent / "Force-G.html")
