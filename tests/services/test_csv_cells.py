"""CSV files the tracker writes hold no cell a spreadsheet would run (OWASP's CSV injection: a
text cell beginning with =, +, -, @, a TAB or a CR gets an apostrophe first), numbers stay
numbers, and the tracker's own reader takes the apostrophe off again: a library exported and
read back is exactly the library it was. Generated cells, at every CSV writer
(services.csv_cells.csv_text: the library's cards and its classes)."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from typing import Any

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World
from sqlalchemy import text

from tracker.db import SessionFactory, session_scope
from tracker.services import csv_import, fleet, library, library_export
from tracker.services.csv_cells import csv_text, neutralised, records, restored

SETTINGS = settings(
    max_examples=examples(30), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
# What a spreadsheet runs when a cell begins with it (written out here, not read from tracker).
TRIGGERS = "=+-@\t\r"
NUMBER = re.compile(r"-?[0-9]+")
# A formula at the start, apostrophes before it or not, and text a formula holds.
FORMULAS = ["=HYPERLINK(\"http://x.test/\"&A3,\"Ajax\")", "-2+3+cmd|' /C notepad'!A0",
            "@SUM(1+1)", "+1", "-", "=", "'=1", "''@x", "'", "'a", "=-@+"]  # fmt: skip
BODY = st.text(st.sampled_from("ab1 ,;\"'|!()=+-@"), max_size=12)
# A name: a formula first, then text (names hold no control character, so no TAB or CR).
NAMES = st.builds(lambda head, tail: (head + tail).strip(), st.sampled_from(FORMULAS), BODY
                  ).filter(lambda name: 0 < len(name) <= 60)  # fmt: skip
# Free text (notes, the back of a card): the same, and lines.
TEXTS = st.builds(lambda head, tail, more: (head + tail + more).strip(), st.sampled_from(FORMULAS),
                  BODY, st.sampled_from(["", "\n=B2", "\n\t-x", "\r\n@y"]))  # fmt: skip


@SETTINGS
@given(cell=st.text(st.sampled_from("=+-@\t\r'a \n\"")))
def test_a_cell_written_never_begins_with_a_trigger_and_reads_back_exactly(cell: str) -> None:
    written = neutralised(cell)
    assert not written.startswith(tuple(TRIGGERS))
    assert restored(written) == cell
    # Through a whole file, and the csv module's own reading of it.
    header = ["a", "b", "c"]
    made = csv_text(header, [[cell, -2, None]])
    assert records(made) == [header, [cell, "-2", ""]]
    assert list(csv.reader(io.StringIO(made, newline="")))[1] == [written, "-2", ""]


def _cells(made: str) -> list[str]:
    """Every cell of a CSV file as a spreadsheet reads it (its own reader, no restoring)."""
    return [cell for row in csv.reader(io.StringIO(made, newline="")) for cell in row]


def _safe(made: str) -> None:
    """No cell a spreadsheet would run: each is a number, or text beginning with no trigger."""
    for cell in _cells(made):
        assert NUMBER.fullmatch(cell) or not cell.startswith(tuple(TRIGGERS)), cell


@st.composite
def libraries(draw: st.DrawFn) -> dict[str, Any]:
    """A library file of cards and classes whose every text begins with a formula."""
    card_names = draw(st.lists(NAMES, min_size=1, max_size=4, unique_by=str.casefold))
    class_names = draw(st.lists(NAMES, min_size=1, max_size=4, unique_by=str.casefold))
    # An ability is "Name: text" in its cell, a blank line between two
    # (library_export.abilities_text).
    ability = st.fixed_dictionaries({
        "name": NAMES.filter(lambda n: ":" not in n),
        "text": TEXTS.filter(lambda t: "\n\n" not in t and "\r" not in t),
    })  # fmt: skip
    cards = [{
        "name": name, "nation": draw(NAMES)[:40], "unit_type": "cruiser", "points": 10,
        "class_name": draw(NAMES), "set_name": draw(NAMES), "rarity": draw(NAMES)[:20],
        "set_number": draw(NAMES)[:12], "alliance": draw(NAMES)[:20],
        "back_text": draw(TEXTS), "notes": draw(TEXTS),
        "attacks": {"main": [4, 3, None, None]}, "abilities": draw(st.lists(ability, max_size=2)),
    } for name in card_names]  # fmt: skip
    classes = [{
        "name": name, "nation": draw(NAMES)[:40], "type_abbrev": draw(NAMES)[:6],
        "size_modifier": draw(st.integers(-3, 3)), "armour_class": draw(NAMES)[:10],
        "structure": 9, "flotation": 8, "points": 5, "batteries": draw(TEXTS),
        "notes": draw(TEXTS),
    } for name in class_names]  # fmt: skip
    return {"format": "tracker-library", "version": 1, "cards": cards, "classes": classes}


def _clear(factory: SessionFactory) -> None:
    with session_scope(factory) as session:
        for table in ("unitcard", "shipclass"):
            session.connection().execute(text(f"DELETE FROM {table}"))


def test_the_library_exported_as_csv_runs_nothing_and_reads_back_exactly(
    factory: SessionFactory,
) -> None:
    @SETTINGS
    @given(document=libraries())
    def example(document: dict[str, Any]) -> None:
        _clear(factory)
        raw = json.dumps(document).encode()
        assert library.import_library(factory, raw=raw, json_file=True).problems == ()
        before = (library.cards(factory), library.classes(factory))
        for kind in library.KINDS:
            made = library_export.export_text(factory, kind=kind)
            _safe(made)
            again = library.import_library(factory, raw=made.encode())
            assert again.problems == (), again.problems
            assert [(o.added, o.changed) for o in again.outcomes] == [((), ())]
        assert (library.cards(factory), library.classes(factory)) == before
        # The numbers a class's size modifier holds are written as numbers.
        written = library_export.export_text(factory, kind="classes")
        modifiers = {str(entry["size_modifier"]) for entry in document["classes"]}
        assert modifiers <= set(_cells(written))

    example()


def test_a_ships_csv_written_by_a_spreadsheet_or_by_tracker_reads_the_same(
    factory: SessionFactory, world: World
) -> None:
    """The import of ships, units and counters takes the apostrophe off as the library's does:
    a file whose cells were written by csv_text imports the names as they were."""

    numbers = itertools.count(1)

    @SETTINGS
    @given(names=st.lists(NAMES, min_size=1, max_size=3, unique_by=str.casefold))
    def example(names: list[str]) -> None:
        number = next(numbers)
        squadron = fleet.create_squadron(factory, side_id=world.blue_id, name=f"Imported {number}")
        names = [f"{name[:50]} {number}" for name in names]  # a side's ships differ by name
        made = csv_text(["name", "structure_max", "flotation_max", "size_modifier"],
                        [[name, 9, 8, -2] for name in names])  # fmt: skip
        _safe(made)
        report = csv_import.import_csv(factory, kind="ships", raw=made.encode(),
                                       target_id=squadron)  # fmt: skip
        assert report.problems == () and report.written == len(names)
        with session_scope(factory) as session:
            rows = (
                session.connection()
                .execute(
                    text("SELECT name, size_modifier FROM ship WHERE squadron_id = :s ORDER BY id"),
                    {"s": squadron},
                )
                .all()
            )
        assert [tuple(row) for row in rows] == [(name, -2) for name in names]

    example()
