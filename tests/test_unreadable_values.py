"""A value tracker cannot read (of another type than its column's, a time that is no time, JSON
that does not parse), in any column of any table, is refused with the file named, never a crash:
written by another program that then put the file's size and modification time back (which
skipped the checks at open), or written while the app runs."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from campaign_files import full_sample_campaign, migrated_engine, press_to, run_main
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.dialects import sqlite
from sqlmodel import SQLModel

import tracker.cli
from tracker import campaign_file
from tracker.app import TrackerApp
from tracker.db import DatabaseProblem, make_engine, session_factory
from tracker.screens.campaign import CampaignScreen
from tracker.services import campaigns
from tracker.services.demo import SAMPLE_NAME


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A campaign file with rows in every table, checkpointed (made once for the module)."""
    path = tmp_path_factory.mktemp("filled") / "campaign.db"
    engine = migrated_engine(path)
    full_sample_campaign(session_factory(engine))
    engine.dispose()
    return path


def _columns() -> list[tuple[str, str, str]]:
    """(table, column, declared type in SQLite) of every column of every table of the schema,
    but the row ids (SQLite itself refuses anything but a whole number there)."""
    return [(table.name, column.name, str(column.type.compile(dialect=sqlite.dialect())))
            for table in SQLModel.metadata.sorted_tables if table.name != "alembic_version"
            for column in table.columns if column.name != "id"]  # fmt: skip


def _bad_values(table: str, column: str, declared: str) -> list[Any]:
    """Values SQLite keeps as they are in such a column (its type affinity turns the text "12"
    into a number in an INTEGER column, and a number into text in a VARCHAR one), none of
    which tracker writes there."""
    shape = campaign_file.JSON_COLUMNS.get((table, column))
    if shape is not None:
        other = "[1, 2]" if shape == "object" else '{"a": 1}'
        return ['{"cut short', "[1, 2", "5", '"text"', "null", other, b"\x00{}"]
    if declared.startswith(("INTEGER", "BOOLEAN")):
        return ["abc", "3 knots", 1.5, b"\x01"]
    if declared.startswith("DATETIME"):
        return ["not a time", "2026-13-45 25:61:00", 20261130, 1.5, b"\x02"]
    return [b"\x03", b"Exeter"]  # VARCHAR


COLUMNS = _columns()


@st.composite
def damage(draw: st.DrawFn) -> tuple[str, str, Any]:
    table, column, declared = draw(st.sampled_from(COLUMNS))
    return table, column, draw(st.sampled_from(_bad_values(table, column, declared)))


def test_every_column_of_every_table_has_its_values_checked() -> None:
    """The class: whatever its table, a column's values are checked by its declared type."""
    unchecked = [(table, column) for table, column, declared in COLUMNS
                 if campaign_file._value_faults(table, column, declared) is None]  # fmt: skip
    assert unchecked == []
    kinds = {declared.split("(")[0] for _, _, declared in COLUMNS}
    assert kinds == {"INTEGER", "BOOLEAN", "VARCHAR", "DATETIME"}, kinds


def _damaged_behind_the_mark(path: Path, table: str, column: str, value: Any) -> None:
    """The file as tracker left it, then a value changed by another program, which puts the
    file's size and modification time back."""
    campaign_file.remember_left(path)
    before = path.stat()
    conn = sqlite3.connect(path)
    try:
        with conn:
            changed = conn.execute(
                f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = '
                f'(SELECT min(rowid) FROM "{table}")', (value,)
            ).rowcount  # fmt: skip
    finally:
        conn.close()
    assert changed == 1, f"{table} has no row"
    assert not path.with_name(path.name + "-wal").exists()
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@settings(
    max_examples=examples(40),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(bad=damage())
def test_a_value_of_a_wrong_kind_put_behind_the_files_mark_is_refused_naming_the_file(
    filled: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
    bad: tuple[str, str, Any],
) -> None:  # fmt: skip
    table, column, value = bad
    path = tmp_path_factory.mktemp("play") / "campaign.db"
    path.write_bytes(filled.read_bytes())
    _damaged_behind_the_mark(path, table, column, value)
    # The export reads the whole campaign, every table.
    run = run_main(capsys, ["--db", str(path), "export", SAMPLE_NAME, "--to",
                            str(path.with_name("out.json"))])  # fmt: skip
    assert (run.status, run.out) == (2, ""), (bad, run)
    [line] = run.err.splitlines()
    assert line.startswith(f"tracker: {path} is damaged ({table}.{column} of row "), line
    assert "restore it from" in line
    assert not path.with_name("out.json").exists()
    with pytest.raises(DatabaseProblem, match=f"{table}.{column}"):  # the app's check too
        campaign_file.inspect_file(path)


async def test_a_value_written_while_the_app_runs_ends_it_refusing_the_file_not_crashing(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Opening the record sheet of a ship another program gave a Structure of 'abc' ended the
    app as a crash: it is the file that is refused, as at open, exit status 2."""
    path = tmp_path / "campaign.db"
    path.write_bytes(filled.read_bytes())
    engine = make_engine(str(path))
    factory = session_factory(engine)
    campaign_id = campaigns.list_campaigns(factory)[0].id
    app = TrackerApp(factory, open_campaign_id=campaign_id)
    with pytest.raises(ValueError, match="abc"):
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            if not isinstance(app.screen, CampaignScreen):
                await press_to(pilot, "enter", screen=CampaignScreen)
            conn = sqlite3.connect(path)
            with conn:
                conn.execute("UPDATE ship SET structure_now = 'abc'")
            conn.close()
            await pilot.press("enter")  # the first squadron's record sheet
            await pilot.pause()
    engine.dispose()
    assert app.crash is not None
    status = tracker.cli.crashed(app.crash, app.crash_path, str(path))
    [line] = capsys.readouterr().err.splitlines()
    assert status == 2
    assert line.startswith(f"tracker: {path} is damaged (ship.structure_now of row "), line
