"""Fixtures for the service tests: a small campaign in a real migrated database, and ways to
see exactly what a call wrote (whole-database snapshots, journal counts).

Every test that uses `engine` runs on SQLite and, when TRACKER_TEST_PG names a PostgreSQL
database (`make test` starts a throw-away cluster for it, see tests/pg_cluster.py), once more
on PostgreSQL. A test that reads the SQLite file itself is marked `sqlite_only`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from service_helpers import (
    Journaled,
    NewEntries,
    Refused,
    Snapshot,
    World,
    attempt,
    empty_pg,
    pg_copy,
)
from sqlalchemy import Engine, text
from sqlmodel import SQLModel, col, func, select

from tracker.db import SessionFactory, make_engine, migrate, session_factory, session_scope
from tracker.models import JournalEntry, Ship
from tracker.services import campaigns, fleet, roster, scenarios
from tracker.services.errors import ChangedElsewhere, InvalidInput
from tracker.services.fleet import ShipFields
from tracker.services.roster import UnitFields


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file migrated to head per run; each test gets its own copy (fast, still real)."""
    path = tmp_path_factory.mktemp("template") / "campaign.db"
    engine = make_engine(str(path))
    migrate(engine)
    engine.dispose()  # the last connection checkpoints the WAL into the file
    assert not path.with_name("campaign.db-wal").exists()
    return path


def _build_world(factory: SessionFactory) -> World:
    campaign = campaigns.create_campaign(factory, name="Test campaign")
    scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title="First clash")
    blue = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue", nation="Britain")
    red = campaigns.create_side(factory, campaign_id=campaign.id, name="Red", nation="Germany")
    return World(
        campaign_id=campaign.id,
        scenario_id=scenario.id,
        blue_id=blue.id,
        red_id=red.id,
        alpha_id=fleet.create_squadron(factory, side_id=blue.id, name="Alpha"),
        bravo_id=fleet.create_squadron(factory, side_id=blue.id, name="Bravo"),
        raider_id=fleet.create_squadron(factory, side_id=red.id, name="Raider"),
    )


@pytest.fixture(scope="session")
def world_template(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> tuple[Path, World]:
    """The `world` campaign built once through the services; each test gets its own copy."""
    path = tmp_path_factory.mktemp("world") / "campaign.db"
    shutil.copyfile(migrated_template, path)
    engine = make_engine(str(path))
    migrate(engine)
    built = _build_world(session_factory(engine))
    engine.dispose()
    assert not path.with_name("campaign.db-wal").exists()
    return path, built


PG_URL = os.environ.get("TRACKER_TEST_PG", "")
BACKENDS = ["sqlite", "postgresql"] if PG_URL else ["sqlite"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        params = getattr(item, "callspec", None)
        backend = params.params.get("backend") if params else None
        if backend == "postgresql" and item.get_closest_marker("sqlite_only"):
            reason = item.get_closest_marker("sqlite_only").args  # type: ignore[union-attr]
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {reason[0]}"))


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The database this run of the test uses: sqlite, or postgresql when one is given."""
    return str(request.param)


@pytest.fixture(scope="session")
def pg_engine() -> Iterator[Engine]:
    """The PostgreSQL database, emptied and migrated to head once per run."""
    engine = make_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def engine(
    request: pytest.FixtureRequest, backend: str, db_path: Path, migrated_template: Path
) -> Iterator[Engine]:
    """Overrides tests/conftest.py for speed: a copy of a freshly migrated file (with the
    `world` campaign already in it when the test asks for `world`), opened as the app does;
    on PostgreSQL, the migrated database emptied."""
    if backend == "postgresql":
        pg: Engine = request.getfixturevalue("pg_engine")
        if "world" not in request.fixturenames:  # else `world` empties it as it copies
            empty_pg(pg)
        yield pg
        return
    source = migrated_template
    if "world" in request.fixturenames:
        source = request.getfixturevalue("world_template")[0]
    shutil.copyfile(source, db_path)
    engine = make_engine(str(db_path))
    assert migrate(engine) is None  # already at head: no upgrade, no backup
    yield engine
    engine.dispose()


@pytest.fixture
def world(request: pytest.FixtureRequest, engine: Engine, backend: str) -> World:
    """One campaign with a scenario, two sides and three squadrons, in this test's database."""
    if backend == "postgresql":
        return pg_copy(engine, "world", _build_world)
    template: tuple[Path, World] = request.getfixturevalue("world_template")
    return template[1]


@pytest.fixture
def db_url(engine: Engine) -> str:
    """This test's database as a URL, to open it again as a second program would."""
    return engine.url.render_as_string(hide_password=False)


@pytest.fixture
def add_ship(factory: SessionFactory) -> Callable[..., int]:
    """Create a ship through the service with sensible defaults; keyword arguments override."""

    def add(squadron_id: int, name: str, **overrides: Any) -> int:
        values: dict[str, Any] = {
            "type_abbrev": "CL",
            "structure_max": 9,
            "flotation_max": 8,
            "points_base": 400,
        }
        values.update(overrides)
        return fleet.create_ship(
            factory, squadron_id=squadron_id, fields=ShipFields(name=name, **values)
        )

    return add


@pytest.fixture
def ajax(world: World, add_ship: Callable[..., int]) -> int:
    """A light cruiser of Alpha (Blue): Structure 9, Flotation 8."""
    return add_ship(world.alpha_id, "Ajax")


# Every table's rows in key order, as db_state reads them.
SNAPSHOT_QUERIES = [
    (table.name, f'SELECT * FROM "{table.name}" ORDER BY '
                 + ", ".join(f'"{column.name}"' for column in table.primary_key))
    for table in SQLModel.metadata.sorted_tables
]  # fmt: skip


@pytest.fixture
def db_state(engine: Engine) -> Callable[[], Snapshot]:
    """Every row of every table, so a refused call can be shown to have written nothing."""

    def state() -> Snapshot:
        # Read through the driver's own cursor, in key order (PostgreSQL returns rows in no
        # fixed order without ORDER BY): the values as stored, for a tenth of the CPU of a
        # select through SQLAlchemy per table, which the fuzzing's thousands of snapshots felt.
        with engine.connect() as conn:
            cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                snapshot: Snapshot = {}
                for name, query in SNAPSHOT_QUERIES:
                    cursor.execute(query)
                    snapshot[name] = [tuple(row) for row in cursor.fetchall()]
                return snapshot
            finally:
                cursor.close()

    return state


@pytest.fixture
def stored_bytes(engine: Engine, backend: str, db_path: Path) -> Callable[[], bytes]:
    """Everything the database keeps, to look for a secret in plain text: the SQLite file and
    its sidecars byte for byte (free pages too), or on PostgreSQL every row of every table."""

    def read() -> bytes:
        if backend == "sqlite":
            return b"".join(path.read_bytes() for path in db_path.parent.glob("campaign.db*"))
        with engine.connect() as conn:
            return b"".join(
                repr(tuple(row)).encode()
                for table in SQLModel.metadata.sorted_tables
                for row in conn.execute(table.select()).all()
            )

    return read


@pytest.fixture
def refused(db_state: Callable[[], Snapshot]) -> Refused:
    """`refused(call, *keys)` runs a call that must raise InvalidInput (or, refused by the
    database, ChangedElsewhere: a form older than the row) and write nothing, and returns the
    error; given keys, the error must name exactly those fields."""

    def run(call: Callable[[], object], *keys: str) -> InvalidInput | ChangedElsewhere:
        before = db_state()
        outcome = attempt(call)
        assert isinstance(outcome, (InvalidInput, ChangedElsewhere)), repr(outcome)
        if keys:
            assert sorted(outcome.errors) == sorted(keys), outcome.errors
        assert db_state() == before
        return outcome

    return run


@pytest.fixture
def journal_count(factory: SessionFactory) -> Callable[[int], int]:
    def count(campaign_id: int) -> int:
        with session_scope(factory) as session:
            return session.exec(
                select(func.count()).where(JournalEntry.campaign_id == campaign_id)
            ).one()

    return count


@pytest.fixture
def ship_count(factory: SessionFactory) -> Callable[[], int]:
    def count() -> int:
        with session_scope(factory) as session:
            return session.exec(select(func.count()).select_from(Ship)).one()

    return count


@pytest.fixture
def journaled(factory: SessionFactory) -> Journaled:
    """`with journaled(campaign_id) as new: ...` asserts the block appended exactly one entry."""

    @contextmanager
    def watch(campaign_id: int) -> Iterator[NewEntries]:
        def ids() -> list[int | None]:
            with session_scope(factory) as session:
                return list(
                    session.exec(
                        select(JournalEntry.id).where(JournalEntry.campaign_id == campaign_id)
                    ).all()
                )

        before = set(ids())
        new = NewEntries()
        yield new
        with session_scope(factory) as session:
            new.entries = list(
                session.exec(
                    select(JournalEntry)
                    .where(JournalEntry.campaign_id == campaign_id)
                    .where(col(JournalEntry.id).not_in(before))
                    .order_by(col(JournalEntry.id))
                ).all()
            )
        assert len(new.entries) == 1, [e.summary for e in new.entries]

    return watch


@pytest.fixture
def axis(factory: SessionFactory) -> dict[str, int]:
    """A side with two submarines (one with an extra decoy) and a scenario in play, turn 1."""
    campaign = campaigns.create_campaign(factory, name="Atlantic")
    scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title="Convoy HX-229")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Axis").id
    allies = campaigns.create_side(factory, campaign_id=campaign.id, name="Allies").id
    u66 = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-66", unit_type="submarine", points=12, armor=3, vital_armor=6, hull_points=2,
        extra_decoys=1, abilities="Elusive Quarry\nWolfpack",
        attacks={"torpedo": [3, 3, 2, None]}))  # fmt: skip
    u552 = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-552", unit_type="submarine", points=13, hull_points=1))  # fmt: skip
    # A scenario goes in play with ships taking part: an escort of the record sheets.
    escorts = fleet.create_squadron(factory, side_id=allies, name="Escort Group B3")
    ship = fleet.create_ship(factory, squadron_id=escorts, fields=ShipFields(name="Harvester"))
    scenarios.set_participants(factory, scenario_id=scenario.id, ship_ids=[ship])
    scenarios.start_scenario(factory, scenario_id=scenario.id)
    return {"campaign": campaign.id, "scenario": scenario.id, "side": side, "allies": allies,
            "U-66": u66, "U-552": u552}  # fmt: skip
