"""Ships, War at Sea units and Second World War at Sea counters from CSV files (docs/FILES.md "CSV
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
from tracker.services.csv_cells import TOO_MANY, cell_value, read_sheet
from tracker.services.errors import InvalidInput, NotFound, RowsRefused, require_plain
from tracker.services.fields import rules
from tracker.services.problems import Problems
from tracker.services.text_files import refuse_over

KINDS = ("ships", "units", "counters")
MAX_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # text | int | optional int | bool
    required: bool = False


def _columns(
    model: Any, keys: Collection[str] | None = None, *, required: Collection[str] = ()
) -> tuple[Column, ...]:
    """A model's fields as columns (those in `keys`, else all), of the kinds they declare; a
    card's attacks are a column per attack row."""
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


def column_names(kind: str) -> str:
    return ", ".join(f"{c.name}{'*' if c.required else ''}" for c in COLUMNS[kind])


@dataclass(frozen=True)
class Report:
    """What an import did (or would do): how the file was read, rows read and written, problems."""

    kind: str
    source: str  # "CSV, UTF-8, comma-separated"
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


def _convert(kind: str, cells: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The row's values by the column kinds, and what is wrong with any of them. A column left
    out takes the model's default (a counter's keeps the ship's value)."""
    values: dict[str, Any] = {}
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
        try:
            values[column.name] = cell_value(
                column.name, text, whole=column.kind in ("int", "optional int")
            )
        except ValueError as exc:
            errors[column.name] = str(exc)
    return values, errors


# A row's problems by column, or None when it was written.
Outcome = dict[str, str] | None
Writer = Callable[[Any, list[dict[str, Any]]], Iterator[Outcome]]


def _writer(kind: str, target_id: int, connection: Connection) -> Writer:
    """What writes the file's rows: each made the service's input (`prepare`, InvalidInput for a
    row it cannot be), then all of them added in one act of the kind's service (`add`), which
    refuses rows by number; each row's outcome in turn."""
    adds: dict[str, Callable[[Any, list[dict[str, Any]]], object]] = {
        "ships": lambda factory, rows: fleet.create_ships(
            factory, squadron_id=target_id, rows=rows),
        "units": lambda factory, rows: roster.add_units(factory, side_id=target_id, rows=rows),
        "counters": lambda factory, rows: mines.import_counters(
            factory, campaign_id=target_id, rows=rows),
    }  # fmt: skip
    add = adds[kind]
    prepare: Callable[[dict[str, Any]], dict[str, Any]] = (
        roster.unit_fields_from if kind == "units" else dict
    )

    def write(factory: Any, rows: list[dict[str, Any]]) -> Iterator[Outcome]:
        ready: dict[int, dict[str, Any]] = {}
        refused: dict[int, dict[str, str]] = {}
        for number, values in enumerate(rows):
            try:
                ready[number] = prepare(dict(values))
            except InvalidInput as exc:
                refused[number] = exc.errors
        try:
            add(factory, list(ready.values()))
        except RowsRefused as exc:
            numbers = list(ready)
            refused |= {numbers[n]: errors for n, errors in exc.rows.items()}
        except (InvalidInput, NotFound) as exc:
            said = exc.errors if isinstance(exc, InvalidInput) else {"row": str(exc)}
            refused |= dict.fromkeys(ready, said)
        if refused:
            forget_names(connection)  # the act's savepoint, and the names it took, went
        return (refused.get(number) for number in range(len(rows)))

    return write


def import_csv(
    factory: SessionFactory, *, kind: str, raw: bytes, target_id: int, dry_run: bool = False
) -> Report:
    """Read a CSV file of `kind` (ships into squadron target_id, units into side target_id,
    counters of the ships of campaign target_id); write every row or none."""
    if kind not in KINDS:
        raise InvalidInput({"kind": f"must be one of {', '.join(KINDS)}"})
    refuse_over(len(raw), MAX_BYTES)
    sheet = read_sheet(raw)
    problems = Problems()
    required = {column.name for column in COLUMNS[kind] if column.required}
    sheet.check_header(kind, [column.name for column in COLUMNS[kind]], required, problems)
    # Every row is read and checked before the write lock is taken: it is held for the writes.
    checked: list[tuple[str, dict[str, Any], dict[str, str]]] = []
    for row in sheet.rows:
        if row.too_many:
            checked.append((row.where, {}, {"": TOO_MANY}))
            continue
        values, errors = _convert(kind, row.cells)
        checked.append((row.where, values, {**errors, **row.unreadable}))
    written = 0

    def commit() -> bool:
        return not problems.found and not dry_run

    with one_transaction(factory, commit) as (inner, connection):
        # Without a required column no row can be saved; its cells are still checked.
        saved = required <= set(sheet.header)
        readable = [values for _where, values, errors in checked if not errors]
        outcomes: Iterator[Outcome] = iter(())
        if saved:
            outcomes = _writer(kind, target_id, connection)(inner, readable)
        for where, _values, errors in checked:
            if problems.full():
                problems.more = True
                break
            if not errors and saved:
                refusal = next(outcomes)
                errors = refusal or {}
                written += refusal is None
            for column, message in errors.items():
                problems.add(where, column, message)
    if not sheet.rows and not problems.found:
        problems.add("", "", "no rows below the header")
    said = problems.lines()
    return Report(
        kind=kind, source=sheet.source, rows=len(sheet.rows), valid=written,
        written=0 if said or dry_run else written, problems=said, dry_run=dry_run,
    )  # fmt: skip
