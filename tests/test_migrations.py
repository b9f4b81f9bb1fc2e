"""Upgrading a campaign file keeps every row: from each older schema revision to the newest."""

from __future__ import annotations

import atexit
import functools
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from alembic import command
from campaign_files import migrate_refused, sidecars

from tracker import db
from tracker.db import make_engine, migrate

# Rows written with the first schema's SQL, so every later migration has to carry them.
ROWS_AT_0001 = [
    "INSERT INTO campaign (id, name, notes, model_scale, crew_roll_adds_commander, created_at) "
    "VALUES (1, 'Narvik', '', '1/2400', 0, '2026-01-01 00:00:00')",
    "INSERT INTO side (id, campaign_id, name, nation) VALUES (1, 1, 'Royal Navy', 'GB')",
    "INSERT INTO commander (id, campaign_id, name, air, acquisition, training, roll, grade, "
    "modifier_now, radius_now_cm, status) VALUES (1, 1, 'Warburton-Lee', 0, 'random', 3, 1, 1, "
    "-2, 20, 'active')",
    "INSERT INTO squadron (id, side_id, name, air, commander_id, notes) "
    "VALUES (1, 1, '2nd DF', 0, 1, '')",
    "INSERT INTO ship (id, side_id, squadron_id, original_squadron_id, sunk, name, class_name, "
    "type_abbrev, nation, size_modifier, speed_kn, armour_class, structure_max, structure_now, "
    "flotation_max, flotation_now, fire_markers, points_base, torpedoes, sraa_dp, radar, notes) "
    "VALUES (1, 1, 1, 1, 0, 'Hardy', 'H', 'DD', 'GB', 0, 36, '', 4, 3, 3, 3, 1, 120, '', '', '', "
    "'')",
    "INSERT INTO battery (id, ship_id, mount, calibre, guns, ip, range_bands, notes) "
    "VALUES (1, 1, 'turret', '4.7in', 4, '2', '2', '')",
    "INSERT INTO scenario (id, campaign_id, title, position, date, status, turn) "
    "VALUES (1, 1, 'First Narvik', 1, '10 Apr 1940', 'planned', 1)",
    "INSERT INTO journalentry (id, at, campaign_id, kind, summary, detail) "
    "VALUES (1, '2026-01-01 00:00:00', 1, 'ship', 'Added Hardy', '{}')",
]
TABLES = (
    "campaign",
    "side",
    "commander",
    "squadron",
    "ship",
    "battery",
    "scenario",
    "journalentry",
)


def _counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        conn.close()


def _file_at(path: Path, revision: str) -> None:
    """A file holding ROWS_AT_0001, written at 0001 and upgraded by the migrations to
    `revision`: a copy of one made once per test process."""
    shutil.copyfile(_kept_at(revision), path)


@functools.cache
def _kept_at(revision: str) -> Path:
    """The file of _file_at, made from the one a revision earlier (each step of the chain is
    run once, not once for every later revision's test)."""
    path = Path(tempfile.mkdtemp(prefix="tracker-migrations-")) / "campaign.db"
    atexit.register(shutil.rmtree, path.parent, ignore_errors=True)
    down = db.revision_chain()[revision]
    if down is not None:
        shutil.copyfile(_kept_at(down), path)
    engine = make_engine(str(path))
    config = db._alembic_config(engine)
    command.upgrade(config, revision)
    if down is None:
        conn = sqlite3.connect(path)
        for statement in ROWS_AT_0001:
            conn.execute(statement)
        conn.commit()
        conn.close()
    engine.dispose()  # the last connection folds the WAL into the file
    assert sidecars(path) == []
    return path


@pytest.mark.parametrize("revision", sorted(db.known_revisions() - {db.head_revision()}))
def test_upgrading_from_each_revision_keeps_every_row(tmp_path: Path, revision: str) -> None:
    path = tmp_path / "campaign.db"
    _file_at(path, revision)
    before = _counts(path)
    assert set(before.values()) == {1}
    engine = make_engine(str(path))
    backup = migrate(engine)
    engine.dispose()
    assert _counts(path) == before
    assert backup is not None and _counts(backup) == before
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == (
            db.head_revision()
        )
        hardy = conn.execute("SELECT name, structure_now, condition FROM ship").fetchone()
    finally:
        conn.close()
    assert hardy == ("Hardy", 3, "")


def test_the_revisions_read_from_the_files_are_alembics() -> None:
    """tracker reads the migrations' revision lines itself at start-up (no Alembic import):
    the same head, the same revisions, each following the same one as in Alembic's reading."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(db.MIGRATIONS_DIR))
    assert db.head_revision() == script.get_current_head()
    assert db.revision_chain() == {
        rev.revision: rev.down_revision for rev in script.walk_revisions()
    }


def test_a_failed_upgrade_of_a_file_points_to_its_backups(tmp_path: Path) -> None:
    """The file's upgrade fails (a table the next revision makes is there already): nothing
    was written, a copy was kept first, and the advice is the tracker's own backups."""
    path = tmp_path / "campaign.db"
    _file_at(path, "0001")
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE criticaltablerow (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    said = migrate_refused(str(path))
    assert said.startswith(f"could not upgrade {path} (a copy is kept as ")
    assert said.endswith("restore a backup (tracker backups) or choose another file with --db")


def test_0014_a_public_minefield_sown_by_a_roster_submarine_keeps_that_unit(
    tmp_path: Path,
) -> None:
    """Minefields laid before 0014 name a roster submarine by name only: a public one sown as a
    submarine gets the unit of that name on its own side; nothing else is guessed (RULES.md
    §Mines, submarines as minelayers)."""
    path = tmp_path / "campaign.db"
    _file_at(path, "0011")
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO side (id, campaign_id, name, nation) VALUES (2, 1, 'Axis', 'DE')")
    for unit_id, side_id, name, kind in ((1, 1, "U-32", "submarine"), (2, 2, "U-32", "submarine"),
                                         (3, 2, "Z-1", "destroyer")):  # fmt: skip
        conn.execute(
            "INSERT INTO wasunit (id, side_id, name, unit_type, nation, points, speed, armor, "
            "vital_armor, hull_points, damage, attacks, abilities, extra_decoys, notes) VALUES "
            "(?, ?, ?, ?, '', 10, '1', 1, 1, 1, 0, '{}', '', 0, '')",
            (unit_id, side_id, name, kind),
        )
    fields = ((1, 2, "submarine", "U-32", 0), (2, 2, "surface", "U-32", 0),
              (3, 2, "submarine", "", 1), (4, 2, "submarine", "Z-1", 0),
              (5, 1, "submarine", "U-32", 0))  # fmt: skip
    for field_id, side_id, laid_by, layer_name, secret in fields:
        conn.execute(
            "INSERT INTO minefield (id, campaign_id, side_id, sector, status, laid_by, "
            "layer_name, drifting, secret, sealed, notes, path, at) VALUES "
            "(?, 1, ?, 'C4', 'sowing', ?, ?, 0, ?, '', '', '[]', '2026-01-01 00:00:00')",
            (field_id, side_id, laid_by, layer_name, secret),
        )
    conn.commit()
    conn.close()
    engine = make_engine(str(path))
    migrate(engine)
    engine.dispose()
    conn = sqlite3.connect(path)
    try:
        layers = dict(conn.execute("SELECT id, layer_unit_id FROM minefield ORDER BY id"))
    finally:
        conn.close()
    assert layers == {1: 2, 2: None, 3: None, 4: None, 5: 1}


@pytest.mark.parametrize("name", ["100%.db", "%(here)s.db", "50%%.db", "a%40b.db", "%.db"])
def test_a_file_whose_name_holds_a_percent_sign_is_upgraded(tmp_path: Path, name: str) -> None:
    """Alembic's settings read "%" as the start of a reference to another setting: a campaign
    file's name, or a password in a URL (percent-encoded characters), is said to it as it is."""
    path = tmp_path / name
    engine = make_engine(str(path))
    try:
        migrate(engine)
        assert db.schema_revision(str(path), engine) == db.head_revision()
    finally:
        engine.dispose()
