"""The encoding of an imported file, chosen in one place (tracker.services.text_files): a UTF-8
file with stray cp1252 bytes pasted in is refused at exactly the cells that hold them, never
read whole as cp1252 (which garbles its other accents); a file with nothing of UTF-8 in it is
cp1252; UTF-8 with or without its mark and UTF-16 with its mark read as they are."""

from __future__ import annotations

import codecs

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World
from sqlmodel import select

from tracker.db import SessionFactory, session_scope
from tracker.models import Ship
from tracker.services import csv_import, library
from tracker.services.errors import InvalidInput
from tracker.services.text_files import CP1252, decode

SETTINGS = settings(
    max_examples=examples(30), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
# Accented letters cp1252 writes as one byte from 0xC0 up: as cp1252 they never form a UTF-8
# sequence with the letters around them, as UTF-8 they are two bytes each.
ACCENTS = "éèüöäøÖßçñàÉ"
LETTERS = "abcdefghijklmnopqrstuvwxyz" + ACCENTS
HEADER = "name,nation,unit_type,points"


@st.composite
def accented_names(draw: st.DrawFn) -> list[str]:
    """Distinct names, each holding at least one accented letter (Béarn, Köln, Pénélope)."""
    name = st.tuples(
        st.text(LETTERS, max_size=6), st.sampled_from(ACCENTS), st.text(LETTERS, max_size=6)
    ).map(lambda parts: "N" + "".join(parts))
    return draw(st.lists(name, min_size=2, max_size=12, unique_by=str.casefold))


def _row(name: str, encoding: str = "utf-8") -> bytes:
    return f"{name},France,cruiser,7\n".encode(encoding)


@SETTINGS
@given(names=accented_names(), data=st.data())
def test_stray_cp1252_names_in_a_utf8_file_are_refused_at_exactly_their_rows(
    factory: SessionFactory, names: list[str], data: st.DataObject
) -> None:
    stray = data.draw(st.sets(st.sampled_from(range(len(names))), min_size=1,
                              max_size=len(names) - 1))  # fmt: skip
    raw = (HEADER + "\n").encode() + b"".join(
        _row(name, "cp1252" if index in stray else "utf-8") for index, name in enumerate(names)
    )
    report = library.import_library(factory, raw=raw)
    assert report.source.startswith("CSV, UTF-8,")
    assert not report.written and library.cards(factory) == ()
    # Each stray row is named once, in the name column, with the letters as the player typed
    # them; no other row is.
    said: dict[int, str] = {}
    for problem in report.problems:
        places, _, message = problem.partition(", name: ")
        assert message.endswith("while the rest of the file is UTF-8: retype the cell, or save "
                                "the whole file as CSV UTF-8")  # fmt: skip
        said.update(dict.fromkeys(_numbers(places), message))
    assert sorted(said) == sorted(index + 2 for index in stray)
    for index in stray:
        assert all(repr(c) in said[index + 2] for c in names[index] if c in ACCENTS)


def _numbers(places: str) -> list[int]:
    """The row numbers of `row 4` or `rows 2-5, 9 (5 rows)`."""
    spans = places.removeprefix("rows ").removeprefix("row ").split(" (")[0]
    found: list[int] = []
    for span in spans.split(", "):
        first, _, last = span.partition("-")
        found += range(int(first), int(last or first) + 1)
    return found


def test_the_same_stray_letter_on_many_rows_is_said_once_with_its_rows(
    factory: SessionFactory,
) -> None:
    rows = [_row(f"Béarn {n}", "cp1252" if n % 2 else "utf-8") for n in range(40)]
    report = library.import_library(factory, raw=(HEADER + "\n").encode() + b"".join(rows))
    assert report.problems == (
        "rows 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, ... (20 rows), name: holds 'é' written in "
        "Windows' cp1252 while the rest of the file is UTF-8: retype the cell, or save the "
        "whole file as CSV UTF-8",
    )


@SETTINGS
@given(names=accented_names())
def test_a_file_with_nothing_of_utf8_in_it_is_read_as_cp1252(
    factory: SessionFactory, names: list[str]
) -> None:
    raw = (HEADER + "\n" + "".join(f"{n},France,cruiser,7\n" for n in names)).encode("cp1252")
    report = library.import_library(factory, raw=raw, dry_run=True)
    assert report.problems == ()
    assert report.source == f"CSV, {CP1252}, comma-separated"
    assert sorted(report.outcomes[0].added) == sorted(f"{n} (France)" for n in names)


@SETTINGS
@given(names=accented_names(), encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
def test_utf8_with_or_without_its_mark_and_utf16_with_its_mark_read_as_they_are(
    names: list[str], encoding: str
) -> None:
    text = HEADER + "\n" + "".join(f"{n},France,cruiser,7\n" for n in names)
    decoded = decode(text.encode(encoding))
    assert decoded.text == text and not decoded.lossy
    assert decoded.encoding == ("UTF-16" if encoding == "utf-16" else "UTF-8")


def test_a_stray_byte_in_a_json_file_is_refused_by_line_and_column(
    factory: SessionFactory,
) -> None:
    raw = ('{"format": "tracker-library", "version": 1, "cards": [\n'
           ' {"name": "Köln", "unit_type": "cruiser"},\n'
           ' {"name": "Béarn", "unit_type": "carrier"}]}\n').encode()  # fmt: skip
    raw = raw.replace("Béarn".encode(), "Béarn".encode("cp1252"))
    with pytest.raises(InvalidInput) as caught:
        library.import_library(factory, raw=raw, json_file=True)
    assert caught.value.errors["file"] == (
        "holds bytes that are not UTF-8 (line 3, column 13): save the file as UTF-8"
    )
    assert library.cards(factory) == ()


def test_a_stray_byte_in_a_ships_file_is_named_by_row_and_column(
    factory: SessionFactory, world: World
) -> None:
    raw = b"name,structure_max,flotation_max,notes\n" + "Émile Bertin,9,8,\n".encode()
    raw += "Béarn,9,8,refitted à Toulon\n".encode("cp1252").replace(b"B\xe9arn", "Béarn".encode())
    report = csv_import.import_csv(factory, kind="ships", raw=raw, target_id=world.alpha_id)
    assert report.problems == (
        "row 3, notes: holds 'à' written in Windows' cp1252 while the rest of the file is "
        "UTF-8: retype the cell, or save the whole file as CSV UTF-8",
    )
    assert report.written == 0


def test_a_ships_file_with_nothing_of_utf8_is_read_as_cp1252_and_a_utf8_mark_says_utf8(
    factory: SessionFactory, world: World
) -> None:
    raw = "name,structure_max,flotation_max\nHood,20,18\nÉmile Bertin,9,8\n".encode("cp1252")
    report = csv_import.import_csv(factory, kind="ships", raw=raw, target_id=world.alpha_id)
    assert (report.problems, report.written) == ((), 2)
    assert report.source == f"CSV, {CP1252}, comma-separated"
    with session_scope(factory) as session:
        ships = session.exec(select(Ship.name).where(Ship.squadron_id == world.alpha_id)).all()
    assert list(ships) == ["Hood", "Émile Bertin"]
    # After a UTF-8 mark the same bytes are stray ones, refused at their cell.
    marked = codecs.BOM_UTF8 + raw
    report = csv_import.import_csv(factory, kind="ships", raw=marked, target_id=world.raider_id)
    assert report.problems == (
        "row 3, name: holds 'É' written in Windows' cp1252 while the rest of the file is UTF-8: "
        "retype the cell, or save the whole file as CSV UTF-8",
    )
    assert report.written == 0
