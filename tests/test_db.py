"""The campaign file: schema at head, pragmas, models matching migrations, and refusing bad files
without touching them (tracker.db)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from campaign_files import (
    future_campaign_file,
    migrate_refused,
    migrate_with_head,
    real_campaign_file,
    run_sql,
    sidecars,
)
from sqlalchemy import Engine, inspect
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel, func, select

import tracker.models
from tracker import campaign_file, db
from tracker.db import (
    DatabaseProblem,
    SessionFactory,
    backup_file,
    head_revision,
    make_engine,
    migrate,
    session_factory,
    session_scope,
)
from tracker.models import Campaign
from tracker.services import campaigns, demo

TABLES = {table.name for table in SQLModel.metadata.sorted_tables}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _all_rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            for table in sorted(TABLES | {"alembic_version"})
        }
    finally:
        conn.close()


# --- a good file --------------------------------------------------------------------------------


def test_a_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "campaign.db"
    engine = make_engine(str(path))
    try:
        with pytest.raises(DatabaseProblem, match="does not exist"):
            migrate(engine)
    finally:
        engine.dispose()
    assert not (tmp_path / "no").exists()


def test_migrate_creates_the_schema_at_head_on_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    engine = make_engine(str(path))
    try:
        assert migrate(engine) is None  # nothing to back up
        with engine.connect() as conn:
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars()
            assert list(version) == [head_revision()]
            assert set(inspect(conn).get_table_names()) == TABLES | {"alembic_version"}
    finally:
        engine.dispose()
    assert db.inspect_file(path) == head_revision()
    assert not (path.parent / "backups").exists()


def test_connections_use_wal_full_sync_and_foreign_keys(engine: Engine) -> None:
    with engine.connect() as conn:
        pragmas = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
        }
    assert pragmas == {
        "journal_mode": "wal",
        "synchronous": 2,
        "foreign_keys": 1,
        "busy_timeout": 5000,
    }


def test_foreign_keys_are_enforced(factory: SessionFactory) -> None:
    with pytest.raises(IntegrityError, match="FOREIGN KEY"), session_scope(factory) as session:
        session.add(tracker.models.Side(campaign_id=12345, name="Nobody's"))
    with session_scope(factory) as session:
        assert session.exec(select(func.count()).select_from(tracker.models.Side)).one() == 0


# SQLite cannot reflect an index on an expression (the library's entries in any case, 0015):
# Alembic leaves it out of the comparison; tests/services/test_library_identity.py checks it.
@pytest.mark.filterwarnings("ignore:.*expression-based index:UserWarning")
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_models_match_the_migrations(engine: Engine) -> None:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, SQLModel.metadata) == []


def test_session_scope_rolls_back_on_error(factory: SessionFactory) -> None:
    with pytest.raises(RuntimeError), session_scope(factory) as session:
        session.add(Campaign(name="Half written"))
        session.flush()
        raise RuntimeError("boom")
    assert campaigns.list_campaigns(factory) == []


def test_migrate_on_a_file_already_at_head_makes_no_backup(tmp_path: Path) -> None:
    path = real_campaign_file(tmp_path / "campaign.db")
    before = _all_rows(path)
    engine = make_engine(str(path))
    try:
        assert migrate(engine) is None
    finally:
        engine.dispose()
    assert not (tmp_path / "backups").exists()
    assert _all_rows(path) == before


def test_backup_file_copies_every_row_into_backups_beside_the_file(tmp_path: Path) -> None:
    path = real_campaign_file(tmp_path / "campaign.db")
    before = _sha(path)
    backup = backup_file(path, "before-test")
    assert backup.parent == tmp_path / "backups"
    assert backup.name.startswith("campaign-") and backup.name.endswith("-before-test.db")
    assert _all_rows(backup) == _all_rows(path)
    assert sum(len(rows) for rows in _all_rows(backup).values()) > 20
    assert _sha(path) == before
    # The copy is a usable campaign file in its own right.
    engine = make_engine(str(backup))
    try:
        assert migrate(engine) is None
        names = [c.name for c in campaigns.list_campaigns(session_factory(engine))]
        assert names == [demo.SAMPLE_NAME]
    finally:
        engine.dispose()


def test_migrate_backs_up_a_file_at_an_older_revision_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only one revision exists yet, so pretend tracker's head is newer than the file's.
    path = real_campaign_file(tmp_path / "campaign.db")
    before = _all_rows(path)
    backup = migrate_with_head(path, monkeypatch, "0002_next")
    assert backup is not None and backup.parent == tmp_path / "backups"
    assert "before-0002_next" in backup.name
    assert _all_rows(backup) == before


# --- bad files ----------------------------------------------------------------------------------


def _not_sqlite(folder: Path) -> Path:
    path = folder / "campaign.db"
    path.write_bytes(b"hello" * 100)
    return path


def _truncated(size: Callable[[int], int]) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = real_campaign_file(folder / "campaign.db")
        data = path.read_bytes()
        path.write_bytes(data[: size(len(data))])
        return path

    return make


def _empty(folder: Path) -> Path:
    path = folder / "campaign.db"
    path.write_bytes(b"")
    return path


def _folder(folder: Path) -> Path:
    path = folder / "campaign.db"
    path.mkdir()
    (path / "inside.txt").write_text("keep me")
    return path


def _future(folder: Path) -> Path:
    return future_campaign_file(folder / "campaign.db")


def _other_program(folder: Path) -> Path:
    path = folder / "campaign.db"
    run_sql(path, "CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
    return path


BAD_FILES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "not_sqlite": (_not_sqlite, "not SQLite"),
    "truncated_half": (_truncated(lambda n: n // 2), "damaged"),
    "truncated_1000": (_truncated(lambda n: 1000), "damaged"),
    "empty": (_empty, "empty (0 bytes)"),
    "folder": (_folder, "is a folder"),
    "future": (_future, "newer tracker (schema 9999_future)"),
    "other_program": (_other_program, "another program"),
}


def _fingerprint(path: Path) -> object:
    if path.is_dir():
        return sorted((p.name, p.read_bytes()) for p in path.iterdir())
    return _sha(path)


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_bad_file_is_refused_with_a_helpful_message_and_left_unchanged(
    tmp_path: Path, kind: str
) -> None:
    make, phrase = BAD_FILES[kind]
    path = make(tmp_path)
    before = _fingerprint(path)
    neighbours = sorted(os.listdir(tmp_path))
    message = migrate_refused(str(path))
    assert str(path) in message
    assert phrase in message
    assert any(hint in message for hint in ("--db", "restore", "upgrade tracker"))
    assert "\n" not in message
    assert _fingerprint(path) == before
    assert not (tmp_path / "backups").exists()
    # Nothing new beside it: no backup, and no -wal/-shm (checked on its own below).
    assert sorted(os.listdir(tmp_path)) == neighbours


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_bad_file_leaves_no_wal_or_shm_beside_it(tmp_path: Path, kind: str) -> None:
    path = BAD_FILES[kind][0](tmp_path)
    engine = make_engine(str(path))
    try:
        with pytest.raises(DatabaseProblem):
            migrate(engine)
    finally:
        engine.dispose()
    assert sidecars(path) == []


def test_opening_a_good_file_at_head_leaves_no_wal_or_shm(tmp_path: Path) -> None:
    path = real_campaign_file(tmp_path / "campaign.db")
    assert db.inspect_file(path) == head_revision()
    assert sidecars(path) == []


def _left_file(folder: Path) -> Path:
    """A campaign file with the sample in it, closed cleanly and noted as tracker left it."""
    path = folder / "campaign.db"
    engine = make_engine(str(path))
    migrate(engine)
    demo.create_sample_campaign(session_factory(engine))
    engine.dispose()
    db.remember_left(path)
    return path


def test_a_file_as_tracker_left_it_skips_the_full_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _left_file(tmp_path)
    assert db.left_by_tracker(path)
    scans: list[object] = []
    monkeypatch.setattr(campaign_file, "_check_values", lambda conn: scans.append(conn))
    assert db.inspect_file(path) == head_revision()
    assert scans == []  # no pass over every value
    # A leftover -wal (a crash after the note) means the full checks again.
    path.with_name("campaign.db-wal").write_bytes(b"")
    assert not db.left_by_tracker(path)
    db.inspect_file(path)
    assert len(scans) == 1


def test_a_file_changed_by_another_program_is_checked_in_full(tmp_path: Path) -> None:
    path = _left_file(tmp_path)
    # Another program writes a journal entry whose detail is not JSON.
    conn = sqlite3.connect(path)
    conn.execute("UPDATE journalentry SET detail = '{cut short' WHERE id = 1")
    conn.commit()
    conn.close()
    assert not db.left_by_tracker(path)
    with pytest.raises(DatabaseProblem, match="damaged"):
        db.inspect_file(path)


def test_a_file_checked_in_full_is_not_checked_again_by_the_same_process_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line checks the file before the first paint, the opening's migration again:
    the second pass over every value is skipped while the file is as the first saw it."""
    path = _left_file(tmp_path)
    path.with_name("campaign.db-wal").write_bytes(b"")  # not as tracker left it
    real = campaign_file._check_values
    scans: list[object] = []

    def counted(conn: sqlite3.Connection) -> None:
        scans.append(conn)
        real(conn)

    monkeypatch.setattr(campaign_file, "_check_values", counted)
    db.inspect_file(path)
    db.inspect_file(path)
    assert len(scans) == 1
    path.with_name("campaign.db-wal").unlink()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE journalentry SET detail = '{cut short' WHERE id = 1")
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseProblem, match="damaged"):  # changed since: checked again
        db.inspect_file(path)
    assert len(scans) == 2
