"""The campaign's typed-in rule tables: rulebook tables not in our sources, which the players type
in once per campaign and the tracker then applies (RULES.md §Mines, the mine damage table).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    MineTableRow,
)
from tracker.models.kinds import AppliesTo, JournalKind
from tracker.models.mines import APPLIES_TO
from tracker.rules import mine_check
from tracker.services import journal
from tracker.services.common import get_row
from tracker.services.errors import (
    InvalidInput,
    check,
    require_plain,
    require_range,
)


@dataclass(frozen=True)
class MineRowView:
    id: int
    low: int
    high: int
    applies_to: str
    effects: str
    note: str


@dataclass(frozen=True)
class MineTable:
    rows: tuple[MineRowView, ...]
    gaps: tuple[str, ...]


# --- the mine damage table ---------------------------------------------------------------


def _table_rows(session: Session, campaign_id: int) -> list[MineTableRow]:
    return list(session.exec(
        select(MineTableRow).where(MineTableRow.campaign_id == campaign_id)
        .order_by(col(MineTableRow.low), col(MineTableRow.applies_to))
    ).all())  # fmt: skip


def save_mine_row(
    factory: SessionFactory,
    *,
    campaign_id: int,
    low: int,
    high: int,
    effects: str,
    applies_to: str = "all",
    note: str = "",
    row_id: int | None = None,
) -> int:
    """Add or change a row of the campaign's mine damage table (the variant's is not in our
    sources: the players type theirs in). Overlapping rows are refused; gaps are allowed."""
    errors: dict[str, str] = {}
    require_range(errors, "low", low, -5, 20)
    require_range(errors, "high", high, -5, 20)
    if not errors and high < low:
        errors["high"] = f"must be at least low ({low})"
    lowest, highest = mine_check.DIE_RANGE
    if not errors and (high < lowest or low > highest):
        errors["low"] = (f"a d6 plus the modifiers (0 to +5) gives {lowest} to {highest}: "
                         "this row would never be rolled")  # fmt: skip
    if applies_to not in APPLIES_TO:
        errors["applies_to"] = "must be all, long or small"
    try:
        words = mine_check.parse_mine_effects(effects).words()
    except ValueError as exc:
        errors["effects"] = str(exc).removeprefix("effects: ")
        words = ""
    if len(note) > 200:
        errors["note"] = "must be at most 200 characters"
    require_plain(errors, "note", note)
    check(errors)
    with session_scope(factory) as session:
        get_row(session, Campaign, campaign_id)
        others = [row for row in _table_rows(session, campaign_id) if row.id != row_id]
        clash = [
            row for row in others
            if row.low <= high and low <= row.high
            and (row.applies_to == applies_to or "all" in (row.applies_to, applies_to))
        ]  # fmt: skip
        if clash:
            first = clash[0]
            raise InvalidInput({"low": f"overlaps the row {first.low}-{first.high} "
                                f"({first.applies_to}): {first.effects}; change that row or "
                                "these numbers"})  # fmt: skip
        row = get_row(session, MineTableRow, row_id) if row_id else MineTableRow(
            campaign_id=campaign_id, low=low, high=high, effects=words)  # fmt: skip
        if row.campaign_id != campaign_id:
            raise InvalidInput({"low": "that row belongs to another campaign"})
        row.low, row.high, row.applies_to = low, high, AppliesTo(applies_to)
        row.effects, row.note = words, note.strip()
        session.add(row)
        session.flush()
        journal.append(
            session, campaign_id=campaign_id, kind=JournalKind.TABLE,
            summary=f"mine table: {low}-{high} ({applies_to}) {words}",
        )  # fmt: skip
        return row.id or 0


def delete_mine_row(factory: SessionFactory, *, row_id: int) -> None:
    with session_scope(factory) as session:
        row = get_row(session, MineTableRow, row_id)
        summary = f"mine table: removed {row.low}-{row.high} ({row.applies_to}) {row.effects}"
        journal.delete_logged(session, row, campaign_id=row.campaign_id, summary=summary)


def mine_table(factory: SessionFactory, *, campaign_id: int) -> MineTable:
    """The campaign's mine damage table and the modified rolls 1..11 it does not cover."""
    with session_scope(factory) as session:
        rows = _table_rows(session, campaign_id)
        spans = [(row.low, row.high, row.applies_to) for row in rows]
        _, gaps = mine_check.mine_table_problems(spans)
        return MineTable(
            rows=tuple(MineRowView(id=row.id or 0, low=row.low, high=row.high,
                                   applies_to=row.applies_to, effects=row.effects,
                                   note=row.note) for row in rows),
            gaps=tuple(gaps) if rows else (),
        )  # fmt: skip


def _lookup(session: Session, campaign_id: int, cup: str, modified: int) -> MineTableRow | None:
    for row in _table_rows(session, campaign_id):
        if row.applies_to in (AppliesTo.ALL, cup) and row.low <= modified <= row.high:
            return row
    return None
