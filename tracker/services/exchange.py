"""A whole campaign as one versioned JSON document: export, validate, import (README "Campaign
files").

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

import codecs
import functools
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from typing import Any, BinaryIO

import orjson
from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    text,
)
from sqlalchemy import select as table_select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import SQLModel, func, select

from tracker.db import (
    SessionFactory,
    head_revision,
    known_revisions,
    read_scope,
    scratch_database,
    scratch_scope,
    session_factory,
    session_scope,
    upgrade_scratch,
)
from tracker.models import TABLES, Campaign
from tracker.models.fields import words_of
from tracker.models.fleet import tracks_above_max
from tracker.services import identities, visibility
from tracker.services.documents import (
    FORMAT,
    JSON_COLUMNS,
    LIBRARY,
    NOT_EXPORTED,
    VERSION,
    Ids,
    Plan,
    campaign_rows,
    document_of,
    make_plan,
    table_plan,
)
from tracker.services.documents import dumps as document_bytes
from tracker.services.errors import (
    MAX_INT,
    InvalidInput,
    bad_character,
    bad_name_character,
    character_problem,
)
from tracker.services.visibility import Viewer

MAX_BYTES = 256 * 1024 * 1024
MAX_PROBLEMS = 8


@functools.cache
def _all_tables() -> tuple[Table, ...]:
    return tuple(t for t in SQLModel.metadata.sorted_tables if t.name != "alembic_version")


def _tables() -> list[Table]:
    # Sorting the schema's tables takes a millisecond: a journal of thousands of entries asks
    # for them once per entry.
    return list(_all_tables())


# The text columns holding a name, which refuse what a name refuses (errors.bad_name_character);
# the others are free text.
NAME_COLUMNS = frozenset({"name", "title", "area_a", "area_b", "layer_name", "sector"})


def _data_columns(table: Table) -> list[Any]:
    """The columns a campaign file carries."""
    return [column for column in table.columns if column.name not in NOT_EXPORTED]


def metadata_plan() -> Plan:
    """The documents' plan of the schema, as the models declare it."""

    def kinds(table: Table, kind: type[Any]) -> set[str]:
        return {column.name for column in table.columns if isinstance(_kind(column), kind)}

    return make_plan(
        table_plan(
            table.name,
            [column.name for column in table.columns],
            [(fk.parent.name, fk.column.table.name) for fk in table.foreign_keys],
            kinds(table, Boolean),
            kinds(table, DateTime),
        )
        for table in _tables()
    )


@functools.cache
def _export_plan(table: Table) -> tuple[list[str], list[tuple[int, str]], list[int], list[Any]]:
    """What a row of the table needs besides its values, imported: its column names (the id
    first), the columns naming a row (with that row's table), the times, the JSON columns to
    renumber; read from the documents' plan of the table (PLAN), as the export reads them."""
    planned = _TABLE_PLANS[table.name]
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
    """The campaign as a document (see the module's docstring and README "Campaign files").

    For the opponent or the umpire (`viewer`), every secret not yet revealed is left out as the
    roster and the ledger leave it out (docs/RULES.md §Secrets): such a document is a view to
    read, not a campaign to import.
    """
    with read_scope(factory) as session:
        if session.get(Campaign, campaign_id) is None:
            raise InvalidInput({"campaign": f"no campaign {campaign_id} in this file"})
        revision = session.connection().execute(text("SELECT version_num FROM alembic_version"))
        schema = revision.scalar_one()
        with _driver_cursor(session.connection(), "SELECT") as cursor:
            rows = campaign_rows(cursor, PLAN, campaign_id)
    document = document_of(rows, PLAN, schema)
    return view_of(document, viewer)


def view_of(document: dict[str, Any], viewer: Viewer | str) -> dict[str, Any]:
    """The document as the viewer may see it: the owner's whole, or the opponent's or the
    umpire's, every secret not yet revealed left out (a view to read, not to import)."""
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
    """The document as the file holds it, as text (documents.dumps)."""
    return document_bytes(document).decode()


# --- validation ----------------------------------------------------------------------------


_TABLES_BY_NAME: dict[str, Table] = {table.name: table for table in _tables()}
# Each table's columns a document carries, by table name: today's schema's, or an earlier
# revision's (read from a scratch database at that revision) for an older document.
Columns = dict[str, dict[str, Column[Any]]]
_COLUMNS: Columns = {
    name: {column.name: column for column in _data_columns(table)}
    for name, table in _TABLES_BY_NAME.items()
}


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, message: str) -> None:
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(message)

    def full(self) -> bool:
        return len(self.items) >= MAX_PROBLEMS

    def check(self) -> None:
        if self.items:
            raise InvalidInput({"file": "; ".join(self.items)})


def _kind(column: Column[Any]) -> Any:
    """The column's SQL type, under any decorator (a UTC timestamp is a DateTime)."""
    return getattr(column.type, "impl", column.type)


# The tables as the documents module reads and writes them.
PLAN = metadata_plan()
_TABLE_PLANS = {planned.name: planned for planned in PLAN.tables}


def _check_value(column: Column[Any], value: Any) -> str | None:
    """What is wrong with a value for this column, or None."""
    return _checker(column)(value)


@functools.cache
def _checker(column: Column[Any]) -> Callable[[Any], str | None]:
    """The check of a value for this column, its type looked up once (a file holds a million
    values): what is wrong with the value, or None."""
    kind, nullable = _kind(column), column.nullable

    def check(value: Any) -> str | None:
        if value is None:
            return None if nullable else "must not be null"
        return typed(value)

    def boolean(value: Any) -> str | None:
        return None if value is True or value is False else "must be true or false"

    def whole(value: Any) -> str | None:
        if type(value) is not int and (not isinstance(value, int) or isinstance(value, bool)):
            return "must be a whole number"
        if not -MAX_INT - 1 <= value <= MAX_INT:
            return f"must be a whole number from {-MAX_INT - 1} to {MAX_INT}"
        return None

    def moment(value: Any) -> str | None:
        try:
            when = datetime.fromisoformat(value)
            when.astimezone(UTC)  # as it is stored: 0001-01-01T00:00+01:00 has no UTC time
        except (TypeError, ValueError, OverflowError):
            return "must be a date and time (ISO 8601)"
        # Stored in UTC: a time without its offset could be anywhere (models.campaign.utcnow).
        return None if when.tzinfo is not None else "must give its UTC offset (+00:00)"

    length = getattr(kind, "length", None)
    bad = bad_name_character if column.name in NAME_COLUMNS else bad_character

    def words(value: Any) -> str | None:
        if not isinstance(value, str):
            return "must be text"
        if length is not None and len(value) > length:
            return f"must be at most {length} characters"
        char = bad(value)
        if char is not None:
            return f"holds {character_problem(char)}: edit the file without it"
        return None

    typed: Callable[[Any], str | None] = (
        boolean if isinstance(kind, Boolean) else whole if isinstance(kind, Integer)
        else moment if isinstance(kind, DateTime) else words if isinstance(kind, String)
        else lambda value: None
    )  # fmt: skip
    return check


def _bounds() -> dict[str, dict[str, tuple[int | None, int | None]]]:
    """Each table's numeric fields with the bounds its model declares (ge, le)."""
    found: dict[str, dict[str, tuple[int | None, int | None]]] = {}
    for model in TABLES:
        for key, info in model.model_fields.items():
            low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
            high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
            if low is not None or high is not None:
                found.setdefault(str(model.__tablename__), {})[key] = (low, high)
    return found


def _choices() -> dict[tuple[str, str], tuple[str, ...]]:
    """Each table's fields that hold one of a few words, with the words its model declares
    (its enum or its one_of: models.fields.words_of)."""
    found: dict[tuple[str, str], tuple[str, ...]] = {}
    for model in TABLES:
        for key, info in model.model_fields.items():
            if (words := words_of(info)) is not None:
                found[(str(model.__tablename__), key)] = words
    return found


_BOUNDS = _bounds()
# Fields that hold one of a few words.
CHOICES = _choices()
_CHOICES_OF: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
for (_table, _key), _words in CHOICES.items():
    _CHOICES_OF.setdefault(_table, []).append((_key, _words))


def _rule_problems(name: str, row: dict[str, Any]) -> list[str]:
    """What breaks the rules the forms keep: a value out of its bounds or not one of its words,
    a track above its maximum. A hand-edited file gets no further than the forms would."""
    problems = []
    for key, (low, high) in _BOUNDS.get(name, {}).items():
        value = row.get(key)
        if isinstance(value, int) and ((low is not None and value < low)
                                       or (high is not None and value > high)):  # fmt: skip
            allowed = f"{low}..{high}" if low is not None and high is not None else (
                f"{low} or more" if low is not None else f"{high} or less")  # fmt: skip
            problems.append(f"{key} must be {allowed}, got {value}")
    for key, words in _CHOICES_OF.get(name, ()):
        if row.get(key) not in words:
            problems.append(f"{key} must be one of {', '.join(map(repr, words))}")
    if name == "ship":
        problems += [f"{now} {said}" for now, said in tracks_above_max(row).items()]
    return problems


def _check_row(
    name: str, index: int, row: dict[str, Any], seen: set[int], problems: _Problems,
    schema: Columns = _COLUMNS,
) -> None:  # fmt: skip
    """What is wrong with one row of a table (its fields, their types and rules, its id); an
    unknown field was named as it was read. The rules are today's: a row of an earlier schema
    meets them once it is upgraded."""
    columns = schema[name]
    if len(row) != len(columns):
        for key in columns.keys() - row.keys():
            problems.add(f"{name}[{index}] lacks the field {key!r}")
    wrong = False
    for key, check in _checks(name, schema):
        if key in row and (error := check(row[key])) is not None:
            problems.add(f"{name}[{index}].{key} {error}")
            wrong = True
    if not wrong and len(row) == len(columns) and schema is _COLUMNS:
        for message in _rule_problems(name, row):
            problems.add(f"{name}[{index}].{message}")
    row_id = row.get("id")
    if row_id is None:
        problems.add(f"{name}[{index}].id must not be null")
    elif not isinstance(row_id, int):
        return  # named above as a wrong type
    elif row_id in seen:
        problems.add(f"{name}[{index}].id {row_id} is used twice")
    else:
        seen.add(row_id)


Checks = list[tuple[str, Callable[[Any], str | None]]]


def _checks(name: str, schema: Columns) -> Checks:
    """The check of each column of a table in a schema (today's made once per table)."""
    if schema is _COLUMNS:
        return _head_checks(name)
    return [(column, _checker(found)) for column, found in schema[name].items()]


@functools.cache
def _head_checks(name: str) -> Checks:
    return [(column, _checker(found)) for column, found in _COLUMNS[name].items()]


def _check_json(tables: dict[str, Any], problems: _Problems) -> None:
    """The JSON columns whose ids the import renumbers must hold what tracker writes there."""
    for (name, column), remap in JSON_COLUMNS.items():
        for index, row in enumerate(tables.get(name, [])):
            if row.get(column) is None:  # or not a column at the document's revision
                continue
            try:
                remap(row[column], {}, PLAN)
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                problems.add(f"{name}[{index}].{column} does not hold what tracker writes there")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _texts(value: Any, *keys: str) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(key, ""), str) for key in keys)


def _path(value: Any) -> bool:
    """A drifting minefield's moves: [{"turn", "from", "to", "d6"}]."""
    return isinstance(value, list) and all(
        _texts(step, "from", "to") and {"from", "to"} <= step.keys()
        and all(step.get(key) is None or _whole(step[key]) for key in ("turn", "d6"))
        for step in value
    )  # fmt: skip


def _dice(value: Any) -> bool:
    """An entry's dice as the journal shows them: the criticals rolled, or numbers (a d6 or a
    d10, the modifiers with their sign and what they add up to, a seed)."""
    if value is None:
        return True
    if not isinstance(value, dict):
        return False
    if "criticals" in value:
        rolls = value["criticals"]
        return isinstance(rolls, list) and all(
            _texts(roll, "kind") and roll.get("kind") and _whole(roll.get("roll")) for roll in rolls
        )
    rolled = value.get("d10") is not None
    return (
        all(number is None or isinstance(number, int) for number in value.values())
        and ("drm" not in value or (_whole(value["drm"]) and "modified" in value))
        and not (rolled and "total" in value and not _whole(value.get("modifier")))
        and not (rolled and value.get("commander_modifier") is not None
                 and "modified" not in value)
    )  # fmt: skip


def _detail(value: Any) -> bool:
    return (isinstance(value, dict) and _dice(value.get("dice"))
            and all(value.get(key) is None or isinstance(value[key], dict)
                    for key in ("before", "after")))  # fmt: skip


def _attacks(value: Any) -> bool:
    """A unit card's attack dice: {"main": [r0, r1, r2, r3], ...}, null where the card has -."""
    return isinstance(value, dict) and all(
        isinstance(dice, list) and len(dice) == 4
        and all(die is None or (_whole(die) and 0 <= die <= 20) for die in dice)
        for dice in value.values()
    )  # fmt: skip


def _criticals(value: Any) -> bool:
    return isinstance(value, list) and all(_texts(item, "kind", "effect") for item in value)


def _marker_note(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("real"), bool)
            and isinstance(value.get("salt"), str))  # fmt: skip


def _sealed_place(value: Any) -> bool:
    """A secret minefield's place and notes (mines.minefields._store_place)."""
    areas = value.get("boundary") if isinstance(value, dict) else None
    return (_texts(value, "sector", "notes", "layer_name") and _path(value.get("path", []))
            and (areas is None or (isinstance(areas, list) and len(areas) == 2
                                   and all(isinstance(area, str) for area in areas))))  # fmt: skip


# The text columns that hold JSON, and what the screens read from them.
JSON_SHAPES: dict[tuple[str, str], Callable[[Any], bool]] = {
    ("journalentry", "detail"): _detail,
    ("minefield", "path"): _path,
    ("shipsnapshot", "criticals"): _criticals,
    ("shipsnapshot", "counter"): lambda value: isinstance(value, dict),
    ("wasunit", "attacks"): _attacks,
    ("unitcard", "attacks"): _attacks,
    ("unitcard", "abilities"): lambda value: (
        isinstance(value, list)
        and all(_texts(item, "name", "text") and "name" in item for item in value)
    ),
}
# Notes kept plain ("plain:{json}") or sealed under the side's passphrase ("fernet:token").
NOTES: dict[tuple[str, str], Callable[[Any], bool]] = {
    ("submarker", "secret"): _marker_note,
    ("minefield", "sealed"): _sealed_place,
}


def _shape_problem(name: str, column: str, value: str, locked: bool) -> str | None:
    """What is wrong with what a JSON column or a note holds, or None."""
    if (name, column) in NOTES:
        if name == "minefield" and not value:
            return None  # a minefield that is not secret keeps its place in its columns
        if value.startswith("fernet:"):
            return None if locked else "is sealed, but its side has no passphrase to open it"
        shape = NOTES[name, column]
        if not value.startswith("plain:"):
            return "is neither a plain nor a sealed note"
        value = value[len("plain:") :]
    else:
        shape = JSON_SHAPES[name, column]
    try:
        return None if shape(_loads(value)) else "does not hold what tracker writes there"
    except (ValueError, RecursionError):
        return "is not JSON"


def _loads(text: str) -> Any:
    """JSON text read by orjson (several times faster), or by the standard reader for what
    orjson refuses and it reads (a whole number past 64 bits, NaN): the same values either way."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _check_shapes(tables: dict[str, Any], problems: _Problems) -> None:
    """The JSON columns and the notes hold what tracker writes there, so the screens can read
    them; a sealed note belongs to a side with a passphrase."""
    locked = {row["side_id"] for row in tables.get("sidesecret", [])}
    for name, column in [*JSON_SHAPES, *NOTES]:
        for index, row in enumerate(tables.get(name, [])):
            if isinstance(row[column], str):
                problem = _shape_problem(name, column, row[column], row.get("side_id") in locked)
                if problem is not None:
                    problems.add(f"{name}[{index}].{column} {problem}")
        if name == "minefield" and column == "sealed":
            for index, row in enumerate(tables.get(name, [])):
                if bool(row["sealed"]) != row["secret"]:
                    problems.add(f"{name}[{index}].sealed must hold the place of a secret "
                                 "minefield, and only of one")  # fmt: skip


def _check_references(tables: dict[str, Any], problems: _Problems) -> None:
    present = {name: {row["id"] for row in rows} for name, rows in tables.items()}
    for name, rows in tables.items():
        table = _TABLES_BY_NAME[name]
        foreign = {fk.parent.name: fk.column.table.name for fk in table.foreign_keys}
        for index, row in enumerate(rows):
            for column, target in foreign.items():
                value = row.get(column)
                if value is not None and value not in present.get(target, set()):
                    problems.add(f"{name}[{index}].{column} refers to {target} {value}, which "
                                 "is not in the file")  # fmt: skip


def too_large(size: int) -> str:
    """The refusal of a file over the size limit, saying the limit."""
    limit, mb = MAX_BYTES // 2**20, round(size / 2**20)
    return (f"a campaign file over {limit} MB is refused (this one is {mb} MB): check that "
            "it is a file written by tracker export")  # fmt: skip


_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = json.JSONDecoder()


class _Reader:
    """Walks a campaign document without building more than one row at a time.

    A campaign file has a fixed shape: an object whose "tables" holds lists of flat rows. Only
    that shape is walked, and every value is read as a scalar (text, number, true, false,
    null); an object or a list anywhere else is refused as soon as it starts, so a hostile
    file (a million empty objects, deep nesting) is refused before it takes memory.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        char = self.text[self.pos : self.pos + 1]
        if char and char in " \t\n\r":
            match = _SPACE.match(self.text, self.pos)
            assert match is not None
            self.pos = match.end()
            char = self.text[self.pos : self.pos + 1]
        return char

    def fail(self, message: str) -> json.JSONDecodeError:
        return json.JSONDecodeError(message, self.text, self.pos)

    def take(self, char: str) -> None:
        if self.peek() != char:
            raise self.fail(f"Expecting {char!r}")
        self.pos += 1

    def scalar(self) -> Any:
        """A value that is no object or list (the caller looked at peek() first)."""
        value, self.pos = _SCALAR.raw_decode(self.text, self.pos)
        return value

    def members(self) -> Iterator[str]:
        """The keys of the object starting here; the caller reads each key's value."""
        self.take("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            if self.peek() != '"':
                raise self.fail("Expecting property name enclosed in double quotes")
            key, self.pos = json.decoder.scanstring(self.text, self.pos + 1)  # type: ignore[attr-defined]
            self.take(":")
            yield key
            if self.peek() == ",":
                self.pos += 1
                continue
            self.take("}")
            return

    def elements(self) -> Iterator[int]:
        """The indexes of the list starting here; the caller reads each element."""
        self.take("[")
        if self.peek() == "]":
            self.pos += 1
            return
        index = 0
        while True:
            yield index
            index += 1
            if self.peek() == ",":
                self.pos += 1
                continue
            self.take("]")
            return

    def end(self) -> None:
        if self.peek():
            raise self.fail("Extra data")


def _container(char: str) -> bool:
    return char in ("{", "[")


def _read_row(
    reader: _Reader, name: str, where: str, problems: _Problems, schema: Columns
) -> dict[str, Any]:
    columns = schema[name]
    row: dict[str, Any] = {}
    for key in reader.members():
        column = columns.get(key)
        if column is None:  # named, and not kept: a row of a million made-up fields is refused
            problems.add(f"{where} has an unknown field {key!r}")
            if problems.full():
                problems.check()
        if _container(reader.peek()):
            error = "is not a value" if column is None else _check_value(column, [])
            problems.add(f"{where}.{key} {error}")
            problems.check()  # it is not read: an object or a list may be any size
        value = reader.scalar()
        if column is not None:
            row[column.name] = value  # the column's own string, not one more per row
    return row


_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_MEMBER = rf"{_STRING}\s*:\s*(?:{_STRING}|[-+.\w]+)"


@functools.cache
def _row_pattern(columns: int) -> re.Pattern[str]:
    """A row as tracker writes it: an object of at most `columns` members, each a value that is
    no object or list (a row of more members is read member by member, see _read_row)."""
    return re.compile(rf"\{{\s*(?:{_MEMBER}(?:\s*,\s*{_MEMBER}){{0,{columns - 1}}})?\s*\}}")


def _flat_row(reader: _Reader, name: str, schema: Columns) -> dict[str, Any] | None:
    """The row starting here read in one go, when it is a flat object of the table's fields:
    its size is then bounded by theirs. None (nothing read) for anything else, which
    _read_row reads and names value by value."""
    columns = schema[name]
    found = _row_pattern(len(columns)).match(reader.text, reader.pos)
    if found is None:
        return None
    try:
        row = orjson.loads(found.group())
    except orjson.JSONDecodeError:
        return None
    if not isinstance(row, dict) or not row.keys() <= columns.keys():
        return None
    reader.pos = found.end()
    return row


def _read_tables(
    reader: _Reader, problems: _Problems, schema: Columns
) -> dict[str, list[dict[str, Any]]]:
    tables: dict[str, list[dict[str, Any]]] = {}
    for name in reader.members():
        if name not in schema:
            problems.add(f"unknown table {name!r}")
        elif name in tables:
            problems.add(f"table {name!r} is given twice")
        elif reader.peek() != "[":
            problems.add(f"table {name!r} is not a list of rows")
        problems.check()
        rows = tables[name] = []
        seen: set[int] = set()
        for index in reader.elements():
            if reader.peek() != "{":
                if not reader.peek():
                    raise reader.fail("Expecting value")  # the file was cut short
                problems.add(f"{name}[{index}] is not an object")
                problems.check()
            row = _flat_row(reader, name, schema)
            if row is None:
                row = _read_row(reader, name, f"{name}[{index}]", problems, schema)
            _check_row(name, index, row, seen, problems, schema)
            if problems.full():
                problems.check()
            if not problems.items:  # a file with problems is refused: its rows are not kept
                rows.append(row)
    return tables


def _check_header(document: dict[str, Any]) -> None:
    """Refuse a file of another format, or of a newer tracker, by its first fields."""
    if document.get("format", FORMAT) != FORMAT:
        raise InvalidInput({"file": f'is not a tracker campaign file (no "format": "{FORMAT}")'})
    version = document.get("version", VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InvalidInput({"file": "has no format version"})
    if "view" in document:
        raise InvalidInput({"file": f"is the {document['view']}'s view of a campaign, with its "
                            "secrets left out: import the owner's export instead"})  # fmt: skip
    if version > VERSION:
        raise InvalidInput({"file": f"was written by a newer tracker (format version {version}; "
                            f"this one reads up to {VERSION}): update tracker"})  # fmt: skip
    schema = document.get("schema", head_revision())
    if not isinstance(schema, str) or not schema:
        raise InvalidInput({"file": 'its "schema" is not a schema revision'})
    if schema not in known_revisions():
        raise InvalidInput({"file": f"was written by a newer tracker (schema {schema}; this one "
                            f"knows schemas up to {head_revision()}): update tracker to import "
                            "it"})  # fmt: skip


def _read(text: str, problems: _Problems, columns_for: Callable[[str], Columns]) -> dict[str, Any]:
    """The document, its shape checked as it is read (see _Reader), its tables against the
    columns of the schema revision its header names (tracker export writes the header first)."""
    reader = _Reader(text)
    first = reader.peek()
    if first != "{":
        if first != "[":
            reader.scalar()  # not JSON at all, or a single value
        raise InvalidInput({"file": f'is not a tracker campaign file (no "format": "{FORMAT}")'})
    document: dict[str, Any] = {}
    for key in reader.members():
        if key == "tables" and reader.peek() == "{":
            schema = columns_for(document.get("schema", head_revision()))
            document[key] = _read_tables(reader, problems, schema)
        elif _container(reader.peek()):
            if "format" not in document and key != "tables":
                raise InvalidInput(
                    {"file": f'is not a tracker campaign file (no "format": "{FORMAT}")'}
                )
            raise InvalidInput({"file": f'has no "{key}" object' if key == "tables"
                                else f'its "{key}" is not a single value'})  # fmt: skip
        else:
            document[key] = reader.scalar()
            _check_header(document)
    reader.end()
    return document


def read_document(raw: bytes | BinaryIO) -> dict[str, Any]:
    """Parse and check a campaign document (its bytes, or a file open to read them);
    InvalidInput names the first problems found.

    Its peak memory stays within a few times the file's size: the shape is checked while it
    is read, one row at a time (_lines, or _Reader for a file tracker did not write as it
    writes one), and a file over MAX_BYTES is refused unread. Read from a file, only its rows
    are held, not its bytes.
    """
    size = len(raw) if isinstance(raw, bytes) else os.fstat(raw.fileno()).st_size
    if size > MAX_BYTES:
        raise InvalidInput({"file": too_large(size)})
    with ExitStack() as stack:
        scratch: list[Engine] = []

        @functools.cache  # the fast reader and the careful one may both ask
        def columns_for(schema: str) -> Columns:
            if schema == head_revision():
                return _COLUMNS
            scratch.append(stack.enter_context(scratch_database(schema)))
            return _reflected_columns(scratch[0])

        document = _parse(raw, columns_for)
        if scratch:
            return _upgraded(document, scratch[0])
    if document.get("schema", head_revision()) != head_revision():
        raise InvalidInput({"file": 'names its schema after its tables: put "schema" first, '
                            "as tracker export writes it"})  # fmt: skip
    problems = _Problems()
    tables = document["tables"]
    _check_json(tables, problems)
    _check_shapes(tables, problems)
    _check_references(tables, problems)
    problems.check()
    return document


def _parse(raw: bytes | BinaryIO, columns_for: Callable[[str], Columns]) -> dict[str, Any]:
    """The document read and its shape checked, its rows against the columns of its schema:
    line by line where it is laid out as tracker export lays it out and has no problem
    (_lines), or else by the careful reader, which names what is wrong (_Reader)."""
    problems = _Problems()
    lines = _lines(raw) if isinstance(raw, bytes) else iter(raw)
    document = _read_lines(lines, problems, columns_for)
    if document is None:
        if not isinstance(raw, bytes):
            raw.seek(0)
            raw = raw.read(MAX_BYTES + 1)
        document = _read_careful(raw, _Problems(), columns_for)
    if document.get("format") != FORMAT:
        raise InvalidInput({"file": f'is not a tracker campaign file (no "format": "{FORMAT}")'})
    if "version" not in document:
        raise InvalidInput({"file": "has no format version"})
    tables = document.get("tables")
    if not isinstance(tables, dict):
        raise InvalidInput({"file": 'has no "tables" object'})
    if len(tables.get("campaign", [])) != 1:
        raise InvalidInput({"file": "must hold exactly one campaign"})
    return document


def _lines(raw: bytes) -> Iterator[bytes]:
    """The lines of the bytes, each with its line break, one at a time."""
    start = 0
    while start < len(raw):
        end = raw.find(b"\n", start) + 1 or len(raw)
        yield raw[start:end]
        start = end


# A row's line longer than this is left to the careful reader, which refuses an object or a
# list inside a row before it takes memory; orjson reads a line whole.
LONGEST_LINE = 64 * 1024
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _read_lines(
    lines: Iterator[bytes], problems: _Problems, columns_for: Callable[[str], Columns]
) -> dict[str, Any] | None:
    """The document as tracker export writes it (see dumps), read a line at a time, each row
    checked as it is read; None at the first line laid out otherwise or the first problem
    (the careful reader then reads the file, and names what is wrong)."""
    if next(lines, b"").rstrip() not in (b"{", codecs.BOM_UTF8 + b"{"):
        return None
    document: dict[str, Any] = {}
    for line in lines:
        if line == b' "tables": {\n':
            break
        text = line.rstrip()
        if not text.endswith(b","):  # the tables come last
            return None
        try:
            member = orjson.loads(b"{" + text[:-1] + b"}")
        except orjson.JSONDecodeError:
            return None
        if len(member) != 1 or type(next(iter(member.values()))) not in _SCALARS:
            return None
        document.update(member)
        _check_header(document)
    else:
        return None
    schema = columns_for(document.get("schema", head_revision()))
    tables: dict[str, list[dict[str, Any]]] = {}
    document["tables"] = tables
    rows: list[dict[str, Any]] | None = None  # of the list open, if one is
    name, more = "", True  # more: a comma said another row or table follows
    for line in lines:
        if rows is not None and line.startswith(b"   {") and len(line) < LONGEST_LINE:
            if not more or not _row_line(line, name, rows, schema):
                return None
            more = line.rstrip().endswith(b",")
        elif rows is not None and line in (b"  ],\n", b"  ]\n") and rows and not more:
            if not _table_fine(name, rows, schema):
                return None
            rows, more = None, line == b"  ],\n"
        elif rows is None and more and line.startswith(b'  "'):
            key, _, rest = line.strip().partition(b": ")
            name = key[1:-1].decode("utf-8", "replace")
            if name not in schema or name in tables or rest not in (b"[", b"[],", b"[]"):
                return None
            tables[name], more = [], rest != b"[]"
            rows = tables[name] if rest == b"[" else None
        else:
            break
    else:
        return None
    if rows is not None or more or line != b" }\n" or next(lines, b"").rstrip() != b"}":
        return None
    return None if any(rest.strip() for rest in lines) else document


def _row_line(line: bytes, name: str, rows: list[dict[str, Any]], schema: Columns) -> bool:
    """Read one row's line into `rows`; False if it is not a flat row of the table's fields
    (its values are checked with its table's, _table_fine)."""
    try:
        row = orjson.loads(line.rstrip().removesuffix(b","))
    except orjson.JSONDecodeError:
        return False
    if type(row) is not dict or not row.keys() <= schema[name].keys():
        return False
    if not _SCALARS.issuperset(map(type, row.values())):
        return False
    rows.append(row)
    return True


# A time as tracker export writes it; datetime.fromisoformat then says it is a real one.
_UTC_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?\+00:00")


def _table_fine(name: str, rows: list[dict[str, Any]], schema: Columns) -> bool:
    """True when every row of the table meets what _check_row checks: every field, of its
    column's type and size, within the model family's bounds, the ids each once. Checked
    column by column, mostly in C over a column's values at once, not value by value (a file
    holds a million); False where a row may not, for the careful reader to name it."""
    columns = schema[name]
    if set(map(len, rows)) != {len(columns)}:
        return False
    ids = [row["id"] for row in rows]
    if set(map(type, ids)) != {int} or len(set(ids)) != len(ids):
        return False
    if not all(_column_fine(column, [row[key] for row in rows]) for key, column in columns.items()):
        return False
    if schema is not _COLUMNS:
        return True
    for key, (low, high) in _BOUNDS.get(name, {}).items():
        numbers = [value for row in rows if isinstance(value := row.get(key), int)]
        if numbers and ((low is not None and min(numbers) < low)
                        or (high is not None and max(numbers) > high)):  # fmt: skip
            return False
    for key, words in _CHOICES_OF.get(name, ()):
        if not {row.get(key) for row in rows} <= set(words):
            return False
    return name != "ship" or not any(map(tracks_above_max, rows))


def _column_fine(column: Column[Any], values: list[Any]) -> bool:
    """True when every value passes _checker(column); False where one may not."""
    kind = _kind(column)
    types = set(map(type, values))
    if type(None) in types:
        if not column.nullable:
            return False
        types.discard(type(None))
        values = [value for value in values if value is not None]
    if not values:
        return True
    if isinstance(kind, Boolean):
        return types == {bool}
    if isinstance(kind, Integer):
        return types == {int} and min(values) >= -MAX_INT - 1 and max(values) <= MAX_INT
    if isinstance(kind, DateTime):
        if types != {str} or not all(map(_UTC_TIME.fullmatch, values)):
            return False
        try:
            list(map(datetime.fromisoformat, values))
        except ValueError:
            return False
        return True
    if isinstance(kind, String):
        length = getattr(kind, "length", None)
        if types != {str} or (length is not None and max(map(len, values)) > length):
            return False
        bad = bad_name_character if column.name in NAME_COLUMNS else bad_character
        return bad("".join(values)) is None
    return True


def _read_careful(
    raw: bytes, problems: _Problems, columns_for: Callable[[str], Columns]
) -> dict[str, Any]:
    """The document read by _Reader, which names the first problems it finds."""
    try:
        document = _read(raw.decode("utf-8-sig"), problems, columns_for)
    except UnicodeDecodeError as exc:
        raise InvalidInput({"file": f"is not UTF-8 text (byte {exc.start})"}) from exc
    except json.JSONDecodeError as exc:
        raise InvalidInput({"file": f"is not JSON (line {exc.lineno}, column {exc.colno}: "
                            f"{exc.msg}); a file cut short ends like this"}) from exc  # fmt: skip
    if document.get("format") != FORMAT:
        raise InvalidInput({"file": f'is not a tracker campaign file (no "format": "{FORMAT}")'})
    if "version" not in document:
        raise InvalidInput({"file": "has no format version"})
    problems.check()
    return document


def _reflected_columns(engine: Engine) -> Columns:
    """Each table's columns a document carries, as the database at engine has them."""
    metadata = MetaData()
    metadata.reflect(engine)
    return {
        table.name: {column.name: column for column in _data_columns(table)}
        for table in metadata.sorted_tables
        if table.name != "alembic_version"
    }


def _stored(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """A document's row as its table at that revision stores it (times in UTC)."""
    return {
        key: datetime.fromisoformat(value).astimezone(UTC)
        if isinstance(_kind(table.c[key]), DateTime) and value is not None
        else value
        for key, value in row.items()
    }


def _upgraded(document: dict[str, Any], scratch: Engine) -> dict[str, Any]:
    """A document of an earlier schema revision as today's tracker would write it: its rows
    written into a scratch database at that revision, upgraded there by the migrations, and
    exported again (then checked as any document of today's schema)."""
    schema, tables = document["schema"], document["tables"]
    problems = _Problems()
    _check_json(tables, problems)  # the export below reads the ids inside them
    problems.check()
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
    return read_document(dumps(today).encode("utf-8"))


# --- import --------------------------------------------------------------------------------


# JSON columns name rows of other tables: those tables are written first.
JSON_DEPENDS = {"journalentry": "*", "shipsnapshot": "critical"}
# References set by an update once every row is in, as their table comes first: a squadron
# names its commander's ship, and a ship its squadron.
LATER_REFS = {"squadron": {"commander_ship_id"}}


def _import_order() -> list[Table]:
    """Tables so that every table a row refers to (by key, by id or in JSON) comes first."""
    tables = _tables()
    needs = {
        table.name: ({t.name for t in tables} if JSON_DEPENDS.get(table.name) == "*" else
                     {JSON_DEPENDS[table.name]} if table.name in JSON_DEPENDS else set())
        | {target for key, target in _TABLE_PLANS[table.name].refs
           if key not in LATER_REFS.get(table.name, set())}
        for table in tables
    }  # fmt: skip
    order: list[Table] = []
    placed: set[str] = set()
    while len(order) < len(tables):
        for table in tables:
            if table.name not in placed and needs[table.name] - {table.name} <= placed:
                order.append(table)
                placed.add(table.name)
                break
        else:  # pragma: no cover - the schema has no cycle but a table's own
            raise RuntimeError("the tables refer to each other in a cycle")
    return order


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
    """A document's row as its new row, its values in _export_plan's order: its new id, the
    references renumbered, times as `time` makes them. A reference to a row not written
    before it (a later row of its own table, a ship named by its squadron) is written as null
    and set once every row is in."""
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
    """A file's time (ISO 8601 with its offset, checked) as SQLAlchemy stores it in SQLite:
    UTC, without the offset, to the microsecond."""
    if value.endswith("+00:00") and value[10:11] == "T":
        if len(value) == 32 and value[19] == ".":
            return f"{value[:10]} {value[11:26]}"
        if len(value) == 25:  # a whole second: isoformat leaves the fraction out
            return f"{value[:10]} {value[11:19]}.000000"
    when = datetime.fromisoformat(value).astimezone(UTC).replace(tzinfo=None)
    return when.isoformat(sep=" ", timespec="microseconds")


def _insert(conn: Connection, table: Table, rows: list[list[Any]]) -> None:
    """Insert rows of _values, by one executemany. On SQLite the driver's own executemany
    takes them as they are (times already stored text): SQLAlchemy's parameter processing
    took as long as SQLite's writing."""
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
    """Write every row of a checked document, with its new ids; the campaign's new id.

    Each table goes in by executemany (WRITE_ROWS rows to a call), parents first. A table
    the database refuses raises _RowRefused; `one_by_one` writes each row alone, to name the
    row it refuses.
    """
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
        table = _TABLES_BY_NAME[table_name]
        conn.execute(table.update().where(table.c.id == bindparam("_id"))
                     .values({column: bindparam("_to")}), changes)  # fmt: skip
    return ids["campaign"][tables["campaign"][0]["id"]]


def _new_to_library(
    conn: Connection, name: str, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The rows of a library table whose entry (name and nation, any case) the file lacks."""
    table = _TABLES_BY_NAME[name]
    query = table_select(table.c.name, table.c.nation)
    kept = {(n.casefold(), nation.casefold()) for n, nation in conn.execute(query)}

    def key(row: dict[str, Any]) -> tuple[str, str]:
        return str(row["name"]).casefold(), str(row["nation"]).casefold()

    return [row for row in rows if key(row) not in kept]


def import_campaign(
    factory: SessionFactory, *, document: dict[str, Any], name: str | None = None
) -> int:
    """Write a checked document as a new campaign (all of it or nothing); returns its id.

    A campaign of the same name already in the file is never merged into: give `name`.
    Every table is written with one executemany in the one transaction; should the database
    refuse one, the import is tried again row by row and rolled back, to name the row.
    """
    tables: dict[str, list[dict[str, Any]]] = document["tables"]
    campaign_name = (name if name is not None else tables["campaign"][0]["name"]).strip()
    if not campaign_name or len(campaign_name) > 80 or bad_name_character(campaign_name):
        raise InvalidInput({"name": "give the campaign a name of 1 to 80 characters"})
    try:
        with session_scope(factory) as session:
            clash = session.exec(select(Campaign).where(
                func.lower(Campaign.name) == campaign_name.lower())).first()  # fmt: skip
            if clash is not None:
                raise InvalidInput({"name": f"a campaign named {clash.name!r} is already in "
                                    "this file: import it under another name"})  # fmt: skip
            return _write(session.connection(), tables, campaign_name, one_by_one=False)
    except _RowRefused as refused:
        with scratch_scope(factory) as session:
            _write(session.connection(), tables, campaign_name, one_by_one=True)
        # pragma: no cover - the row by row write names the row it refuses
        raise InvalidInput({"file": f"a row of {refused} breaks a rule of the campaign "
                            "file"}) from refused  # fmt: skip
