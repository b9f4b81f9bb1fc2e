"""The library: ship classes and unit cards read from a CSV or JSON file, and read again.

A file is read whole and every row checked against the one declaration of its fields
(models.library, through services.fields.checked) before anything is written; then the new
entries are inserted and the changed ones updated in one transaction, with one executemany
each, so an import costs the same per row at 250 rows as at 10,000. An entry is known by its
name and nation (any case): a file read again updates the entries it changes, adds the new ones
and leaves the others, and never duplicates one. A dry run checks and reports, and writes
nothing. Every problem is listed, the same message on many rows said once with its rows.

Spreadsheets write CSV in many ways: UTF-8 with or without a byte-order mark, UTF-16 with one
("Unicode text", tab-separated), and Windows' cp1252 (read when nothing in the file is UTF-8,
and said so; services.text_files chooses); cells separated by commas, semicolons or tabs (the
header line says which); an empty column at the end of every line (ignored).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel
from sqlalchemy import Table, bindparam, insert, update
from sqlalchemy import select as table_select
from sqlalchemy.exc import IntegrityError

from tracker import safe_output
from tracker.db import SessionFactory, read_scope, session_scope
from tracker.models.library import (
    ShipClass,
    ShipClassCreate,
    ShipClassRead,
    UnitCard,
    UnitCardCreate,
    UnitCardRead,
)
from tracker.services import roster
from tracker.services.csv_cells import NotCsv, csv_text, records
from tracker.services.errors import InvalidInput, quoted
from tracker.services.fields import checked, filled_when_blank, rules
from tracker.services.printing import campaign_file, write_file
from tracker.services.text_files import Decoded, decode

FORMAT = "tracker-library"
VERSION = 1
MAX_BYTES = 32 * 1024 * 1024
KINDS = ("cards", "classes")
SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab"}
ATTACK_COLUMNS = tuple(f"attack_{row}" for row in roster.ATTACK_ROWS)
LOWER = {"unit_type"}  # words any case may spell
_LISTED = ("attacks", "abilities")  # a card's JSON columns: CSV cells of their own shape
PROGRESS_EVERY = 25  # rows checked between two words of progress to the screen


def too_large(size: int) -> str:
    """The refusal of a library file over MAX_BYTES."""
    return f"is larger than {MAX_BYTES // 2**20} MB: split it"


class ImportCancelled(InvalidInput):
    """The player cancelled an import while it ran: nothing was written."""

    def __init__(self) -> None:
        super().__init__({"file": "the import was cancelled: nothing was written"})


@dataclass
class Steps:
    """An import's rows as they are checked: `progress(done, total)` now and then, and a stop
    (ImportCancelled) as soon as `cancelled()` says so, before anything is committed. The last
    word (total of total) waits for `finish`, once the rows are written: a bar at its end never
    stands over a write still going on."""

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
    """A kind of library entry: its input model, its table, its read model and its columns."""

    name: str
    create: type[BaseModel]
    table: Table
    read: type[BaseModel]
    columns: tuple[str, ...]  # the CSV columns, in the order an export writes them
    required: tuple[str, ...]


def _plain_columns(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(key for key in model.model_fields if key not in _LISTED)


KIND: dict[str, Kind] = {
    "cards": Kind(
        "cards", UnitCardCreate, UnitCard.__table__, UnitCardRead,  # type: ignore[attr-defined]
        (*_plain_columns(UnitCardCreate), *ATTACK_COLUMNS, "abilities"), ("name", "unit_type"),
    ),
    "classes": Kind(
        "classes", ShipClassCreate, ShipClass.__table__, ShipClassRead,  # type: ignore[attr-defined]
        _plain_columns(ShipClassCreate), ("name", "structure", "flotation"),
    ),
}  # fmt: skip


def column_names(kind: str) -> str:
    """The CSV columns of a kind, the required ones marked with *."""
    info = KIND[kind]
    return ", ".join(f"{c}{'*' if c in info.required else ''}" for c in info.columns)


# --- reading a file --------------------------------------------------------------------------


def separator_of(text: str) -> str:
    """The separator the header line uses most: tab, semicolon or comma."""
    header = text.split("\n", 1)[0]
    counts = {sep: header.count(sep) for sep in SEPARATORS}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ","


@dataclass
class _Problems:
    """Problems by where they are, the same message on many rows said once with its rows."""

    found: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def add(self, where: str, column: str, message: str) -> None:
        self.found.setdefault((column, message), []).append(where)

    def lines(self) -> tuple[str, ...]:
        return tuple(
            f"{_places(places)}{f', {column}' if column else ''}: {message}"
            for (column, message), places in self.found.items()
        )


def _places(places: list[str]) -> str:
    """`row 4` or `rows 2-5, 9 (5 rows)`; other places (cards[3]) listed as they are."""
    if len(places) == 1:
        return places[0]
    numbers = [int(p[4:]) for p in places if p.startswith("row ") and p[4:].isdigit()]
    if len(numbers) != len(places):
        return f"{', '.join(places)} ({len(places)} entries)"
    spans: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        spans.append(f"{start}" if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return f"rows {', '.join(spans)} ({len(places)} rows)"


def parse_abilities(text: str) -> list[dict[str, str]]:
    """A cell's abilities: one paragraph each (a blank line between), `Name: text`."""
    found = []
    for paragraph in text.replace("\r\n", "\n").split("\n\n"):
        if not paragraph.strip():
            continue
        name, colon, rest = paragraph.strip().partition(":")
        found.append({"name": name.strip(), "text": rest.strip() if colon else ""})
    return found


def abilities_text(abilities: Iterable[Mapping[str, str]]) -> str:
    """Abilities as a CSV cell holds them (parse_abilities reads it back)."""
    return "\n\n".join(
        f"{a['name']}: {a['text']}" if a.get("text") else a["name"] for a in abilities
    )


@functools.cache
def _kinds(kind: str) -> dict[str, str]:
    """Each plain column's kind (text, int, ...), read once from the declarations."""
    create = KIND[kind].create
    return {rule.key: rule.kind for rule in rules(create, _plain_columns(create))}


@functools.cache
def _filled(kind: str) -> dict[str, Any]:
    """The columns a blank cell (or a key left out) gives a value, read once: with it."""
    return filled_when_blank(KIND[kind].create)


def _cell_values(
    info: Kind, cells: dict[str, str], decoded: Decoded
) -> tuple[dict[str, Any], dict[str, str]]:
    """A row's cells as the model's input, and what is wrong with any cell."""
    kinds = _kinds(info.name)
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    attacks: dict[str, list[int | None]] = {}
    for key, cell in cells.items():
        text = cell.strip()
        if unreadable := decoded.unreadable(text):
            errors[key] = unreadable
        elif key in ATTACK_COLUMNS:
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
        elif kinds.get(key) == "int":
            try:
                values[key] = int(text)
            except ValueError:
                errors[key] = f"type a whole number, not {quoted(text)}"
        else:
            values[key] = text.lower() if key in LOWER else text
    if attacks:
        values["attacks"] = attacks
    return values, errors


def _entry(info: Kind, values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The values checked against the model, as the table stores them; or what is wrong."""
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
    """What an import did (or would do) to one kind of entry."""

    kind: str
    added: tuple[str, ...]
    changed: tuple[str, ...]  # "Name (Nation): points 18 -> 20, year 1940 -> 1941"
    unchanged: tuple[str, ...]


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
            return f"{count} problem{'s' * (count != 1)}: nothing was imported"
        news = any(o.added or o.changed for o in self.outcomes)
        verb = ("dry run, nothing written" if self.dry_run else
                "imported" if news else "the library already holds it all")  # fmt: skip
        return f"{self.rows} rows read ({self.source}): {counts or 'nothing'} ({verb})"


_Rows = list[tuple[str, dict[str, Any]]]  # (where, checked values as stored)


def _csv_rows(
    raw: bytes, problems: _Problems, warnings: _Problems, steps: Steps
) -> tuple[str, str, _Rows]:
    """The kind, a word on how it was read, and each row's checked values."""
    decoded = decode(raw)
    separator = separator_of(decoded.text)
    try:
        lines = records(decoded.text, delimiter=separator)
    except NotCsv as exc:
        raise InvalidInput({"file": f"line {exc.line} is not CSV: {exc.reason}"}) from exc
    header = [name.strip().lower().replace(" ", "_") for name in lines[0]] if lines else []
    while header and not header[-1]:
        header.pop()  # an empty column at the end of every line: a spreadsheet's, ignored
    if not header:
        raise InvalidInput({"file": "is empty: the first line names the columns"})
    kind = "classes" if "structure" in header or "flotation" in header else "cards"
    info = KIND[kind]
    source = f"CSV, {decoded.encoding}, {SEPARATORS[separator]}-separated"
    known = set(info.columns)
    for name in header:
        if unreadable := decoded.unreadable(name):
            problems.add("header", "", f"a column's name {unreadable}")
        elif name not in known:
            problems.add("header", "", f"unknown column {quoted(name)}: the columns of {kind} are "
                         f"{column_names(kind)}")  # fmt: skip
    for name in sorted({name for name in header if header.count(name) > 1}):
        problems.add("header", "", f"column {quoted(name)} twice")
    for name in info.required:
        if name not in header:
            problems.add("header", "", f"the required column {name!r} is missing")
    rows: _Rows = []
    steps.total = len(lines) - 1
    for number, record in enumerate(lines[1:], start=2):
        steps.step()
        if not any(cell.strip() for cell in record):
            continue
        where = f"row {number}"
        if any(cell.strip() for cell in record[len(header) :]):
            problems.add(where, "", "more cells than columns: a separator inside a cell? "
                         "put the cell in double quotes")  # fmt: skip
            continue
        cells = dict(zip(header, record + [""] * (len(header) - len(record)), strict=False))
        cells = {key: value for key, value in cells.items() if key in known}
        values, errors = _cell_values(info, cells, decoded)
        _check_row(info, where, values, errors, problems, warnings, rows)
    return kind, source, rows


def _check_row(
    info: Kind, where: str, values: dict[str, Any], errors: dict[str, str],
    problems: _Problems, warnings: _Problems, rows: _Rows,
) -> None:  # fmt: skip
    # The model checks every column the reading did not already refuse: every problem of a
    # row is listed at once, not one at a time.
    stored, checked = _entry(info, {k: v for k, v in values.items() if k not in errors})
    errors = {**errors, **{k: m for k, m in checked.items() if k not in errors}}
    for column, message in errors.items():
        problems.add(where, column, message)
    if errors:
        return
    if not values.get("points"):
        shown = "blank" if "points" not in values else "0"
        warnings.add(where, "points", f"{shown}: {stored['name']} costs nothing in a fleet")
    # A value the file left out is the declared default: said, never taken silently (blank
    # points have their own word above).
    for key, default in _filled(info.name).items():
        if key not in values and key != "points":
            warnings.add(where, key, f"blank: taken as {default}, the default")
    rows.append((where, stored))


def _json_rows(
    raw: bytes, problems: _Problems, warnings: _Problems, steps: Steps
) -> dict[str, _Rows]:
    decoded = decode(raw)
    decoded.refuse_unreadable()
    try:
        # orjson: a depth past 1024 or a number of any length is a refusal, never a crash.
        document = orjson.loads(decoded.text)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput({"file": f"is not JSON (line {exc.lineno}): {exc.msg}"}) from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InvalidInput({"file": f"is not a library file: its format must be {FORMAT!r}, "
                            "as tracker library export writes it"})  # fmt: skip
    found: dict[str, _Rows] = {}
    steps.total = sum(len(e) for k in KINDS if isinstance(e := document.get(k, []), list))
    for kind in KINDS:
        entries = document.get(kind, [])
        if not isinstance(entries, list):
            problems.add(kind, "", "must be a list of entries")
            continue
        found[kind] = []
        for index, entry in enumerate(entries):
            steps.step()
            where = f"{kind}[{index}]"
            if not isinstance(entry, dict):
                problems.add(where, "", "must be an object of fields")
                continue
            values = {k: v for k, v in entry.items() if k not in ("id", "version")}
            _check_row(KIND[kind], where, values, {}, problems, warnings, found[kind])
    return found


# --- writing ---------------------------------------------------------------------------------


def _key(values: Mapping[str, Any]) -> tuple[str, str]:
    return str(values["name"]).casefold(), str(values["nation"]).casefold()


def _label(values: Mapping[str, Any]) -> str:
    return f"{values['name']} ({values['nation']})" if values["nation"] else str(values["name"])


def _merge(connection: Any, info: Kind, rows: _Rows, problems: _Problems, write: bool) -> Outcome:
    """Match the rows with the stored entries by name and nation; write the new and changed."""
    table = info.table
    stored = {_key(row): row for row in connection.execute(table_select(table)).mappings()}
    seen: dict[tuple[str, str], str] = {}
    added: list[dict[str, Any]] = []
    changed: list[tuple[str, dict[str, Any]]] = []
    unchanged: list[str] = []
    for where, values in rows:
        key = _key(values)
        if key in seen:
            problems.add(where, "name", f"{_label(values)} is also on {seen[key]}: keep one")
            continue
        seen[key] = where
        old = stored.get(key)
        if old is None:
            added.append(values)
            continue
        differences = [k for k, v in values.items() if old[k] != v]
        if not differences:
            unchanged.append(_label(values))
            continue
        # A value as it was and is; a list (attacks, abilities) by its name alone.
        scalars = [f"{k} {old[k]!r} -> {values[k]!r}" for k in differences if k not in _LISTED]
        said = ", ".join(scalars + [k for k in differences if k in _LISTED])
        changed.append((f"{_label(values)}: {said}", {**values, "_id": old["id"]}))
    if write and not problems.found:
        if added:
            connection.execute(insert(table), added)
        if changed:
            connection.execute(
                update(table).where(table.c.id == bindparam("_id"))
                .values(version=table.c.version + 1), [values for _, values in changed],
            )  # fmt: skip
    return Outcome(info.name, tuple(_label(v) for v in added), tuple(s for s, _ in changed),
                   tuple(unchanged))  # fmt: skip


def import_library(
    factory: SessionFactory,
    *,
    raw: bytes,
    json_file: bool = False,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> LibraryReport:
    """Read a library file (CSV of cards or of classes; JSON of both) into the library: every
    row or none, matched by name and nation, never duplicated (README "The library").

    `progress(done, total)` hears of the rows checked now and then; once `cancelled()` says
    so, the import stops with ImportCancelled and writes nothing.
    """
    if len(raw) > MAX_BYTES:
        raise InvalidInput({"file": too_large(len(raw))})
    problems, warnings = _Problems(), _Problems()
    steps = Steps(progress, cancelled)
    if json_file:
        by_kind, source = _json_rows(raw, problems, warnings, steps), "JSON"
    else:
        kind, source, rows = _csv_rows(raw, problems, warnings, steps)
        by_kind = {kind: rows}
    count = sum(len(rows) for rows in by_kind.values())
    outcomes = []
    try:
        with session_scope(factory) as session:
            connection = session.connection()
            for kind, rows in by_kind.items():
                outcomes.append(_merge(connection, KIND[kind], rows, problems, not dry_run))
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


def _entries(factory: SessionFactory, info: Kind) -> list[dict[str, Any]]:
    with read_scope(factory) as session:
        query = table_select(info.table).order_by(info.table.c.nation, info.table.c.name)
        return [dict(row) for row in session.connection().execute(query).mappings()]


def cards(factory: SessionFactory) -> tuple[UnitCardRead, ...]:
    """Every unit card of the library, by nation and name."""
    return tuple(UnitCardRead.model_construct(**row) for row in _entries(factory, KIND["cards"]))


def classes(factory: SessionFactory) -> tuple[ShipClassRead, ...]:
    """Every ship class of the library, by nation and name."""
    return tuple(ShipClassRead.model_construct(**row) for row in _entries(factory, KIND["classes"]))


def _exported(info: Kind, row: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: row[key] for key in _plain_columns(info.create)}
    if info.name == "cards":
        out["attacks"] = json.loads(row["attacks"] or "{}")
        out["abilities"] = json.loads(row["abilities"] or "[]")
    return out


def export_json(factory: SessionFactory) -> str:
    """The whole library as a JSON file import_library reads back."""
    return _json_text({kind: _entries(factory, KIND[kind]) for kind in KINDS})


def _json_text(entries: Mapping[str, list[dict[str, Any]]]) -> str:
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    for kind in KINDS:
        document[kind] = [_exported(KIND[kind], row) for row in entries[kind]]
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def _csv_cell(info: Kind, key: str, entry: Mapping[str, Any]) -> str | int | None:
    """A cell as its value: text (csv_cells neutralises it), a whole number, or None."""
    if key in ATTACK_COLUMNS:
        dice = entry["attacks"].get(key.removeprefix("attack_"))
        return "" if dice is None else roster.dice_text(dice)
    if key == "abilities":
        return abilities_text(entry["abilities"])
    return entry[key]


def export_csv(factory: SessionFactory, *, kind: str = "cards") -> str:
    """One kind of the library as a CSV file (UTF-8, commas) import_library reads back."""
    return _csv_text(KIND[kind], _entries(factory, KIND[kind]))


def _csv_text(info: Kind, rows: list[dict[str, Any]]) -> str:
    entries = (_exported(info, row) for row in rows)
    return csv_text(info.columns, ([_csv_cell(info, k, e) for k in info.columns] for e in entries))


EXPORT_SUFFIXES = {".csv": "cards or classes, one kind", ".json": "the whole library"}


@dataclass(frozen=True)
class Exported:
    """A library file written: where, and how many entries of each kind it holds."""

    path: Path
    rows: Mapping[str, int]  # {"cards": 301} or {"cards": 301, "classes": 60}

    def summary(self) -> str:
        counts = " and ".join(f"{count} {kind}" for kind, count in self.rows.items())
        return f"{counts} written to {self.path}"


def write_export(
    factory: SessionFactory, *, path: str, classes: bool = False, replace: bool = False
) -> Exported:
    """Write the library to a file as `tracker library export` does, and as import_library
    reads it back: JSON holds it all, CSV its cards (or its classes); README "The library".

    The file goes through safe_output: never over the campaign file, its backups or another
    SQLite file, and over an existing file only once `replace` says the player confirmed
    (ExistingFile otherwise).
    """
    campaign = campaign_file(factory)
    try:  # the campaign file is refused as such, whatever its name ends with
        safe_output.check_target(path, campaign=campaign, replace=True)
    except safe_output.OutputRefused as exc:
        raise InvalidInput({"path": str(exc)}) from exc
    suffix = Path(path.strip()).suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise InvalidInput({"path": "end the file name with .csv (the cards, or the classes) "
                            "or .json (the whole library)"})  # fmt: skip
    kinds = KINDS if suffix == ".json" else ("classes" if classes else "cards",)
    counted: dict[str, int] = {}

    def content() -> str:
        # Read only once the path is accepted: a refused name costs nothing.
        entries = {kind: _entries(factory, KIND[kind]) for kind in kinds}
        counted.update({kind: len(rows) for kind, rows in entries.items()})
        if suffix == ".json":
            return _json_text(entries)
        return _csv_text(KIND[kinds[0]], entries[kinds[0]])

    written = write_file(factory, path=path, content=content, replace=replace)
    return Exported(path=written, rows=counted)
