"""The library: ship classes and unit cards read from a CSV or JSON file, and read again.

A file is read whole and every row checked against the one declaration of its fields
(models.library, through services.fields.checked) before anything is written; then the new
entries are inserted and the changed ones updated in one transaction, with one executemany
each, so an import costs the same per row at 250 rows as at 10,000. An entry is known by its
name and nation (any case): a file read again updates the entries it changes, adds the new ones
and leaves the others, and never duplicates one. A dry run checks and reports, and writes
nothing. Every problem is listed, the same message on many rows said once with its rows.
A CSV file is read as every import reads one (services.csv_cells.read_sheet).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel
from sqlalchemy import Table, bindparam, insert, update
from sqlalchemy import select as table_select
from sqlalchemy.exc import IntegrityError

from tracker.db import SessionFactory, read_scope, session_scope
from tracker.models.library import (
    ShipClass,
    ShipClassCreate,
    ShipClassRead,
    UnitCard,
    UnitCardCreate,
    UnitCardRead,
    entry_key,
)
from tracker.rules.words import plural
from tracker.services import library_community, roster
from tracker.services.csv_cells import TOO_MANY, cell_value, read_sheet
from tracker.services.errors import InvalidInput
from tracker.services.fields import checked, filled_when_blank, rules
from tracker.services.problems import Problems
from tracker.services.text_files import decode, refuse_over

FORMAT = "tracker-library"
VERSION = 1
MAX_BYTES = 32 * 1024 * 1024
KINDS = ("cards", "classes")
ATTACK_COLUMNS = tuple(f"attack_{row}" for row in roster.ATTACK_ROWS)
_LISTED = ("attacks", "abilities")  # a card's JSON columns: CSV cells of their own shape
PROGRESS_EVERY = 25  # rows checked between two words of progress to the screen


def too_large(size: int) -> str:
    return f"is larger than {MAX_BYTES // 2**20} MB: split it"


class ImportCancelled(InvalidInput):
    """The player cancelled an import while it ran: nothing was written."""

    def __init__(self) -> None:
        super().__init__({"file": "the import was cancelled: nothing was written"})


@dataclass
class Steps:
    """An import's rows as they are checked: `progress(done, total)` now and then, ImportCancelled
    as soon as `cancelled()` says so, before anything is committed; the last word waits for
    `finish`, once the rows are written."""

    progress: Callable[[int, int], None] | None = None
    cancelled: Callable[[], bool] | None = None
    total: int = 0
    done: int = 0

    def step(self) -> None:
        self.check()
        self.done += 1
        if self.progress is not None and self.done % PROGRESS_EVERY == 0 and self.done < self.total:
            self.progress(self.done, self.total)

    def finish(self) -> None:
        if self.progress is not None and self.total:
            self.progress(self.total, self.total)

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise ImportCancelled()


@dataclass(frozen=True)
class Kind:
    name: str
    create: type[BaseModel]
    table: Table
    columns: tuple[str, ...]  # the CSV columns, in the order an export writes them
    required: tuple[str, ...]


def plain_columns(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(key for key in model.model_fields if key not in _LISTED)


KIND: dict[str, Kind] = {
    "cards": Kind(
        "cards", UnitCardCreate, UnitCard.__table__,  # type: ignore[attr-defined]
        (*plain_columns(UnitCardCreate), *ATTACK_COLUMNS, "abilities"), ("name", "unit_type"),
    ),
    "classes": Kind(
        "classes", ShipClassCreate, ShipClass.__table__,  # type: ignore[attr-defined]
        plain_columns(ShipClassCreate), ("name", "structure", "flotation"),
    ),
}  # fmt: skip


def column_names(kind: str) -> str:
    info = KIND[kind]
    return ", ".join(f"{c}{'*' if c in info.required else ''}" for c in info.columns)


# --- reading a file --------------------------------------------------------------------------


def parse_abilities(text: str) -> list[dict[str, str]]:
    """A cell's abilities: one paragraph each (a blank line between), `Name: text`."""
    found = []
    for paragraph in text.replace("\r\n", "\n").split("\n\n"):
        if not paragraph.strip():
            continue
        name, colon, rest = paragraph.strip().partition(":")
        found.append({"name": name.strip(), "text": rest.strip() if colon else ""})
    return found


@functools.cache
def _kinds(kind: str) -> dict[str, str]:
    """Each plain column's kind (text, int, ...), read once from the declarations."""
    create = KIND[kind].create
    return {rule.key: rule.kind for rule in rules(create, plain_columns(create))}


@functools.cache
def _filled(kind: str) -> dict[str, Any]:
    """The columns a blank cell (or a key left out) gives a value, read once: with it."""
    return filled_when_blank(KIND[kind].create)


def _cell_values(info: Kind, cells: dict[str, str], errors: dict[str, str]) -> dict[str, Any]:
    """A row's cells as the model's input; what is wrong with any cell goes in `errors`."""
    kinds = _kinds(info.name)
    values: dict[str, Any] = {}
    attacks: dict[str, list[int | None]] = {}
    for key, cell in cells.items():
        text = cell.strip()
        if key in errors:
            continue  # unreadable: said as such
        if key in ATTACK_COLUMNS:
            try:
                dice = roster.parse_dice(text)
            except ValueError as exc:
                errors[key] = str(exc)
            else:
                if dice is not None:
                    attacks[key.removeprefix("attack_")] = dice
        elif key == "abilities":
            values[key] = parse_abilities(text)
        elif not text:
            continue  # the declared default: blank is none, or the model says it is required
        else:
            try:
                values[key] = cell_value(key, text, whole=kinds.get(key) == "int")
            except ValueError as exc:
                errors[key] = str(exc)
    if attacks:
        values["attacks"] = attacks
    return values


def _entry(info: Kind, values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    errors: dict[str, str] = {}
    try:
        model = checked(info.create, values)
    except InvalidInput as exc:
        return {}, dict(exc.errors)
    stored = model.model_dump()
    if info.name == "cards":
        stored["attacks"] = roster.attacks_json(stored["attacks"], errors)
        stored["abilities"] = json.dumps(stored["abilities"], ensure_ascii=False)
        stored["unit_type"] = str(stored["unit_type"])
    return stored, errors


@dataclass(frozen=True)
class Outcome:
    kind: str
    added: tuple[str, ...]
    changed: tuple[str, ...]  # "Name (Nation): points 18 -> 20, attack_main 3 2 - - -> 4 2 - -"
    unchanged: tuple[str, ...]
    absent: tuple[str, ...] = ()  # in the library, not in the file: kept as they are

    def listed(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """What a report lists of this kind, each under its title: every screen and command
        says it in these words."""
        return (("added", self.added), ("changed", self.changed),
                ("not in the file, kept", self.absent))  # fmt: skip


@dataclass(frozen=True)
class LibraryReport:
    """An import's report: how the file was read, what it changes, every problem."""

    source: str  # "CSV, UTF-8, comma" or "JSON"
    rows: int
    outcomes: tuple[Outcome, ...]
    problems: tuple[str, ...]
    warnings: tuple[str, ...]
    dry_run: bool

    @property
    def written(self) -> bool:
        return not self.problems and not self.dry_run

    def summary(self) -> str:
        counts = "; ".join(
            f"{o.kind}: {len(o.added)} added, {len(o.changed)} changed, "
            f"{len(o.unchanged)} unchanged" for o in self.outcomes
        )  # fmt: skip
        if self.problems:
            count = len(self.problems)
            return f"{plural(count, 'problem')}: nothing was imported"
        news = any(o.added or o.changed for o in self.outcomes)
        verb = ("dry run, nothing written" if self.dry_run else
                "imported" if news else "the library already holds it all")  # fmt: skip
        return f"{self.rows} rows read ({self.source}): {counts or 'nothing'} ({verb})"


@dataclass(frozen=True)
class _Row:
    """A row read and checked: where it is, its values as stored, the stored fields the file
    gives (its columns; `attack_main` for one attack row), and those a blank filled."""

    where: str
    stored: dict[str, Any]
    given: frozenset[str]
    filled: tuple[str, ...] = ()


_Rows = list[_Row]


def _csv_rows(
    raw: bytes, problems: Problems, warnings: Problems, steps: Steps
) -> tuple[str, str, _Rows]:
    """The kind, a word on how it was read, and each row's checked values."""
    sheet = read_sheet(raw)
    kind = "classes" if {"structure", "flotation"} & set(sheet.header) else "cards"
    info = KIND[kind]
    sheet.check_header(kind, info.columns, info.required, problems)
    rows: _Rows = []
    steps.total = len(sheet.rows)
    for row in sheet.rows:
        steps.step()
        if row.too_many:
            problems.add(row.where, "", TOO_MANY)
            continue
        errors = dict(row.unreadable)
        cells = {key: value for key, value in row.cells.items() if key in info.columns}
        values = _cell_values(info, cells, errors)
        _check_row(info, row.where, values, errors, problems, rows, frozenset(cells))
    return kind, sheet.source, rows


def _check_row(
    info: Kind, where: str, values: dict[str, Any], errors: dict[str, str],
    problems: Problems, rows: _Rows, given: frozenset[str],
) -> None:  # fmt: skip
    # The model checks every column the reading did not already refuse: every problem of a
    # row is listed at once, not one at a time.
    stored, checked = _entry(info, {k: v for k, v in values.items() if k not in errors})
    errors = {**errors, **{k: m for k, m in checked.items() if k not in errors}}
    for column, message in errors.items():
        problems.add(where, column, message)
    if errors:
        return
    filled = tuple(key for key in _filled(info.name) if key not in values)
    rows.append(_Row(where, stored, given, filled))


def _json_rows(raw: bytes, problems: Problems, steps: Steps) -> tuple[dict[str, _Rows], str]:
    """Each kind's entries of a JSON file, checked, and how it was read: the library's own
    JSON, or the War at Sea card list players share (services.library_community)."""
    decoded = decode(raw)
    decoded.refuse_unreadable()
    try:
        # orjson: a depth past 1024 or a number of any length is a refusal, never a crash.
        document = orjson.loads(decoded.text)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput({"file": f"is not JSON (line {exc.lineno}): {exc.msg}"}) from exc
    listed: dict[str, Any]  # each kind's (place, entry) pairs, or what stood there instead
    if library_community.is_card_list(document):
        listed = {"cards": library_community.card_entries(document)}
        source = "JSON, a War at Sea card list"
    elif isinstance(document, dict) and document.get("format") == FORMAT:
        listed = {kind: list(enumerate(entries)) if isinstance(entries, list) else entries
                  for kind, entries in ((k, document.get(k, [])) for k in KINDS)}  # fmt: skip
        source = "JSON"
    else:
        raise InvalidInput({"file": f"is not a library file: its format must be {FORMAT!r}, "
                            "as tracker library export writes it, or the War at Sea card "
                            "list of nations and their units"})  # fmt: skip
    found: dict[str, _Rows] = {}
    steps.total = sum(len(e) for e in listed.values() if isinstance(e, list))
    for kind, entries in listed.items():
        if not isinstance(entries, list):
            problems.add(kind, "", "must be a list of entries")
            continue
        found[kind] = []
        for place, entry in entries:
            steps.step()
            where = f"{kind}[{place}]" if isinstance(place, int) else place
            if not isinstance(entry, dict):
                problems.add(where, "", "must be an object of fields")
                continue
            values = {k: v for k, v in entry.items() if k not in ("id", "version")}
            given = set(values) | (set(ATTACK_COLUMNS) if "attacks" in values else set())
            _check_row(KIND[kind], where, values, {}, problems, found[kind], frozenset(given))
    return found, source


# --- writing ---------------------------------------------------------------------------------


def _key(values: Mapping[str, Any]) -> tuple[str, str]:
    return entry_key(values["name"], values["nation"])


def label(values: Mapping[str, Any]) -> str:
    return f"{values['name']} ({values['nation']})" if values["nation"] else str(values["name"])


def _kept(old: Mapping[str, Any], row: _Row) -> dict[str, Any]:
    """The row's values over the stored entry's: a field the file does not give keeps its
    value (an attack row by its own column), as a counter's does on re-import."""
    values = {key: (value if key in row.given else old[key]) for key, value in row.stored.items()}
    if "attacks" in values:
        attacks = json.loads(old["attacks"])
        new = json.loads(row.stored["attacks"])
        for band in roster.ATTACK_ROWS:
            if f"attack_{band}" in row.given:
                attacks.pop(band, None)
                attacks.update({band: new[band]} if band in new else {})
        values["attacks"] = json.dumps(attacks, sort_keys=True)
    return values


def _change(key: str, before: Any, after: Any) -> list[str]:
    """A field's change in the report's words: attack rows by their dice, abilities by name."""
    if key == "attacks":
        old, new, dice = json.loads(before), json.loads(after), roster.dice_said
        return [f"attack_{band} {dice(old.get(band))} -> {dice(new.get(band))}"
                for band in roster.ATTACK_ROWS if old.get(band) != new.get(band)]  # fmt: skip
    if key == "abilities":
        names = [", ".join(a["name"] for a in json.loads(v)) or "none" for v in (before, after)]
        return [f"abilities {names[0]} -> {names[1]}" if names[0] != names[1] else
                "abilities: their texts"]  # fmt: skip
    return [f"{key} {before!r} -> {after!r}"]


def _merge(
    connection: Any, info: Kind, rows: _Rows, problems: Problems, warnings: Problems, write: bool
) -> Outcome:
    """Match the rows with the stored entries by name and nation; write the new and changed."""
    table = info.table
    stored = {_key(row): row for row in connection.execute(table_select(table)).mappings()}
    names = {entry_key(row["name"], ""): row for row in stored.values()}
    seen: dict[tuple[str, str], str] = {}
    added: list[dict[str, Any]] = []
    changed: list[tuple[str, dict[str, Any]]] = []
    unchanged: list[str] = []
    for row in rows:
        values, key = row.stored, _key(row.stored)
        if key in seen:
            problems.add(row.where, "name", f"{label(values)} is also on {seen[key]}: keep one")
            continue
        seen[key] = row.where
        old = stored.get(key)
        if not values.get("points") and (old is None or "points" in row.given):
            said = "blank" if "points" in row.filled else "0"
            warnings.add(row.where, "points", f"{said}: {values['name']} costs nothing in a fleet")
        # A value the file left blank is the declared default: said, never taken silently.
        for field in row.filled:
            if (old is None or field in row.given) and field != "points":
                warnings.add(row.where, field, f"blank: taken as {values[field]}, the default")
        if old is None:
            added.append(values)
            same_name = names.get(entry_key(values["name"], ""))
            if same_name is not None:
                warnings.add(row.where, "nation", f"{label(values)} is added beside "
                             f"{label(same_name)}: a nation spelt another way?")  # fmt: skip
            continue
        values = _kept(old, row)
        changes = [said for k, v in values.items() if old[k] != v for said in _change(k, old[k], v)]
        if not changes:
            unchanged.append(label(values))
            continue
        changed.append((f"{label(values)}: {', '.join(changes)}", {**values, "_id": old["id"]}))
    if write and not problems.found:
        if added:
            connection.execute(insert(table), added)
        if changed:
            connection.execute(
                update(table).where(table.c.id == bindparam("_id"))
                .values(version=table.c.version + 1), [values for _, values in changed],
            )  # fmt: skip
    absent = tuple(label(row) for k, row in stored.items() if k not in seen)
    return Outcome(info.name, tuple(label(v) for v in added), tuple(s for s, _ in changed),
                   tuple(unchanged), absent)  # fmt: skip


def import_library(
    factory: SessionFactory,
    *,
    raw: bytes,
    json_file: bool = False,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> LibraryReport:
    """Read a library file (CSV of cards or of classes; JSON of both): every row or none, matched
    by name and nation, never duplicated (docs/GUIDE.md "The library"); `progress` and
    `cancelled` as Steps takes them."""
    refuse_over(len(raw), MAX_BYTES, too_large)
    problems, warnings = Problems(), Problems()
    steps = Steps(progress, cancelled)
    if json_file:
        by_kind, source = _json_rows(raw, problems, steps)
    else:
        kind, source, rows = _csv_rows(raw, problems, warnings, steps)
        by_kind = {kind: rows}
    count = sum(len(rows) for rows in by_kind.values())
    outcomes = []
    try:
        with session_scope(factory) as session:
            connection = session.connection()
            for kind, rows in by_kind.items():
                outcomes.append(
                    _merge(connection, KIND[kind], rows, problems, warnings, not dry_run)
                )
            steps.check()  # the last moment a cancel keeps the library as it was
            if problems.found or dry_run:
                session.rollback()
    except IntegrityError as exc:
        raise InvalidInput({"file": "an entry of the same name and nation was added elsewhere "
                            "meanwhile: import the file again"}) from exc  # fmt: skip
    steps.finish()  # committed (or, on a problem or a dry run, rolled back): the work is done
    if not count and not problems.found:
        problems.add("file", "", "holds no entries below its header")
    return LibraryReport(source=source, rows=count, outcomes=tuple(outcomes),
                         problems=problems.lines(), warnings=warnings.lines(),
                         dry_run=dry_run)  # fmt: skip


# --- reading the library ---------------------------------------------------------------------


def rows_of(factory: SessionFactory, kind: str) -> list[dict[str, Any]]:
    """The stored entries of a kind as the table holds them, by nation and name."""
    info = KIND[kind]
    with read_scope(factory) as session:
        query = table_select(info.table).order_by(info.table.c.nation, info.table.c.name)
        return [dict(row) for row in session.connection().execute(query).mappings()]


def cards(factory: SessionFactory) -> tuple[UnitCardRead, ...]:
    return tuple(UnitCardRead.model_construct(**row) for row in rows_of(factory, "cards"))


def classes(factory: SessionFactory) -> tuple[ShipClassRead, ...]:
    return tuple(ShipClassRead.model_construct(**row) for row in rows_of(factory, "classes"))
