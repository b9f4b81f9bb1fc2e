"""A campaign's sides, squadrons, ships and crews as they stood at a point of its journal.

What a report says about the past is read from the journal and the kept states of that time,
never from today's rows (a ship renamed since, a crew re-rolled since). The journal keeps every
row a change touched with its `before`: today's rows with every later change taken back, newest
first, are the rows as they stood. An older side or squadron rename names no row; it names the
side, and the name is unique in the campaign (a side) or in its side (a squadron), so the name
finds the row.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from tracker.models import Crew, JournalEntry, Ship, Side, Squadron
from tracker.models.kinds import JournalKind
from tracker.rules import smr

# What the story reads of each table, by the journal's name for it.
COLUMNS: dict[str, tuple[str, ...]] = {
    "side": ("name",),
    "squadron": ("name", "side_id", "crew_id"),
    "ship": ("name", "side_id", "type_abbrev", "structure_max", "flotation_max", "points_base",
             "crew_id"),
    "crew": ("training",),
}  # fmt: skip
MODELS: dict[str, Any] = {"side": Side, "squadron": Squadron, "ship": Ship, "crew": Crew}
# Entries that rename a row with a before and after of their own and no row change.
RENAMES: dict[str, str] = {JournalKind.SIDE: "side", JournalKind.SQUADRON: "squadron"}

Rows = dict[str, dict[int, dict[str, Any]]]


@dataclass(frozen=True)
class ShipThen:
    name: str
    side_id: int
    type_abbrev: str
    structure_max: int
    flotation_max: int
    points_base: int
    crew_id: int | None


@dataclass(frozen=True)
class _Step:
    """What one entry changed of the rows read, to be taken back to go before it: rows as
    (table, id, gone, before), renames as (table, side, name before, name after)."""

    entry_id: int
    rows: tuple[tuple[str, int, str | None, dict[str, Any]], ...]
    renames: tuple[tuple[str, int | None, str, str], ...]


def _step(entry_id: int, kind: str, side_id: int | None, detail: str) -> _Step | None:
    data = json.loads(detail)
    rows = []
    for change in data.get("changes") or ():
        columns = COLUMNS.get(change.get("table", ""))
        if columns is None:
            continue
        before = {k: v for k, v in (change.get("before") or {}).items() if k in columns}
        if before or change.get("gone"):
            rows.append((change["table"], change["id"], change.get("gone"), before))
    renames = []
    table = RENAMES.get(kind)
    old, new = data.get("before"), data.get("after")
    renamed = isinstance(old, dict) and isinstance(new, dict) and "name" in old
    if table and renamed and new.get("name") not in (None, old["name"]):
        renames.append((table, side_id, str(old["name"]), str(new["name"])))
    return _Step(entry_id, tuple(rows), tuple(renames)) if rows or renames else None


def _take_back(rows: Rows, step: _Step) -> None:
    """The rows as they were before the step's entry."""
    for table, row_id, gone, before in step.rows:
        held = rows[table]
        if gone == "before":  # the entry made the row
            held.pop(row_id, None)
        elif gone == "after":  # the entry deleted it: back whole
            held[row_id] = dict(before)
        elif row_id in held:
            held[row_id].update(before)
    for table, side_id, old, new in step.renames:
        held = rows[table]
        found = [
            row_id
            for row_id, row in held.items()
            if row["name"] == new
            and (side_id is None or (row_id if table == "side" else row["side_id"]) == side_id)
        ]
        if len(found) == 1:
            held[found[0]]["name"] = old


@dataclass(frozen=True)
class Then:
    """The rows at one point; a row the journal cannot place there reads as it is today."""

    rows: Rows
    today: Rows

    def _row(self, table: str, row_id: int | None) -> dict[str, Any]:
        if row_id is None:
            return {}
        return self.rows[table].get(row_id) or self.today[table].get(row_id) or {}

    def side(self, side_id: int | None) -> str:
        return str(self._row("side", side_id).get("name", ""))

    def squadron(self, squadron_id: int | None) -> str:
        return str(self._row("squadron", squadron_id).get("name", ""))

    def ship(self, ship_id: int) -> ShipThen | None:
        row = self._row("ship", ship_id)
        return ShipThen(**row) if row else None

    def points(self, ship_id: int, squadron_id: int | None) -> tuple[int, int]:
        """The ship's SMR2 points with its crew's percentage (§3.2), and the percentage: its
        own crew once it has one, else its squadron's (as services.sheet.crew_of)."""
        ship = self.ship(ship_id)
        if ship is None:
            return 0, 0
        crew_id = ship.crew_id
        if crew_id is None:
            crew_id = self._row("squadron", squadron_id).get("crew_id")
        training = self._row("crew", crew_id).get("training")
        percent = smr.crew_cost_percent(training) if training is not None else 0
        return smr.points_with_crew(ship.points_base, percent), percent


class Timeline:
    """A campaign's rows today and the journal's changes to them since an entry, read once."""

    def __init__(self, session: Session, campaign_id: int, *, since: int = 0) -> None:
        sides = list(session.exec(select(Side.id).where(Side.campaign_id == campaign_id)))
        wheres: dict[str, Any] = {
            "side": col(Side.id).in_(sides),
            "squadron": col(Squadron.side_id).in_(sides),
            "ship": col(Ship.side_id).in_(sides),
            "crew": Crew.campaign_id == campaign_id,
        }
        self.today: Rows = {
            table: {
                row.id: row.model_dump(include=set(COLUMNS[table]))
                for row in session.exec(select(MODELS[table]).where(where))
            }
            for table, where in wheres.items()
        }
        entries = session.exec(
            select(JournalEntry.id, JournalEntry.kind, JournalEntry.side_id, JournalEntry.detail)
            .where(JournalEntry.campaign_id == campaign_id, col(JournalEntry.id) > since)
            .order_by(col(JournalEntry.id).desc())
        )
        steps = (_step(entry_id or 0, kind, side_id, detail)
                 for entry_id, kind, side_id, detail in entries)  # fmt: skip
        self.steps = [step for step in steps if step is not None]  # newest first

    def at(self, entry_id: int | None) -> Then:
        """The rows just after the entry (None: today)."""
        rows = copy.deepcopy(self.today)
        if entry_id is not None:
            for step in self.steps:
                if step.entry_id <= entry_id:
                    break
                _take_back(rows, step)
        return Then(rows, self.today)
