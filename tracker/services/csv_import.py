"""Ships, War at Sea units and Second World War at Sea counters from CSV files (README "CSV
columns").

Every row goes through the same service that the forms use, so a CSV row is checked exactly as
typed input is. The whole file is one transaction: a dry run, or any problem in any row, rolls
all of it back, and the report names every problem by row and column.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection
from sqlmodel import Session

from tracker.db import SessionFactory
from tracker.models.fleet import CounterUpdate, PrintedCounter, ShipCreate
from tracker.models.roster import UnitCreate
from tracker.services import fleet, mines, roster
from tracker.services.common import forget_names, names_read_once
from tracker.services.csv_cells import NotCsv, records
from tracker.services.errors import InvalidInput, NotFound, quoted, require_plain
from tracker.services.fields import rules
from tracker.services.text_files import CP1252, Decoded, decode

KINDS = ("ships", "units", "counters")
LOWER = {"unit_type", "counter_size"}  # words any case may spell
MAX_BYTES = 8 * 1024 * 1024
MAX_PROBLEMS = 200


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # text | int | optional int | bool
    required: bool = False


def _columns(
    model: Any, keys: Collection[str] | None = None, *, required: Collection[str] = ()
) -> tuple[Column, ...]:
    """A model's fields as columns (those in `keys`, else all, in order), with the kinds its
    declaration gives; a unit card's attacks are a column per attack row, as the card prints
    them."""
    return tuple(
        column
        for rule in rules(model, keys)
        for column in (
            (Column(f"attack_{row}", "text") for row in roster.ATTACK_ROWS)
            if rule.key == "attacks"
            else (Column(rule.key, f"optional {rule.kind}" if rule.optional else rule.kind,
                         rule.required or rule.key in required),)
        )
    )  # fmt: skip


# Each kind's columns are its family's fields, named as the model names them.
COLUMNS: dict[str, tuple[Column, ...]] = {
    "ships": _columns(ShipCreate, required={"structure_max", "flotation_max"}),
    "units": _columns(UnitCreate),
    "counters": (
        Column("ship", "text", True), Column("side", "text"),
        *_columns(CounterUpdate, PrintedCounter.model_fields,
                  required={"counter_size", "speed_rating"}),
    ),
}  # fmt: skip
DEFAULTS: dict[str, dict[str, Any]] = {
    # A column left out takes the model's default.
    "ships": {},
    "units": {},
    "counters": {},  # a column left out keeps the ship's value
}  # fmt: skip


def column_names(kind: str) -> str:
    """The columns of a kind of CSV file, required ones marked with *."""
    return ", ".join(f"{c.name}{'*' if c.required else ''}" for c in COLUMNS[kind])


@dataclass(frozen=True)
class Report:
    """What an import did (or, in a dry run, would do): rows read, rows written, problems."""

    kind: str
    rows: int
    valid: int  # rows the services accepted
    written: int  # rows now in the file: all of them, or none
    problems: tuple[str, ...]
    dry_run: bool

    @property
    def ok(self) -> bool:
        return not self.problems


@contextmanager
def one_transaction(
    factory: SessionFactory, commit: Callable[[], bool]
) -> Iterator[tuple[Any, Connection]]:
    """A factory whose sessions all work inside one outer transaction: each service call's own
    commit only releases a savepoint, and the outer one commits if `commit()` says so. Names
    are read once per scope for the whole file (common.names_read_once)."""
    bind = factory().get_bind()
    with bind.connect() as connection, names_read_once(connection):  # type: ignore[union-attr]
        outer = connection.begin()

        def inner() -> Session:
            return Session(bind=connection, expire_on_commit=False,
                           join_transaction_mode="create_savepoint")  # fmt: skip

        try:
            yield inner, connection
        except BaseException:
            outer.rollback()
            raise
        if commit():
            outer.commit()
        else:
            outer.rollback()


def _not_utf8(why: str) -> InvalidInput:
    return InvalidInput({"file": f"is not UTF-8 ({why}): save it as UTF-8 CSV "
                         "(in a spreadsheet: CSV UTF-8)"})  # fmt: skip


def _decode(raw: bytes) -> Decoded:
    """The file's text if it is UTF-8 (services.text_files tells); else where it is not."""
    try:
        decoded = decode(raw)
    except InvalidInput as exc:  # UTF-16 or 32 without a byte-order mark
        raise _not_utf8("it holds NUL bytes, as UTF-16 does") from exc
    if decoded.encoding == CP1252:
        raise _not_utf8(_first_foreign(decoded.text))
    if decoded.encoding != "UTF-8":
        raise _not_utf8(f"it is {decoded.encoding}")
    return decoded


def _first_foreign(text: str) -> str:
    """Where a cp1252 file first holds a letter that is not ASCII: its row and column."""
    try:
        lines = records(text)
    except NotCsv:
        lines = []
    header: list[str] = []
    for number, record in enumerate(lines, start=1):
        header = header or [name.strip().lower() for name in record]
        for index, cell in enumerate(record):
            if not cell.isascii():
                column = header[index] if number > 1 and index < len(header) else ""
                place = f"row {number}" + (f", {column}" if column else "")
                return f"{place} reads {quoted(cell.strip())} in Windows' cp1252"
    return "it reads as Windows' cp1252"


def _header_problems(kind: str, header: list[str]) -> list[str]:
    known = {column.name for column in COLUMNS[kind]}
    problems = [f"header: unknown column {quoted(name)}" for name in header if name not in known]
    problems += [f"header: column {quoted(name)} twice" for name in sorted(set(header))
                 if header.count(name) > 1]  # fmt: skip
    problems += [
        f"header: the required column {column.name!r} is missing"
        for column in COLUMNS[kind]
        if column.required and column.name not in header
    ]
    if problems:
        problems.append(f"header: the columns of {kind} are "
                        + ", ".join(column.name for column in COLUMNS[kind]))  # fmt: skip
    return problems


def _convert(kind: str, cells: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The row's values by the column kinds, and what is wrong with any of them."""
    values = dict(DEFAULTS[kind])
    errors: dict[str, str] = {}
    for column in COLUMNS[kind]:
        if column.name not in cells:
            continue
        text = (cells[column.name] or "").strip()
        if not text:
            if column.required:
                errors[column.name] = "is required"
            continue
        require_plain(errors, column.name, text)  # a name's own rule is its service's
        if column.name in errors:
            continue
        if column.kind in ("int", "optional int"):
            try:
                values[column.name] = int(text)
            except ValueError:
                errors[column.name] = f"{quoted(text)} is not a whole number"
        else:
            values[column.name] = text.lower() if column.name in LOWER else text
    return values, errors


def _writer(kind: str, target_id: int) -> Callable[[Any, dict[str, Any]], object]:
    if kind == "ships":
        return lambda factory, values: fleet.create_ship(
            factory, squadron_id=target_id, fields=values
        )
    if kind == "units":
        return lambda factory, values: roster.save_unit(
            factory, side_id=target_id, fields=roster.unit_fields_from(dict(values))
        )
    # The campaign's ships are read once, at the first row (in the transaction), not per row.
    finder: list[Callable[[str, str | None], int]] = []

    def counter(factory: Any, values: dict[str, Any]) -> object:
        values = dict(values)
        if not finder:  # a campaign that is not there is each row's problem
            finder.append(mines.ship_finder(factory, campaign_id=target_id))
        ship = finder[0](values.pop("ship"), values.pop("side", None))
        now = mines.counter(factory, ship_id=ship)
        kept = {"torpedo_factors": now.torpedo_factors, "mines_loaded": now.mines_loaded,
                "hull_boxes": now.hull_boxes, "fuel_full": now.fuel.full,
                "fuel_empty": now.fuel.empty}  # fmt: skip
        return mines.save_counter(factory, ship_id=ship, **{**kept, **values})

    return counter  # fmt: skip


def import_csv(
    factory: SessionFactory, *, kind: str, raw: bytes, target_id: int, dry_run: bool = False
) -> Report:
    """Read a CSV file of `kind` (ships into squadron target_id, units into side target_id,
    counters of the ships of campaign target_id); write every row or none."""
    if kind not in KINDS:
        raise InvalidInput({"kind": f"must be one of {', '.join(KINDS)}"})
    if len(raw) > MAX_BYTES:
        raise InvalidInput({"file": f"is larger than {MAX_BYTES // 2**20} MB"})
    decoded = _decode(raw)
    try:
        lines = records(decoded.text)
    except NotCsv as exc:
        raise InvalidInput({"file": f"is not CSV: {exc.reason}"}) from exc
    header = [name.strip().lower() for name in lines[0]] if lines else []
    if not header:
        raise InvalidInput({"file": "is empty: the first line names the columns"})
    # Numbered as a spreadsheet shows them: the header is row 1, and a blank line is a row too.
    rows = [(number, record) for number, record in enumerate(lines[1:], start=2)
            if any(cell.strip() for cell in record)]  # fmt: skip
    problems = _header_problems(kind, header)
    if problems and len(header) == 1 and ";" in header[0]:
        problems.insert(0, "header: the cells are separated by ';': save the file as CSV with "
                        "commas (in a spreadsheet: CSV UTF-8)")  # fmt: skip
    # Without a required column no row can be saved; its cells are still checked.
    complete = all(column.name in header for column in COLUMNS[kind] if column.required)
    # Every row is read and checked before the write lock is taken: it is held for the writes.
    checked: list[tuple[int, dict[str, Any], dict[str, str]]] = []
    for number, record in rows:
        if len(record) > len(header):
            checked.append((number, {}, {"": "more cells than columns"}))
            continue
        cells = dict(zip(header, record + [""] * (len(header) - len(record)), strict=True))
        values, errors = _convert(kind, cells)
        for column, cell in cells.items():
            if unreadable := decoded.unreadable(cell):
                errors[column] = unreadable
        checked.append((number, values, errors))
    written = 0
    with one_transaction(factory, lambda: not problems and not dry_run) as (inner, connection):
        write = _writer(kind, target_id) if complete else None
        for number, values, errors in checked:
            if not errors and write is not None:
                try:
                    write(inner, values)
                    written += 1
                except (InvalidInput, NotFound) as exc:
                    errors = exc.errors if isinstance(exc, InvalidInput) else {"row": str(exc)}
                    forget_names(connection)  # the row's savepoint, and any name it took, went
            problems += [f"row {number}" + (f", {column}" if column else "") + f": {message}"
                         for column, message in errors.items()]  # fmt: skip
            if len(problems) >= MAX_PROBLEMS:
                problems.append("... and more: fix these first")
                break
    if not rows and not problems:
        problems.append("no rows below the header")
    return Report(kind=kind, rows=len(rows), valid=written,
                  written=0 if problems or dry_run else written, problems=tuple(problems),
                  dry_run=dry_run)  # fmt: skip
