"""The one problem report of every import (services.problems): by column and message, each
problem said once with its places compressed, capped in problems and in places."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.services.errors import InvalidInput
from tracker.services.problems import MORE, SHOWN, Problems

COLUMNS = ("", "name", "points")
MESSAGES = ("must be 0..9, got 12", "is used twice", "lacks the field 'name'")
LABELS = ("header", "file")
# A place as a reader says it: a CSV row, a campaign table's row, a place of its own.
PLACES = st.one_of(
    st.integers(0, 40).map(lambda n: f"row {n}"),
    st.tuples(st.sampled_from(["ship", "side"]), st.integers(0, 40)).map(
        lambda t: f"{t[0]}[{t[1]}]"
    ),
    st.sampled_from(LABELS),
)
ADDS = st.lists(
    st.tuples(PLACES, st.sampled_from(COLUMNS), st.sampled_from(MESSAGES)), max_size=120
)
_SPAN = re.compile(r"(?:(\w+) )?(?:rows?) (\d+)(?:-(\d+))?|(\d+)(?:-(\d+))?")

Place = tuple[str, int]  # (table, number); a label is (label, -1)


def _place(where: str) -> Place:
    if where in LABELS:
        return where, -1
    if where.startswith("row "):
        return "", int(where[4:])
    table, number = where[:-1].split("[")
    return table, int(number)


def _compressed(places: list[Place]) -> list[tuple[str, int, int]]:
    """Places as spans: a row next to the one before, in the same table, lengthens its span."""
    spans: list[tuple[str, int, int]] = []
    for table, number in places:
        if number >= 0 and spans and spans[-1][0] == table and spans[-1][2] == number - 1 >= 0:
            spans[-1] = (table, spans[-1][1], number)
        else:
            spans.append((table, number, number))
    return spans


def _parsed(said: str) -> tuple[list[tuple[str, int, int]], bool, int]:
    """The spans a report's places name, whether some were left unlisted, and their count."""
    count = 1
    if found := re.search(r" \((\d+) (rows|entries)\)$", said):
        said, count = said[: found.start()], int(found.group(1))
        assert count > 1
    spans: list[tuple[str, int, int]] = []
    cut, table = False, ""
    for part in said.split(", "):
        assert not cut, said  # "..." comes last
        if part == "...":
            cut = True
        elif part in LABELS:
            spans.append((part, -1, -1))
        else:
            span = _SPAN.fullmatch(part)
            assert span is not None, part
            if span.group(2) is not None:
                table, first, last = span.group(1) or "", span.group(2), span.group(3)
            else:
                first, last = span.group(4), span.group(5)
            spans.append((table, int(first), int(last or first)))
    return spans, cut, count


@settings(max_examples=300, deadline=None)
@given(adds=ADDS, most=st.integers(1, 6), places=st.none() | st.integers(1, 60))
def test_any_adds_name_each_problem_once_its_places_in_order_compressed_and_capped(
    adds: list[tuple[str, str, str]], most: int, places: int | None
) -> None:
    problems = Problems(most, places=places)
    found: dict[tuple[str, str], list[Place]] = {}
    counted, left_out = 0, False
    for where, column, message in adds:
        problems.add(where, column, message)
        place, kept = _place(where), found.get((column, message))
        if kept is not None and kept[-1] == place:
            continue  # the same place again: said once
        if (kept is None and len(found) >= most) or (places is not None and counted >= places):
            left_out = True
            continue
        found.setdefault((column, message), []).append(place)
        counted += 1
    lines = problems.lines()
    assert len(lines) <= most + 1
    assert (lines[-1:] == (MORE,)) is left_out
    said = lines[: len(lines) - left_out]
    assert len(said) == len(found)
    for line, ((column, message), kept) in zip(said, found.items(), strict=True):
        head, _, tail = line.rpartition(": ")
        assert tail == message
        where = head.removesuffix(f", {column}") if column else head
        assert where != head or not column
        spans, cut, count = _parsed(where)
        every = _compressed(kept)
        assert count == len(kept)
        assert spans == every[:SHOWN]
        assert cut is (len(every) > SHOWN)
    assert problems.full() is (len(found) >= most or (places is not None and counted >= places))


def test_a_campaign_files_rows_group_as_a_csv_files_do() -> None:
    problems = Problems()
    for index in (3, 4, 5, 9):
        problems.add(f"ship[{index}]", "structure_now", "must be 0..10, got 12")
    problems.add("side[2]", "structure_now", "must be 0..10, got 12")
    for number in (2, 3, 4, 5, 9):
        problems.add(f"row {number}", "name", "must not be blank")
    problems.add("", "", "holds no rows below its header")
    assert problems.lines() == (
        "ship rows 3-5, 9, side row 2 (5 rows), structure_now: must be 0..10, got 12",
        "rows 2-5, 9 (5 rows), name: must not be blank",
        "holds no rows below its header",
    )
    with pytest.raises(InvalidInput) as refused:
        problems.check()
    assert refused.value.errors == {"file": "; ".join(problems.lines())}


def test_a_million_bad_rows_keep_a_few_spans_and_their_count() -> None:
    problems = Problems()
    for index in range(0, 2_000_000, 2):
        problems.add(f"ship[{index}]", "name", "must not be blank")
    [places] = problems.found.values()
    assert len(places.spans) == SHOWN
    assert problems.lines() == (
        "ship rows 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, ... (1000000 rows), name: must not be blank",
    )


def test_a_reader_capped_in_places_is_full_once_it_counted_them() -> None:
    problems = Problems(8, places=3)
    for index in range(3):
        assert not problems.full()
        problems.add(f"ship[{index}]", "name", "must not be blank")
    assert problems.full()
    problems.add("ship[3]", "name", "must not be blank")
    assert problems.lines() == ("ship rows 0-2 (3 rows), name: must not be blank", MORE)
