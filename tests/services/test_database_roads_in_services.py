"""A database that stops answering takes its own road through the services: it is never
reported as a problem of the player's input (tracker.errors: DatabaseUnavailable is no
InvalidInput), on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest
from service_helpers import World

from tracker.db import make_engine, session_factory
from tracker.services import csv_import
from tracker.services.errors import ReadOnlyDatabase


@pytest.mark.parametrize("rows", [1, 3])
def test_a_csv_import_into_a_database_that_refuses_writes_is_no_row_problem(
    world: World, db_url: str, rows: int
) -> None:
    """Each row is written in a savepoint that catches the row's own problems; a database that
    refuses every write is no row's problem (it was listed as one per row while the two errors
    shared a class): the import stops, nothing written, and says why once."""
    lines = ["name,structure_max,flotation_max", *(f"Ship {n},9,8" for n in range(rows))]
    engine = make_engine(db_url, read_only=True)
    try:
        with pytest.raises(ReadOnlyDatabase, match="read-only view"):
            csv_import.import_csv(
                session_factory(engine), kind="ships", raw="\n".join(lines).encode(),
                target_id=world.alpha_id,
            )  # fmt: skip
    finally:
        engine.dispose()
