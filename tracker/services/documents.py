"""A campaign's rows as the document a campaign file holds, read through any database driver's
cursor (services.exchange has the whole story: the document, its checks, the import).

This module imports no database library: `tracker export` of a campaign file at this
tracker's schema runs it on the standard library's sqlite3 alone, with the tables described by
the file's own schema (plan_of_sqlite), and starts in a tenth of the time the ORM takes to
load. services.exchange runs it on SQLAlchemy's connection, with the tables described by the
models (exchange.metadata_plan); tests/services/test_documents.py holds the two descriptions
equal.
"""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

import orjson

from tracker.rules.checks import is_int

FORMAT = "tracker-campaign"
VERSION = 1
# Columns that hold another row's id without a foreign key (the row may since be deleted).
EXTRA_REFS: dict[str, dict[str, str]] = {
    "journalentry": {"scenario_id": "scenario", "side_id": "side", "ship_id": "ship"},
    "critical": {"scenario_id": "scenario"},
    "ship": {"transferred_scenario_id": "scenario"},
    "squadron": {"commander_ship_id": "ship"},
    "submarker": {"search_scenario_id": "scenario"},
}
# The library's tables: shared by the file's campaigns, so a campaign's document carries all of
# it, and an import adds only the entries the file lacks (known by name and nation): an entry
# already there is never changed by a campaign brought in (services.library).
LIBRARY = frozenset({"shipclass", "unitcard"})
# Bookkeeping, not campaign data: an imported row starts at version 1 (models.versioned).
NOT_EXPORTED = frozenset({"version"})
# Not a table of the campaign's: the schema's revision.
NOT_A_TABLE = "alembic_version"

Ids = dict[str, dict[int, int]]


@dataclass(frozen=True)
class TablePlan:
    """What a document needs to know of a table: its columns (the id first), the foreign keys
    that make a row the campaign's (column, parent table), every column naming a row (the
    foreign keys and EXTRA_REFS), and which columns are booleans and times."""

    name: str
    columns: tuple[str, ...]
    links: tuple[tuple[str, str], ...]
    refs: tuple[tuple[str, str], ...]
    bools: frozenset[str]
    times: frozenset[str]


class Plan(NamedTuple):
    """Every table of the schema, parents first, and the columns that name a row."""

    tables: tuple[TablePlan, ...]
    # Every column name that names a row, with its table (side_id: side), across the schema.
    names: dict[str, str]
    # The same, table by table.
    refs_of: dict[str, dict[str, str]]


def make_plan(tables: Iterable[TablePlan]) -> Plan:
    tables = tuple(tables)
    names: dict[str, str] = {}
    for table in tables:
        for key, target in table.refs:
            assert names.setdefault(key, target) == target, f"{key} names two tables"
    return Plan(tables, names, {table.name: dict(table.refs) for table in tables})


def table_plan(
    name: str, columns: list[str], links: list[tuple[str, str]], bools: set[str], times: set[str]
) -> TablePlan:
    """A table's plan from its columns and its foreign keys, each in name order (a file's
    schema and the models may list them in different orders; a document's keys are sorted)."""
    kept = sorted(column for column in columns if column not in NOT_EXPORTED | {"id"})
    refs = dict(links) | EXTRA_REFS.get(name, {})
    return TablePlan(
        name=name,
        columns=("id", *kept),
        links=tuple(sorted(links)),
        refs=tuple(sorted(refs.items())),
        bools=frozenset(bools),
        times=frozenset(times),
    )


def plan_of_sqlite(conn: sqlite3.Connection) -> Plan:
    """The plan of an SQLite campaign file, read from its own schema: the declared types
    BOOLEAN and DATETIME are the booleans and the times, as SQLAlchemy writes them."""
    found: dict[str, TablePlan] = {}
    names = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name != ? ORDER BY name", (NOT_A_TABLE,))]  # fmt: skip
    for name in names:
        info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
        keys = conn.execute(f'PRAGMA foreign_key_list("{name}")').fetchall()
        declared = {row[1]: str(row[2]).upper() for row in info}
        found[name] = table_plan(
            name, [row[1] for row in info], [(row[3], row[2]) for row in keys],
            {column for column, kind in declared.items() if kind == "BOOLEAN"},
            {column for column, kind in declared.items() if kind == "DATETIME"},
        )  # fmt: skip
    return make_plan(parents_first(found))


# The digest of this tracker's plan of its tables (plan_digest of exchange.metadata_plan()). A
# file is read alone only when its own schema gives this plan exactly: a table or a column
# added by hand would otherwise go into the document, into another player's view too.
# tests/services/test_documents.py holds it equal to the models' and names the new one when
# they change; a stale one costs only speed (every file then takes the database libraries).
HEAD_PLAN_DIGEST = "657e494b5697df9b"


def plan_digest(plan: Plan) -> str:
    """A short digest of every table's plan, in name order."""
    tables = sorted(
        [table.name, table.columns, table.links, table.refs, sorted(table.bools),
         sorted(table.times)]
        for table in plan.tables
    )  # fmt: skip
    return hashlib.sha256(json.dumps(tables).encode()).hexdigest()[:16]


def parents_first(tables: dict[str, TablePlan]) -> list[TablePlan]:
    """The tables so that each comes after every table its foreign keys name (by name among
    those ready): a campaign's rows are found parents first."""
    ordered: list[TablePlan] = []
    done: set[str] = set()
    waiting = dict(sorted(tables.items()))
    while waiting:
        ready = [name for name, table in waiting.items()
                 if all(parent in done or parent == name for _, parent in table.links)]  # fmt: skip
        assert ready, f"the foreign keys of {sorted(waiting)} go round in a circle"
        for name in ready:
            ordered.append(waiting.pop(name))
            done.add(name)
    return ordered


# --- ids inside JSON columns ---------------------------------------------------------------


def _map_id(ids: Ids, table: str, value: Any, missing: Any) -> Any:
    if value is None:
        return None
    return ids.get(table, {}).get(value, missing)


# The key of a journal entry's facts that names rows: who was lost with a ship, as he was then
# (services.losses keeps it; its commander_id, squadron_id, side_id and ship_id are renumbered).
LOST = "commanders_lost"


def every_change(detail: dict[str, Any]) -> list[dict[str, Any]]:
    """An entry's row changes (services.rowlog), the ones it names for undo and the others it
    wrote, in the order a copy writes them: what every reader that renumbers, seals or hides a
    row's values reads (a value kept in one and not the other would escape it)."""
    return [*(detail.get("rows") or []), *(detail.get("changes") or [])]


SIDES = ("before", "after")


def recorded(change: dict[str, Any]) -> dict[str, Any]:
    """A change as the copy that made it recorded it. Merged into another copy where a number
    had changed apart (a hit on a ship hit there too), it says what it wrote there, for undo,
    and keeps beside (`recorded`) the numbers it recorded: what a packet and an export carry,
    the same in every copy. They are numbers a hit, a repair or fuel changes, never a row's
    reference nor a note."""
    kept = change.get("recorded")
    if kept is None:
        return change
    out = {key: value for key, value in change.items() if key != "recorded"}
    return out | {side: {**(change[side] or {}), **kept[side]} for side in SIDES}


def map_journal(detail: str, ids: Ids, plan: Plan) -> str:
    """The row ids of an entry's changes, and the references among their fields; a row not in
    the campaign any more becomes 0, which undo treats as deleted. The entry's own before and
    after (an added ship's side and squadron, a transfer's squadron) and the rows its kept facts
    name (LOST) are renumbered too.
    An entry whose ids all stay as they are is kept as written, not written again: most are,
    in a file's first campaign or imported into a new file. With no ids at all, the entry is
    only read through (document_checks.RowChecks: it holds what tracker writes there)."""
    data = orjson.loads(detail)
    changed = False
    states = [data.get(side) for side in SIDES] + list(data.get(LOST) or ())
    for state in states:
        if isinstance(state, dict):
            for key in state.keys() & plan.names.keys():
                value = state[key]
                if is_int(value):
                    new = ids.get(plan.names[key], {}).get(value)
                    if new != value:
                        state[key], changed = new, True
    for change in every_change(data):
        table = change["table"]
        table_ids = ids.get(table, {})
        old = change["id"]
        new = None if old is None else table_ids.get(old, 0)
        if new != old:
            change["id"], changed = new, True
        refs = plan.refs_of.get(table, {})
        for side in SIDES:
            values = change.get(side) or {}
            for key in values.keys() & refs.keys():
                value = values[key]
                if isinstance(value, int):
                    new = ids.get(refs[key], {}).get(value)
                    if new != value:
                        values[key], changed = new, True
    return json_text(data, sort_keys=True) if changed and ids else detail


def map_criticals(criticals: str, ids: Ids, plan: Plan) -> str:
    items = orjson.loads(criticals)
    changed = False
    for item in items:
        new = _map_id(ids, "critical", item.get("id"), 0)
        if new != item.get("id"):
            item["id"], changed = new, True
    return json_text(items) if changed and ids else criticals


def map_marker_note(secret: str, ids: Ids, plan: Plan) -> str:
    """A plain marker note names its unit; an encrypted one is left as sealed (its unit id is
    never read: the marker's own unit_id column is)."""
    if not secret.startswith("plain:"):
        return secret
    note = orjson.loads(secret[len("plain:") :])
    if "unit" in note:
        new = _map_id(ids, "wasunit", note["unit"], 0)
        if new != note["unit"] and ids:
            note["unit"] = new
            return "plain:" + json_text(note, sort_keys=True)
    return secret


def json_text(value: Any, *, sort_keys: bool = False) -> str:
    """JSON as the tracker writes it into these columns (journal.append, the snapshots), so
    that an entry renumbered on import and back on export reads as it did."""
    return json.dumps(value, sort_keys=sort_keys)


Remap = Callable[[str, Ids, Plan], str]
JSON_COLUMNS: dict[tuple[str, str], Remap] = {
    ("journalentry", "detail"): map_journal,
    ("shipsnapshot", "criticals"): map_criticals,
    ("submarker", "secret"): map_marker_note,
}


# --- export --------------------------------------------------------------------------------


def campaign_rows(cursor: Any, plan: Plan, campaign_id: int) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the campaign, table by table (parents first), in id order, as tuples of
    the columns a file carries (the id first), as the driver gives them: no row objects, no
    type processing (export_values converts the booleans and the times)."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    member_ids: dict[str, list[int]] = {}
    for table in plan.tables:
        if table.name == "campaign":
            where = f"id = {int(campaign_id)}"
        elif table.name in LIBRARY:
            where = "1 = 1"
        else:
            # Through its foreign keys to the campaign's rows found so far (none: not the
            # campaign's); the ids are whole numbers, written into the statement.
            parents = [(column, member_ids[parent]) for column, parent in table.links
                       if parent in member_ids and parent != table.name]  # fmt: skip
            if not parents:
                continue
            links = [f'"{column}" IN ({", ".join(map(str, ids))})'
                     for column, ids in parents if ids]  # fmt: skip
            where = " OR ".join(links) or "1 = 0"
        columns = ", ".join(f'"{column}"' for column in table.columns)
        cursor.execute(f'SELECT {columns} FROM "{table.name}" WHERE {where} ORDER BY id')
        rows = found[table.name] = cursor.fetchall()
        member_ids[table.name] = [row[0] for row in rows]
    return found


def iso_time(value: Any) -> str:
    """A stored time as a campaign file writes it: ISO 8601 in UTC with its offset. SQLite
    holds the text SQLAlchemy wrote ("2026-05-01 12:00:00.250000"), PostgreSQL a datetime."""
    if isinstance(value, str):
        if len(value) == 26 and value[10] == " " and value[19] == ".":
            fraction = "" if value.endswith(".000000") else value[19:]
            return f"{value[:10]}T{value[11:19]}{fraction}+00:00"
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:  # stored in UTC without its offset
        return str(value.replace(tzinfo=UTC).isoformat())
    return str(value.astimezone(UTC).isoformat())


def _kept(mapping: dict[int, int], values: tuple[Any, ...]) -> bool:
    """Whether renumbering by mapping leaves every value as it is: each one names a row kept
    under its own id (most references, in a file's first campaign), or none."""
    named = set(values)
    named.discard(None)
    return named <= mapping.keys() and all(mapping[value] == value for value in named)


def _bool(value: Any) -> Any:
    return None if value is None else bool(value)


def _time(value: Any) -> Any:
    return None if value is None else iso_time(value)


def export_values(
    table: TablePlan, rows: list[tuple[Any, ...]], ids: Ids, plan: Plan
) -> list[dict[str, Any]]:
    """The table's rows as the file holds them: numbered 1, 2, 3 ... in id order, references
    renumbered alike, booleans as true or false (SQLite gives 0 or 1), times as ISO text.
    Converted a column at a time (each by one map over its values), not a row at a time."""
    if not rows:
        return []
    columns = list(zip(*rows, strict=True))
    columns[0] = tuple(range(1, len(rows) + 1))
    index = {name: n for n, name in enumerate(table.columns)}
    for name, target in table.refs:
        mapping = ids.get(target, {})
        values = columns[index[name]]
        if not _kept(mapping, values):
            columns[index[name]] = tuple(map(mapping.get, values))
    for name in table.bools:
        columns[index[name]] = tuple(map(_bool, columns[index[name]]))
    for name in table.times:
        columns[index[name]] = tuple(map(_time, columns[index[name]]))
    for (owner, name), remap in JSON_COLUMNS.items():
        if owner == table.name:
            values = columns[index[name]]
            columns[index[name]] = tuple(remap(value, ids, plan) for value in values)
    names = table.columns
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


# The journal's kind of a merge of another copy's packet, and of a decision of its conflict
# (models.kinds.JournalKind.SYNC; this module reads no model: the fast export reads it alone).
MERGED = "sync"


def merged_copy(rows: dict[str, list[tuple[Any, ...]]], plan: Plan) -> bool:
    """Whether the campaign's rows (campaign_rows) are of a copy that merged another copy's
    packet: its document is then every copy's (services.sync_export), not its rows as read."""
    journal = next(table for table in plan.tables if table.name == "journalentry")
    kind = journal.columns.index("kind")
    return any(row[kind] == MERGED for row in rows.get("journalentry") or ())


def document_of(rows: dict[str, list[tuple[Any, ...]]], plan: Plan, schema: str) -> dict[str, Any]:
    """The campaign's document (for its owner: secret notes sealed as stored)."""
    # Rows come in id order: the n-th row of a table is numbered n.
    ids: Ids = {name: {row[0]: n for n, row in enumerate(table_rows, start=1)}
                for name, table_rows in rows.items()}  # fmt: skip
    tables = {table.name: export_values(table, rows.get(table.name, []), ids, plan)
              for table in plan.tables}  # fmt: skip
    return {"format": FORMAT, "version": VERSION, "schema": schema, "tables": tables}


def dumps(document: dict[str, Any]) -> bytes:
    """The document as the file holds it: UTF-8 JSON, keys sorted, the tables last, one row
    to a line (a file any JSON reader reads, and a line of a diff is a row).

    The header comes first so that a reader, which checks rows as it reads them, refuses a file
    of a newer tracker or another player's view by its header before it reads any row.
    """
    # Written piece by piece into one buffer: a hundred thousand rows each kept as bytes until
    # a join took four times as long as making them (bench/README.md, figure 8).
    out = io.BytesIO()
    write, dump, sort = out.write, orjson.dumps, orjson.OPT_SORT_KEYS
    write(b"{\n")
    header = [key for key in sorted(document) if key != "tables"]
    for key in header:
        comma = b"," if key != header[-1] or "tables" in document else b""
        write(b" " + dump(key) + b": " + dump(document[key], option=sort) + comma + b"\n")
    if "tables" in document:
        write(b' "tables": {\n')
        names = sorted(document["tables"])
        for name in names:
            rows = document["tables"][name]
            comma = b"," if name != names[-1] else b""
            if not rows:
                write(b"  " + dump(name) + b": []" + comma + b"\n")
                continue
            write(b"  " + dump(name) + b": [\n   ")
            write(dump(rows[0], option=sort))
            for row in rows[1:]:
                write(b",\n   ")
                write(dump(row, option=sort))
            write(b"\n  ]" + comma + b"\n")
        write(b" }\n")
    write(b"}\n")
    return out.getvalue()
