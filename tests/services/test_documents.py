"""The documents' plan of the tables, read two ways: from the models (services.exchange, on any
database) and from an SQLite campaign file's own schema (the export that reads the file with the
standard library alone). The two must describe every table alike, or the two exports differ."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from campaign_files import migrated_engine

from tracker.services import documents, exchange


def _plan_of_a_new_file(folder: Path) -> documents.Plan:
    path = folder / "campaign.db"
    migrated_engine(path).dispose()
    with sqlite3.connect(path) as conn:
        plan = documents.plan_of_sqlite(conn)
    conn.close()
    return plan


def test_the_file_describes_its_tables_as_the_models_do(tmp_path: Path) -> None:
    from_file = _plan_of_a_new_file(tmp_path)
    from_models = exchange.metadata_plan()
    by_name = {table.name: table for table in from_models.tables}
    assert {table.name: table for table in from_file.tables} == by_name
    assert (from_file.names, from_file.refs_of) == (from_models.names, from_models.refs_of)
    # Booleans and times are found in both (a plan without them would pass for any schema).
    assert by_name["journalentry"].bools == {"undoable"}
    assert by_name["journalentry"].times == {"at"}


def test_each_table_comes_after_the_tables_its_rows_belong_to(tmp_path: Path) -> None:
    plan = _plan_of_a_new_file(tmp_path)
    seen: set[str] = set()
    for table in plan.tables:
        assert {parent for _, parent in table.links} - {table.name} <= seen, table.name
        seen.add(table.name)
    assert plan.tables[0].name in ("campaign", "shipclass", "unitcard")


def test_the_digest_of_this_trackers_tables_is_the_models() -> None:
    found = documents.plan_digest(exchange.metadata_plan())
    assert found == documents.HEAD_PLAN_DIGEST, (
        f"the models' tables changed: set HEAD_PLAN_DIGEST in services/documents.py to {found!r}"
    )


def test_a_table_or_column_more_changes_the_digest(tmp_path: Path) -> None:
    for extra in ("ALTER TABLE ship ADD COLUMN extra TEXT", "CREATE TABLE notes (id INTEGER)"):
        path = tmp_path / f"{len(extra)}.db"
        migrated_engine(path).dispose()
        with sqlite3.connect(path) as conn:
            conn.execute(extra)
            plan = documents.plan_of_sqlite(conn)
        conn.close()
        assert documents.plan_digest(plan) != documents.HEAD_PLAN_DIGEST, extra
