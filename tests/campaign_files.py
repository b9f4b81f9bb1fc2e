"""Campaign files made for the tests outside tracker: the sample campaign on disk, a campaign with
rows in every table, and SQL run straight at a file (imported as a plain module by the tests)."""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import random
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import Engine
from sqlmodel import SQLModel, text
from textual.screen import Screen
from textual.widgets import Checkbox, Input, Select
from textual.worker import WorkerCancelled

from tracker import db
from tracker.app import TrackerApp
from tracker.cli import main
from tracker.db import SessionFactory, make_engine, migrate, session_factory, session_scope
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import (
    campaigns,
    command,
    damage,
    demo,
    fleet,
    history,
    identities,
    library,
    markers,
    mines,
    repairs,
    roster,
    rule_tables,
    scenarios,
    sealing,
    sheet,
)

PASSPHRASE = "secret-1"
# The file's library (shared by its campaigns): a card and a class.
LIBRARY = (
    b'{"format": "tracker-library", "version": 1, "classes": [{"name": "Leander", '
    b'"nation": "Britain", "structure": 12, "flotation": 10, "points": 150}], "cards": '
    b'[{"name": "Ajax", "nation": "Britain", "unit_type": "cruiser", "points": 12, '
    b'"attacks": {"main": [3, 3, 2, null]}, "abilities": [{"name": "Radar", "text": ""}]}]}'
)


def run_sql(path: Path, statement: str) -> None:
    """Run one statement on the file with plain sqlite3 and commit it."""
    conn = sqlite3.connect(path)
    try:
        conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


def sidecars(path: Path) -> list[str]:
    """The -wal and -shm files beside path."""
    return sorted(
        name for name in os.listdir(path.parent) if name in (f"{path.name}-wal", f"{path.name}-shm")
    )


def table_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, read apart from tracker (the WAL may change; the rows not)."""
    conn = sqlite3.connect(path)
    try:
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]  # fmt: skip
        return {table: conn.execute(f'SELECT * FROM "{table}"').fetchall() for table in tables}
    finally:
        conn.close()


@dataclass(frozen=True)
class Outcome:
    """What `tracker ...` run through main() returned and printed."""

    status: int
    out: str
    err: str


def run_main(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Outcome:
    """main(argv) in this process, with what it printed (and only that)."""
    capsys.readouterr()
    status = main(argv)
    out, err = capsys.readouterr()
    return Outcome(status, out, err)


def migrate_with_head(path: Path, monkeypatch: pytest.MonkeyPatch, head: str) -> Path | None:
    """migrate() on the file with tracker's head revision pretended to be `head` (only one
    revision exists yet, so a newer head is pretended); the backup it took, if any."""
    monkeypatch.setattr(db.migration, "head_revision", lambda: head)
    engine = make_engine(str(path))
    try:
        return migrate(engine)
    finally:
        engine.dispose()


def migrate_refused(target: str) -> str:
    """What migrate() says, refusing the database at target (a path or URL): the test fails
    if it is not refused."""
    engine = make_engine(target)
    try:
        with pytest.raises(db.DatabaseProblem) as refused:
            migrate(engine)
    finally:
        engine.dispose()
    return str(refused.value)


@functools.cache
def _migrated_template() -> Path:
    """One file migrated from nothing to head, once per test process."""
    folder = Path(tempfile.mkdtemp(prefix="tracker-template-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "campaign.db"
    engine = make_engine(str(path))
    migrate(engine)
    engine.dispose()  # the last connection folds the WAL into the file
    assert sidecars(path) == []
    return path


def migrated_engine(path: Path) -> Engine:
    """An engine on a new campaign file at head, opened as the app opens one. The file is a copy
    of one migrated once per process: a migration from nothing costs about half a second of CPU
    (and many fsyncs), which hundreds of tests paid each; the migration itself is tested apart."""
    shutil.copyfile(_migrated_template(), path)
    engine = make_engine(str(path))
    assert migrate(engine) is None  # already at head: no upgrade, no backup
    return engine


@functools.cache
def _built_template(build: Callable[[SessionFactory], int]) -> tuple[Path, int]:
    """One file holding the campaign `build` makes through the services, built once per test
    process; with the id of its campaign."""
    folder = Path(tempfile.mkdtemp(prefix="tracker-sample-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "campaign.db"
    engine = migrated_engine(path)
    campaign_id = build(session_factory(engine))
    engine.dispose()
    run_sql(path, "PRAGMA wal_checkpoint(TRUNCATE)")
    assert sidecars(path) == []
    return path, campaign_id


def sample_engine(
    path: Path, build: Callable[[SessionFactory], int] = demo.create_sample_campaign
) -> tuple[Engine, int]:
    """An engine on a new file holding the sample campaign (or the one `build` makes), and its
    campaign's id. The file is a copy of one built once per process: the sample's build through
    the services costs about a tenth of a second of CPU (a game night's, more), which each of
    the app's tests paid; the build is tested apart."""
    template, campaign_id = _built_template(build)
    shutil.copyfile(template, path)
    engine = make_engine(str(path))
    assert migrate(engine) is None  # already at head: no upgrade, no backup
    return engine, campaign_id


def real_campaign_file(path: Path) -> Path:
    """A migrated file holding the sample campaign, its WAL folded back into the file."""
    shutil.copyfile(_built_template(demo.create_sample_campaign)[0], path)
    assert sidecars(path) == []
    return path


def future_campaign_file(path: Path) -> Path:
    """The sample campaign at a schema revision newer than tracker knows (9999_future)."""
    run_sql(real_campaign_file(path), "UPDATE alembic_version SET version_num = '9999_future'")
    assert sidecars(path) == []
    return path


def sample_app(path: Path, seed: int) -> TrackerApp:
    """The app on a real file holding the River Plate sample, opened on its campaign screen."""
    engine, campaign_id = sample_engine(path)
    factory = session_factory(engine)
    return TrackerApp(factory, rng=random.Random(seed), open_campaign_id=campaign_id)


async def fill_form(pilot, values: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """Type into the open form as a player would (selects and ticks set), then ctrl+s."""
    form = pilot.app.screen
    assert isinstance(form, FormScreen)
    for key, value in values.items():
        widget = form.query_one(f"#field-{key}")
        if isinstance(widget, Select):
            widget.value = value
        elif isinstance(widget, Checkbox):
            widget.value = bool(value)
        else:
            assert isinstance(widget, Input)
            widget.value = str(value)
    await pilot.press("ctrl+s")
    await pilot.pause()


S = TypeVar("S", bound=Screen[Any])


async def open_sheet(pilot) -> RecordSheetScreen:  # type: ignore[no-untyped-def]
    """From the campaign screen, enter: the first squadron's record sheet."""
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, RecordSheetScreen)
    return screen


def file_sha(path: Path) -> str:
    """The file's SHA-256: to show an attempt left it byte for byte as it was."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def reader(path: Path) -> sqlite3.Connection:
    """A read-only connection that leaves no -wal or -shm beside the file: with none there,
    nothing is outside the file and it is read as immutable."""
    mode = "ro" if sidecars(path) else "ro&immutable=1"
    return sqlite3.connect(f"file:{path}?mode={mode}", uri=True)


async def workers_end(pilot) -> None:  # type: ignore[no-untyped-def]
    """Every worker the app runs now ends (a look at the database, a palette's search, the file
    being opened) and the screen takes what they sent: waited for by their end, not by the clock,
    so it holds on a loaded machine as on an idle one."""
    while True:
        try:
            await pilot.app.workers.wait_for_complete()
            break
        except WorkerCancelled:  # a newer worker of its group took over from this one
            continue
    await pilot.pause()


async def watch_looks(pilot) -> None:  # type: ignore[no-untyped-def]
    """The app's change watch looks at the database once more, as its timer would: a change
    another program committed before is on the screen then."""
    pilot.app.change_watch.check()
    await workers_end(pilot)


async def press_to(pilot, *keys: str, screen: type[S]) -> S:  # type: ignore[no-untyped-def]
    """Press keys as a player would and return the screen they lead to, checking its kind."""
    await pilot.press(*keys)
    await pilot.pause()
    current = pilot.app.screen
    assert isinstance(current, screen), f"{keys} led to {type(current).__name__}"
    return current


# --- a campaign with rows in every table ---------------------------------------------------------


@dataclass(frozen=True)
class Filled:
    """What fill_every_table made, for tests that look at it again."""

    campaign_id: int
    side_id: int  # the side with the passphrase, the units, the minefields
    ship_id: int
    secret_minefield_id: int
    check_id: int


def fill_every_table(
    factory: SessionFactory, *, campaign_id: int, ship_id: int, passphrase: str = PASSPHRASE
) -> Filled:
    """Rows in every table through the services, for a campaign with a planned scenario and a ship
    (`ship_id`) on its first side: the scenario played and closed (a hit with a critical,
    snapshots), a repair, a War at Sea submarine whose markers are then encrypted under a
    passphrase (and one with plain markers on the second side, if there is one), a boundary with
    a minefield and a secret one, the campaign's critical and mine tables, a mine check with a
    roll, fuel used; the newest journal entries are an undo and its redo (of the fuel used)."""
    rule_tables.save_table_row(
        factory, campaign_id=campaign_id, kind="structural", low=1, high=10, effect="Fire"
    )
    view = campaigns.get_overview(factory, campaign_id=campaign_id)
    side_id = view.sides[0].id
    battle = view.scenarios[0].id
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=[ship_id])
    scenarios.set_correction_factor(factory, scenario_id=battle, side_id=side_id, value="+1")
    scenarios.start_scenario(factory, scenario_id=battle)
    damage.record_hit(
        factory,
        request=damage.HitRequest(
            ship_id=ship_id, structure=1, criticals=(damage.CriticalRequest(roll=3),)
        ),
    )
    scenarios.close_scenario(factory, scenario_id=battle)
    repairs.repair_ship(factory, ship_id=ship_id, structure=1)
    sub = roster.save_unit(
        factory, side_id=side_id,
        fields=roster.UnitFields(name="U-47", unit_type="submarine", points=10),
    )  # fmt: skip
    markers.assign_markers(factory, unit_id=sub, real=1, sectors=("A1", "A2"))
    sealing.set_passphrase(factory, side_id=side_id, passphrase=passphrase)
    if len(view.sides) > 1:  # a side without a passphrase: its marker notes stay plain
        other_sub = roster.save_unit(
            factory, side_id=view.sides[1].id,
            fields=roster.UnitFields(name="U-32", unit_type="submarine", points=10),
        )  # fmt: skip
        markers.assign_markers(factory, unit_id=other_sub, real=2, sectors=("B1", "B2"))
    boundary = mines.add_boundary(factory, campaign_id=campaign_id, area_a="A", area_b="B")
    field = mines.sow_minefield(
        factory, side_id=side_id, laid_by="surface", boundary_id=boundary, complete=True
    )
    secret = mines.sow_minefield(
        factory, side_id=side_id, laid_by="surface", boundary_id=boundary, complete=True,
        secret=True, notes="off Lobos", layer_name="Teviot Bank", passphrase=passphrase,
    )  # fmt: skip
    mines.save_counter(factory, ship_id=ship_id, counter_size="long", speed_rating=2, fuel_full=4)
    mines.save_mine_row(factory, campaign_id=campaign_id, low=1, high=11, effects="fuel-1")
    check = mines.start_check(factory, minefield_id=field, ship_ids=[ship_id], speed=2, seed=1)
    mines.roll_mine(factory, check_id=check, roll=3)
    mines.use_fuel(factory, ship_id=ship_id, factors=1)
    history.undo_last(factory, campaign_id=campaign_id)
    history.redo_last(factory, campaign_id=campaign_id)
    library.import_library(factory, raw=LIBRARY, json_file=True)  # shared: read again, unchanged
    return Filled(campaign_id, side_id, ship_id, secret, check)


def full_sample_campaign(factory: SessionFactory) -> Filled:
    """The River Plate sample with rows in every table, Ajax moved to a new squadron first (a
    ship whose squadron is not its original one), Force G's commander aboard Exeter."""
    sample_id = demo.create_sample_campaign(factory)
    overview = campaigns.get_overview(factory, campaign_id=sample_id)
    detached = fleet.create_squadron(factory, side_id=overview.sides[0].id, name="Detached")
    force_g = overview.sides[0].squadrons[0].id
    exeter, ajax = (
        ship.id for ship in sheet.load_record_sheet(factory, squadron_id=force_g).ships[:2]
    )
    fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=detached)
    # A squadron naming its commander's ship: a reference to a table written after its own.
    command.set_commander_ship(factory, squadron_id=force_g, ship_id=exeter)
    return fill_every_table(factory, campaign_id=sample_id, ship_id=ajax)


SHARED = ("shipclass", "unitcard")  # the library: no campaign's own, outlives any of them
# The ids of a campaign's rows in each table, however they reach it (written apart from
# tracker's own queries, so a test can check them).
CAMPAIGN_ROWS = {
    "campaign": "SELECT id FROM campaign WHERE id = :c",
    "scenario": "SELECT id FROM scenario WHERE campaign_id = :c",
    "side": "SELECT id FROM side WHERE campaign_id = :c",
    "squadron": "SELECT squadron.id FROM squadron JOIN side ON side.id = squadron.side_id "
    "WHERE side.campaign_id = :c",
    "commander": "SELECT id FROM commander WHERE campaign_id = :c",
    "crew": "SELECT id FROM crew WHERE campaign_id = :c",
    "ship": "SELECT ship.id FROM ship JOIN side ON side.id = ship.side_id "
    "WHERE side.campaign_id = :c",
    "battery": "SELECT battery.id FROM battery JOIN ship ON ship.id = battery.ship_id "
    "JOIN side ON side.id = ship.side_id WHERE side.campaign_id = :c",
    "journalentry": "SELECT id FROM journalentry WHERE campaign_id = :c",
    "critical": "SELECT critical.id FROM critical JOIN ship ON ship.id = critical.ship_id "
    "JOIN side ON side.id = ship.side_id WHERE side.campaign_id = :c",
    "criticaltablerow": "SELECT id FROM criticaltablerow WHERE campaign_id = :c",
    "participation": "SELECT participation.id FROM participation JOIN scenario "
    "ON scenario.id = participation.scenario_id WHERE scenario.campaign_id = :c",
    "scenarioside": "SELECT scenarioside.id FROM scenarioside JOIN scenario "
    "ON scenario.id = scenarioside.scenario_id WHERE scenario.campaign_id = :c",
    "shipsnapshot": "SELECT shipsnapshot.id FROM shipsnapshot JOIN scenario "
    "ON scenario.id = shipsnapshot.scenario_id WHERE scenario.campaign_id = :c",
    "repair": "SELECT repair.id FROM repair JOIN ship ON ship.id = repair.ship_id "
    "JOIN side ON side.id = ship.side_id WHERE side.campaign_id = :c",
    "wasunit": "SELECT wasunit.id FROM wasunit JOIN side ON side.id = wasunit.side_id "
    "WHERE side.campaign_id = :c",
    "submarker": "SELECT submarker.id FROM submarker JOIN side ON side.id = submarker.side_id "
    "WHERE side.campaign_id = :c",
    "sidesecret": "SELECT sidesecret.id FROM sidesecret "
    "JOIN side ON side.id = sidesecret.side_id WHERE side.campaign_id = :c",
    "seaboundary": "SELECT id FROM seaboundary WHERE campaign_id = :c",
    "minefield": "SELECT id FROM minefield WHERE campaign_id = :c",
    "minetablerow": "SELECT id FROM minetablerow WHERE campaign_id = :c",
    "minecheck": "SELECT id FROM minecheck WHERE campaign_id = :c",
    "minecheckship": "SELECT minecheckship.id FROM minecheckship JOIN minecheck "
    "ON minecheck.id = minecheckship.check_id WHERE minecheck.campaign_id = :c",
    # The library is shared by the file's campaigns: each campaign's export carries all of it.
    "shipclass": "SELECT id FROM shipclass WHERE CAST(:c AS INTEGER) IS NOT NULL",
    "unitcard": "SELECT id FROM unitcard WHERE CAST(:c AS INTEGER) IS NOT NULL",
}


def minelaying_campaign(path: Path, name: str, notes: str) -> Path:
    """A campaign file whose Axis side (no passphrase) has a submarine U-116 in squadron Raider
    that loaded two minefields and sows a secret one in "Faroe Gap 7" (with these notes), and
    a submarine U-99 on its roster with its markers placed, the real one among decoys."""
    engine = migrated_engine(path)
    factory = session_factory(engine)
    campaign = campaigns.create_campaign(factory, name=name)
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Axis").id
    campaigns.create_side(factory, campaign_id=campaign.id, name="Allies")
    squadron = fleet.create_squadron(factory, side_id=side, name="Raider")
    sub = fleet.create_ship(factory, squadron_id=squadron,
                            fields=fleet.ShipFields(name="U-116", type_abbrev="SS"))  # fmt: skip
    mines.save_counter(factory, ship_id=sub, counter_size="small", speed_rating=1,
                       torpedo_factors=4, mines_loaded=2)  # fmt: skip
    mines.sow_minefield(factory, side_id=side, laid_by="submarine", sector="Faroe Gap 7",
                        layer_ship_id=sub, secret=True, notes=notes)  # fmt: skip
    unit = roster.save_unit(factory, side_id=side, fields=roster.UnitFields(
        name="U-99", unit_type="submarine", points=10, hull_points=2))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=["Rockall", "Rockall 2"])
    engine.dispose()
    return path


def as_second_copy(document: dict[str, Any], imported: dict[str, Any]) -> dict[str, Any]:
    """The document as a second copy of its campaign in a file reads once imported: the same,
    but for the ids of its campaign and sides (services.identities), which must all be new."""
    copy = json.loads(json.dumps(document))
    for name in identities.IDENTIFIED:
        old = [row["uid"] for row in copy["tables"][name]]
        new = [row["uid"] for row in imported["tables"][name]]
        assert len(set(new)) == len(old) and not set(new) & set(old), name
        for row, uid in zip(copy["tables"][name], new, strict=True):
            row["uid"] = uid
    return copy


def campaign_rows(factory: SessionFactory, campaign_id: int) -> dict[str, list[int]]:
    """The ids of the campaign's rows in every table (alembic_version aside), in id order."""
    table_names = {table.name for table in SQLModel.metadata.sorted_tables} - {"alembic_version"}
    assert set(CAMPAIGN_ROWS) == table_names, "a new table needs a query in CAMPAIGN_ROWS"
    with session_scope(factory) as session:
        conn = session.connection()
        return {
            name: sorted(conn.execute(text(query), {"c": campaign_id}).scalars())
            for name, query in CAMPAIGN_ROWS.items()
        }


def open_or_create(
    path: Path, build: Callable[[SessionFactory], int]
) -> tuple[SessionFactory, int]:
    """A real campaign file opened as the app opens it: its first campaign, or the one `build`
    makes in it the first time (so a test can start the app again on the same file)."""
    engine = make_engine(str(path))
    migrate(engine)
    factory = session_factory(engine)
    existing = campaigns.list_campaigns(factory)
    return factory, existing[0].id if existing else build(factory)


class FakeClock:
    """A clock a test moves by hand: an owner view's idle time without waiting for it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def hides_on_the_second(
    pilot: Any,
    screen: Any,
    clock: FakeClock,
    left: float,
    secret: str,
) -> None:
    """The owner view stays open until `left` seconds more pass without a key, and hides then:
    open half a second before, closed on the second, its secret gone from the screen."""
    clock.now += left - 0.5
    screen.hide_if_idle()
    assert screen.owner, "the owner view hid before the campaign's idle time"
    clock.now += 0.5
    screen.hide_if_idle()
    await pilot.pause()
    assert not screen.owner and secret not in pilot.app.export_screenshot()
