"""The campaign's typed-in rule tables: rulebook tables not in our sources, which the players type
in once per campaign and the tracker then applies: the critical-hit tables (SMR2 §8.8, §9.9) and the
mine damage table (RULES.md §Mines). Each is read in one shape, a RuleTable of RuleRows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, CriticalTableRow, MineTableRow
from tracker.models.damage import CriticalTableRowBase
from tracker.models.kinds import AppliesTo, CriticalKind, JournalKind
from tracker.models.mines import APPLIES_TO, MineTableRowBase
from tracker.rules import mine_check
from tracker.services.common import Act, act, beyond_ids, get_row, rows_where
from tracker.services.errors import InvalidInput, bad_character, check, require_plain
from tracker.services.fields import require_declared

# Stats a critical-table row may change at once, with the bounds the ship row keeps.
CRITICAL_STATS = ("speed_kn", "structure_now", "flotation_now", "fire_markers")
MINE_TABLE = "mine"


@dataclass(frozen=True)
class RuleRow:
    """One row of a campaign's typed-in table (`table`: a critical table's kind, or "mine"): the
    rolls low..high it covers and what it does. A critical row may change a stat at once; a mine
    row applies to some counters, its `effect` in the tracker's words, its `note` the rulebook's."""

    id: int
    table: str
    low: int
    high: int
    effect: str
    stat: str = ""
    amount: int = 0
    applies_to: str = ""
    note: str = ""


@dataclass(frozen=True)
class RuleTable:
    """A campaign's typed-in table, rows by their lowest roll, and the rolls no row covers."""

    table: str
    rows: tuple[RuleRow, ...]
    gaps: tuple[str, ...] = ()

    @property
    def die(self) -> int | None:
        """The die the table is rolled with: its highest number (a d10 table ends at 10)."""
        return max((row.high for row in self.rows), default=None)


def _saved(a: Act[Campaign], row: MineTableRow | CriticalTableRow, summary: str) -> int:
    a.session.add(row)
    a.session.flush()
    a.log(JournalKind.TABLE, summary)
    return row.id or 0


def _table_rows(session: Session, campaign_id: int) -> list[MineTableRow]:
    order = (MineTableRow.low, MineTableRow.applies_to)
    return rows_where(session, MineTableRow, MineTableRow.campaign_id == campaign_id, order=order)


def _span_problems(model: Any, low: int, high: int) -> dict[str, str]:
    """What is wrong with a table row's span: each bound as the model declares it, and high
    below low."""
    errors: dict[str, str] = {}
    require_declared(errors, model, low=low, high=high)
    if not errors and high < low:
        errors["high"] = f"must be at least low ({low})"
    return errors


def _refuse_overlap(
    rows: Sequence[Any], row_id: int | None, low: int, high: int, said: Callable[[Any], str]
) -> None:
    """Refuse a span that overlaps another row of the same table (not the row changed)."""
    for row in rows:
        if row.id != row_id and row.low <= high and low <= row.high:
            raise InvalidInput({"low": f"overlaps the row {row.low}-{row.high} {said(row)}; "
                                "change that row or these numbers"})  # fmt: skip


def _refuse_other_campaign(owner: int, campaign_id: int) -> None:
    if owner != campaign_id:
        raise InvalidInput({"low": "that row belongs to another campaign"})


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
    errors = _span_problems(MineTableRowBase, low, high)
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
    with act(factory, Campaign, campaign_id) as a:
        session = a.session
        same = [
            row
            for row in _table_rows(session, campaign_id)
            if row.applies_to == applies_to or "all" in (row.applies_to, applies_to)
        ]
        _refuse_overlap(same, row_id, low, high, lambda row: f"({row.applies_to}): {row.effects}")
        row = get_row(session, MineTableRow, row_id) if row_id else MineTableRow(
            campaign_id=campaign_id, low=low, high=high, effects=words)  # fmt: skip
        _refuse_other_campaign(row.campaign_id, campaign_id)
        row.low, row.high, row.applies_to = low, high, AppliesTo(applies_to)
        row.effects, row.note = words, note.strip()
        return _saved(a, row, f"mine table: {low}-{high} ({applies_to}) {words}")


def delete_mine_row(factory: SessionFactory, *, row_id: int) -> None:
    with act(factory, MineTableRow, row_id) as a:
        row = a.row
        removed = f"{row.low}-{row.high} ({row.applies_to}) {row.effects}"
        a.log(JournalKind.TABLE, f"mine table: removed {removed}")
        a.session.delete(row)


def mine_table(factory: SessionFactory, *, campaign_id: int) -> RuleTable:
    """The campaign's mine damage table and the modified rolls 1..11 it does not cover."""
    with session_scope(factory) as session:
        rows = _table_rows(session, campaign_id)
        spans = [(row.low, row.high, row.applies_to) for row in rows]
        _, gaps = mine_check.mine_table_problems(spans)
        return RuleTable(
            table=MINE_TABLE,
            rows=tuple(RuleRow(id=row.id or 0, table=MINE_TABLE, low=row.low, high=row.high,
                               effect=row.effects, applies_to=row.applies_to,
                               note=row.note) for row in rows),
            gaps=tuple(gaps) if rows else (),
        )  # fmt: skip


def _lookup(session: Session, campaign_id: int, cup: str, modified: int) -> MineTableRow | None:
    for row in _table_rows(session, campaign_id):
        if row.applies_to in (AppliesTo.ALL, cup) and row.low <= modified <= row.high:
            return row
    return None


def _critical_rows(session: Session, campaign_id: int, kind: str) -> list[CriticalTableRow]:
    where = CriticalTableRow.campaign_id == campaign_id, CriticalTableRow.kind == kind
    return rows_where(session, CriticalTableRow, *where, order=CriticalTableRow.low)


def critical_row(session: Session, campaign_id: int, kind: str, roll: int) -> CriticalTableRow:
    """The row of the campaign's critical table that a die roll falls in (SMR2 §8.8, §9.9)."""
    rows = _critical_rows(session, campaign_id, kind)
    if not rows:
        raise InvalidInput(
            {"criticals": f"this campaign has no {kind} critical table yet: type the effect in "
             "quotes, or enter your rulebook's table first"}
        )  # fmt: skip
    for row in rows:
        if row.low <= roll <= row.high:
            return row
    raise InvalidInput(
        {"criticals": f"no row of the {kind} critical table covers a roll of {roll}"}
    )


def save_table_row(
    factory: SessionFactory,
    *,
    campaign_id: int,
    row_id: int | None = None,
    kind: str,
    low: int,
    high: int,
    effect: str,
    stat: str = "",
    amount: int = 0,
) -> int:
    """Add or change a row of the campaign's own critical table (the rulebook's, typed in)."""
    errors = _span_problems(CriticalTableRowBase, low, high)
    if kind not in tuple(CriticalKind):
        errors["kind"] = "must be structural or underwater"
    effect = effect.strip()
    if not effect:
        errors["effect"] = "type the effect as your rulebook gives it"
    elif len(effect) > 200:
        errors["effect"] = "must be at most 200 characters"
    require_plain(errors, "effect", effect)
    if stat and stat not in CRITICAL_STATS:
        errors["stat"] = f"must be blank or one of {', '.join(CRITICAL_STATS)}"
    require_declared(errors, CriticalTableRowBase, amount=amount)
    check(errors)
    with act(factory, Campaign, campaign_id) as a:
        session = a.session
        row = (
            get_row(session, CriticalTableRow, row_id)
            if row_id
            else CriticalTableRow(campaign_id=campaign_id, kind=kind, low=low, high=high,
                                  effect=effect)
        )  # fmt: skip
        _refuse_other_campaign(row.campaign_id, campaign_id)
        same = _critical_rows(session, campaign_id, kind)
        _refuse_overlap(same, row_id, low, high, lambda row: f"({row.kind}): {row.effect}")
        row.kind, row.low, row.high, row.effect = kind, low, high, effect
        row.stat, row.amount = stat, amount
        return _saved(a, row, f"{kind} critical table {low}-{high}: {effect}")


def critical_table(factory: SessionFactory, *, campaign_id: int, kind: str) -> RuleTable:
    if beyond_ids(campaign_id) or bad_character(kind) is not None:
        return RuleTable(table=kind, rows=())
    with session_scope(factory) as session:
        rows = _critical_rows(session, campaign_id, kind)
        return RuleTable(table=kind, rows=tuple(
            RuleRow(id=r.id or 0, table=kind, low=r.low, high=r.high, effect=r.effect,
                    stat=r.stat, amount=r.amount) for r in rows))  # fmt: skip


def critical_tables(
    factory: SessionFactory, *, campaign_id: int, kinds: tuple[str, ...]
) -> tuple[RuleTable, ...]:
    return tuple(critical_table(factory, campaign_id=campaign_id, kind=kind) for kind in kinds)


def delete_table_row(factory: SessionFactory, *, row_id: int) -> None:
    with act(factory, CriticalTableRow, row_id) as a:
        a.log(
            JournalKind.TABLE, f"removed {a.row.kind} critical table row {a.row.low}-{a.row.high}"
        )
        a.session.delete(a.row)


def table_dice(
    factory: SessionFactory, *, campaign_id: int, kinds: tuple[str, ...]
) -> dict[str, int | None]:
    """Each critical table's die (RuleTable.die: its highest number; None for a table with no
    rows), read in one statement: damage entry reads them on every opening."""
    dice: dict[str, int | None] = dict.fromkeys(kinds)
    wanted = [kind for kind in kinds if bad_character(kind) is None]
    if beyond_ids(campaign_id) or not wanted:
        return dice
    with session_scope(factory) as session:
        highest = session.exec(
            select(CriticalTableRow.kind, func.max(CriticalTableRow.high))
            .where(CriticalTableRow.campaign_id == campaign_id,
                   col(CriticalTableRow.kind).in_(wanted))
            .group_by(CriticalTableRow.kind)
        ).all()  # fmt: skip
    dice.update(highest)
    return dice
