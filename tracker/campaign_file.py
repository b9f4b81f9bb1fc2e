"""A campaign file as it lies on disk: what it is, and whether tracker can open it.

Standard library only (sqlite3), so the command line can refuse a bad file, and find a good
one's schema revision, before the database libraries have loaded (tracker.db re-exports all of
it, and does the rest).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from tracker import paths, settings
from tracker.errors import CannotOpen

SQLITE_HEADER = b"SQLite format 3\x00"
# How long a snapshot waits for another program's lock (WAL readers wait only while a writer
# recovers or checkpoints the file).
LOCK_WAIT_SECONDS = 5.0
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class DatabaseProblem(CannotOpen):
    """A campaign file that cannot be used; the message says what is wrong and what to do."""


_REVISION = re.compile(r"^revision: str = '([^']+)'", re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision: [^=]+= (?:None|'([^']+)')", re.MULTILINE)


@functools.cache
def revision_chain() -> dict[str, str | None]:
    """Each migration's revision and the one it follows, read from Alembic's header lines: a
    millisecond, where importing Alembic costs a quarter of a second (tests check they agree)."""
    chain: dict[str, str | None] = {}
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        revision, down = _REVISION.search(text), _DOWN_REVISION.search(text)
        assert revision and down, f"{path.name} lacks Alembic's revision lines"
        chain[revision[1]] = down[1]
    return chain


def head_revision() -> str:
    chain = revision_chain()
    heads = set(chain) - set(chain.values())
    assert len(heads) == 1, f"the migrations must have one head, not {sorted(heads)}"
    return heads.pop()


def known_revisions() -> set[str]:
    return set(revision_chain())


def refuse_newer(where: object, revision: str | None, act: str) -> None:
    """DatabaseProblem for a schema revision no migration of this tracker knows."""
    if revision is not None and revision not in known_revisions():
        raise DatabaseProblem(
            f"{where} was written by a newer tracker (schema {revision}): upgrade tracker to {act}"
        )


def read_only_uri(path: Path) -> str:
    """An SQLite URI that reads the file as it is now and creates no -wal or -shm beside it:
    immutable without a -wal (a later change needs a new connection: the umpire's view opens
    one per session); with one, another program has it open, and SQLite must read it too."""
    wal = path.with_name(path.name + "-wal")
    mode = "ro" if wal.exists() else "ro&immutable=1"
    return f"file:{quote(str(path.resolve()))}?mode={mode}"


def _read_only(path: Path) -> closing[sqlite3.Connection]:
    """A read-only connection that leaves no -wal or -shm file behind when there was none."""
    return closing(sqlite3.connect(read_only_uri(path), uri=True))


@contextmanager
def snapshot(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that only reads, in one read transaction, whatever another program writes
    meanwhile. Not _read_only's immutable one, which takes no lock for a writer to respect: this
    locks as tracker's own do (the file must be writable); mode=rw: a file gone is never remade."""
    uri = f"file:{quote(str(path.resolve()))}?mode=rw"
    with closing(sqlite3.connect(uri, uri=True, timeout=LOCK_WAIT_SECONDS)) as conn:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("BEGIN")
        yield conn


# The columns that hold a JSON document, and the kind of document each holds (tests/
# test_damaged_files.py keeps this in step with the models: the text columns whose default is
# "{}", an object, or "[]", an array).
JSON_COLUMNS = {
    ("journalentry", "detail"): "object",
    ("minefield", "path"): "array",
    ("shipsnapshot", "counter"): "object",
    ("shipsnapshot", "criticals"): "array",
    ("unitcard", "abilities"): "array",
    ("unitcard", "attacks"): "object",
    ("wasunit", "attacks"): "object",
}


def _value_faults(table: str, column: str, declared: str) -> str | None:
    """An SQL condition true for a value of the column tracker cannot have written (None for
    a declared type tracker does not use: tests/test_unreadable_values.py finds none)."""
    name, kind = f'"{column}"', declared.upper()
    if (table, column) in JSON_COLUMNS:
        # A document of another kind (a number, an array for an object) is no more readable
        # than one cut short; json_type is asked only of a document that parses.
        shape = JSON_COLUMNS[table, column]
        return (f"CASE WHEN typeof({name}) = 'text' AND json_valid({name}) "
                f"THEN json_type({name}) != '{shape}' ELSE 1 END")  # fmt: skip
    if kind.startswith(("INTEGER", "BOOLEAN")):
        return f"typeof({name}) NOT IN ('integer', 'null')"
    if kind.startswith("VARCHAR"):
        return f"typeof({name}) NOT IN ('text', 'null')"
    if kind.startswith("DATETIME"):
        not_a_time = f"typeof({name}) = 'text' AND julianday({name}) IS NULL"
        return f"typeof({name}) NOT IN ('text', 'null') OR ({not_a_time})"
    return None


def _check_values(conn: sqlite3.Connection) -> None:
    """sqlite3.DatabaseError naming the first value of a wrong type, a time that is no time or
    a JSON document that does not parse: damage in a value, which the integrity check cannot
    see and which would stop the app when it reads the row (one pass over each table)."""
    query = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    for (table,) in conn.execute(query).fetchall():
        faults = [
            (column, condition)
            for _cid, column, declared, *_ in conn.execute(f'PRAGMA table_info("{table}")')
            if (condition := _value_faults(table, column, declared)) is not None
        ]
        if not faults:
            continue
        which = " ".join(f"WHEN {condition} THEN ?" for _, condition in faults)
        found = conn.execute(
            f'SELECT rowid, CASE {which} END AS fault FROM "{table}" '
            "WHERE fault IS NOT NULL LIMIT 1",
            [column for column, _ in faults],
        ).fetchone()
        if found is not None:
            raise sqlite3.DatabaseError(
                f"{table}.{found[1]} of row {found[0]} is not what tracker wrote"
            )


# Files tracker closed cleanly, as it left them: (size, mtime, -wal size, ctime, inode) per
# resolved path. The full checks at open read the whole file (integrity_check and a pass over
# every value: 0.9 s for 100,000 journal entries); a file just as tracker left it skips them.
CHECKED_NAME = "checked.json"
CHECKED_KEEP = 50


def _mark(path: Path) -> list[int]:
    """What tells a file tracker left from the same file changed since: its size and times, and
    the inode (a file put in its place). The change time is in it as nobody can set it: a
    program putting the size and the modification time back (os.utime) moves it, as any write."""
    stat = path.stat()
    wal = path.with_name(path.name + "-wal")
    return [stat.st_size, stat.st_mtime_ns, wal.stat().st_size if wal.exists() else -1,
            stat.st_ctime_ns, stat.st_ino]  # fmt: skip


def _checked() -> dict[str, list[int]]:
    try:
        data = json.loads((settings.config_dir() / CHECKED_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# The files this process checked in full, each with its mark then: the command line checks a
# file before the first paint and the opening's migration checks it again, which read a large
# campaign in full twice (0.9 s each). A file changed since has another mark.
_CHECKED_NOW: dict[str, list[int]] = {}


def file_key(path: Path) -> str:
    """What names a campaign file across runs in the player's settings (their last campaign)."""
    return os.path.abspath(path)


def left_by_tracker(path: Path) -> bool:
    """Whether the file is exactly as tracker left it at its last clean close (_mark); anything
    else (a copy, a crash, another program, damage) is checked in full."""
    try:
        return _checked().get(str(path.resolve())) == _mark(path)
    except OSError:
        return False


def remember_left(path: Path) -> None:
    """Note the file as tracker leaves it, newest last; a note that cannot be written only
    means a full check at the next open."""
    try:
        marks = _checked()
        key = str(path.resolve())
        marks.pop(key, None)
        marks[key] = _mark(path)
        kept = dict(list(marks.items())[-CHECKED_KEEP:])
        settings.write_whole(settings.config_dir() / CHECKED_NAME, json.dumps(kept))
    except OSError:
        pass


RESTORE_PREFIX = ".restore-"  # a restore's checked copy of a backup, in the backups folder
SCRATCH_PREFIX = "tracker-scratch-"  # a campaign file of an older schema upgraded, in the temp


@contextmanager
def scratch_folder(parent: Path, prefix: str) -> Iterator[Path]:
    """A folder for scratch work (a restore's copy, an old export's upgrade), gone when the
    block ends. Its name holds this process's id: one a killed process left is removed at the
    next start (remove_scratch_left), one of a process still running never is."""
    with tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-", dir=parent) as folder:
        yield Path(folder)


def remove_scratch_left(parent: Path, prefix: str, *, unnamed: bool = False) -> list[Path]:
    """Remove the scratch folders that processes no longer running left in parent, and with
    `unnamed` those with no process id (where an older tracker left them)."""
    removed: list[Path] = []
    with suppress(OSError):
        for entry in parent.iterdir():
            name = entry.name
            if not name.startswith(prefix) or not entry.is_dir() or entry.is_symlink():
                continue
            pid = name[len(prefix) :].partition("-")[0]
            if not pid.isdigit() and not unnamed:
                continue  # not named by scratch_folder: whose it is cannot be told
            if pid.isdigit() and int(pid) != os.getpid() and _running(int(pid)):
                continue  # its process still works in it
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def remove_leftovers(campaign: Path | None) -> list[Path]:
    """At a start: the scratch folders killed processes left, the upgrades of old exports in
    the temporary folder, and (for a campaign file) the copies of restores in its backups."""
    removed = remove_scratch_left(Path(tempfile.gettempdir()), SCRATCH_PREFIX)
    if campaign is not None:
        removed += remove_stale_restores(campaign)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale_restores(path: Path) -> list[Path]:
    """Remove the copies that restores killed midway left in the campaign's backups folder."""
    return remove_scratch_left(paths.backups_dir(path), RESTORE_PREFIX, unnamed=True)


def not_a_readable_file(path: Path, what: str) -> str | None:
    """Why path cannot be read as a file ("... is a FIFO, not a backup"), or None (a readable
    file, or nothing there). Said before any read: reading a FIFO waits for a writer forever,
    and a device (/dev/zero) reads as an endless or an empty file."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror})"
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (a named pipe)"),
             (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
             (stat.S_ISSOCK, "a socket"))  # fmt: skip
    kind = next((name for test, name in kinds if test(mode)), None)
    if kind is not None:
        return f"{path} is {kind}, not a {what}"
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror}): check its permissions"
    return None


def header_of(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(len(SQLITE_HEADER))


def inspect_file(path: Path) -> str | None:
    """A campaign file's schema revision (None if new), read without changing it; else
    DatabaseProblem saying what is wrong with it."""
    problem = not_a_readable_file(path, "campaign file")
    if problem is not None:
        raise DatabaseProblem(f"{problem}: pass the path of a campaign file with --db.")
    if not path.parent.is_dir():
        raise DatabaseProblem(
            f"the folder {path.parent} does not exist: create it, or choose another path with --db."
        )
    if not path.exists() or path.stat().st_size == 0:
        if path.exists():
            raise DatabaseProblem(
                f"{path} is empty (0 bytes): restore it from {paths.backups_dir(path)} "
                "or remove it to start a new campaign file."
            )
        return None
    if header_of(path) != SQLITE_HEADER:
        raise DatabaseProblem(
            f"{path} is not a tracker campaign file (not SQLite): check the path given to --db."
        )
    deep = not left_by_tracker(path) and _CHECKED_NOW.get(str(path.resolve())) != _mark(path)
    try:
        with _read_only(path) as conn:
            if deep:
                # integrity_check, not quick_check: a damaged index passes the quick one.
                result = conn.execute("PRAGMA integrity_check").fetchone()
                if not result or result[0] != "ok":
                    raise sqlite3.DatabaseError(result[0] if result else "no answer")
            has_version = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='alembic_version'"
            ).fetchone()
            revision = None
            if has_version:
                row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
                revision = row[0] if row else None
                if deep:
                    _check_values(conn)
            elif conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise DatabaseProblem(
                    f"{path} is an SQLite file of another program (no tracker schema): "
                    "choose another file with --db."
                )
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise _damaged(path, exc) from exc
    if deep:
        _CHECKED_NOW[str(path.resolve())] = _mark(path)
    refuse_newer(path, revision, "open it; the file was left unchanged.")
    return revision


def _damaged(path: Path, exc: sqlite3.DatabaseError | UnicodeDecodeError) -> DatabaseProblem:
    # SQLite's message can quote damaged bytes of the schema, which do not decode; the
    # integrity check's runs over lines, under a "*** in database main ***" heading.
    text = str(exc) if isinstance(exc, sqlite3.DatabaseError) else "unreadable schema"
    reason = "; ".join(line for line in text.splitlines() if not line.startswith("***"))
    return DatabaseProblem(
        f"{path} is damaged ({reason}): restore it from {paths.backups_dir(path)} "
        "or choose another file with --db."
    )


def unreadable_value(path: Path) -> DatabaseProblem | None:
    """The value of the file tracker cannot read, said as a damaged file is, or None: what to
    name when the app failed on a file another program changed since it was checked at open."""
    try:
        with _read_only(path) as conn:
            _check_values(conn)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        return _damaged(path, exc)
    return None


# The scenario a campaign is at: the one in play, else the first planned, else the last closed
# or archived. The one ORDER BY of a campaign's scenarios for it: the journal's current
# scenario (services.journal) and the campaign list (CAMPAIGN_LINES) read through it.
CURRENT_SCENARIO_ORDER = (
    "CASE status WHEN 'in_play' THEN 0 WHEN 'planned' THEN 1 ELSE 2 END, "
    "CASE WHEN status IN ('in_play', 'planned') THEN position ELSE -position END"
)
# What the campaign list shows of a campaign, in plain SQL: the services run it on any database
# (services.campaigns), and first_look on a campaign file alone.
_CAMPAIGN_LINE = f"""
SELECT campaign.id, campaign.name,
    COALESCE((SELECT title FROM scenario WHERE scenario.campaign_id = campaign.id
              ORDER BY {CURRENT_SCENARIO_ORDER} LIMIT 1), ''),
    (SELECT count(*) FROM side WHERE side.campaign_id = campaign.id),
    (SELECT count(*) FROM ship JOIN side ON ship.side_id = side.id
     WHERE side.campaign_id = campaign.id AND NOT ship.retired),
    campaign.model_scale
FROM campaign"""
# Every campaign by name; one campaign by its id (:campaign_id).
CAMPAIGN_LINES = _CAMPAIGN_LINE + " ORDER BY campaign.name"
CAMPAIGN_LINE = _CAMPAIGN_LINE + " WHERE campaign.id = :campaign_id"


class CampaignLine(NamedTuple):
    id: int
    name: str
    current_scenario: str
    sides: int
    ships: int
    model_scale: str


def first_look(path: Path) -> list[CampaignLine] | None:
    """The campaign list of a file at this tracker's schema, read with the standard library
    while the database libraries load (two thirds of a second); None for any other file."""
    try:
        with _read_only(path) as conn:
            (revision,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            if revision != head_revision():
                return None
            return [CampaignLine(*row) for row in conn.execute(CAMPAIGN_LINES)]
    except (sqlite3.Error, TypeError, ValueError):
        return None
