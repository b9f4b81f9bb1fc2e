"""Upgrading kept campaign files, one per past schema revision (tests/revision_files, made by
tests/make_revision_files.py), to the newest schema keeps every row and every value; a migration
that fails half way leaves the file exactly as it was, and its backup in place."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from campaign_files import file_sha, reader, run_main, sidecars
from make_revision_files import FOLDER, KNOWN, file_name

from tracker import campaign_file, db
from tracker.db import list_backups, make_engine, migrate, session_factory
from tracker.services import campaigns

GENERATOR = ".venv/bin/python tests/make_revision_files.py"
NAMES = list(KNOWN["campaign.name"])

Dump = dict[str, tuple[list[str], list[tuple[Any, ...]]]]


def _revision(path: Path) -> str:
    conn = reader(path)
    try:
        return str(conn.execute("SELECT version_num FROM alembic_version").fetchone()[0])
    finally:
        conn.close()


def _dump(path: Path) -> Dump:
    """Every table's columns and rows (in rowid order), and the schema itself as a table."""
    conn = reader(path)
    try:
        dump: Dump = {
            "sqlite_master": (
                ["type", "name", "sql"],
                conn.execute(
                    "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
                ).fetchall(),
            )
        }
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]  # fmt: skip
        for table in tables:
            cursor = conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid')
            dump[table] = ([d[0] for d in cursor.description], cursor.fetchall())
        return dump
    finally:
        conn.close()


def _checks(path: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    conn = reader(path)
    try:
        integrity = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        return integrity, conn.execute("PRAGMA foreign_key_check").fetchall()
    finally:
        conn.close()


KEPT = sorted(FOLDER.glob("campaign-*.db"))
PAST = sorted(db.known_revisions() - {db.head_revision()})


def test_a_kept_file_for_every_past_revision() -> None:
    kept = {_revision(path): path.name for path in KEPT}
    missing = [revision for revision in PAST if revision not in kept]
    assert not missing, (
        f"no kept campaign file for schema revision {', '.join(missing)}: run `{GENERATOR}` "
        "and commit the new file in tests/revision_files/"
    )
    assert all(kept[revision] == file_name(revision) for revision in kept)
    assert set(kept) <= db.known_revisions(), "a kept file of a revision no migration makes"


@pytest.mark.parametrize("kept", KEPT, ids=[path.stem for path in KEPT])
def test_a_kept_file_has_two_rows_in_every_table_and_nothing_beside_it(kept: Path) -> None:
    assert sidecars(kept) == [], "a kept file must be checkpointed: no -wal or -shm"
    dump = _dump(kept)
    counts = {table: len(rows) for table, (_, rows) in dump.items() if table != "sqlite_master"}
    assert counts.pop("alembic_version") == 1
    assert len(counts) >= 8 and set(counts.values()) == {2}, counts
    assert _checks(kept) == (["ok"], [])


@pytest.mark.parametrize("kept", KEPT, ids=[path.stem for path in KEPT])
def test_upgrading_a_kept_file_keeps_every_value_and_backs_it_up(
    kept: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept_sha = file_sha(kept)
    path = tmp_path / "campaign.db"
    shutil.copyfile(kept, path)
    before = _dump(path)
    revision = _revision(path)

    # The app's own path: the command line opens (and upgrades) the file, then reads a whole
    # campaign out of it.
    run = run_main(capsys, ["--db", str(path), "export", NAMES[0], "--to", str(tmp_path / "x")])
    assert (run.status, run.err) == (0, "")
    assert _revision(path) == db.head_revision()
    after = _dump(path)
    for table, (columns, rows) in before.items():
        if table in ("sqlite_master", "alembic_version"):
            continue
        new_columns, new_rows = after[table]
        assert set(columns) <= set(new_columns), f"{table} lost a column"
        kept_values = [tuple(row[new_columns.index(c)] for c in columns) for row in new_rows]
        assert kept_values == rows, f"{table}: rows changed by the upgrade"
    assert _checks(path) == (["ok"], [])

    backups = list_backups(path)
    if revision == db.head_revision():
        assert backups == [] and "upgraded" not in run.out
    else:
        [backup] = backups
        assert f"kept as {backup.path}" in run.out
        assert backup.reason == f"before-{db.head_revision()}"
        assert _dump(backup.path) == before
    # The app reads what the upgrade made.
    engine = make_engine(str(path))
    try:
        factory = session_factory(engine)
        assert sorted(c.name for c in campaigns.list_campaigns(factory)) == sorted(NAMES)
        for summary in campaigns.list_campaigns(factory):
            assert campaigns.get_overview(factory, campaign_id=summary.id).sides
    finally:
        engine.dispose()
    assert file_sha(kept) == kept_sha


# In the header style Alembic writes (tracker reads the revision lines itself).
FAILING_MIGRATION = '''"""fails half way (a test's)"""
from typing import Union

import sqlalchemy as sa
from alembic import op

revision: str = '9000_fails'
down_revision: Union[str, None] = '{head}'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ship") as batch_op:
        batch_op.add_column(sa.Column("half_done", sa.Integer(), server_default="0"))
    op.execute("UPDATE campaign SET name = name || ' (changed)'")
    op.execute("DELETE FROM battery")
    op.create_table("halfway", sa.Column("id", sa.Integer(), primary_key=True))
    raise RuntimeError("migration 9000 failed half way")
'''


def test_a_migration_that_fails_half_way_leaves_the_file_exactly_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The newest migration and then one more that changes the file and then fails: every
    change of both is rolled back, and the backup taken first stays."""
    scripts = tmp_path / "migrations"
    shutil.copytree(db.MIGRATIONS_DIR, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    head = db.head_revision()
    (scripts / "versions" / "9000_fails.py").write_text(FAILING_MIGRATION.format(head=head))
    # Alembic runs from db's folder; the revisions are read from campaign_file's.
    monkeypatch.setattr(db.migration, "MIGRATIONS_DIR", scripts)
    monkeypatch.setattr(campaign_file, "MIGRATIONS_DIR", scripts)
    db.revision_chain.cache_clear()  # read from the copy, and afresh after the test
    request.addfinalizer(db.revision_chain.cache_clear)
    folder = tmp_path / "play"
    folder.mkdir()
    path = folder / "campaign.db"
    shutil.copyfile(FOLDER / file_name(PAST[-1]), path)
    before_sha, before = file_sha(path), _dump(path)

    engine = make_engine(str(path))
    try:
        with pytest.raises(RuntimeError, match="failed half way"):
            migrate(engine)
    finally:
        engine.dispose()

    assert file_sha(path) == before_sha
    assert sidecars(path) == []
    [backup] = list_backups(path)
    assert backup.reason == "before-9000_fails"
    assert _dump(backup.path) == before
