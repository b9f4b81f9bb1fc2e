"""A whole campaign as one versioned JSON document: export, validate, import (docs/FILES.md
"Campaign files").

The document holds every row of every table that belongs to the campaign, the journal and the
campaign's own rule tables included, with secret notes exactly as stored (still encrypted). Row
ids are renumbered 1, 2, 3 ... per table in the order of the file, and every reference follows
them, so a campaign exported, imported and exported again gives the same document. Importing
gives every row a new id in the target file and never merges into a campaign of the same name;
the campaign and its sides keep their identity unless the file holds it already
(services.identities).

A document names the schema revision it was written at. One of an earlier revision is read
against that revision's tables, written into a scratch SQLite database made at that revision,
upgraded there by the same migrations that upgrade a campaign file, and exported again: what a
tracker of today would have written for it. The migrations are the one place that says how a
revision changes the data, so a new migration needs nothing here (tests/make_revision_files.py
keeps an export per revision to prove it). One of a revision this tracker does not know was
written by a newer tracker, and is refused.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from graphlib import TopologicalSorter
from typing import Any, BinaryIO

from sqlalchemy import DateTime, Engine, MetaData, Table, bindparam, text
from sqlalchemy import select as table_select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import func

from tracker.db import (
    SessionFactory,
    head_revision,
    read_scope,
    scratch_database,
    scratch_scope,
    session_factory,
    session_scope,
    upgrade_scratch,
)
from tracker.models import Campaign
from tracker.models.library import entry_key
from tracker.services import document_reader, identities, sync_export, visibility
from tracker.services.common import name_taken
from tracker.services.document_checks import (
    CHOICES,
    COLUMNS,
    MAX_PROBLEMS,
    PLAN,
    SCHEMA_TABLES,
    TABLE_PLANS,
    TABLES_BY_NAME,
    Columns,
    column_kind,
    data_columns,
    metadata_plan,
)
from tracker.services.document_reader import MAX_BYTES, too_large
from tracker.services.documents import (
    JSON_COLUMNS,
    LIBRARY,
    VERSION,
    Ids,
    campaign_rows,
    document_of,
)
from tracker.services.documents import dumps as document_bytes
from tracker.services.errors import InvalidInput, bad_name_character
from tracker.services.library import label
from tracker.services.visibility import Viewer

# Kept here for the callers that know the exchange only (the command line, the tests).
__all__ = ["CHOICES", "MAX_BYTES", "MAX_PROBLEMS", "VERSION", "metadata_plan", "too_large"]


@functools.cache
def _export_plan(table: Table) -> tuple[list[str], list[tuple[int, str]], list[int], list[Any]]:
    """A table's column names (the id first), its references (index, table named), its times
    and its JSON columns to renumber, from the documents' plan (PLAN)."""
    planned = TABLE_PLANS[table.name]
    names = list(planned.columns)
    refs = [(names.index(key), target) for key, target in planned.refs]
    times = sorted(names.index(name) for name in planned.times)
    remaps = [(names.index(key), remap) for (name, key), remap in JSON_COLUMNS.items()
              if name == table.name]  # fmt: skip
    return names, refs, times, remaps


# --- export --------------------------------------------------------------------------------


def export_campaign(
    factory: SessionFactory, *, campaign_id: int, viewer: Viewer = Viewer.OWNER
) -> dict[str, Any]:
    """The campaign as a document (docs/FILES.md "Campaign files"), as `viewer` may see it."""
    with read_scope(factory) as session:
        if session.get(Campaign, campaign_id) is None:
            raise InvalidInput({"campaign": f"no campaign {campaign_id} in this file"})
        revision = session.connection().execute(text("SELECT version_num FROM alembic_version"))
        schema = revision.scalar_one()
        with _driver_cursor(session.connection(), "SELECT") as cursor:
            rows = campaign_rows(cursor, PLAN, campaign_id)
        sync_export.as_every_copy_has_it(session.connection(), rows)
    document = document_of(rows, PLAN, schema)
    return view_of(document, viewer)


def view_of(document: dict[str, Any], viewer: Viewer | str) -> dict[str, Any]:
    """The owner's whole document, or the opponent's or umpire's view without the secrets not
    yet revealed (docs/RULES.md §Secrets): a view to read, not a campaign to import."""
    if Viewer(viewer) is not Viewer.OWNER:
        visibility.tables_as_seen(document["tables"], viewer=Viewer(viewer))
        document["view"] = str(viewer)
    return document


@contextmanager
def _driver_cursor(conn: Connection, sql: str) -> Iterator[Any]:
    """A cursor of the connection's driver, in its transaction; what the driver raises comes
    out as SQLAlchemy raises it (a full disk, a damaged file: tracker.db names them)."""
    dbapi = conn.dialect.loaded_dbapi
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        yield cursor
    except dbapi.Error as exc:
        raise DBAPIError.instance(sql, None, exc, dbapi.Error) from exc
    finally:
        cursor.close()


def dumps(document: dict[str, Any]) -> str:
    return document_bytes(document).decode()


def read_document(raw: bytes | BinaryIO) -> dict[str, Any]:
    """Parse and check a campaign document (its bytes, or a file open to read them): one over
    MAX_BYTES refused unread, any other checked whole before a row is kept (document_reader)."""
    size = len(raw) if isinstance(raw, bytes) else os.fstat(raw.fileno()).st_size
    if size > MAX_BYTES:
        raise InvalidInput({"file": too_large(size)})
    with ExitStack() as stack:
        scratch: list[Engine] = []

        @functools.cache  # both readings ask
        def columns_for(schema: str) -> Columns:
            if schema == head_revision():
                return COLUMNS
            scratch.append(stack.enter_context(scratch_database(schema)))
            return _reflected_columns(scratch[0])

        document = document_reader.read(raw, columns_for)
        if scratch:
            return _upgraded(document, scratch[0])
    return document


def _reflected_columns(engine: Engine) -> Columns:
    metadata = MetaData()
    metadata.reflect(engine)
    return {
        table.name: {column.name: column for column in data_columns(table)}
        for table in metadata.sorted_tables
        if table.name != "alembic_version"
    }


def _stored(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """A document's row as its table at that revision stores it (times in UTC)."""
    return {
        key: datetime.fromisoformat(value).astimezone(UTC)
        if isinstance(column_kind(table.c[key]), DateTime) and value is not None
        else value
        for key, value in row.items()
    }


def _upgraded(document: dict[str, Any], scratch: Engine) -> dict[str, Any]:
    """A document of an earlier schema revision as today's tracker would write it."""
    schema, tables = document["schema"], document["tables"]
    metadata = MetaData()
    metadata.reflect(scratch)
    try:
        with scratch.begin() as conn:
            conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
            for table in metadata.sorted_tables:
                if tables.get(table.name):
                    conn.execute(
                        table.insert(), [_stored(table, row) for row in tables[table.name]]
                    )
        upgrade_scratch(scratch)
    except DBAPIError as exc:
        first = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else "error"
        raise InvalidInput({"file": f"does not hold a campaign of schema {schema} as tracker "
                            f"wrote it ({first})"}) from exc  # fmt: skip
    campaign_id = tables["campaign"][0]["id"]
    today = export_campaign(session_factory(scratch), campaign_id=campaign_id)
    if schema < identities.ROW_IDS:  # its rows' ids were made here: a campaign of its own
        today["tables"] = identities.renewed(today["tables"])
    return read_document(dumps(today).encode("utf-8"))


# --- import --------------------------------------------------------------------------------


# JSON columns name rows of other tables: those tables are written first.
JSON_DEPENDS = {"journalentry": "*", "shipsnapshot": "critical"}
# References set by an update once every row is in, as their table comes first: a squadron
# names its commander's ship, and a ship its squadron.
LATER_REFS = {"squadron": {"commander_ship_id"}}


def _import_order() -> list[Table]:
    """Tables so that every table a row refers to (by key, by id or in JSON) comes first."""
    names = [table.name for table in SCHEMA_TABLES]
    needs = {
        name: (set(names) if JSON_DEPENDS.get(name) == "*" else
               {JSON_DEPENDS[name]} if name in JSON_DEPENDS else set())
        | {target for key, target in TABLE_PLANS[name].refs
           if key not in LATER_REFS.get(name, set())}
        for name in names
    }  # fmt: skip
    # A table's references to its own rows are no order: those are set once its rows are in.
    graph = TopologicalSorter({name: sorted(needs[name] - {name}) for name in names})
    return [TABLES_BY_NAME[name] for name in graph.static_order()]


def _new_ids(conn: Connection, table: Table, count: int) -> list[int]:
    """`count` ids no row of the table has, none of which another writer can take meanwhile:
    PostgreSQL's sequence gives them; SQLite's write lock, taken as the import began, keeps the
    ids after the highest free (the tables take no AUTOINCREMENT)."""
    if not count:
        return []
    if conn.dialect.name == "postgresql":
        sequence = conn.execute(text("SELECT pg_get_serial_sequence(:name, 'id')"),
                                {"name": table.name}).scalar_one()  # fmt: skip
        taken = conn.execute(text("SELECT nextval(:sequence) FROM generate_series(1, :count)"),
                             {"sequence": sequence, "count": count}).scalars()  # fmt: skip
        return sorted(taken)
    top = conn.execute(table_select(func.max(table.c.id))).scalar() or 0
    return list(range(top + 1, top + 1 + count))


Deferred = dict[tuple[str, str], list[dict[str, int | None]]]


def _values(
    table: Table, row: dict[str, Any], ids: Ids, written: set[str], defer: Deferred,
    time: Callable[[str], Any],
) -> list[Any]:  # fmt: skip
    """A document's row as its new row, in _export_plan's order: its new id, references
    renumbered, times as `time` makes them; a reference to a row not written yet is null,
    set once every row is in."""
    names, refs, times, remaps = _export_plan(table)
    values = [row[name] for name in names]
    new_id = values[0] = ids[table.name][values[0]]
    for index in times:
        if values[index] is not None:
            values[index] = time(values[index])
    for index, target in refs:
        if values[index] is None:
            continue
        new = ids[target].get(values[index]) if target in ids else None
        if target not in written or (target == table.name and new is not None and new >= new_id):
            defer.setdefault((table.name, names[index]), []).append({"_id": new_id, "_to": new})
            new = None
        values[index] = new
    for index, remap in remaps:
        values[index] = remap(values[index], ids, PLAN)
    return values


def _sqlite_time(value: str) -> str:
    """A file's (checked) time as SQLAlchemy stores it in SQLite: UTC, no offset, microseconds."""
    if value.endswith("+00:00") and value[10:11] == "T":
        if len(value) == 32 and value[19] == ".":
            return f"{value[:10]} {value[11:26]}"
        if len(value) == 25:  # a whole second: isoformat leaves the fraction out
            return f"{value[:10]} {value[11:19]}.000000"
    when = datetime.fromisoformat(value).astimezone(UTC).replace(tzinfo=None)
    return when.isoformat(sep=" ", timespec="microseconds")


def _insert(conn: Connection, table: Table, rows: list[list[Any]]) -> None:
    """Insert rows of _values by one executemany; on SQLite the driver's own, times already stored
    text (SQLAlchemy's parameter processing took as long as SQLite's writing)."""
    names = _export_plan(table)[0]
    if conn.dialect.name != "sqlite":
        conn.execute(table.insert(), [dict(zip(names, row, strict=True)) for row in rows])
        return
    columns = ", ".join(f'"{name}"' for name in names)
    sql = f'INSERT INTO "{table.name}" ({columns}) VALUES ({", ".join("?" * len(names))})'
    with _driver_cursor(conn, sql) as cursor:
        cursor.executemany(sql, rows)


WRITE_ROWS = 2000


class _RowRefused(Exception):
    """A row the database refused while a table was written whole: the table's name."""


def _write(
    conn: Connection, tables: dict[str, list[dict[str, Any]]], name: str, one_by_one: bool
) -> int:
    """Write every row of a checked document with new ids, parents first, WRITE_ROWS rows to
    an executemany; the campaign's new id. A refused table raises _RowRefused; `one_by_one`
    writes each row alone, to name the row refused."""
    if conn.dialect.name == "sqlite":
        # References to rows written later are set at the end; this only matters for the
        # checks at commit.
        conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
    # A library entry the file already has (same name and nation) stays as it is there.
    tables = {**tables, **{name: _new_to_library(conn, name, tables.get(name, []))
                           for name in LIBRARY}}  # fmt: skip
    tables = identities.as_imported(conn, tables)
    order = _import_order()
    ids: Ids = {}
    for table in order:
        old = sorted(row["id"] for row in tables.get(table.name, []))
        ids[table.name] = dict(zip(old, _new_ids(conn, table, len(old)), strict=True))
    written: set[str] = set()
    defer: Deferred = {}
    time = _sqlite_time if conn.dialect.name == "sqlite" else datetime.fromisoformat
    for table in order:
        rows = tables.get(table.name, [])
        # In id order, as tracker export writes them: no sorted copy of a large table is made.
        ordered: Sequence[int] = range(len(rows))
        if any(rows[n]["id"] > rows[n + 1]["id"] for n in range(len(rows) - 1)):
            ordered = sorted(ordered, key=lambda n: rows[n]["id"])
        # A few thousand rows at a time: the new rows of a whole table at once would take as
        # much memory again as the document's.
        size = 1 if one_by_one else WRITE_ROWS
        for start in range(0, len(ordered), size):
            part = [(n, rows[n]) for n in ordered[start : start + size]]
            batch = [_values(table, row, ids, written, defer, time) for _, row in part]
            if table.name == "campaign":
                batch[0][_export_plan(table)[0].index("name")] = name
            try:
                _insert(conn, table, batch)
            except IntegrityError as exc:
                if not one_by_one:
                    raise _RowRefused(table.name) from exc
                raise InvalidInput({"file": f"{table.name}[{part[0][0]}] breaks a rule of the "
                                    f"campaign file ({exc.orig})"}) from exc  # fmt: skip
        written.add(table.name)
    for (table_name, column), changes in defer.items():
        table = TABLES_BY_NAME[table_name]
        conn.execute(table.update().where(table.c.id == bindparam("_id"))
                     .values({column: bindparam("_to")}), changes)  # fmt: skip
    return ids["campaign"][tables["campaign"][0]["id"]]


def _new_to_library(
    conn: Connection, name: str, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The rows of a library table whose entry (name and nation, any case) the file lacks."""
    table = TABLES_BY_NAME[name]
    query = table_select(table.c.name, table.c.nation)
    kept = {entry_key(n, nation) for n, nation in conn.execute(query)}
    return [row for row in rows if entry_key(row["name"], row["nation"]) not in kept]


def library_additions(factory: SessionFactory, *, document: dict[str, Any]) -> dict[str, list[str]]:
    """What importing the document adds to the file's library, by table ("Name (Nation)"):
    the entries it brings that the file lacks, as import_campaign finds them."""
    tables = document["tables"]
    with read_scope(factory) as session:
        new = {name: _new_to_library(session.connection(), name, tables.get(name, []))
               for name in sorted(LIBRARY)}  # fmt: skip
    return {name: [label(row) for row in rows] for name, rows in new.items()}


def import_campaign(
    factory: SessionFactory, *, document: dict[str, Any], name: str | None = None
) -> int:
    """Write a checked document as a new campaign (all of it or nothing; never merged into one
    of the same name: give `name`); its id. Should the database refuse a table, the import is
    tried again row by row and rolled back, to name the row."""

    tables: dict[str, list[dict[str, Any]]] = document["tables"]
    campaign_name = (name if name is not None else tables["campaign"][0]["name"]).strip()
    if not campaign_name or len(campaign_name) > 80 or bad_name_character(campaign_name):
        raise InvalidInput({"name": "give the campaign a name of 1 to 80 characters"})
    try:
        with session_scope(factory) as session:
            if clash := name_taken(session, Campaign, campaign_name):
                raise InvalidInput({"name": f"a campaign named {clash!r} is already in "
                                    "this file: import it under another name"})  # fmt: skip
            return _write(session.connection(), tables, campaign_name, one_by_one=False)
    except _RowRefused as refused:
        with scratch_scope(factory) as session:
            _write(session.connection(), tables, campaign_name, one_by_one=True)
        # pragma: no cover - the row by row write names the row it refuses
        raise InvalidInput({"file": f"a row of {refused} breaks a rule of the campaign "
                            "file"}) from refused  # fmt: skip
