"""No plain copy outlives the passphrase (docs/RULES.md §Secrets): backups sealed again, a
backup that cannot be rewritten named and deletable, a checkpoint blocked by another program's
read transaction retried, reported, and finished at the next open."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from service_helpers import World
from sqlalchemy import Engine

from tracker import db
from tracker.cli import open_database
from tracker.db import (
    SessionFactory,
    checkpoint,
    inspect_file,
    list_backups,
    make_engine,
    migrate,
    restore_backup,
    session_factory,
)
from tracker.services import backups, campaigns, markers, mines, roster, scenarios, sealing
from tracker.services.errors import InvalidInput
from tracker.services.roster import UnitFields

pytestmark = pytest.mark.sqlite_only("backups and the write-ahead log are SQLite files")

PASS = "Kretschmer99"
NOTE = "behind the boom at Scapa"


def _secrets(factory: SessionFactory, world: World, passphrase: str | None = None) -> None:
    unit = roster.save_unit(factory, side_id=world.red_id, fields=UnitFields(
        name="U-47", unit_type="submarine", points=10, hull_points=2))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=2, sectors=["E9", "E8"],
                          passphrase=passphrase)  # fmt: skip
    field = mines.sow_minefield(factory, side_id=world.red_id, laid_by="surface", sector="F3",
                                layer_name="Ulm", secret=True, notes=NOTE,
                                passphrase=passphrase)  # fmt: skip
    mines.reveal(factory, minefield_id=field, passphrase=passphrase)
    mines.sow_minefield(factory, side_id=world.red_id, laid_by="surface", sector="F4",
                        secret=True, notes=NOTE, passphrase=passphrase)  # fmt: skip


def _plain_notes(path: Path) -> int:
    """How often the rows of the file hold NOTE as plain text; only a revealed minefield may."""
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        found = 0
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                found += sum(value.count(NOTE) for value in row if isinstance(value, str))
        shown = conn.execute("SELECT count(*) FROM minefield WHERE notes = ?", (NOTE,)).fetchone()
        assert shown == (1,), "the unrevealed minefield's note is plain"
        return found
    finally:
        conn.close()


@pytest.fixture
def backed_up(factory: SessionFactory, world: World, db_path: Path) -> list[Path]:
    """Two backups of the campaign file taken while its notes were plain."""
    _secrets(factory, world)
    taken = [backups.back_up(factory, reason=f"closed-scenario-{n}").path for n in (1, 2)]
    assert all(path is not None and b"plain:" in path.read_bytes() for path in taken)
    return [path for path in taken if path is not None]


def test_setting_a_passphrase_seals_the_notes_in_every_backup(
    factory: SessionFactory, world: World, db_path: Path, backed_up: list[Path]
) -> None:
    result = sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    assert result == sealing.Sealed(plain_backups=(), checkpointed=True)
    for path in backed_up:
        data = path.read_bytes()
        assert b"plain:" not in data
        # The revealed minefield's note alone is plain, in its rows only (none left in the
        # pages the sealing freed).
        assert data.count(NOTE.encode()) == _plain_notes(path) > 0
        assert not Path(f"{path}-wal").exists()
        engine = make_engine(str(path))
        try:  # the backup opens with the same passphrase, its notes whole
            view = roster.roster(session_factory(engine), side_id=world.red_id, owner=True,
                                 passphrase=PASS)  # fmt: skip
            assert sorted(marker.real for marker in view.markers) == [False, True]
        finally:
            engine.dispose()
    assert b"plain:" not in db_path.read_bytes()


def test_a_backup_that_cannot_be_rewritten_is_named_and_can_be_deleted(
    factory: SessionFactory, world: World, db_path: Path, backed_up: list[Path]
) -> None:
    locked = backed_up[0]
    with locked.open("r+b") as damaged:  # a header SQLite no longer reads: it cannot be rewritten
        damaged.write(b"not a database!!")
    result = sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    assert result.plain_backups == (locked,)
    assert b"plain:" in locked.read_bytes() and b"plain:" not in backed_up[1].read_bytes()
    assert sealing.delete_backups(factory, paths=result.plain_backups) == 1
    assert [b.path for b in list_backups(db_path)] == [backed_up[1]]


@pytest.fixture
def reader(db_path: Path) -> Iterator[sqlite3.Connection]:
    """Another program with a read transaction open on the campaign file."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    yield conn
    conn.close()


def test_a_checkpoint_blocked_by_another_reader_is_reported_and_the_next_open_finishes_it(
    factory: SessionFactory, world: World, db_path: Path, reader: sqlite3.Connection,
    engine: object,
) -> None:  # fmt: skip
    _secrets(factory, world)
    assert checkpoint(factory)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM submarker").fetchone()  # holds its snapshot
    result = sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    assert result.checkpointed is False
    assert b"plain:" in db_path.read_bytes()  # the main file still has the old pages
    reader.execute("COMMIT")
    reopened = make_engine(str(db_path))
    try:
        open_database(reopened, str(db_path), umpire=False)
        assert b"plain:" not in db_path.read_bytes()
        assert not Path(f"{db_path}-wal").exists() or Path(f"{db_path}-wal").stat().st_size == 0
    finally:
        reopened.dispose()


def test_a_backup_with_nothing_plain_in_it_is_left_as_it_was(
    factory: SessionFactory, world: World, db_path: Path
) -> None:
    early = backups.back_up(factory, reason="closed-scenario-0").path  # before any secret
    assert early is not None
    before = early.read_bytes()
    _secrets(factory, world)
    result = sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    assert result.plain_backups == () and early.read_bytes() == before


HIDDEN = ("plain:", "off the Thames estuary", "Wolfsburg", "Dogger K7")


def _hidden_secrets(factory: SessionFactory, world: World) -> None:
    """Red's markers and a secret minefield, none revealed: each word of HIDDEN is secret."""
    unit = roster.save_unit(factory, side_id=world.red_id, fields=UnitFields(
        name="U-48", unit_type="submarine", points=10, hull_points=2))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=["E9", "E8"])
    mines.sow_minefield(
        factory,
        side_id=world.red_id,
        laid_by="surface",
        sector="Dogger K7",
        layer_name="Wolfsburg",
        secret=True,
        notes="off the Thames estuary",
    )


def _plain_left(path: Path) -> list[str]:
    """What of Red's plain secrets a file still holds, in any byte."""
    data = path.read_bytes()
    return [word for word in HIDDEN if word.encode() in data]


def test_a_backup_taken_before_the_side_was_renamed_is_sealed_and_restores_locked(
    factory: SessionFactory, world: World, db_path: Path
) -> None:
    """The side's copy in a backup is found by its id, not by its name, which changed since."""
    _hidden_secrets(factory, world)
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    taken = scenarios.close_scenario(factory, scenario_id=world.scenario_id).backup
    assert taken is not None and _plain_left(taken)
    campaigns.update_side(factory, side_id=world.red_id, name="Kriegsmarine", nation="Germany")
    result = sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    assert result.plain_backups == ()
    assert _plain_left(taken) == []
    restore_backup(taken, db_path)
    with pytest.raises(InvalidInput, match="locked"):  # restored, the side is locked as it was
        roster.roster(factory, side_id=world.red_id, owner=True)
    view = roster.roster(factory, side_id=world.red_id, owner=True, passphrase=PASS)
    assert view.side_name == "Red" and sorted(m.real for m in view.markers) == [False, True]


def test_a_backup_taken_before_the_ids_were_kept_is_sealed_too(
    factory: SessionFactory, world: World, db_path: Path, engine: Engine
) -> None:
    """A backup at schema 0011 (no ids in it) holds the side under the id the upgrade gave it."""
    _hidden_secrets(factory, world)
    command.downgrade(db._alembic_config(engine), "0011")
    old = backups.back_up(factory, reason="closed-scenario-1").path
    upgrade = migrate(engine)  # the file's own backup before the upgrade: schema 0011 as well
    assert old is not None and upgrade is not None
    assert all(_plain_left(path) and inspect_file(path) == "0011" for path in (old, upgrade))
    campaigns.update_side(factory, side_id=world.red_id, name="Kriegsmarine", nation="Germany")
    result = sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    assert result.plain_backups == ()
    assert _plain_left(old) == [] and _plain_left(upgrade) == []
