"""The checks of a campaign document's rows (services.exchange has the whole story): each
value against its column (type, size, the characters a text or a name refuses), each row
against the rules the forms keep (bounds, words, a track within its maximum), the JSON a
column holds, every reference to another row, and a file's header.

A reader hands them a table's rows as it reads them (services.document_reader), a few
thousand at a time or one by one, and keeps none: `RowChecks` keeps only what a check needs
once every row is read (each table's ids, the references still to check, the sealed notes of
sides whose passphrase is not yet read), so a file is refused before its rows take memory.
"""

from __future__ import annotations

import functools
import re
from array import array
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, Column, DateTime, Integer, String, Table
from sqlmodel import SQLModel

from tracker.db import head_revision, known_revisions
from tracker.models import TABLES
from tracker.models.fields import words_of
from tracker.models.fleet import tracks_above_max
from tracker.services.document_shapes import JSON_SHAPES, NOTES, shape_problem
from tracker.services.documents import (
    FORMAT,
    JSON_COLUMNS,
    NOT_EXPORTED,
    VERSION,
    Plan,
    make_plan,
    table_plan,
)
from tracker.services.errors import (
    MAX_INT,
    InvalidInput,
    bad_character,
    bad_name_character,
    character_problem,
)
from tracker.services.problems import Problems

MAX_PROBLEMS = 8  # different problems a campaign file's refusal names
# The places of its problems a refusal counts: a file of a million bad rows is not read to its end.
MAX_PLACES = 1000
# The longest text a column without a declared length holds (a journal entry's JSON, a sealed
# note): a few kilobytes in any campaign played; a file holding more is refused, unread.
LONGEST_TEXT = 2**20


# The schema's tables, parents first.
SCHEMA_TABLES = tuple(t for t in SQLModel.metadata.sorted_tables if t.name != "alembic_version")

# The text columns holding a name, which refuse what a name refuses (errors.bad_name_character);
# the others are free text.
NAME_COLUMNS = frozenset({"name", "title", "area_a", "area_b", "layer_name", "sector"})


def data_columns(table: Table) -> list[Any]:
    """The columns a campaign file carries."""
    return [column for column in table.columns if column.name not in NOT_EXPORTED]


def metadata_plan() -> Plan:
    """The documents' plan of the schema, as the models declare it."""

    def kinds(table: Table, kind: type[Any]) -> set[str]:
        return {column.name for column in table.columns if isinstance(column_kind(column), kind)}

    return make_plan(
        table_plan(
            table.name,
            [column.name for column in table.columns],
            [(fk.parent.name, fk.column.table.name) for fk in table.foreign_keys],
            kinds(table, Boolean),
            kinds(table, DateTime),
        )
        for table in SCHEMA_TABLES
    )


TABLES_BY_NAME: dict[str, Table] = {table.name: table for table in SCHEMA_TABLES}
# Each table's columns a document carries, by table name: today's schema's, or an earlier
# revision's (read from a scratch database at that revision) for an older document.
Columns = dict[str, dict[str, Column[Any]]]
COLUMNS: Columns = {
    name: {column.name: column for column in data_columns(table)}
    for name, table in TABLES_BY_NAME.items()
}


def column_kind(column: Column[Any]) -> Any:
    """The column's SQL type, under any decorator (a UTC timestamp is a DateTime)."""
    return getattr(column.type, "impl", column.type)


# The tables as the documents module reads and writes them.
PLAN = metadata_plan()
TABLE_PLANS = {planned.name: planned for planned in PLAN.tables}


class TooLong:
    """A value a reader measured and never read: longer than its column holds."""


TOO_LONG = TooLong()


def text_length(column: Column[Any]) -> int:
    """The most characters a text column holds: its declared length, else LONGEST_TEXT."""
    length = getattr(column_kind(column), "length", None)
    return LONGEST_TEXT if length is None else int(length)


def check_value(column: Column[Any], value: Any) -> str | None:
    """What is wrong with a value for this column, or None."""
    return _checker(column)(value)


@functools.cache
def _checker(column: Column[Any]) -> Callable[[Any], str | None]:
    """The check of a value for this column, its type looked up once (a file holds a million)."""
    kind, nullable = column_kind(column), column.nullable

    def check(value: Any) -> str | None:
        if value is None:
            return None if nullable else "must not be null"
        if value is TOO_LONG:
            return too_long
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

    length = text_length(column)
    bad = bad_name_character if column.name in NAME_COLUMNS else bad_character

    def words(value: Any) -> str | None:
        if not isinstance(value, str):
            return "must be text"
        if len(value) > length:
            return f"must be at most {length} characters"
        char = bad(value)
        if char is not None:
            return f"holds {character_problem(char)}: edit the file without it"
        return None

    too_long = (f"must be at most {length} characters" if isinstance(kind, String)
                else "is longer than any value tracker writes")  # fmt: skip
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
    """Each table's fields holding one of a few words, with those words (models.fields.words_of)."""
    found: dict[tuple[str, str], tuple[str, ...]] = {}
    for model in TABLES:
        for key, info in model.model_fields.items():
            if (words := words_of(info)) is not None:
                found[(str(model.__tablename__), key)] = words
    return found


BOUNDS = _bounds()
# Fields that hold one of a few words.
CHOICES = _choices()
_CHOICES_OF: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
for (_table, _key), _words in CHOICES.items():
    _CHOICES_OF.setdefault(_table, []).append((_key, _words))


def rule_problems(name: str, row: dict[str, Any]) -> list[tuple[str, str]]:
    """What breaks the rules the forms keep: a value out of its bounds or not one of its words,
    a track above its maximum. A hand-edited file gets no further than the forms would."""
    problems = []
    for key, (low, high) in BOUNDS.get(name, {}).items():
        value = row.get(key)
        if isinstance(value, int) and ((low is not None and value < low)
                                       or (high is not None and value > high)):  # fmt: skip
            allowed = f"{low}..{high}" if low is not None and high is not None else (
                f"{low} or more" if low is not None else f"{high} or less")  # fmt: skip
            problems.append((key, f"must be {allowed}, got {value}"))
    for key, words in _CHOICES_OF.get(name, ()):
        if row.get(key) not in words:
            problems.append((key, f"must be one of {', '.join(map(repr, words))}"))
    if name == "ship":
        problems += tracks_above_max(row).items()
    return problems


def check_row(
    name: str, index: int, row: dict[str, Any], seen: set[int], problems: Problems,
    schema: Columns = COLUMNS,
) -> None:  # fmt: skip
    """What is wrong with one row of a table (its fields, their types and rules, its id); an
    unknown field was named as it was read. The rules are today's: a row of an earlier schema
    meets them once it is upgraded."""
    columns, where = schema[name], f"{name}[{index}]"
    if len(row) != len(columns):
        for key in columns.keys() - row.keys():
            problems.add(where, "", f"lacks the field {key!r}")
    wrong = False
    for key, check in _checks(name, schema):
        if key in row and (error := check(row[key])) is not None:
            problems.add(where, key, error)
            wrong = True
    if not wrong and len(row) == len(columns) and schema is COLUMNS:
        for key, message in rule_problems(name, row):
            problems.add(where, key, message)
    row_id = row.get("id")
    if row_id is None:
        problems.add(where, "id", "must not be null")
    elif not isinstance(row_id, int):
        return  # named above as a wrong type
    elif row_id in seen:
        problems.add(where, "id", f"{row_id} is used twice")
    else:
        seen.add(row_id)


Checks = list[tuple[str, Callable[[Any], str | None]]]


def _checks(name: str, schema: Columns) -> Checks:
    """The check of each column of a table in a schema (today's made once per table)."""
    if schema is COLUMNS:
        return _head_checks(name)
    return [(column, _checker(found)) for column, found in schema[name].items()]


@functools.cache
def _head_checks(name: str) -> Checks:
    return [(column, _checker(found)) for column, found in COLUMNS[name].items()]


def check_header(document: dict[str, Any]) -> None:
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


# A time as tracker export writes it; datetime.fromisoformat then says it is a real one.
_UTC_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?\+00:00")


def table_fine(name: str, rows: list[dict[str, Any]], schema: Columns, seen: set[int]) -> bool:
    """True when every row (a part of the table's; the ids before it in `seen`) meets what
    check_row checks, column by column in C rather than value by value (a file holds a
    million); False where one may not, for the careful reader to name it."""
    columns = schema[name]
    if set(map(len, rows)) != {len(columns)}:
        return False
    ids = [row["id"] for row in rows]
    if set(map(type, ids)) != {int} or len(set(ids)) != len(ids) or not seen.isdisjoint(ids):
        return False
    seen.update(ids)
    if not all(_column_fine(column, [row[key] for row in rows]) for key, column in columns.items()):
        return False
    if schema is not COLUMNS:
        return True
    for key, (low, high) in BOUNDS.get(name, {}).items():
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
    kind = column_kind(column)
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
        if types != {str} or max(map(len, values)) > text_length(column):
            return False
        bad = bad_name_character if column.name in NAME_COLUMNS else bad_character
        return bad("".join(values)) is None
    return True


NONE = MAX_INT + 1  # a null reference, among whole numbers: no row's id
# Each table's foreign keys (column, table named), and its JSON columns and notes.
_FOREIGN = {name: [(fk.parent.name, fk.column.table.name) for fk in table.foreign_keys]
            for name, table in TABLES_BY_NAME.items()}  # fmt: skip
_SHAPED: dict[str, list[str]] = {}
for _table, _column in [*JSON_SHAPES, *NOTES]:
    _SHAPED.setdefault(_table, []).append(_column)


class RowChecks:
    """The checks of a document's rows that other rows decide, kept as a reader hands rows over:
    each table's ids, the references to check, the sealed notes of sides whose passphrase may
    come later; `finish` checks them. Shapes, notes and references only at today's schema."""

    def __init__(self, schema: Columns, problems: Problems) -> None:
        self.problems = problems
        self.today = schema is COLUMNS
        self.ids: dict[str, set[int]] = {}
        self.counts: dict[str, int] = {}
        self.locked: set[int] = set()  # the sides with a passphrase
        self.references: dict[tuple[str, str, str], array[int]] = {}
        self.sealed: list[tuple[str, int, str, Any]] = []

    def seen(self, name: str) -> set[int]:
        """The ids of the table's rows checked so far (check_row and table_fine add to them)."""
        return self.ids.setdefault(name, set())

    def rows(self, name: str, rows: list[dict[str, Any]], first: int) -> None:
        """Rows of the table, numbered from `first`, whose values passed their checks."""
        self.counts[name] = first + len(rows)
        add = self.problems.add
        for (table, column), remap in JSON_COLUMNS.items():
            if table == name:
                for index, row in enumerate(rows, start=first):
                    if row.get(column) is None:  # or not a column at the document's revision
                        continue
                    try:
                        remap(row[column], {}, PLAN)
                    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                        add(f"{name}[{index}]", column, "does not hold what tracker writes there")
        if not self.today:
            return
        if name == "sidesecret":
            self.locked.update(row["side_id"] for row in rows)
        for column in _SHAPED.get(name, ()):
            for index, row in enumerate(rows, start=first):
                value = row[column]
                if not isinstance(value, str):
                    continue
                if value.startswith("fernet:") and (name, column) in NOTES:
                    self.sealed.append((name, index, column, row.get("side_id")))
                elif (problem := shape_problem(name, column, value, locked=True)) is not None:
                    add(f"{name}[{index}]", column, problem)
        if name == "minefield":
            for index, row in enumerate(rows, start=first):
                if bool(row["sealed"]) != row["secret"]:
                    add(f"{name}[{index}]", "sealed", "must hold the place of a secret "
                        "minefield, and only of one")  # fmt: skip
        for column, target in _FOREIGN[name]:
            values = self.references.setdefault((name, column, target), array("q"))
            values.extend(NONE if (value := row[column]) is None else value for row in rows)

    def finish(self) -> None:
        """The checks that needed every row read: each reference names a row of the file, each
        sealed note a side with a passphrase; then the refusal, if anything is wrong."""
        for (name, column, target), values in self.references.items():
            missing = set(values) - self.ids.get(target, set()) - {NONE}
            for index, value in enumerate(values):
                if value in missing:
                    self.problems.add(f"{name}[{index}]", column, f"refers to {target} "
                                      f"{value}, which is not in the file")  # fmt: skip
        for name, index, column, side in self.sealed:
            if side not in self.locked:
                self.problems.add(f"{name}[{index}]", column, "is sealed, but its side has "
                                  "no passphrase to open it")  # fmt: skip
        self.problems.check()
