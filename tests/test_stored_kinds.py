"""Every status, kind, phase and outcome a campaign file holds is a member of its column's enum
(tracker/models/kinds.py): in the kept file of every past schema revision, in the sample campaign
with a row in every table, and in a file where every member of every enum was written."""

from __future__ import annotations

import sqlite3
from enum import StrEnum
from pathlib import Path

import pytest
from campaign_files import full_sample_campaign, reader
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from make_revision_files import FOLDER, KNOWN, filler
from sqlmodel import SQLModel, select

from tracker.db import make_engine, migrate, session_factory, session_scope
from tracker.models import JournalEntry, kinds
from tracker.services import campaigns, journal

KEPT = sorted(FOLDER.glob("campaign-*.db"))


def enum_columns() -> dict[tuple[str, str], type[StrEnum]]:
    """(table, column) -> enum, for every column of the models whose type is one of kinds'."""
    columns: dict[tuple[str, str], type[StrEnum]] = {}
    for mapper in SQLModel._sa_registry.mappers:
        model = mapper.class_
        for name, field in model.model_fields.items():
            if isinstance(field.annotation, type) and issubclass(field.annotation, StrEnum):
                columns[(model.__tablename__, name)] = field.annotation
    return columns


COLUMNS = enum_columns()


def stored_values(conn: sqlite3.Connection) -> dict[tuple[str, str], set[str]]:
    """The distinct values of each enum column the file has (an older file lacks some)."""
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    found: dict[tuple[str, str], set[str]] = {}
    for table, column in COLUMNS:
        if table not in tables:
            continue
        if column not in {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}:
            continue
        query = f'SELECT DISTINCT "{column}" FROM "{table}"'
        found[(table, column)] = {value for (value,) in conn.execute(query)}
    return found


def not_members(
    found: dict[tuple[str, str], set[str]], stand_ins: dict[tuple[str, str], set[str]] | None = None
) -> list[str]:
    """The values that are no member of their column's enum (`stand_ins` aside)."""
    return [
        f"{table}.{column} = {value!r} is not a {COLUMNS[(table, column)].__name__}"
        for (table, column), values in found.items()
        for value in sorted(values - (stand_ins or {}).get((table, column), set()))
        if value not in {member.value for member in COLUMNS[(table, column)]}
    ]


def generator_stand_ins(conn: sqlite3.Connection) -> dict[tuple[str, str], set[str]]:
    """What tests/make_revision_files.py wrote in a column before KNOWN gave it a meaning (a
    kept file is never remade): text of the column's name, which no player's file holds."""
    stand_ins: dict[tuple[str, str], set[str]] = {}
    for table, column in COLUMNS:
        for row in conn.execute(f'PRAGMA table_info("{table}")'):
            if row[1] == column:
                stand_ins[(table, column)] = {filler(table, column, row[2], n) for n in (1, 2)}
    return stand_ins


def test_every_enum_column_has_meaningful_values_in_the_next_kept_file() -> None:
    unknown = [f"{t}.{c}" for t, c in COLUMNS if f"{t}.{c}" not in KNOWN and c not in KNOWN]
    assert unknown == [], "add these to KNOWN in tests/make_revision_files.py"


def test_the_enum_columns_are_the_statuses_kinds_and_phases() -> None:
    assert {
        ("scenario", "status"), ("submarker", "state"), ("journalentry", "kind"),
        ("minefield", "status"), ("minefield", "laid_by"), ("minecheck", "status"),
        ("shipsnapshot", "phase"), ("wasunit", "unit_type"), ("critical", "status"),
        ("campaign", "mine_halt_rule"), ("minecheckship", "cup"), ("repair", "status"),
    } <= set(COLUMNS)  # fmt: skip


@pytest.mark.parametrize("kept", KEPT, ids=[path.stem for path in KEPT])
def test_every_value_a_kept_file_holds_is_a_member(kept: Path) -> None:
    conn = reader(kept)
    try:
        found, stand_ins = stored_values(conn), generator_stand_ins(conn)
    finally:
        conn.close()
    assert found and any(found.values())
    assert not_members(found, stand_ins) == []


def test_every_value_the_sample_campaign_holds_is_a_member(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    engine = make_engine(str(path))
    try:
        migrate(engine)
        full_sample_campaign(session_factory(engine))
    finally:
        engine.dispose()
    conn = reader(path)
    try:
        found = stored_values(conn)
    finally:
        conn.close()
    # The sample fills every table: each enum column has at least one value to check.
    assert all(found[column] for column in COLUMNS), [c for c in COLUMNS if not found[c]]
    assert not_members(found) == []


@pytest.fixture(scope="module")
def one_campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("kinds") / "campaign.db"
    engine = make_engine(str(path))
    try:
        migrate(engine)
        return path, campaigns.create_campaign(session_factory(engine), name="Kinds").id
    finally:
        engine.dispose()


@settings(max_examples=examples(40), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(kind=st.sampled_from(list(kinds.JournalKind)), summary=st.text(min_size=1, max_size=20))
def test_a_journal_kind_is_stored_as_its_value_and_read_back_equal(
    one_campaign: tuple[Path, int], kind: kinds.JournalKind, summary: str
) -> None:
    path, campaign_id = one_campaign
    engine = make_engine(str(path))
    try:
        with session_scope(session_factory(engine)) as session:
            entry_id = journal.append(
                session, campaign_id=campaign_id, kind=kind, summary=summary
            ).id
        with session_scope(session_factory(engine)) as session:
            entry = session.exec(select(JournalEntry).where(JournalEntry.id == entry_id)).one()
            assert entry.kind == kind and kinds.JournalKind(entry.kind) is kind
    finally:
        engine.dispose()
    conn = reader(path)
    try:
        stored = conn.execute("SELECT kind FROM journalentry WHERE id = ?", (entry_id,)).fetchone()
    finally:
        conn.close()
    assert stored == (kind.value,)
