"""`--db` with a SQLAlchemy URL: a PostgreSQL database works like a file, and every database
that cannot be used is one line on stderr, exit status 2, and nothing written.

The PostgreSQL cases use the throw-away cluster of tests/pg_cluster.py (make test starts it).
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from campaign_files import Outcome, run_main
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from tracker.db import make_engine, migrate, session_factory
from tracker.services import demo, exchange

PG_URL = os.environ.get("TRACKER_TEST_PG", "")
needs_pg = pytest.mark.skipif(not PG_URL, reason="needs the cluster of tests/pg_cluster.py")


def _one_line_refusal(outcome: Outcome, *words: str) -> str:
    assert outcome.status == 2, outcome
    assert outcome.out == ""
    line = outcome.err
    assert line.startswith("tracker: ") and line.count("\n") == 1, line
    for word in words:
        assert word in line, line
    return line


def _url(database: str, password: str | None = None) -> str:
    url = make_url(PG_URL).set(database=database)
    if password is not None:
        url = url.set(password=password)
    return url.render_as_string(hide_password=False)


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """A new, empty PostgreSQL database of its own; dropped afterwards."""
    name = f"t_{os.getpid()}_{os.urandom(3).hex()}"
    admin = create_engine(_url("postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield _url(name)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


def _tables(url: str) -> dict[str, list[tuple[object, ...]]]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            names = sorted(inspect(conn).get_table_names())
            return {name: [tuple(r) for r in conn.execute(text(f'SELECT * FROM "{name}"'))]
                    for name in names}  # fmt: skip
    finally:
        engine.dispose()


def test_a_url_of_no_database_tracker_knows_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for url in ("nosuchdb://club:s3cret@host/campaign", "mysql://club:s3cret@host/campaign"):
        outcome = run_main(capsys, ["--db", url, "export", "x", "--to", "x.json"])
        line = _one_line_refusal(outcome, "not a database tracker can use", "postgresql+psycopg")
        assert "s3cret" not in line


def test_a_server_that_does_not_answer_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql+psycopg://club:s3cret@127.0.0.1:{port}/campaign"
    line = _one_line_refusal(run_main(capsys, ["--db", url]), "cannot open", "Connection refused")
    assert "s3cret" not in line and "club:***@" in line


@needs_pg
def test_wrong_credentials_and_a_missing_database_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _one_line_refusal(run_main(capsys, ["--db", _url("tracker_test", "wrong-pass")]),
                             "password authentication failed")  # fmt: skip
    assert "wrong-pass" not in line
    _one_line_refusal(run_main(capsys, ["--db", _url("no_such_database")]), "does not exist")


@needs_pg
def test_a_database_of_another_program_is_refused_and_left_alone(
    capsys: pytest.CaptureFixture[str], fresh_database: str
) -> None:
    engine = create_engine(fresh_database)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE invoices (id serial PRIMARY KEY, total numeric)"))
        conn.execute(text("INSERT INTO invoices (total) VALUES (12.5)"))
    engine.dispose()
    before = _tables(fresh_database)
    _one_line_refusal(run_main(capsys, ["--db", fresh_database]), "another program")
    assert _tables(fresh_database) == before


@needs_pg
def test_a_newer_schema_is_refused_and_left_alone(
    capsys: pytest.CaptureFixture[str], fresh_database: str
) -> None:
    engine = make_engine(fresh_database)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    before = _tables(fresh_database)
    for argv in ([], ["--umpire"]):
        _one_line_refusal(run_main(capsys, [*argv, "--db", fresh_database]), "newer tracker")
    assert _tables(fresh_database) == before


@needs_pg
def test_the_umpire_cannot_create_a_schema_in_an_empty_database(
    capsys: pytest.CaptureFixture[str], fresh_database: str
) -> None:
    _one_line_refusal(run_main(capsys, ["--umpire", "--db", fresh_database]), "without --umpire")
    assert _tables(fresh_database) == {}


@needs_pg
def test_a_campaign_moves_from_a_file_to_postgresql_and_back_unchanged(
    capsys: pytest.CaptureFixture[str], fresh_database: str, tmp_path: Path
) -> None:
    """The same migrations and services on both: the sample campaign exported from a file,
    imported into PostgreSQL through the command line, exported again, byte for byte."""
    engine = make_engine(str(tmp_path / "campaign.db"))
    migrate(engine)
    campaign_id = demo.create_sample_campaign(session_factory(engine))
    document = exchange.export_campaign(session_factory(engine), campaign_id=campaign_id)
    engine.dispose()
    source = tmp_path / "sample.json"
    source.write_text(exchange.dumps(document), encoding="utf-8")
    name = document["tables"]["campaign"][0]["name"]

    imported = run_main(capsys, ["--db", fresh_database, "import", str(source)])
    assert imported.status == 0, imported
    again = tmp_path / "again.json"
    exported = run_main(capsys, ["--db", fresh_database, "export", name, "--to", str(again)])
    assert exported.status == 0, exported
    assert again.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    assert json.loads(again.read_text())["schema"] == document["schema"]
