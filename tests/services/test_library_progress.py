"""A library import tells its progress as rows are checked and stops when cancelled, writing
nothing (tracker.services.library: progress, cancelled), so the app can show it and stop it."""

from __future__ import annotations

from pathlib import Path

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from tracker.db import SessionFactory, session_scope
from tracker.services import library, library_export
from tracker.services.library import PROGRESS_EVERY, ImportCancelled

FILES = Path(__file__).resolve().parents[1] / "library_files"


def _rows(count: int) -> bytes:
    lines = "".join(f"Card {n},Japan,destroyer,{n % 50 + 1}\n" for n in range(count))
    return f"name,nation,unit_type,points\n{lines}".encode()


def _empty(factory: SessionFactory) -> None:
    with session_scope(factory) as session:
        session.connection().execute(text("DELETE FROM unitcard"))


@settings(max_examples=examples(10), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(1, 130), json_file=st.booleans())
def test_progress_is_told_now_and_then_and_at_the_last_row_once_it_is_written(
    factory: SessionFactory, count: int, json_file: bool
) -> None:
    _empty(factory)
    raw = _rows(count)
    if json_file:
        library.import_library(factory, raw=raw)
        raw = library_export.export_text(factory, kind=None).encode()
        _empty(factory)
    # Each word, with what another reader of the file finds then: a bar at its end means the
    # rows are all in.
    told: list[tuple[int, int]] = []
    stored: list[int] = []

    def progress(done: int, total: int) -> None:
        told.append((done, total))
        stored.append(len(library.cards(factory)))

    report = library.import_library(factory, raw=raw, json_file=json_file, progress=progress)
    assert report.written and report.rows == count
    assert told == [
        (done, count) for done in range(1, count + 1)
        if done % PROGRESS_EVERY == 0 or done == count
    ]  # fmt: skip
    assert stored == [0] * (len(told) - 1) + [count]


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("after", [0, 1, 150, 299, 300])
def test_a_cancelled_import_stops_and_writes_nothing(
    factory: SessionFactory, after: int, dry_run: bool
) -> None:
    checked: list[int] = []

    def cancelled() -> bool:
        checked.append(1)
        return len(checked) > after

    with pytest.raises(ImportCancelled, match="cancelled: nothing was written"):
        library.import_library(factory, raw=(FILES / "cards-300.csv").read_bytes(),
                               dry_run=dry_run, cancelled=cancelled)  # fmt: skip
    assert library.cards(factory) == ()
    # Nothing was left half done: the same file imports whole afterwards.
    report = library.import_library(factory, raw=(FILES / "cards-300.csv").read_bytes())
    assert len(report.outcomes[0].added) == 300
