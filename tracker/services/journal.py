"""Appending to the campaign journal, inside the caller's transaction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Required, TypedDict, Unpack

from sqlalchemy import ScalarSelect, Table, bindparam, func, insert, text
from sqlalchemy import select as sql_select
from sqlmodel import Session, SQLModel, select

from tracker.campaign_file import CURRENT_SCENARIO_ORDER
from tracker.models import JournalEntry, Scenario
from tracker.models.campaign import utcnow
from tracker.models.kinds import JournalKind, ScenarioStatus
from tracker.services import rowlog


@dataclass(frozen=True)
class RowChange:
    """One row a service changed: what undo puts back (before) and redo puts again (after)."""

    table: str
    row_id: int
    before: dict[str, Any]
    after: dict[str, Any]
    # "before" for a row the change created, "after" for one it deleted: undo and redo delete
    # the row or put it back whole (with its id) from the other side's full state.
    gone: str | None = None

    def as_json(self) -> dict[str, Any]:
        change = {
            "table": self.table,
            "id": self.row_id,
            "before": self.before,
            "after": self.after,
        }
        return change | ({"gone": self.gone} if self.gone else {})


# One row, ranked in the database, by a statement built once: every journal entry asks for it.
_CURRENT_SCENARIO = (
    select(Scenario)
    .where(Scenario.campaign_id == bindparam("campaign_id"))
    .order_by(text(CURRENT_SCENARIO_ORDER))
    .limit(1)
)
_SCENARIO: Table = Scenario.__table__  # type: ignore[attr-defined]


def current_scenario_id(campaign_id: Any) -> ScalarSelect[Any]:
    """The current scenario's id as part of a larger statement (`campaign_id` a column or a
    value): the row current_scenario reads, ranked alike."""
    ranked = sql_select(_SCENARIO.c.id).where(_SCENARIO.c.campaign_id == campaign_id)
    return ranked.order_by(text(CURRENT_SCENARIO_ORDER)).limit(1).scalar_subquery()


class Filed(Protocol):
    """What an entry reads of the scenario it is filed under: a Scenario, or its row's columns."""

    @property
    def id(self) -> int | None: ...

    @property
    def status(self) -> str: ...

    @property
    def turn(self) -> int: ...


_JOURNAL: Table = JournalEntry.__table__  # type: ignore[attr-defined]
_INSERT_ENTRY = insert(_JOURNAL)  # its columns come with the row


def current_scenario(session: Session, campaign_id: int) -> Scenario | None:
    """The scenario in play, else the first planned one, else the last closed one."""
    return session.exec(_CURRENT_SCENARIO, params={"campaign_id": campaign_id}).first()


def scenario_in_play(session: Session, campaign_id: int) -> Scenario | None:
    """The scenario in play, if one is: turns are counted by it."""
    scenario = current_scenario(session, campaign_id)
    return scenario if scenario is not None and scenario.status == ScenarioStatus.IN_PLAY else None


class Said(TypedDict, total=False):
    """What one journal entry says beyond its campaign, kind and summary. An entry with
    `changes` can be undone: undo writes each row's `before` back; undoable=False keeps them
    for the record (the journal replays to the database) without offering an undo, for a step
    taken back another way (a closed scenario is reopened). `scenario`, when the caller already
    looked it up (left out: the current one). `sealed` is the private part of a secret change
    (visibility.sealed_detail). `facts` are what the change was, kept for the story told later
    (who was lost with a ship: services.losses), which today's rows no longer say."""

    ship_id: int | None
    side_id: int | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    dice: dict[str, Any] | None
    changes: tuple[RowChange, ...]
    reverts_id: int | None
    undoable: bool | None
    scenario: Filed | None
    sealed: dict[str, Any] | None
    facts: dict[str, Any] | None


class Entry(Said, total=False):
    campaign_id: Required[int]
    kind: Required[JournalKind]
    summary: Required[str]


def append(session: Session, **entry: Unpack[Entry]) -> JournalEntry:
    """Add one entry describing a change; the caller's commit makes it durable with the change."""
    row = JournalEntry(**entry_values(session, entry))
    session.add(row)
    session.flush()
    rowlog.entry_written(session, row.id or 0)
    return row


def insert_entry(session: Session, **entry: Unpack[Entry]) -> int:
    """The entry `append` adds, written as a row: one INSERT, no JournalEntry object built and
    flushed (for the hit, which the player waits for). Its id."""
    row = {**entry_values(session, entry), "at": utcnow()}  # the model's default
    inserted = session.connection().execute(_INSERT_ENTRY, row)
    key = inserted.inserted_primary_key
    assert key is not None  # an INSERT's result has its key
    entry_id: int = key[0]
    rowlog.entry_written(session, entry_id)
    return entry_id


def insert_entries(session: Session, entries: Sequence[Entry]) -> None:
    """The entries `append` adds, written by one INSERT of many rows (a bulk act's, one entry
    a row it adds), each filed under the scenario it names, else the current one."""
    at = utcnow()  # the model's default, one moment for the act
    rows = [{**entry_values(session, entry), "at": at} for entry in entries]
    if rows:
        session.connection().execute(_INSERT_ENTRY, rows)
        newest = sql_select(func.max(_JOURNAL.c.id)).where(
            _JOURNAL.c.campaign_id == rows[-1]["campaign_id"]
        )
        rowlog.entry_written(session, session.connection().execute(newest).scalar_one())


def entry_values(session: Session, entry: Entry) -> dict[str, Any]:
    """The columns of the entry, `at` aside."""
    if "scenario" in entry:
        scenario = entry["scenario"]
    else:
        scenario = current_scenario(session, entry["campaign_id"])
    changes, undoable = entry.get("changes", ()), entry.get("undoable")
    named = [change.as_json() for change in changes]
    rows = rowlog.taken(session, named)
    return {
        "campaign_id": entry["campaign_id"],
        "scenario_id": scenario.id if scenario else None,
        # A scenario not yet begun has no turn to stamp: an entry made before it starts is
        # filed under it, at no turn.
        "turn": scenario.turn if scenario and scenario.status != ScenarioStatus.PLANNED else None,
        "side_id": entry.get("side_id"),
        "ship_id": entry.get("ship_id"),
        "kind": entry["kind"],
        "summary": entry["summary"][:400],
        "detail": json.dumps(
            {
                "before": entry.get("before"),
                "after": entry.get("after"),
                "dice": entry.get("dice"),
                "changes": named,
                **({"rows": rows} if rows else {}),
                **(entry.get("facts") or {}),
                **(entry.get("sealed") or {}),
            },
            sort_keys=True,
        ),
        "undoable": bool(changes) if undoable is None else undoable,
        "reverts_id": entry.get("reverts_id"),
    }


def row_state(row: SQLModel) -> dict[str, Any]:
    """A row's fields without its id and version: the before or after of a change.

    The version is the database's own bookkeeping (see models.versioned): an undo writes the
    old fields back as a new change, which raises the version again.
    """
    return row.model_dump(exclude={"id", "version"})


def row_change(
    table: str, row_id: int | None, before: dict[str, Any], after: dict[str, Any]
) -> RowChange:
    """A RowChange of only the fields that differ."""
    assert row_id is not None
    keys = [key for key in after if before.get(key) != after[key]]
    old, new = {key: before.get(key) for key in keys}, {key: after[key] for key in keys}
    return RowChange(table=table, row_id=row_id, before=old, after=new)


def deleted(table: str, row: SQLModel) -> RowChange:
    """A RowChange deleting a row: undo puts it back whole, with its id."""
    row_id = getattr(row, "id", None)
    assert row_id is not None
    return RowChange(table=table, row_id=row_id, before=row_state(row), after={}, gone="after")
