"""Figure 15: one hit on PostgreSQL (services.damage.record_hit) against a bare psycopg INSERT
and COMMIT of a journal entry on the same server, in turns, as figure 3 measures SQLite.

The server is a throw-away cluster started as the service tests start theirs
(tests/pg_cluster.py), with fsync on, as a player's server has it (the tests' skips it): each
commit waits for its WAL to reach the disk on both sides, as synchronous=FULL makes SQLite's.
The large campaign is copied into it row for row. Without PostgreSQL or psycopg installed the
figure is skipped, and the table says why.
"""

from __future__ import annotations

import importlib.util
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, create_engine
from sqlmodel import SQLModel

from bench.generate import Built
from tests import pg_cluster
from tracker.db import make_engine, migrate, session_factory
from tracker.models.identity import new_uid
from tracker.services import damage

BARE_INSERT = (
    "INSERT INTO journalentry (at, campaign_id, scenario_id, turn, side_id, ship_id, kind, "
    "summary, detail, undoable, uid) "
    "VALUES (%s, %s, NULL, NULL, NULL, %s, 'damage', %s, %s, true, %s)"
)
DETAIL = '{"after": null, "before": null, "changes": [], "dice": null}'


def measure(large: Built, runs: int, warmup: int) -> dict[str, list[float]] | str:
    """Each run's hit and bare insert, in seconds; or why the figure is skipped."""
    if not (pg_cluster.find_bin("initdb") and pg_cluster.find_bin("pg_ctl")):
        return "PostgreSQL is not installed"
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed (the club extra)"
    with pg_cluster.cluster(durable=True) as (_, url):
        engine = make_engine(url)
        try:
            migrate(engine)
            copy(large.path, engine)
            return _in_turns(large, engine, url, runs, warmup)
        finally:
            engine.dispose()


def copy(source: Path, target: Engine) -> None:
    """Every row of the campaign file into the migrated, empty database at target, with its
    id; each table's id sequence then continues after the highest, and the tables are
    analysed."""
    tables = [table for table in SQLModel.metadata.sorted_tables if table.name != "alembic_version"]
    reader = create_engine(f"sqlite:///{source}")
    try:
        with reader.connect() as read, target.begin() as write:
            # No foreign key is checked while the rows go in (a squadron names its commander's
            # ship, a ship its squadron): the file's rows are whole already.
            write.exec_driver_sql("SET LOCAL session_replication_role = replica")
            for table in tables:
                rows = [row._asdict() for row in read.execute(table.select())]
                if rows:
                    write.execute(table.insert(), rows)
                if "id" in table.c:
                    write.exec_driver_sql(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f'COALESCE(MAX(id), 0) + 1, false) FROM "{table.name}"'
                    )
    finally:
        reader.dispose()
    with target.connect() as conn:  # the planner's statistics, as a server in use has them
        conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")


def _in_turns(
    large: Built, engine: Engine, url: str, runs: int, warmup: int
) -> dict[str, list[float]]:
    import psycopg  # the club extra: measure() checked it is there

    factory = session_factory(engine)
    bare: list[float] = []
    service: list[float] = []
    ships = large.hit_ship_ids
    # The driver as the engine's own connections have it (a transaction begun by the first
    # statement, committed by commit()).
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        for run in range(warmup + runs):
            request = damage.HitRequest(ship_id=ships[run % len(ships)], structure=1)
            started = time.perf_counter()
            damage.record_hit(factory, request=request)
            seconds = time.perf_counter() - started
            at = datetime.now(UTC)
            bare_started = time.perf_counter()
            conn.execute(
                BARE_INSERT,
                (
                    at,
                    large.campaign_id,
                    request.ship_id,
                    "bench: one bare insert",
                    DETAIL,
                    new_uid(),
                ),
            )
            conn.commit()
            bare_seconds = time.perf_counter() - bare_started
            if run >= warmup:
                service.append(seconds)
                bare.append(bare_seconds)
    return {"bare": bare, "service": service}
