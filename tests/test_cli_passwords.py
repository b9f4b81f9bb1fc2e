"""A database's password is never printed: every command, given an address that carries a
generated password in each form the tracker takes one, prints none of it (nor a fragment that
matters, tests/passwords.py) in its success and its error output, nor in a crash's log.

Error output against a port nothing listens on; success output against the throw-away
PostgreSQL of tests/pg_cluster.py, with a role whose password each example sets.
"""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from campaign_files import Outcome, run_main
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from passwords import leaks, libpq_form, typed_password, url_forms
from serving import BANNER_TOKEN, START_TIMEOUT, free_port
from sqlalchemy.engine import make_url

from tracker import cli, redaction
from tracker.db import make_engine, migrate, session_factory
from tracker.services import demo, exchange

PG_URL = os.environ.get("TRACKER_TEST_PG", "")
needs_pg = pytest.mark.skipif(not PG_URL, reason="needs the cluster of tests/pg_cluster.py")
FUZZ = settings(
    max_examples=examples(16),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# Each example runs five commands against the server.
SUCCESS_FUZZ = settings(FUZZ, max_examples=examples(8))
ROLE = "tracker_pw"
DATABASE = "tracker_pw"
# Encoded, these reach the server whole: their commands must succeed.
ENCODED = ("user:password@, percent-encoded", "user:password@, as SQLAlchemy writes it",
           "?password=, encoded", "?password= after another parameter")  # fmt: skip


def closed_port() -> int:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


CLOSED_FORMS = url_forms(host="127.0.0.1", port=closed_port())
# What each form's commands say with no password, by (form, folder): drawn once.
BASELINES: dict[tuple[str, str], str] = {}


def commands(folder: Path) -> list[tuple[list[str], list[str]]]:
    """Every command, as (options before --db, arguments after it)."""
    out = folder / "out"
    return [
        ([], []),
        (["--umpire"], []),
        ([], ["demo"]),
        ([], ["export", "Norway", "--to", f"{out}.json"]),
        ([], ["import", str(folder / "norway.json")]),
        ([], ["import-csv", "ships", str(folder / "ships.csv"), "--into", "Norway"]),
        ([], ["library", "import", str(folder / "ships.csv")]),
        ([], ["library", "export", f"{out}.csv"]),
        ([], ["backups"]),
        ([], ["restore", str(folder / "campaign.db")]),
        ([], ["print", "1", "--html", f"{out}.html"]),
        ([], ["report", "Norway", "--html", f"{out}-report.html"]),
        ([], ["serve", "--port", str(free_port())]),
    ]


def run_all(
    capsys: pytest.CaptureFixture[str], address: str, argvs: list[tuple[list[str], list[str]]]
) -> list[Outcome]:
    return [run_main(capsys, [*before, "--db", address, *after]) for before, after in argvs]


def said(outcomes: list[Outcome]) -> str:
    return "\n".join(outcome.out + outcome.err for outcome in outcomes)


@pytest.fixture
def no_database_remembered() -> Iterator[None]:
    yield
    redaction.remember("")


@FUZZ
@given(data=st.data())
def test_no_command_prints_a_password_when_the_database_cannot_be_opened(
    data: st.DataObject,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    config_dir: Path,
    no_database_remembered: None,
) -> None:
    form = data.draw(st.sampled_from([*CLOSED_FORMS, "libpq key=value"]), label="form")
    password = data.draw(typed_password(form), label="password")
    write = CLOSED_FORMS.get(form, libpq_form)
    argvs = commands(tmp_path)
    outcomes = run_all(capsys, write(password), argvs)
    key = (form, str(tmp_path))
    if key not in BASELINES:
        BASELINES[key] = said(run_all(capsys, write(""), argvs))
    baseline = BASELINES[key]
    assert all(outcome.status != 0 for outcome in outcomes[:2]), outcomes
    assert leaks(said(outcomes), password, baseline) == [], said(outcomes)
    assert list((config_dir / "crashes").glob("*")) == []  # refused, not crashed


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("postgresql+psycopg://club:s3cr@tpw0rd@127.0.0.1:5432/norway", "more than one @"),
        ("postgresql+psycopg://club:s3c@r:tpw0rd@127.0.0.1:5432/norway", "not a database"),
        ("host=127.0.0.1 dbname=norway password='s3cr tpw0rd'", "libpq connection string"),
    ],
)
def test_an_address_tracker_cannot_read_as_meant_is_one_line(
    address: str, words: str, capsys: pytest.CaptureFixture[str], no_database_remembered: None
) -> None:
    """A second @ (SQLAlchemy would end the password at the first), a port that is no number
    (what an @ and a : in a password leave), a libpq string (which would name a file)."""
    for before, after in commands(Path("/nonexistent")):
        outcome = run_main(capsys, [*before, "--db", address, *after])
        assert outcome.status == 2 and outcome.out == "", outcome
        assert outcome.err.count("\n") == 1 and words in outcome.err, outcome
        assert "%40" in outcome.err and "tpw0rd" not in outcome.err, outcome


# --- success, on PostgreSQL -----------------------------------------------------------------


def admin_execute(statement: str, **values: str) -> None:
    """A statement of the cluster's administrator, values as SQL literals (psycopg's own)."""
    import psycopg
    from psycopg import sql

    admin = make_url(PG_URL).set(drivername="postgresql", database="postgres")
    literal = {name: sql.Literal(value) for name, value in values.items()}
    with psycopg.connect(admin.render_as_string(hide_password=False), autocommit=True) as conn:
        conn.execute(sql.SQL(statement).format(**literal))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def campaign_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A database of its own holding the sample campaign, reached as ROLE (a superuser whose
    password each test sets); the folder of a campaign document to import."""
    folder = tmp_path_factory.mktemp("passwords")
    admin_execute(f'CREATE ROLE "{ROLE}" LOGIN SUPERUSER')
    admin_execute(f'CREATE DATABASE "{DATABASE}" OWNER "{ROLE}"')
    try:
        engine = make_engine(str(folder / "sample.db"))
        migrate(engine)
        campaign = demo.create_sample_campaign(session_factory(engine))
        document = exchange.export_campaign(session_factory(engine), campaign_id=campaign)
        engine.dispose()
        (folder / "norway.json").write_text(exchange.dumps(document), encoding="utf-8")
        url = make_url(PG_URL).set(database=DATABASE)
        assert run_main_quietly(["--db", url.render_as_string(hide_password=False), "import",
                                 str(folder / "norway.json")]) == 0  # fmt: skip
        yield folder
    finally:
        admin_execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        admin_execute(f'DROP ROLE IF EXISTS "{ROLE}"')


def run_main_quietly(argv: list[str]) -> int:
    try:
        return cli.main(argv)
    finally:
        redaction.remember("")


def server_forms() -> dict[str, object]:
    url = make_url(PG_URL)
    return url_forms(host=str(url.host), port=int(url.port or 5432), database=DATABASE, user=ROLE)


SAMPLE = "River Plate, December 1939 (sample)"
# The password each form's baseline is said with.
DULL = "~~~~~~~~~~~~"
COUNTER = itertools.count()
SERVER_BASELINES: dict[str, str] = {}


def success_commands(folder: Path) -> list[tuple[list[str], list[str]]]:
    """Commands that succeed on the server: each import under a name of its own, each file
    written over the last."""
    out = folder / "out"
    return [
        ([], ["import", str(folder / "norway.json"), "--name", f"Imported {next(COUNTER)}"]),
        ([], ["export", SAMPLE, "--to", f"{out}.json", "--force"]),
        ([], ["report", SAMPLE, "--markdown", f"{out}.md", "--force"]),
        ([], ["library", "export", f"{out}.csv", "--force"]),
        ([], ["backups"]),
    ]


def said_with(
    password: str, address: str, folder: Path, capsys: pytest.CaptureFixture[str]
) -> list[Outcome]:
    admin_execute(f'ALTER ROLE "{ROLE}" PASSWORD {{password}}', password=password)
    return run_all(capsys, address, success_commands(folder))


@needs_pg
@SUCCESS_FUZZ
@given(data=st.data())
def test_no_command_prints_a_password_when_it_succeeds(
    data: st.DataObject,
    campaign_server: Path,
    capsys: pytest.CaptureFixture[str],
    no_database_remembered: None,
) -> None:
    forms = server_forms()
    form = data.draw(st.sampled_from(sorted(forms)), label="form")
    password = data.draw(typed_password(form), label="password")
    write = forms[form]
    assert callable(write)
    if form not in SERVER_BASELINES:
        SERVER_BASELINES[form] = said(said_with(DULL, write(DULL), campaign_server, capsys))
    outcomes = said_with(password, write(password), campaign_server, capsys)
    if form in ENCODED:
        assert [outcome.status for outcome in outcomes] == [0, 0, 0, 0, 2], said(outcomes)
        assert "imported 'Imported" in outcomes[0].out
    assert leaks(said(outcomes), password, SERVER_BASELINES[form]) == [], said(outcomes)


@needs_pg
@pytest.mark.parametrize("form", ["user:password@, percent-encoded", "?password=, encoded"])
def test_the_serve_banner_prints_no_password(campaign_server: Path, form: str) -> None:
    password = "p@ss:w/rd?#%&= 1é"
    admin_execute(f'ALTER ROLE "{ROLE}" PASSWORD {{password}}', password=password)
    write = server_forms()[form]
    assert callable(write)
    address = write(password)
    port = free_port()
    done = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", address, "serve", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert done.stdout is not None
        first, second = done.stdout.readline(), done.stdout.readline()
    finally:
        done.kill()
        _, err = done.communicate(timeout=START_TIMEOUT)
    assert first.startswith(f"tracker: serving postgresql+psycopg://{ROLE}"), first + err
    assert BANNER_TOKEN.match(second.strip()), second
    assert leaks(first + second + err, password, write("")) == [], first + err


def test_a_crash_says_no_password_and_logs_none(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    config_dir: Path,
    no_database_remembered: None,
) -> None:
    password = "0p3n-S3same:@/"
    address = CLOSED_FORMS["?password=, encoded"](password)

    def crash(engine: object, target: str, *, umpire: bool) -> None:
        raise RuntimeError(f"the driver said {target!r} ({password})")

    engine = SimpleNamespace(dispose=lambda: None)  # disposed as the crash goes by
    monkeypatch.setattr(cli, "connect", lambda target, read_only: engine)
    monkeypatch.setattr(cli, "open_database", crash)
    monkeypatch.setattr(sys, "argv", ["tracker", "--db", address, "export", "x", "--to", "y"])
    with pytest.raises(SystemExit) as exit_:
        cli.run()
    assert exit_.value.code == cli.EXIT_CRASH
    err = capsys.readouterr().err
    logs = list((config_dir / "crashes").glob("*.log"))
    assert len(logs) == 1 and "the driver said" in logs[0].read_text()
    for text_ in (err, logs[0].read_text()):
        assert leaks(text_, password, "") == [], text_
