"""Appending to the campaign journal, inside the caller's transaction."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, SQLModel, col, select

from tracker.models import JournalEntry, Scenario


@dataclass(frozen=True)
class RowChange:
    """One row a service changed: what undo puts back (before) and redo puts again (after)."""

    table: str
    row_id: int
    before: dict[str, Any]
    after: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"table": self.table, "id": self.row_id, "before": self.before, "after": self.after}


def current_scenario(session: Session, campaign_id: int) -> Scenario | None:
    """The scenario in play, else the first planned one, else the last closed one."""
    scenarios = session.exec(
        select(Scenario).where(Scenario.campaign_id == campaign_id).order_by(col(Scenario.position))
    ).all()
    for status in ("in_play", "planned"):
        for scenario in scenarios:
            if scenario.status == status:
                return scenario
    return scenarios[-1] if scenarios else None


def append(
    session: Session,
    *,
    campaign_id: int,
    kind: str,
    summary: str,
    ship_id: int | None = None,
    side_id: int | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    dice: dict[str, Any] | None = None,
    changes: tuple[RowChange, ...] = (),
    reverts_id: int | None = None,
) -> JournalEntry:
    """Add one entry describing a change; the caller's commit makes it durable with the change.

    An entry with `changes` can be undone: undo writes each row's `before` back.
    """
    scenario = current_scenario(session, campaign_id)
    entry = JournalEntry(
        campaign_id=campaign_id,
        scenario_id=scenario.id if scenario else None,
        turn=scenario.turn if scenario else None,
        side_id=side_id,
        ship_id=ship_id,
        kind=kind,
        summary=summary[:400],
        detail=json.dumps(
            {
                "before": before,
                "after": after,
                "dice": dice,
                "changes": [change.as_json() for change in changes],
            },
            sort_keys=True,
        ),
        undoable=bool(changes),
        reverts_id=reverts_id,
    )
    session.add(entry)
    session.flush()
    return entry


def row_state(row: SQLModel) -> dict[str, Any]:
    """A row's fields without its id and version: the before or after of a change.

    The version is the database's own bookkeeping (see models.versioned): an undo writes the
    old fields back as a new change, which raises the version again.
    """
    return row.model_dump(exclude={"id", "version"})


def changes(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Only the fields that differ, as (before, after), so an entry says what changed."""
    keys = [key for key in after if before.get(key) != after[key]]
    return {key: before.get(key) for key in keys}, {key: after[key] for key in keys}


def row_change(
    table: str, row_id: int | None, before: dict[str, Any], after: dict[str, Any]
) -> RowChange:
    """A RowChange of only the fields that differ."""
    assert row_id is not None
    old, new = changes(before, after)
    return RowChange(table=table, row_id=row_id, before=old, after=new)


def delete_logged(session: Session, row: SQLModel, *, campaign_id: int, summary: str) -> None:
    """Delete a row of a campaign's own tables, saying so in the journal (not undoable)."""
    append(session, campaign_id=campaign_id, kind="table", summary=summary)
    session.delete(row)
