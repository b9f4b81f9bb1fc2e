"""Every import is linear in its rows: the names of a side are read once, not reloaded for each
row, so the SQL statements and the rows loaded per imported row stay the same at any size; and
the file is read and checked before the write lock is taken (counted, not timed)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from service_helpers import World
from sqlalchemy import Engine, event

from tracker.db import SessionFactory
from tracker.models import Ship, WasUnit
from tracker.services import csv_import


@dataclass
class Counts:
    statements: int = 0
    loaded: int = 0  # ship and unit rows loaded as objects


@contextmanager
def counted(engine: Engine) -> Iterator[Counts]:
    counts = Counts()

    def statement(*_args: Any) -> None:
        counts.statements += 1

    def load(*_args: Any) -> None:
        counts.loaded += 1

    event.listen(engine, "before_cursor_execute", statement)
    for model in (Ship, WasUnit):
        event.listen(model, "load", load)
    try:
        yield counts
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        for model in (Ship, WasUnit):
            event.remove(model, "load", load)


def _ships(rows: int, start: int) -> bytes:
    lines = ["name,structure_max,flotation_max"]
    lines += [f"Ship {start + n},10,8" for n in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def _units(rows: int, start: int) -> bytes:
    lines = ["name,unit_type,points"] + [f"Unit {start + n},destroyer,0" for n in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def _counters(rows: int, start: int) -> bytes:
    lines = ["ship,counter_size,speed_rating"] + [f"Ship {start + n},small,4" for n in range(rows)]
    return ("\n".join(lines) + "\n").encode()


Make = Callable[[int, int], bytes]
KINDS: dict[str, tuple[Make, Callable[[World], int]]] = {
    "ships": (_ships, lambda world: world.alpha_id),
    "units": (_units, lambda world: world.blue_id),
    "counters": (_counters, lambda world: world.campaign_id),
}
SMALL, LARGE = 30, 120


def _per_row(engine: Engine, factory: SessionFactory, world: World, kind: str) -> list[Counts]:
    make, target = KINDS[kind]
    if kind == "counters":  # the ships the counters name, on the side in front of them
        shipped = csv_import.import_csv(factory, kind="ships", raw=_ships(SMALL + LARGE, 0),
                                        target_id=world.alpha_id)  # fmt: skip
        assert shipped.ok, shipped.problems
    found = []
    start = 0
    for rows in (SMALL, LARGE):
        with counted(engine) as counts:
            report = csv_import.import_csv(
                factory, kind=kind, raw=make(rows, start), target_id=target(world)
            )
        assert report.ok and report.written == rows, report.problems
        found.append(counts)
        start += rows
    return found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_import_costs_the_same_per_row_at_any_size(
    engine: Engine, factory: SessionFactory, world: World, kind: str
) -> None:
    small, large = _per_row(engine, factory, world, kind)
    # Rows already in the side (the first import's) are not reloaded for each new row.
    assert large.loaded / LARGE <= small.loaded / SMALL + 0.1
    assert large.loaded / LARGE <= 3
    # What a file costs beyond its rows is spread over more rows: never more per row.
    assert large.statements / LARGE <= small.statements / SMALL


@pytest.mark.parametrize("kind", ["ships", "units"])
def test_a_file_of_ships_or_units_is_one_act_in_the_same_statements_at_any_size(
    engine: Engine, factory: SessionFactory, world: World, kind: str
) -> None:
    """Its rows checked together, written and journaled by one statement each."""
    small, large = _per_row(engine, factory, world, kind)
    assert large.statements == small.statements
    assert large.loaded == small.loaded == 0


def test_the_file_is_read_and_checked_before_the_write_lock(
    engine: Engine, factory: SessionFactory, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    convert = csv_import._convert

    def converting(kind: str, cells: dict[str, str]) -> Any:
        order.append("check")
        return convert(kind, cells)

    def begin(*_args: Any) -> None:
        order.append("begin")

    monkeypatch.setattr(csv_import, "_convert", converting)
    event.listen(engine, "begin", begin)
    try:
        report = csv_import.import_csv(factory, kind="ships", raw=_ships(5, 0),
                                       target_id=world.alpha_id)  # fmt: skip
    finally:
        event.remove(engine, "begin", begin)
    assert report.ok, report.problems
    assert order.count("check") == 5
    last_check = len(order) - 1 - order[::-1].index("check")
    assert "begin" in order and order.index("begin") > last_check, order
