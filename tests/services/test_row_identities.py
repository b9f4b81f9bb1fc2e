"""Every row a player refers to has an id of its own (models.identity), the same in every copy
of its campaign: made by the model's own default whichever service writes the row, kept by
undo and redo, and given by migration 0016 to the rows of a file made before it, on SQLite and
on PostgreSQL (docs/FILES.md "A campaign's identity")."""

from __future__ import annotations

import itertools
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command as alembic_command
from campaign_files import full_sample_campaign
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from make_revision_files import FOLDER, file_name
from pg_cluster import new_database
from service_helpers import World, get_row
from sqlalchemy import Engine, MetaData, text
from sqlmodel import col, select

from tracker import db
from tracker.db import SessionFactory, make_engine, migrate, session_scope
from tracker.models import Ship
from tracker.services import (
    campaigns,
    command,
    damage,
    fleet,
    history,
    identities,
    markers,
    mines,
    repairs,
    roster,
    scenarios,
)
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields
from tracker.services.roster import UnitFields


def _uids(factory: SessionFactory) -> dict[str, list[Any]]:
    """Every identified table's ids, row by row, as stored."""
    with session_scope(factory) as session:
        conn = session.connection()
        return {name: [uid for (uid,) in conn.execute(text(f"SELECT uid FROM {name}"))]
                for name in identities.IDENTIFIED}  # fmt: skip


def _assert_every_row_identified(found: dict[str, list[Any]]) -> None:
    every = list(itertools.chain.from_iterable(found.values()))
    for name, uids in found.items():
        for uid in uids:
            assert isinstance(uid, str) and str(uuid.UUID(uid)) == uid, (name, uid)
    assert len(set(every)) == len(every), "an id given twice"


def test_the_identified_tables_are_the_rows_a_player_refers_to() -> None:
    """docs/FILES.md names these; a table added to them is named there too."""
    assert set(identities.IDENTIFIED) == {
        "campaign", "side", "scenario", "squadron", "ship", "battery", "commander", "crew",
        "critical", "repair", "wasunit", "submarker", "minefield", "minecheck", "journalentry",
    }  # fmt: skip


def test_every_row_of_the_full_sample_campaign_has_an_id_of_its_own(
    factory: SessionFactory,
) -> None:
    """The sample and more, through the services: rows in every table."""
    full_sample_campaign(factory)
    found = _uids(factory)
    assert all(found.values()), {name: len(uids) for name, uids in found.items()}
    _assert_every_row_identified(found)


# --- generated acts -----------------------------------------------------------------------------

_names = itertools.count()


class _Play:
    """A campaign of its own in the test's file, and the rows acts have made in it."""

    def __init__(self, factory: SessionFactory) -> None:
        self.factory = factory
        self.campaign = campaigns.create_campaign(factory, name=f"Play {next(_names)}").id
        self.sides: list[int] = []
        self.squadrons: list[int] = []
        self.side()

    def name(self, word: str) -> str:
        return f"{word} {next(_names)}"

    def side(self) -> None:
        side = campaigns.create_side(self.factory, campaign_id=self.campaign, name=self.name("S"))
        self.sides.append(side.id)
        self.squadron()

    def squadron(self) -> None:
        squadron = fleet.create_squadron(self.factory, side_id=self.sides[-1], name=self.name("Q"))
        self.squadrons.append(squadron)

    def ship(self, pick: int) -> None:
        fields = ShipFields(name=self.name("Ship"), type_abbrev="CL", structure_max=9,
                            flotation_max=8, points_base=400)  # fmt: skip
        squadron = self.squadrons[pick % len(self.squadrons)]
        fleet.create_ship(self.factory, squadron_id=squadron, fields=fields)

    def afloat(self) -> list[int]:
        """The campaign's ships still there (an undo or a delete takes one away), not sunk."""
        with session_scope(self.factory) as session:
            query = select(Ship.id).where(col(Ship.side_id).in_(self.sides), ~col(Ship.sunk))
            return sorted(ship for ship in session.exec(query) if ship is not None)


def _on_ship(act: Callable[[_Play, int], object]) -> Callable[[_Play, int], object]:
    """The act on one of the ships afloat, a new one when there is none."""

    def on(play: _Play, pick: int) -> object:
        ships = play.afloat() or (play.ship(pick), play.afloat())[1]
        return act(play, ships[pick % len(ships)])

    return on


ACTS: dict[str, Callable[[_Play, int], object]] = {
    "side": lambda play, pick: play.side(),
    "squadron": lambda play, pick: play.squadron(),
    "ship": _Play.ship,
    "ships": lambda play, pick: fleet.create_ships(
        play.factory, squadron_id=play.squadrons[pick % len(play.squadrons)], rows=[
            ShipFields(name=play.name("Batch"), type_abbrev="DD", structure_max=4,
                       flotation_max=3, points_base=90) for _ in range(pick % 3 + 1)]),
    "units": lambda play, pick: roster.add_units(
        play.factory, side_id=play.sides[pick % len(play.sides)], rows=[
            UnitFields(name=play.name("V"), unit_type="submarine", points=5)
            for _ in range(pick % 3 + 1)]),
    "scenario": lambda play, pick: campaigns.add_scenario(
        play.factory, campaign_id=play.campaign, title=play.name("Scenario")),
    "battery": _on_ship(lambda play, ship: fleet.save_battery(
        play.factory, ship_id=ship, mount="turret", calibre="6in", guns=2)),
    "crew": lambda play, pick: command.set_crew(
        play.factory, squadron_id=play.squadrons[pick % len(play.squadrons)], training=3,
        acquisition="random", roll=pick % 6 + 1),
    "transfer": _on_ship(lambda play, ship: fleet.transfer_ship(
        play.factory, ship_id=ship, to_squadron_id=play.squadrons[ship % len(play.squadrons)])),
    "copy": _on_ship(lambda play, ship: fleet.copy_ship(
        play.factory, ship_id=ship, name=play.name("Sister"))),
    "commander": lambda play, pick: command.set_commander(
        play.factory, squadron_id=play.squadrons[pick % len(play.squadrons)],
        name=play.name("Cdr"), training=4, acquisition="random", roll=pick % 6 + 1),
    "hit": _on_ship(lambda play, ship: damage.record_hit(play.factory, request=damage.HitRequest(
        ship_id=ship, structure=1, criticals=(damage.CriticalRequest(effect="Bridge hit"),)))),
    "repair": _on_ship(lambda play, ship: repairs.repair_ship(
        play.factory, ship_id=ship, structure=1)),
    "unit": lambda play, pick: markers.assign_markers(
        play.factory, real=1, sectors=["A1", "B2"], unit_id=roster.save_unit(
            play.factory, side_id=play.sides[pick % len(play.sides)],
            fields=UnitFields(name=play.name("U"), unit_type="submarine", points=10))),
    "minefield": lambda play, pick: mines.sow_minefield(
        play.factory, side_id=play.sides[pick % len(play.sides)], laid_by="surface",
        sector=play.name("K")),
    "begin": lambda play, pick: scenarios.start_scenario(
        play.factory, scenario_id=campaigns.add_scenario(
            play.factory, campaign_id=play.campaign, title=play.name("Fight")).id),
    "delete": _on_ship(lambda play, ship: fleet.delete_ship(play.factory, ship_id=ship)),
    "undo": lambda play, pick: history.undo_last(play.factory, campaign_id=play.campaign),
    "redo": lambda play, pick: history.redo_last(play.factory, campaign_id=play.campaign),
}  # fmt: skip
# The acts the rules may refuse here (nothing to undo, a scenario already in play, a ship with
# a history to keep, a repair past the allowance): every other one must be done.
REFUSABLE = {"undo", "redo", "begin", "delete", "transfer", "repair"}
_ACT = st.tuples(st.sampled_from(sorted(ACTS)), st.integers(0, 50))


@settings(max_examples=examples(12), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(acts=st.lists(_ACT, min_size=1, max_size=20))
def test_every_row_the_services_write_has_an_id_of_its_own(
    factory: SessionFactory, acts: list[tuple[str, int]]
) -> None:
    """Over generated acts (a refused one, such as an undo with nothing to undo, writes
    nothing): every row of every identified table, ships and units added many in one act, a
    copied ship, battery
    and crew, an entry written as a row and a row put back by undo included, has a well-formed
    id no other row has."""
    play = _Play(factory)
    for name, pick in acts:
        with suppress(*((InvalidInput,) if name in REFUSABLE else ())):
            ACTS[name](play, pick)
    _assert_every_row_identified(_uids(factory))


def test_a_ship_leaving_its_squadron_takes_a_copy_of_its_crew_with_an_id_of_its_own(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="random",
                     roll=4)  # fmt: skip
    ship = add_ship(world.alpha_id, "Exeter")
    fleet.transfer_ship(factory, ship_id=ship, to_squadron_id=world.bravo_id)
    assert get_row(factory, Ship, ship).crew_id is not None
    assert len(_uids(factory)["crew"]) == 2
    _assert_every_row_identified(_uids(factory))


# --- undo and redo ---------------------------------------------------------------------------


def test_a_ship_deleted_and_put_back_by_undo_keeps_its_id(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    ship = add_ship(world.alpha_id, "Exeter")
    uid = get_row(factory, Ship, ship).uid
    fleet.delete_ship(factory, ship_id=ship)
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert get_row(factory, Ship, ship).uid == uid
    history.redo_last(factory, campaign_id=world.campaign_id)  # deleted again
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert get_row(factory, Ship, ship).uid == uid


# --- migration 0016 -----------------------------------------------------------------------------

BEFORE = "0015"


@contextmanager
def _database(backend: str, tmp_path: Path) -> Iterator[Engine]:
    """An empty database of its own on the backend (PostgreSQL: on the test cluster)."""
    if backend == "sqlite":
        engine = make_engine(str(tmp_path / "before.db"))
        yield engine
        engine.dispose()
        return
    with new_database(os.environ["TRACKER_TEST_PG"]) as url:
        engine = make_engine(url)
        yield engine
        engine.dispose()


def _copy_kept_rows(engine: Engine) -> dict[str, int]:
    """The rows of the kept file of schema 0015 (two in every table) written into the database,
    at that revision; the rows of each table."""
    kept = sqlite3.connect(f"file:{FOLDER / file_name(BEFORE)}?mode=ro&immutable=1", uri=True)
    metadata = MetaData()
    metadata.reflect(engine)
    counts = {}
    try:
        with engine.begin() as conn:
            for table in metadata.sorted_tables:
                if table.name == "alembic_version":
                    continue
                cursor = kept.execute(f'SELECT * FROM "{table.name}"')
                names = [d[0] for d in cursor.description]
                rows = [dict(zip(names, row, strict=True)) for row in cursor]
                kinds = {key: table.c[key].type.python_type for key in names}
                for row in rows:
                    for key, value in row.items():
                        if value is not None and kinds[key] is bool:
                            row[key] = bool(value)
                        elif value is not None and kinds[key] is datetime:
                            row[key] = datetime.fromisoformat(value)
                conn.execute(table.insert(), rows)
                counts[table.name] = len(rows)
            if conn.dialect.name == "postgresql":  # a later row takes the next id
                for table in metadata.sorted_tables:
                    if "id" in table.c:
                        sequence = f"pg_get_serial_sequence('{table.name}', 'id')"
                        conn.execute(text(f"SELECT setval({sequence}, "
                                          f"(SELECT max(id) FROM {table.name}))"))  # fmt: skip
    finally:
        kept.close()
    return counts


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_0016_gives_every_row_of_a_file_made_before_it_an_id_of_its_own(
    backend: str, tmp_path: Path
) -> None:
    with _database(backend, tmp_path) as engine:
        alembic_command.upgrade(db._alembic_config(engine), BEFORE)
        counts = _copy_kept_rows(engine)
        with engine.connect() as conn:
            kept = {name: conn.execute(text(f"SELECT id, uid FROM {name} ORDER BY id")).all()
                    for name in identities.KNOWN_BY}  # fmt: skip
        migrate(engine)
        factory = db.session_factory(engine)
        found = _uids(factory)
        assert {name: len(uids) for name, uids in found.items()} == {
            name: counts[name] for name in identities.IDENTIFIED
        }
        assert all(len(uids) == 2 for uids in found.values())
        _assert_every_row_identified({name: uids for name, uids in found.items()
                                      if name not in identities.KNOWN_BY})  # fmt: skip
        with engine.connect() as conn:  # the campaign's and its sides' ids kept, since 0013
            for name in identities.KNOWN_BY:
                query = text(f"SELECT id, uid FROM {name} ORDER BY id")
                assert conn.execute(query).all() == kept[name]
        # A row made after the upgrade gets its id from the model, as on a new file.
        campaign = campaigns.list_campaigns(factory)[0].id
        campaigns.add_scenario(factory, campaign_id=campaign, title="After the upgrade")
        after = _uids(factory)
        assert len(after["scenario"]) == 3 and len(after["journalentry"]) == 3
        _assert_every_row_identified({"scenario": after["scenario"],
                                      "journalentry": after["journalentry"]})  # fmt: skip
