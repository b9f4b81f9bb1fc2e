"""One PostgreSQL database shared by a club: trackers starting at once on a new database all
open it, changes (the schema's upgrade among them) take turns, and what the player is told after
a failed upgrade, or of a damaged schema, fits a server's database, not a campaign file.

Each test makes a database of its own on the cluster of tests/pg_cluster.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pg_cluster
import pytest
from campaign_files import migrate_refused
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

import tracker.db.engine
from tracker.db import (
    DatabaseProblem,
    check_schema,
    head_revision,
    make_engine,
    migrate,
    session_factory,
    session_scope,
)
from tracker.errors import DatabaseUnavailable
from tracker.services import campaigns

PG_URL = os.environ.get("TRACKER_TEST_PG", "")
pytestmark = pytest.mark.skipif(not PG_URL, reason="needs the cluster of tests/pg_cluster.py")
STARTS = 4  # players starting the tracker at the same moment


@pytest.fixture
def new_database() -> Iterator[str]:
    """A new, empty database of this test's own."""
    with pg_cluster.new_database(PG_URL) as url:
        yield url


def _revisions(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [row[0] for row in conn.execute(text("SELECT version_num FROM alembic_version"))]
    finally:
        engine.dispose()


# A player starting the tracker: the command line as the console script runs it, held at the
# door (imports done) until every player is there.
PLAYER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import alembic.command, tracker.db, tracker.models
    from tracker.cli import main

    url, go, out = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    sys.exit(main(["--db", url, "library", "export", out]))
    """
)


def test_trackers_starting_at_once_on_a_new_database_all_open_it(
    new_database: str, tmp_path: Path
) -> None:
    """Each start upgrades the empty database to head; they take turns, and those that come
    after the first find the schema at head and open it."""
    go = tmp_path / "go"
    players = [
        subprocess.Popen(
            [sys.executable, "-c", PLAYER, new_database, str(go), str(tmp_path / f"{n}.csv")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(STARTS)
    ]
    try:
        for player in players:
            assert player.stdout is not None
            assert player.stdout.readline().strip() == "ready"
        go.touch()
        outputs = [player.communicate(timeout=300) for player in players]
    finally:
        for player in players:
            player.kill()
    said = [err for _, err in outputs]
    assert [player.returncode for player in players] == [0] * STARTS, said
    assert _revisions(new_database) == [head_revision()]


@pytest.fixture
def held(new_database: str) -> Iterator[Callable[[], None]]:
    """The database's write lock held by another program's change until the test calls the
    function given: it lets that change end (a waiter never sees it ended in the meantime)."""
    other = create_engine(new_database)
    conn = other.connect()
    lock = tracker.db.engine.PG_WRITE_LOCK
    conn.execute(text(f"SELECT pg_advisory_xact_lock({lock})"))
    try:
        yield conn.commit
    finally:
        conn.close()
        other.dispose()


def _wait_for_a_waiter(url: str, gone: threading.Thread) -> None:
    """Until a session of the database waits for the write lock (pg_locks shows it), or the
    thread that was to wait has ended instead."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    query = text(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    )
    try:
        with engine.connect() as conn:
            while gone.is_alive() and not conn.execute(query).scalar():
                conn.execute(text("SELECT pg_sleep(0.01)"))
    finally:
        engine.dispose()


def test_an_upgrade_waits_for_the_write_lock_as_long_as_another_holds_it(
    new_database: str, held: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change gives up after its wait (cut to 1 ms here); a start's upgrade waits out
    another start's, however long, then opens the database."""
    monkeypatch.setattr(tracker.db.engine, "PG_WRITE_WAIT_MS", 1)
    engine = make_engine(new_database)
    outcome: list[object] = []

    def start() -> None:
        try:
            outcome.append(migrate(engine))
        except Exception as exc:  # said by the assertion below
            outcome.append(exc)

    upgrade = threading.Thread(target=start)
    try:
        upgrade.start()
        _wait_for_a_waiter(new_database, upgrade)
        assert outcome == []  # still waiting, past the change's wait
        held()  # the other change ends
        upgrade.join()
        assert outcome == [None]
        assert _revisions(new_database) == [head_revision()]
    finally:
        upgrade.join()
        engine.dispose()


def test_a_change_waits_its_turn_then_is_told_the_database_was_held(
    new_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past its wait (5 s, cut to 1 ms here), a change is told another one held the database,
    and nothing of it is written."""
    setup = make_engine(new_database)
    migrate(setup)
    setup.dispose()
    monkeypatch.setattr(tracker.db.engine, "PG_WRITE_WAIT_MS", 1)
    engine = make_engine(new_database)
    other = make_engine(new_database)
    try:
        with session_scope(session_factory(other)) as session:
            session.connection()  # begun: the write lock is the other program's
            with pytest.raises(DatabaseUnavailable, match="held the database"):
                campaigns.create_campaign(session_factory(engine), name="While held")
        campaigns.create_campaign(session_factory(engine), name="Its turn")
        names = [c.name for c in campaigns.list_campaigns(session_factory(engine))]
        assert names == ["Its turn"]
    finally:
        engine.dispose()
        other.dispose()


def _run_sql(url: str, *statements: str) -> None:
    """Statements run on the database as another program would, in one transaction."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(text(statement))
    finally:
        engine.dispose()


def test_a_failed_upgrade_on_a_server_says_what_a_club_can_do_not_tracker_backups(
    new_database: str,
) -> None:
    """A database that says it is at the first schema but holds none of its tables: the
    upgrade fails; the advice is the server's dump, which a club keeps, not the tracker's file
    backups, which a server's database has none of."""
    _run_sql(new_database, "CREATE TABLE alembic_version (version_num varchar(32) PRIMARY KEY)",
             "INSERT INTO alembic_version VALUES ('0001')")  # fmt: skip
    said = migrate_refused(new_database)
    assert said.startswith("could not upgrade") and "nothing was written" in said
    assert "pg_restore" in said and "tracker backups" not in said
    assert "tracker-test" not in said  # the password


def test_a_damaged_schema_on_a_server_says_what_a_club_can_do_not_tracker_backups(
    new_database: str,
) -> None:
    engine = make_engine(new_database)
    try:
        migrate(engine)
        _run_sql(new_database, "ALTER TABLE ship DROP COLUMN radar")
        with pytest.raises(DatabaseProblem) as refused:
            check_schema(engine, SQLModel.metadata)
    finally:
        engine.dispose()
    said = str(refused.value)
    assert "lacks ship.radar" in said
    assert "pg_restore" in said and "tracker backups" not in said and "--db" in said


def test_a_password_with_percent_encoded_characters_opens_a_new_database(
    new_database: str,
) -> None:
    """A password holding "@" and "%" is percent-encoded in the URL ("%40", "%25"): the first
    start upgrades the new database with it, as any start does."""
    password = "s@fe%pw:1"
    role = f"r_{os.getpid()}_{os.urandom(2).hex()}"
    _run_sql(new_database, f"CREATE ROLE {role} LOGIN PASSWORD '{password}'",
             f"ALTER DATABASE \"{make_url(new_database).database}\" OWNER TO {role}")  # fmt: skip
    url = make_url(new_database).set(username=role, password=password)
    engine = make_engine(url.render_as_string(hide_password=False))
    try:
        assert "%40" in url.render_as_string(hide_password=False)
        migrate(engine)
    finally:
        engine.dispose()
    assert _revisions(new_database) == [head_revision()]
