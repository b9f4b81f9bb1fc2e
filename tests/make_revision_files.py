"""Make tests/revision_files/: one small campaign file per schema revision, kept for good, and
tests/revision_exports/: the export of each (campaign 1 of the file, as `tracker export` of that
revision wrote it).

    .venv/bin/python tests/make_revision_files.py          # only the revisions not kept yet
    .venv/bin/python tests/make_revision_files.py --all    # every one again

Adding a migration is one step more: run it, and commit the two new files (campaign-NNNN.db and
campaign-NNNN.json). Nothing else: an old export is upgraded by the migrations themselves
(tracker.services.exchange), and tests/services/test_old_exports.py imports every kept export
and compares it with its kept file upgraded. Should the new revision add a column whose kept
value no form would take (a word among a few, a number with bounds), give it a playable value
in PLAYABLE. A kept file is history: leave it as it is (--all makes different bytes each time,
as Alembic's batch migrations recreate a table's indexes in no fixed order, though the schema and
rows are the same); its export is made from it the same way every time.

Each file is made by the migrations themselves (an empty file upgraded to exactly that
revision), then given two rows in every table, written with plain SQL from the columns the table
has at that revision (PRAGMA table_info and foreign_key_list), parents before children: no model
of today's code is involved, so the file is what a player's file at that revision looked like.
Row N of every table belongs to campaign N, so the rows agree with each other as the app's would.
tests/test_revision_files.py upgrades a copy of each to the newest schema and checks every value
is still there.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent / "revision_files"
ROWS = 2

# Values the app gives meaning to, for rows 1 and 2 ("table.column" first, then "column"); any
# other column gets a value of its declared type (see _value).
KNOWN: dict[str, tuple[Any, Any]] = {
    "campaign.name": ("Narvik 1940", "River Plate 1939"),
    "campaign.model_scale": ("1/2400", "1/1200"),
    "campaign.mine_halt_rule": ("struck", "drawn"),
    "campaign.half_strength_scope": ("scenario", "campaign"),
    "campaign.aircraft_mission": ("turn", "scenario"),
    "campaign.zero_outcomes": ("Sunk\nDead in the water\nOther", "Sunk\nScuttled"),
    "side.name": ("Royal Navy", "Kriegsmarine"),
    "side.nation": ("GB", "DE"),
    "ship.name": ("Hardy", "Graf Spee"),
    "ship.class_name": ("H class", "Deutschland class"),
    "ship.type_abbrev": ("DD", "PB"),
    "ship.nation": ("GB", "DE"),
    "ship.armour_class": ("", "B"),
    "ship.counter_size": ("small", "long"),
    "squadron.name": ("2nd Destroyer Flotilla", "Panzerschiff"),
    "scenario.status": ("closed", "planned"),
    "scenario.title": ("First Narvik", "Battle of the River Plate"),
    "scenario.date": ("10 Apr 1940", "13 Dec 1939"),
    "commander.status": ("active", "lost"),
    "critical.status": ("active", "repaired"),
    "critical.kind": ("structural", "underwater"),
    "criticaltablerow.kind": ("structural", "underwater"),
    "criticaltablerow.stat": ("speed_kn", ""),
    "repair.status": ("done", "done"),
    "minefield.status": ("active", "sowing"),
    "minefield.laid_by": ("surface", "submarine"),
    "minefield.sealed": ("", ""),
    "minefield.secret": (0, 0),
    "minecheck.status": ("complete", "in_progress"),
    "minecheck.rule": ("struck", "drawn"),
    "journalentry.kind": ("ship", "damage"),
    "journalentry.detail": ('{"changes": []}', "{}"),
    "submarker.secret": ('plain:{"real": true, "salt": "ab", "unit": 1}', 'plain:{"real": false}'),
    "submarker.state": ("concealed", "revealed"),
    "wasunit.unit_type": ("submarine", "destroyer"),
    "wasunit.speed": ("1", "3"),
    "wasunit.attacks": ('{"surface": [1, 0, 0, 0]}', "{}"),
    "unitcard.unit_type": ("aircraft", "destroyer"),
    "unitcard.speed": ("A", "3"),
    "unitcard.attacks": ('{"bomb": [null, 2, null, null]}', '{"main": [3, 2, 1, null]}'),
    "unitcard.abilities": ('[{"name": "Sub Hunter", "text": ""}]', "[]"),
    "acquisition": ("random", "direct"),
    "mount": ("turret", "casemate"),
    "phase": ("start", "end"),
    "cup": ("long", "small"),
    "first_cup": ("long", "small"),
    "applies_to": ("all", "long"),
    "criticals": ("[]", '[{"id": 1, "kind": "structural", "effect": "B turret out"}]'),
    "counter": ("{}", '{"fuel_lost": 1}'),
    "path": ("[]", '["A", "B"]'),
    "effects": ("fuel-1", "none"),
    "calibre": ("4.7in", "11in"),
    "training": (3, 5),
    "grade": (1, 5),
    "modifier_now": (-2, 2),
    "structure_max": (4, 28),
    "structure_now": (3, 20),
    "flotation_max": (3, 21),
    "flotation_now": (3, 18),
}


def _value(table: str, column: str, declared: str, row: int) -> Any:
    """A value of the column's declared type for row 1 or 2, distinct between the rows."""
    for key in (f"{table}.{column}", column):
        if key in KNOWN:
            return KNOWN[key][row - 1]
    return filler(table, column, declared, row)


def filler(table: str, column: str, declared: str, row: int) -> Any:
    """The value a column KNOWN gives no meaning to gets: of its type, nothing the app reads."""
    kind = declared.upper()
    if kind.startswith("BOOLEAN"):
        return row % 2
    if kind.startswith("INTEGER"):
        return row
    if kind.startswith("DATETIME"):
        return f"2026-0{row}-1{row} 1{row}:30:00.000000"
    if kind.startswith("VARCHAR"):
        text = f"{column} {row}"
        length = int(kind[len("VARCHAR(") : -1]) if "(" in kind else None
        if length is not None and len(text) > length:
            text = f"{column[: length - 2]}{row}"
        return text
    raise ValueError(f"{table}.{column}: no value for the type {declared!r}")


def _columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, str, bool]]:
    """(name, declared type, not null) of each column."""
    return [
        (name, declared, bool(notnull))
        for _cid, name, declared, notnull, _default, _pk in conn.execute(
            f'PRAGMA table_info("{table}")'
        )
    ]


def _parents(conn: sqlite3.Connection, table: str) -> dict[str, str]:
    """Each foreign-key column of the table and the table it points at."""
    return {row[3]: row[2] for row in conn.execute(f'PRAGMA foreign_key_list("{table}")')}


def _in_order(conn: sqlite3.Connection) -> list[str]:
    """The tables, each after every table its foreign keys point at (a self-reference aside)."""
    tables = sorted(
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if name != "alembic_version" and not name.startswith("sqlite_")
    )
    needs = {table: set(_parents(conn, table).values()) - {table} for table in tables}
    ordered: list[str] = []
    while needs:
        ready = sorted(table for table, parents in needs.items() if parents <= set(ordered))
        if not ready:
            raise RuntimeError(f"foreign keys go round in a circle: {sorted(needs)}")
        ordered.extend(ready)
        for table in ready:
            del needs[table]
    return ordered


def fill(conn: sqlite3.Connection) -> dict[str, int]:
    """Two rows in every table; returns the rows written per table."""
    written = {}
    for table in _in_order(conn):
        parents = _parents(conn, table)
        columns = _columns(conn, table)
        for row in range(1, ROWS + 1):
            values = []
            for name, declared, notnull in columns:
                if name == "id":
                    values.append(row)
                elif parents.get(name) == table:  # the row before (or itself, if it must)
                    values.append(row - 1 if row > 1 else (1 if notnull else None))
                elif name in parents:
                    values.append(row)  # row N of its parent: campaign N's
                else:
                    values.append(_value(table, name, declared, row))
            names = ", ".join(f'"{name}"' for name, _, _ in columns)
            marks = ", ".join("?" for _ in columns)
            conn.execute(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', values)
        written[table] = ROWS
    return written


def make(revision: str, target: Path) -> dict[str, int]:
    """The campaign file at exactly `revision`, with rows in every table, written to target."""
    from alembic import command

    from tracker import db

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / target.name
        engine = db.make_engine(str(path))
        try:
            command.upgrade(db._alembic_config(engine), revision)
        finally:
            engine.dispose()
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA foreign_keys = ON")
            with conn:
                written = fill(conn)
            problems = conn.execute("PRAGMA foreign_key_check").fetchall()
            if problems:
                raise RuntimeError(f"rows with broken foreign keys: {problems[:5]}")
            # Small pages keep the kept files small (one page per table and per index);
            # the page size changes only outside WAL mode, and the app's files are in WAL mode.
            conn.execute("PRAGMA journal_mode = DELETE")
            conn.execute("PRAGMA page_size = 1024")
            conn.execute("VACUUM")
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        target.write_bytes(path.read_bytes())
    return written


def file_name(revision: str) -> str:
    return f"campaign-{revision}.db"


# --- kept exports ------------------------------------------------------------------------------

EXPORTS = Path(__file__).resolve().parent / "revision_exports"
# The values of a kept file that no form would take (a word or a number the file's columns
# allow, the rules not): an export holds what a player's campaign holds, so these are set, on
# the copy the export is made from and on the copy it is compared with, where the column is.
PLAYABLE: dict[str, Any] = {
    "campaign.half_strength_scope": "scenario",
    "campaign.aircraft_mission": "turn",
    "campaign.owner_idle_seconds": 600,
    "commander.radius_now_cm": 10,
    "wasunit.year": 1940,
    "unitcard.year": 1941,
}
EXPORT_FORMAT = {"format": "tracker-campaign", "version": 1}
# The library's tables (revision 0011 on): shared by the file's campaigns, owned by none.
LIBRARY = frozenset({"shipclass", "unitcard"})
CAMPAIGN = 1  # row 1 of every table is campaign 1's (see fill)


def export_name(revision: str) -> str:
    return f"campaign-{revision}.json"


def make_playable(conn: sqlite3.Connection) -> None:
    """Set the PLAYABLE values, each where its column exists at the file's revision."""
    for key, value in PLAYABLE.items():
        table, column = key.split(".")
        if column in {name for name, _, _ in _columns(conn, table)}:
            conn.execute(f'UPDATE "{table}" SET "{column}" = ?', (value,))


def _exported(declared: str, value: Any) -> Any:
    """A stored value as tracker export writes it: true/false, a time with its UTC offset."""
    kind = declared.upper()
    if value is not None and kind.startswith("BOOLEAN"):
        return bool(value)
    if value is not None and kind.startswith("DATETIME"):
        return datetime.fromisoformat(value).replace(tzinfo=UTC).isoformat()
    return value


def export_of(path: Path) -> dict[str, Any]:
    """Campaign 1 of a kept file as `tracker export` of its revision wrote it, read with plain
    SQL from the columns the file has (no model of today's code). Its rows are numbered 1
    already, as the export numbers them, and all of them are campaign 1's (the library's, 1
    and 2, are every campaign's)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        tables: dict[str, list[dict[str, Any]]] = {}
        for table in _in_order(conn):
            columns = [(n, d) for n, d, _ in _columns(conn, table) if n != "version"]
            names = ", ".join(f'"{name}"' for name, _ in columns)
            # The library is every campaign's: an export holds all of it.
            where = "id > 0" if table in LIBRARY else f"id = {CAMPAIGN}"
            rows = conn.execute(f'SELECT {names} FROM "{table}" WHERE {where} ORDER BY id')
            tables[table] = [
                {n: _exported(d, v) for (n, d), v in zip(columns, row, strict=True)} for row in rows
            ]
    finally:
        conn.close()
    return {**EXPORT_FORMAT, "schema": revision, "tables": tables}


def playable_copy(kept: Path, copy: Path) -> Path:
    """A copy of a kept file with the PLAYABLE values set, each where its column exists."""
    copy.write_bytes(kept.read_bytes())
    conn = sqlite3.connect(copy)
    try:
        with conn:
            make_playable(conn)
    finally:
        conn.close()
    return copy


def make_export(kept: Path, target: Path) -> None:
    """The kept export of a kept file: its campaign 1, playable, as its revision exported it."""
    with tempfile.TemporaryDirectory() as scratch:
        document = export_of(playable_copy(kept, Path(scratch) / kept.name))
    target.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="make every file again")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(FOLDER.parents[1]))
    from tracker import db

    FOLDER.mkdir(exist_ok=True)
    for revision in sorted(db.known_revisions()):
        target = FOLDER / file_name(revision)
        if target.exists() and not args.all:
            continue
        written = make(revision, target)
        print(f"{target.relative_to(FOLDER.parents[1])}: {len(written)} tables, 2 rows each")
    EXPORTS.mkdir(exist_ok=True)
    for revision in sorted(db.known_revisions()):
        export = EXPORTS / export_name(revision)
        if export.exists() and not args.all:
            continue
        make_export(FOLDER / file_name(revision), export)
        print(
            f"{export.relative_to(FOLDER.parents[1])}: campaign {CAMPAIGN} of {file_name(revision)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
