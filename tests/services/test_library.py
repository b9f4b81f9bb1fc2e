"""The library read from files (tracker.services.library): generated card lists in every
encoding and separator a spreadsheet writes read back exactly; a file read again updates,
adds and keeps, never duplicates, and names exactly what changed; every problem is listed by
row and column, the same message on many rows said once; nothing is written on any problem.
A file of War at Sea units reads the same through `tracker import-csv units`."""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World, statements
from sqlalchemy import Engine, text
from sqlmodel import select

from tracker.db import SessionFactory, session_scope
from tracker.models import WasUnit
from tracker.services import campaigns, csv_import, library, library_export
from tracker.services.errors import InvalidInput

SETTINGS = settings(
    max_examples=examples(25), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
NATIONS = ("Germany", "Britain", "Japan", "Italia", "Österreich")
TYPES = ("battleship", "cruiser", "destroyer", "submarine", "aircraft", "fighter")
# Letters every encoding here can write (cp1252 has no Greek): names a player's list holds.
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüøÖß -'."
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16", "cp1252")
SEPARATORS = (",", ";", "\t")
# How a spreadsheet saves a file: an encoding, a separator, and an empty last column or none.
SIDES = itertools.count(1)
FORMS = st.tuples(st.sampled_from(ENCODINGS), st.sampled_from(SEPARATORS), st.booleans())


def _clear(factory: SessionFactory) -> None:
    with session_scope(factory) as session:
        for table in ("unitcard", "shipclass"):
            session.connection().execute(text(f"DELETE FROM {table}"))


@st.composite
def card_lists(draw: st.DrawFn, min_size: int = 1, max_size: int = 12) -> list[dict[str, Any]]:
    """Cards as a player's list holds them: distinct names, abilities whose text spans lines."""
    names = draw(st.lists(st.text(LETTERS, min_size=1, max_size=30).map(str.strip)
                          .filter(lambda n: n and n[0].isalpha()),
                          min_size=min_size, max_size=max_size,
                          unique_by=str.casefold))  # fmt: skip
    ability = st.fixed_dictionaries({
        "name": st.text("abcdefgh ", min_size=1, max_size=20).map(str.strip).filter(bool),
        "text": st.lists(st.text("abcdef ,.", min_size=1, max_size=20).map(str.strip)
                         .filter(bool), max_size=3).map("\n".join),
    })  # fmt: skip
    return [
        {
            "name": name,
            "nation": draw(st.sampled_from(NATIONS)),
            "unit_type": draw(st.sampled_from(TYPES)),
            "year": draw(st.none() | st.integers(1900, 1950)),
            "points": draw(st.integers(1, 999)),
            "armor": draw(st.integers(0, 30)),
            "hull_points": draw(st.integers(1, 20)),
            "air_to_air": draw(st.none() | st.integers(0, 20)),
            "back_text": draw(st.text(LETTERS + "\n", max_size=60).map(str.strip)),
            "attacks": draw(
                st.dictionaries(
                    st.sampled_from(["main", "anti_air", "torpedo"]),
                    st.lists(st.none() | st.integers(0, 20), min_size=4, max_size=4).filter(
                        lambda dice: any(d is not None for d in dice)
                    ),  # all "-" is no attack
                    max_size=2,
                )
            ),
            "abilities": draw(st.lists(ability, max_size=3)),
        }
        for name in names
    ]


COLUMNS = ["name", "nation", "unit_type", "year", "points", "armor", "hull_points",
           "air_to_air", "back_text", "attack_main", "attack_anti_air", "attack_torpedo",
           "abilities"]  # fmt: skip


def _cell(card: dict[str, Any], column: str) -> str:
    if column.startswith("attack_"):
        dice = card["attacks"].get(column.removeprefix("attack_"))
        return "" if dice is None else " ".join("-" if d is None else str(d) for d in dice)
    if column == "abilities":
        return "\n\n".join(f"{a['name']}: {a['text']}" if a["text"] else a["name"]
                           for a in card["abilities"])  # fmt: skip
    return "" if card[column] is None else str(card[column])


def csv_of(
    cards: list[dict[str, Any]], separator: str = ",", trailing: bool = False,
    columns: list[str] = COLUMNS,
) -> str:  # fmt: skip
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=separator, lineterminator="\r\n")
    end = [""] if trailing else []
    writer.writerow(columns + end)
    for card in cards:
        writer.writerow([_cell(card, column) for column in columns] + end)
    return out.getvalue()


def _stored(factory: SessionFactory) -> dict[str, dict[str, Any]]:
    return {card.name: card.model_dump() for card in library.cards(factory)}


def _read_back(stored: dict[str, Any]) -> dict[str, Any]:
    return {**{key: stored[key] for key in COLUMNS if not key.startswith("attack_")},
            "attacks": json.loads(stored["attacks"]),
            "abilities": json.loads(stored["abilities"])}  # fmt: skip


@SETTINGS
@given(cards=card_lists(), form=FORMS)
def test_a_generated_list_reads_back_exactly_in_every_encoding_and_separator(
    factory: SessionFactory, cards: list[dict[str, Any]], form: tuple[str, str, bool]
) -> None:
    _clear(factory)
    encoding, separator, trailing = form
    body = csv_of(cards, separator, trailing)
    report = library.import_library(factory, raw=body.encode(encoding))
    assert report.problems == () and report.written
    assert sorted(report.outcomes[0].added) == sorted(f"{c['name']} ({c['nation']})" for c in cards)
    stored = _stored(factory)
    assert {name: _read_back(card) for name, card in stored.items()} == {
        card["name"]: card for card in cards
    }
    said = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "utf-16": "UTF-16"}.get(encoding)
    if encoding == "cp1252":
        said = "UTF-8" if body.isascii() else "cp1252 (Windows; the file is not UTF-8)"
    name = {",": "comma", ";": "semicolon", "\t": "tab"}[separator]
    assert report.source == f"CSV, {said}, {name}-separated"


UNIT_COLUMNS = ["name", "nation", "unit_type", "points", "armor", "class_name"]


@st.composite
def unit_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    """War at Sea units as a player's list gives them: accented names (Köln, Béarn), a fleet
    within the budget of 100."""
    name = st.tuples(st.sampled_from(("Köln", "Béarn", "Nürnberg", "Émile")), st.text(LETTERS))
    names = draw(st.lists(name.map(lambda parts: " ".join(parts).strip()), min_size=1,
                          max_size=10, unique_by=str.casefold))  # fmt: skip
    words = st.text("abcdefghijklmnopqrstuvwxyzéüøÖß ", max_size=12).map(str.strip)
    return [
        {"name": name, "nation": draw(st.sampled_from(NATIONS)),
         "unit_type": draw(st.sampled_from(TYPES)), "points": draw(st.integers(0, 9)),
         "armor": draw(st.integers(0, 30)), "class_name": draw(words)}
        for name in names
    ]  # fmt: skip


@SETTINGS
@given(units=unit_lists(), form=FORMS)
def test_units_and_the_library_read_any_spreadsheets_csv_alike(
    factory: SessionFactory, world: World, units: list[dict[str, Any]],
    form: tuple[str, str, bool],
) -> None:  # fmt: skip
    """`tracker import-csv units` reads a file as `tracker library import` does, field by
    field, in every form a spreadsheet saves it in."""
    _clear(factory)
    encoding, separator, trailing = form
    raw = csv_of(units, separator, trailing, UNIT_COLUMNS).encode(encoding)
    side = campaigns.create_side(factory, campaign_id=world.campaign_id, name=f"S{next(SIDES)}")
    roster = csv_import.import_csv(factory, kind="units", raw=raw, target_id=side.id)
    cards = library.import_library(factory, raw=raw)
    assert roster.problems == () and roster.written == len(units)
    assert cards.problems == () and cards.written
    assert roster.source == cards.source
    with session_scope(factory) as session:
        stored = session.exec(select(WasUnit).where(WasUnit.side_id == side.id)).all()
        read = sorted(tuple(getattr(unit, key) for key in UNIT_COLUMNS) for unit in stored)
    in_library = sorted(tuple(card.model_dump()[key] for key in UNIT_COLUMNS)
                        for card in library.cards(factory))  # fmt: skip
    assert read == in_library == sorted(tuple(unit.values()) for unit in units)


@SETTINGS
@given(cards=card_lists(min_size=6, max_size=15), data=st.data())
def test_a_file_read_again_changes_exactly_what_it_changes_and_never_duplicates(
    factory: SessionFactory, cards: list[dict[str, Any]], data: st.DataObject
) -> None:
    _clear(factory)
    assert library.import_library(factory, raw=csv_of(cards).encode()).written
    again = library.import_library(factory, raw=csv_of(cards).encode())
    assert again.outcomes[0].unchanged and not again.outcomes[0].added
    assert not again.outcomes[0].changed
    changed = data.draw(st.sets(st.sampled_from(range(len(cards))), min_size=5, max_size=5))
    edited = [{**card, "points": card["points"] % 999 + 1} if i in changed else card
              for i, card in enumerate(cards)]  # fmt: skip
    # One of them also gains an ability: the report names that list beside the points.
    listed = min(changed)
    more = {"name": "Zz Escort", "text": "screens\nthe fleet"}
    edited[listed] = {**edited[listed], "abilities": [*edited[listed]["abilities"], more]}
    new = {**cards[0], "name": "Zz new card"}
    report = library.import_library(factory, raw=csv_of([*edited, new]).encode())
    outcome = report.outcomes[0]
    expected = sorted(
        f"{c['name']} ({c['nation']}): points {cards[i]['points']!r} -> {c['points']!r}"
        + (f", abilities {_names(cards[i]['abilities'])} -> {_names(c['abilities'])}"
           if i == listed else "")
        for i, c in enumerate(edited) if i in changed
    )  # fmt: skip
    assert sorted(outcome.changed) == expected
    assert outcome.added == (f"Zz new card ({new['nation']})",)
    assert len(outcome.unchanged) == len(cards) - 5
    stored = _stored(factory)
    assert len(stored) == len(cards) + 1
    assert all(stored[c["name"]]["points"] == c["points"] for c in edited)
    assert all(stored[c["name"]]["version"] == (2 if i in changed else 1)
               for i, c in enumerate(edited))  # fmt: skip


def _names(abilities: list[dict[str, str]]) -> str:
    return ", ".join(ability["name"] for ability in abilities) or "none"


def test_a_dry_run_reports_and_writes_nothing(factory: SessionFactory) -> None:
    cards = [{"name": "Bismarck", "nation": "Germany", "unit_type": "battleship", "year": 1941,
              "points": 0, "armor": 6, "hull_points": 5, "air_to_air": None, "back_text": "",
              "attacks": {}, "abilities": []}]  # fmt: skip
    report = library.import_library(factory, raw=csv_of(cards).encode(), dry_run=True)
    assert report.outcomes[0].added == ("Bismarck (Germany)",) and not report.written
    assert report.warnings == ("row 2, points: 0: Bismarck costs nothing in a fleet",
                               "row 2, vital_armor: blank: taken as 1, the default")  # fmt: skip
    assert library.cards(factory) == ()


def _rows(count: int, points: str = "10") -> list[str]:
    return [f"Ship {n},Germany,destroyer,{points}" for n in range(count)]


def test_every_problem_is_listed_the_same_one_said_once_with_its_rows(
    factory: SessionFactory,
) -> None:
    body = ["name,nation,unit_type,points", *_rows(150, "5000"), "Hood,Britain,ironclad,20",
            *[f"Other {n},Italia,cruiser,5000" for n in range(60)], "Ark,,carrier,",
            "Roma,Italia,battleship,x"]  # fmt: skip
    report = library.import_library(factory, raw="\n".join(body).encode())
    assert len(report.problems) == 3
    assert report.problems[0] == "rows 2-151, 153-212 (210 rows), points: must be 0..999, got 5000"
    assert report.problems[2] == "row 214, points: 'x' is not a whole number"
    assert report.problems[1].startswith("row 152, unit_type: ")
    assert report.warnings == ("row 213, points: blank: Ark costs nothing in a fleet",
                               *(f"row 213, {key}: blank: taken as 1, the default"
                                 for key in ("armor", "vital_armor", "hull_points")))  # fmt: skip
    assert not report.written and library.cards(factory) == ()


def test_a_name_twice_in_one_file_is_a_problem_not_a_second_card(factory: SessionFactory) -> None:
    body = "name,nation,unit_type,points\nHood,Britain,battleship,20\nhood,BRITAIN,cruiser,5\n"
    report = library.import_library(factory, raw=body.encode())
    assert report.problems == ("row 3, name: hood (BRITAIN) is also on row 2: keep one",)
    assert library.cards(factory) == ()


@pytest.mark.parametrize("bad", [b"\x81", b"\x8d\x8f"])
def test_a_byte_no_encoding_holds_is_named_by_row_and_column(
    factory: SessionFactory, bad: bytes
) -> None:
    raw = (
        b"name;nation;unit_type;points\r\nK\xf6ln;Germany;cruiser;9\r\nEmden;Ger"
        + bad
        + (b"many;cruiser;8\r\n")
    )
    report = library.import_library(factory, raw=raw)
    assert report.problems == (
        "row 3, nation: holds bytes that are not cp1252: retype this cell, or save the file "
        "as CSV UTF-8",
    )
    assert library.cards(factory) == ()


def test_utf16_without_its_mark_is_refused_with_what_to_do(factory: SessionFactory) -> None:
    raw = "name,unit_type\nHood,battleship\n".encode("utf-16-le")
    with pytest.raises(InvalidInput, match="UTF-16 without a byte-order mark"):
        library.import_library(factory, raw=raw)


def test_cells_beyond_the_header_are_a_problem_unless_empty(factory: SessionFactory) -> None:
    body = "name,unit_type,points,\nHood,battleship,20,\nRoma,battleship,20,oops\n"
    report = library.import_library(factory, raw=body.encode())
    assert report.problems == (
        "row 3: more cells than columns: a separator inside a cell? put the cell in double quotes",
    )


def test_classes_read_and_export_as_cards_do(factory: SessionFactory) -> None:
    body = ("class;nation;structure;flotation;points\n".replace("class", "name")
            + "Leander;Britain;12;10;150\nTribal;Britain;6;5;90\n")  # fmt: skip
    report = library.import_library(factory, raw=body.encode())
    assert report.outcomes[0].kind == "classes" and len(report.outcomes[0].added) == 2
    exported = library_export.export_text(factory, kind="classes")
    _clear(factory)
    assert library.import_library(factory, raw=exported.encode()).written
    assert [(c.name, c.structure, c.flotation, c.points) for c in library.classes(factory)] == [
        ("Leander", 12, 10, 150), ("Tribal", 6, 5, 90),
    ]  # fmt: skip


@SETTINGS
@given(cards=card_lists())
def test_the_json_export_reads_back_as_the_same_library(
    factory: SessionFactory, cards: list[dict[str, Any]]
) -> None:
    _clear(factory)
    library.import_library(factory, raw=csv_of(cards).encode())
    library.import_library(factory, raw=b"name,structure,flotation\nLeander,12,10\n")
    before = _stored(factory), library.classes(factory)
    document = library_export.export_text(factory, kind=None)
    _clear(factory)
    report = library.import_library(factory, raw=document.encode(), json_file=True)
    assert report.written and [len(o.added) for o in report.outcomes] == [len(cards), 1]
    after = _stored(factory), library.classes(factory)
    assert _without_ids(after) == _without_ids(before)
    again = library.import_library(factory, raw=document.encode(), json_file=True)
    assert [len(o.unchanged) for o in again.outcomes] == [len(cards), 1]


def _without_ids(found: Any) -> Any:
    cards, classes = found
    return ({n: {**c, "id": 0} for n, c in cards.items()},
            [c.model_copy(update={"id": 0}) for c in classes])  # fmt: skip


def test_an_import_takes_the_same_statements_at_any_size(
    factory: SessionFactory, engine: Engine
) -> None:
    """Linear: one read of the library and one executemany per kind of write, at any size."""
    counts = []
    for size in (25, 2500):
        _clear(factory)
        header = "name,nation,unit_type,points\n"
        library.import_library(factory, raw=(header + "\n".join(_rows(size))).encode())
        changed = [row.replace(",10", ",11") for row in _rows(size)[: size // 2]]
        with statements(engine) as seen:
            report = library.import_library(
                factory, raw=(header + "\n".join(changed + _rows(size * 2)[size:])).encode()
            )
        assert [len(report.outcomes[0].changed), len(report.outcomes[0].added)] == [
            size // 2, size,
        ]  # fmt: skip
        counts.append(len(seen))
    assert counts[0] == counts[1]


def test_a_campaign_brought_in_adds_the_entries_the_file_lacks_and_keeps_its_own(
    factory: SessionFactory, tmp_path: Any
) -> None:
    from tracker.db import make_engine, migrate, session_factory
    from tracker.services import campaigns, exchange

    source = make_engine(str(tmp_path / "source.db"))
    migrate(source)
    theirs = session_factory(source)
    header = "name,nation,unit_type,points\n"
    library.import_library(theirs, raw=(header + "Hood,Britain,battleship,20\n"
                                        "Bismarck,Germany,battleship,30\n").encode())  # fmt: skip
    campaign = campaigns.create_campaign(theirs, name="Denmark Strait")
    document = exchange.export_campaign(theirs, campaign_id=campaign.id)
    source.dispose()
    assert [card["name"] for card in document["tables"]["unitcard"]] == ["Hood", "Bismarck"]
    library.import_library(factory, raw=(header + "hood,britain,battleship,25\n").encode())
    exchange.import_campaign(factory, document=exchange.read_document(
        exchange.dumps(document).encode()))  # fmt: skip
    assert sorted((c.name, c.points) for c in library.cards(factory)) == [
        ("Bismarck", 30),
        ("hood", 25),
    ]


FILES = Path(__file__).resolve().parents[1] / "library_files"


def test_the_seeded_library_of_300_cards_and_60_classes_imports_in_one_pass(
    factory: SessionFactory,
) -> None:
    for name, kind, count in (("cards-300.csv", "cards", 300), ("classes-60.csv", "classes", 60)):
        raw = (FILES / name).read_bytes()
        first = library.import_library(factory, raw=raw)
        assert first.problems == () and first.written
        assert (first.outcomes[0].kind, len(first.outcomes[0].added)) == (kind, count)
        again = library.import_library(factory, raw=raw)
        assert len(again.outcomes[0].unchanged) == count and not again.outcomes[0].added
    assert (len(library.cards(factory)), len(library.classes(factory))) == (300, 60)


@SETTINGS
@given(bad_year=st.sampled_from(["19x2", "year", "1.5", "-"]), bad_type=st.sampled_from(
    ["frigate", "ironclad", "zeppelin"]))  # fmt: skip
def test_a_row_with_a_misread_column_still_has_its_other_problems_listed(
    factory: SessionFactory, bad_year: str, bad_type: str
) -> None:
    body = f"name,unit_type,year,points\nX,{bad_type},{bad_year},5000\n"
    report = library.import_library(factory, raw=body.encode(), dry_run=True)
    said = "\n".join(report.problems)
    assert f"row 2, year: {bad_year!r} is not a whole number" in said
    assert "row 2, unit_type: " in said and "row 2, points: must be 0..999, got 5000" in said
    assert len(report.problems) == 3 and not report.written


@SETTINGS
@given(cards=card_lists(min_size=2, max_size=6), again=card_lists(min_size=6, max_size=6),
       data=st.data())  # fmt: skip
def test_a_column_a_file_leaves_out_keeps_its_value_on_re_import(
    factory: SessionFactory, cards: list[dict[str, Any]], again: list[dict[str, Any]],
    data: st.DataObject,
) -> None:  # fmt: skip
    """A second file with some columns only (name, nation and type always) changes the columns
    it has and keeps every other value as it was, an attack row by its own column: a file of
    names and points never wipes a card's attacks or abilities."""
    _clear(factory)
    assert library.import_library(factory, raw=csv_of(cards).encode()).written
    kept = data.draw(st.lists(st.sampled_from(COLUMNS[3:]), unique=True))
    columns = [*COLUMNS[:3], *kept]
    # The same cards, every other value drawn afresh: only the file's columns may change.
    fresh = [{**other, "name": card["name"], "nation": card["nation"]}
             for card, other in zip(cards, again, strict=False)]  # fmt: skip
    report = library.import_library(factory, raw=csv_of(fresh, columns=columns).encode())
    assert report.written and not report.outcomes[0].added
    stored = {name: _read_back(card) for name, card in _stored(factory).items()}
    for card, new in zip(cards, fresh, strict=True):
        expected = {key: (new if key in columns else card)[key] for key in _read_back_keys()}
        expected["unit_type"] = new["unit_type"]
        expected["attacks"] = {band: dice for band in ("main", "anti_air", "torpedo")
                               if (dice := (new if f"attack_{band}" in columns
                                            else card)["attacks"].get(band))}  # fmt: skip
        assert stored[card["name"]] == expected


def _read_back_keys() -> list[str]:
    return [key for key in COLUMNS if not key.startswith("attack_")] + ["attacks"]


def test_a_re_import_says_each_change_before_and_after_what_it_left_and_a_new_nation(
    factory: SessionFactory,
) -> None:
    """Dice and abilities changed are said before -> after; a card in the library and not in
    the file is listed as kept; a card whose name the library holds under another nation is
    added with a word (a nation spelt another way makes no second card silently)."""
    _clear(factory)
    columns = ["name", "nation", "unit_type", "points", "attack_main", "abilities"]

    def card(name: str, nation: str, main: list[int | None], *abilities: str) -> dict[str, Any]:
        return {"name": name, "nation": nation, "unit_type": "battleship", "points": 40,
                "attacks": {"main": main} if main else {},
                "abilities": [{"name": name, "text": ""} for name in abilities]}  # fmt: skip

    first = [card("Bismarck", "Germany", [4, 4, 3, None], "Flagship"),
             card("Tirpitz", "Germany", [])]  # fmt: skip
    assert library.import_library(factory, raw=csv_of(first, columns=columns).encode()).written
    second = [card("Bismarck", "Germany", [5, 4, 3, None], "Flagship", "Radar"),
              card("Bismarck", "Deutschland", [])]  # fmt: skip
    report = library.import_library(factory, raw=csv_of(second, columns=columns).encode())
    outcome = report.outcomes[0]
    assert outcome.changed == (
        "Bismarck (Germany): attack_main 4 4 3 - -> 5 4 3 -, abilities Flagship -> Flagship, Radar",
    )
    assert outcome.added == ("Bismarck (Deutschland)",)
    assert outcome.absent == ("Tirpitz (Germany)",)
    assert (
        "row 3, nation: Bismarck (Deutschland) is added beside Bismarck (Germany): a nation "
        "spelt another way?" in report.warnings
    )
