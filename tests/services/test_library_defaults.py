"""A library import says which blank it took as a default (docs/FILES.md "Library columns"):
every column of cards and classes left blank in turn, a CSV cell or a JSON entry's key, and the
report names each whose stored value was made up, with that value; generated rows each said
once, with their rows."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from tracker.db import SessionFactory, session_scope
from tracker.services import library

SETTINGS = settings(
    max_examples=examples(15), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


def _cards(factory: SessionFactory, *, clear: bool = False) -> dict[str, dict[str, Any]]:
    """The library's cards by name (after emptying it, when `clear`)."""
    if clear:
        with session_scope(factory) as session:
            session.connection().execute(text("DELETE FROM unitcard"))
    return {card.name: card.model_dump() for card in library.cards(factory)}


BASE = {"cards": {"name": "Folgore", "unit_type": "fighter"},
        "classes": {"name": "Leander", "structure": "14", "flotation": "11"}}  # fmt: skip
BLANKS = (None, "", "{}", "[]")  # a value that is itself blank: none was made up


def _stored_entry(factory: SessionFactory, kind: str) -> dict[str, Any]:
    (entry,) = library.cards(factory) if kind == "cards" else library.classes(factory)
    return entry.model_dump()


def _said(warnings: tuple[str, ...], column: str) -> list[str]:
    return [line for line in warnings if f", {column}: " in line]


@pytest.mark.parametrize("kind", ["cards", "classes"])
@pytest.mark.parametrize("source", ["csv", "json"])
def test_each_blank_an_import_takes_as_a_value_is_said_with_that_value(
    factory: SessionFactory, kind: str, source: str
) -> None:
    """Every column of the kind in turn left blank (a CSV cell) or out (a JSON entry's key):
    where the entry stored holds a value for it, the report says which."""
    info = library.KIND[kind]
    columns = info.columns if source == "csv" else tuple(info.create.model_fields)
    for column in columns:
        if column in BASE[kind] and column in info.required:
            continue  # a name and a card's type are the player's to give
        with session_scope(factory) as session:
            session.connection().execute(text(f"DELETE FROM {info.table.name}"))
        given = {key: value for key, value in BASE[kind].items() if key != column}
        if source == "csv":
            header = [*given, column]
            raw = (",".join(header) + "\n" + ",".join([*given.values(), ""]) + "\n").encode()
        else:
            raw = json.dumps({"format": library.FORMAT, kind: [given]}).encode()
        report = library.import_library(factory, raw=raw, json_file=source == "json")
        assert report.problems == () and report.written, (column, report.problems)
        stored = _stored_entry(factory, kind)
        value = stored["attacks" if column.startswith("attack_") else column]
        said = _said(report.warnings, column)
        if value in BLANKS:
            assert said == [], column
        elif column == "points":
            assert said == [f"row 2, points: blank: {given['name']} costs nothing in a fleet"] \
                if source == "csv" else len(said) == 1  # fmt: skip
        else:
            assert [line.split(": ", 1)[1] for line in said] == [
                f"blank: taken as {value}, the default"
            ], column


def _rows_of(where: str) -> set[int]:
    """The rows a report's place names: `row 4`, `rows 2-5, 9 (5 rows)`."""
    found: set[int] = set()
    for span in re.sub(r"^rows? | \(\d+ rows\)$", "", where).split(", "):
        first, _, last = span.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return found


FILLED = ("armor", "vital_armor", "hull_points")


@SETTINGS
@given(
    rows=st.lists(st.fixed_dictionaries({key: st.none() | st.integers(1, 9) for key in FILLED}),
                  min_size=1, max_size=30),
    left_out=st.sets(st.sampled_from(FILLED)),
)  # fmt: skip
def test_generated_rows_each_blank_said_once_with_its_rows(
    factory: SessionFactory, rows: list[dict[str, int | None]], left_out: set[str]
) -> None:
    _cards(factory, clear=True)
    header = ["name", "unit_type", "points", *(key for key in FILLED if key not in left_out)]
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(header)
    for number, row in enumerate(rows):
        cells = {"name": f"Card {number}", "unit_type": "destroyer", "points": "5", **row}
        writer.writerow(["" if cells[key] is None else cells[key] for key in header])
    report = library.import_library(factory, raw=out.getvalue().encode())
    assert report.written
    for key in FILLED:
        blank = {number for number, row in enumerate(rows, start=2)
                 if key in left_out or row[key] is None}  # fmt: skip
        said = _said(report.warnings, key)
        assert [line.partition(f", {key}: ")[2] for line in said] == (
            ["blank: taken as 1, the default"] if blank else []
        )
        assert {row for line in said for row in _rows_of(line.partition(", " + key)[0])} == blank
    stored = _cards(factory)
    assert all(stored[f"Card {n}"][key] == (1 if row[key] is None or key in left_out
                                            else row[key])
               for n, row in enumerate(rows) for key in FILLED)  # fmt: skip
