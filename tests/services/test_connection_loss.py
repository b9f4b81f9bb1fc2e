"""Losing the PostgreSQL server in the middle of a session: the player is told, no change is
half-written, and tracker carries on by itself once the server answers again.

The server is the throw-away cluster of tests/pg_cluster.py, stopped and started for real.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pg_cluster
import pytest
from service_helpers import empty_pg, get_row
from sqlalchemy import Engine, create_engine, event, text
from sqlmodel import SQLModel

from tracker.db import SessionFactory, session_factory
from tracker.models import Ship
from tracker.services import campaigns, damage, fleet
from tracker.services.damage import HitRequest
from tracker.services.errors import ConnectionLost
from tracker.services.fleet import ShipFields

pytestmark = pytest.mark.skipif(
    not os.environ.get("TRACKER_TEST_PG_DIR"), reason="needs the cluster of tests/pg_cluster.py"
)


@pytest.fixture
def pg(request: pytest.FixtureRequest) -> Iterator[tuple[Engine, int]]:
    """The emptied PostgreSQL database with one ship; the server is running again afterwards."""
    engine: Engine = request.getfixturevalue("pg_engine")
    empty_pg(engine)
    factory = session_factory(engine)
    campaign = campaigns.create_campaign(factory, name="Club")
    campaigns.add_scenario(factory, campaign_id=campaign.id, title="Night action")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue")
    squadron = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
    ship = fleet.create_ship(factory, squadron_id=squadron,
                             fields=ShipFields(name="Exeter", structure_max=12))  # fmt: skip
    yield engine, ship
    folder = Path(os.environ["TRACKER_TEST_PG_DIR"])
    if not (folder / "data" / "postmaster.pid").exists():
        pg_cluster.start_server(folder)


def _rows(engine: Engine) -> dict[str, list[Any]]:
    with engine.connect() as conn:
        return {
            table.name: sorted((tuple(row) for row in conn.execute(table.select())), key=repr)
            for table in SQLModel.metadata.sorted_tables
        }


def test_a_connection_cut_in_the_middle_of_a_hit_writes_none_of_it(
    pg: tuple[Engine, int],
) -> None:
    engine, ship = pg
    factory: SessionFactory = session_factory(engine)
    before = _rows(engine)
    admin = create_engine(engine.url)

    def cut(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        # The ship's row is already updated in the transaction; the journal entry comes next.
        if statement.lstrip().upper().startswith("INSERT INTO JOURNALENTRY"):
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            with admin.begin() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

    event.listen(engine, "before_cursor_execute", cut)
    try:
        with pytest.raises(ConnectionLost, match="nothing was written"):
            damage.record_hit(factory, request=HitRequest(ship_id=ship, structure=3))
    finally:
        event.remove(engine, "before_cursor_execute", cut)
        admin.dispose()
    assert _rows(engine) == before
    # The next change goes through on a new connection.
    damage.record_hit(factory, request=HitRequest(ship_id=ship, structure=3))
    assert get_row(factory, Ship, ship).structure_now == 9


def test_a_stopped_server_is_reported_and_tracker_reconnects_when_it_is_back(
    pg: tuple[Engine, int],
) -> None:
    engine, ship = pg
    factory: SessionFactory = session_factory(engine)
    get_row(factory, Ship, ship)  # the pool holds a connection to the running server
    folder = Path(os.environ["TRACKER_TEST_PG_DIR"])
    pg_cluster.stop(folder)
    for _ in range(2):  # the dropped connection, then a refused new one
        with pytest.raises(ConnectionLost) as lost:
            damage.record_hit(factory, request=HitRequest(ship_id=ship, structure=1))
        message = lost.value.errors["database"]
        assert "nothing was written" in message and "\n" not in message
    pg_cluster.start_server(folder)
    damage.record_hit(factory, request=HitRequest(ship_id=ship, structure=1))
    assert get_row(factory, Ship, ship).structure_now == 11
