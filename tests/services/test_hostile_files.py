"""Every reader of a file a player gives (a campaign file, a library file in JSON or CSV, a CSV
of ships, units or counters) refuses a hostile one with a sentence: nesting a hundred thousand
deep, a number of a hundred thousand digits, a field of megabytes, NUL bytes, bytes of no
encoding. Never another exception (a RecursionError, a ValueError), never a crash. Generated
files, at every reader."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.services import csv_import, exchange, library
from tracker.services.errors import InvalidInput

SETTINGS = settings(
    max_examples=examples(20), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
CAMPAIGN = '{"format": "tracker-campaign", "version": 1, "tables": {"ship": [{"name": %s}]}}'
LIBRARY = '{"format": "tracker-library", "version": 1, "cards": [{"name": "x", "points": %s}]}'


KINDS = ["deep lists", "deep objects", "long number", "long negative", "long fraction",
         "long text", "NUL", "huge exponent"]  # fmt: skip


@st.composite
def hostile_values(draw: st.DrawFn) -> tuple[str, str]:
    """(kind, a JSON value's text, or a CSV cell's): what a hostile file puts in a field."""
    kind = draw(st.sampled_from(KINDS))
    size = draw(st.integers(5_000, 250_000))
    if kind == "deep lists":
        return kind, "[" * size + "]" * size
    if kind == "deep objects":
        return kind, '{"a":' * size + "1" + "}" * size
    if kind == "long number":
        return kind, "9" * size
    if kind == "long negative":
        return kind, "-1" + "0" * size
    if kind == "long fraction":
        return kind, "1." + "5" * size
    if kind == "huge exponent":
        return kind, "1e" + "9" * min(size, 5000)
    if kind == "NUL":
        return kind, '"a\\u0000b"'
    return kind, '"' + "x" * size + '"'


def refused(read: Callable[[], Any]) -> str:
    """What the reader said: the refusal's sentence, or a report's problems."""
    try:
        outcome = read()
    except InvalidInput as exc:
        said = "; ".join(exc.errors.values())
    else:
        said = "; ".join(outcome.problems)
    assert said and len(said) < 2000, said[:300]
    return said


@SETTINGS
@given(value=hostile_values(), where=st.sampled_from(["row", "header"]))
def test_a_campaign_file_refuses_any_hostile_value(value: tuple[str, str], where: str) -> None:
    _, text = value
    raw = (CAMPAIGN % text if where == "row" else '{"format": "tracker-campaign", "version": '
           + text + "}").encode()  # fmt: skip
    with pytest.raises(InvalidInput):
        exchange.read_document(raw)


def test_the_library_and_the_csv_files_refuse_any_hostile_value(
    factory: SessionFactory, world: World
) -> None:
    targets = {"ships": world.alpha_id, "units": world.blue_id, "counters": world.campaign_id}
    columns = {"ships": "name,structure_max,flotation_max", "units": "name,unit_type,points",
               "counters": "ship,counter_size,speed_rating"}  # fmt: skip

    @SETTINGS
    @given(value=hostile_values(), kind=st.sampled_from(["library json", "library csv",
                                                         *csv_import.KINDS]))  # fmt: skip
    def example(value: tuple[str, str], kind: str) -> None:
        _, text = value
        cell = '"' + text.replace('"', '""') + '"'
        if kind == "library json":
            said = refused(lambda: library.import_library(
                factory, raw=(LIBRARY % text).encode(), json_file=True))  # fmt: skip
        elif kind == "library csv":
            raw = f"name,unit_type,points\nx,cruiser,{cell}\n".encode()
            said = refused(lambda: library.import_library(factory, raw=raw))
        else:
            raw = f"{columns[kind]}\n{cell},{cell},{cell}\n".encode()
            said = refused(lambda: csv_import.import_csv(
                factory, kind=kind, raw=raw, target_id=targets[kind]))  # fmt: skip
        assert "Traceback" not in said

    example()


def test_a_library_file_nested_two_hundred_thousand_deep_is_refused(
    factory: SessionFactory,
) -> None:
    """The dialog's check (a dry run) of the file as it was found."""
    raw = b'{"format":"tracker-library","cards":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    with pytest.raises(InvalidInput, match="is not JSON"):
        library.import_library(factory, raw=raw, json_file=True, dry_run=True)


def test_a_hundred_thousand_digits_are_refused_by_both_json_readers(
    factory: SessionFactory, world: World
) -> None:
    document = exchange.export_campaign(factory, campaign_id=world.campaign_id)
    text = exchange.dumps(document).replace('"id":1,', '"id":' + "9" * 100_000 + ",", 1)
    assert "9" * 100_000 in text
    with pytest.raises(InvalidInput):
        exchange.read_document(text.encode())
    with pytest.raises(InvalidInput):
        library.import_library(factory, raw=(LIBRARY % ("9" * 100_000)).encode(), json_file=True)
    assert json.loads(exchange.dumps(document))  # the document itself reads
