"""The whole-database snapshot the service tests compare (db_state) sees a change of any value of
any row of any table, and nothing else: the proof that a refused call wrote nothing rests on it."""

from __future__ import annotations

from collections.abc import Callable

from service_helpers import Snapshot, World
from sqlalchemy import Column, Engine, String, TypeDecorator, func, update
from sqlmodel import SQLModel


def _is_text(column: Column[object]) -> bool:
    kind = column.type
    return isinstance(kind.impl if isinstance(kind, TypeDecorator) else kind, String)


def test_a_snapshot_sees_a_change_of_any_text_of_any_row_and_no_change_when_none(
    world: World, ajax: int, engine: Engine, db_state: Callable[[], Snapshot]
) -> None:
    before = db_state()
    assert db_state() == before
    changed = []
    for table in SQLModel.metadata.sorted_tables:
        texts = [c for c in table.columns if _is_text(c) and not c.primary_key
                 and not c.foreign_keys]  # fmt: skip
        if not before[table.name] or not texts:
            continue
        column = texts[0]
        # A row's id (models.identity) fills its column: changed in place, not made longer.
        changed_text = func.substr(column, 2) + "x" if column.name == "uid" else column + "x"
        with engine.begin() as conn:
            conn.execute(update(table).values({column.name: changed_text}))
        after = db_state()
        assert {name for name in after if after[name] != before[name]} == {table.name}, column
        changed.append(table.name)
        before = after
    assert {"ship", "campaign", "side", "squadron"} <= set(changed), changed
