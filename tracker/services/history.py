"""Undo and redo over the journal: an inverse entry is appended, history is never rewritten."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, checkpoint, read_scope, session_scope
from tracker.models import (
    Battery,
    Campaign,
    Commander,
    Crew,
    Critical,
    JournalEntry,
    MineCheck,
    MineCheckShip,
    Minefield,
    Participation,
    Repair,
    Scenario,
    Ship,
    Side,
    Squadron,
    SubMarker,
    WasUnit,
)
from tracker.models.kinds import JournalKind
from tracker.rules import smr
from tracker.rules.dice import roll_text
from tracker.services import journal, losses, markers, sealing, sync_decide, visibility
from tracker.services.common import beyond_ids, get_row
from tracker.services.errors import InvalidInput, bad_character
from tracker.services.sync_writers import RELATIVE, by_as_much, counted_field

TABLES: dict[str, Any] = {
    "campaign": Campaign,
    "side": Side,
    "ship": Ship,
    "commander": Commander,
    "crew": Crew,
    "critical": Critical,
    "squadron": Squadron,
    "scenario": Scenario,
    "repair": Repair,
    "submarker": SubMarker,
    "minefield": Minefield,
    "minecheck": MineCheck,
    "minecheckship": MineCheckShip,
    "battery": Battery,
    "participation": Participation,
    "wasunit": WasUnit,
}
UNDO, REDO = JournalKind.UNDO, JournalKind.REDO
# A scenario's start and end states are kept as snapshots: undo never reaches back past them
# (reopening a closed scenario is the correction for that).
BARRIERS = (JournalKind.BEGIN, JournalKind.CLOSE)
SKIP_LIMIT = 200  # how far back ctrl+z looks past changes that cannot be reversed
# A change still standing (not undone, not an undo); one in force, that undo may take back.
STANDING = (col(JournalEntry.reverted_by_id).is_(None), JournalEntry.kind != UNDO)
IN_FORCE = (col(JournalEntry.undoable).is_(True), *STANDING)


class UndoSkipAsked(InvalidInput):
    """ctrl+z met changes it cannot reverse: it names them and the change it would undo instead,
    and undoes that one only when asked again (never skipping silently)."""

    def __init__(self, message: str, *, next_id: int) -> None:
        super().__init__({"journal": message})
        self.next_id = next_id


@dataclass(frozen=True)
class HistoryResult:
    """What an undo or redo did: the new entry and the entry it reversed."""

    entry_id: int
    reverted_id: int
    summary: str
    ship_ids: tuple[int, ...]
    sealed_again: bool = False  # an undone reveal: its secrets sealed again in the journal


def _rows(entry: JournalEntry) -> set[tuple[str, int]]:
    return {(change["table"], change["id"]) for change in sealing.changes_of(entry)}


def _rows_exist(session: Session, entry: JournalEntry) -> bool:
    """Whether every row the entry changed is as the entry left it: there, unless it deleted it
    (and it can be put back: a row of a campaign file read from another names id 0)."""
    return all(
        change["table"] in TABLES
        and change["id"] > 0
        and (session.get(TABLES[change["table"]], change["id"]) is None)
        == (change.get("gone") == "after")
        for change in sealing.changes_of(entry)
    )


def _later_dependents(session: Session, entry: JournalEntry) -> list[JournalEntry]:
    """Later changes still in force that touch a row this entry changed."""
    rows = _rows(entry)
    later = session.exec(
        _newest(entry.campaign_id, col(JournalEntry.id) > (entry.id or 0), *IN_FORCE)
    ).all()
    return [other for other in later if _rows(other) & rows]


def _write_back(session: Session, entry: JournalEntry, side: str) -> None:
    """Set every row the entry changed back to its `before` (side="before") or `after`.

    A row the entry created or deleted is deleted or put back whole: put back parents first
    (in the entry's order), delete children first (in reverse order).
    """
    entry_id = entry.id  # a failed flush expires the entry: keep its number for the message
    changes = sealing.changes_of(entry)
    other = "after" if side == "before" else "before"
    # A hit, a repair or fuel lost is taken back by as much as it changed a number, as a merge
    # does it: in a campaign read from a copy's export, an entry made in another copy says the
    # numbers it recorded there (services.sync_export), not the ones it wrote here.
    relative = _root_action(session, entry).kind in RELATIVE
    for change in changes:
        model = TABLES.get(change["table"])
        row = session.get(model, change["id"]) if model else None
        if change.get("gone") == side:
            continue  # deleted below
        if change.get("gone") == other:
            if row is not None or model is None or change["id"] <= 0:
                raise InvalidInput(
                    {"journal": f"#{entry_id} cannot be reversed: a {change['table']} added "
                     "since has taken the place of the one it deleted"}
                )  # fmt: skip
            session.add(model(id=change["id"], **change[side]))
            session.flush()
            continue
        if row is None:
            raise InvalidInput(
                {"journal": f"#{entry.id} changed a {change['table']} that has since been "
                 "deleted: it cannot be reversed"}
            )  # fmt: skip
        state = row.model_dump() if relative else {}
        for key, value in (change[side] or {}).items():
            now, was = getattr(row, key), (change[other] or {}).get(key)
            if relative and counted_field((change["table"], "", key), value, was, now):
                value = by_as_much(change["table"], key, now, (was, value), state)
            setattr(row, key, value)
    for change in reversed(changes):
        if change.get("gone") == side:
            row = session.get(TABLES[change["table"]], change["id"])
            if row is not None:
                session.delete(row)
                session.flush()
    try:
        session.flush()
    except IntegrityError as exc:
        names = [c[side]["name"] for c in changes if "name" in (c[side] or {})]
        why = (
            f"the name {names[0]!r} has been taken since: rename that first"
            if names
            else "it refers to something since deleted (a squadron, say)"
        )
        raise InvalidInput({"journal": f"#{entry_id} cannot be reversed: {why}"}) from exc


def _root_action(session: Session, entry: JournalEntry) -> JournalEntry:
    """The player's own change at the bottom of a chain of undos and redos."""
    while entry.kind in (UNDO, REDO) and entry.reverts_id is not None:
        entry = get_row(session, JournalEntry, entry.reverts_id)
    return entry


def _reverse(session: Session, entry: JournalEntry, kind: JournalKind) -> HistoryResult:
    _write_back(session, entry, "before")
    # A marker put back in a square meets the rule of every placement (RULES.md §Subs ¶3).
    markers.check_put_back(
        session, [c["id"] for c in sealing.changes_of(entry) if c["table"] == "submarker"]
    )
    # An undone reveal hides the secret again, in the journal too (not to be redone).
    sealed = kind == UNDO and sealing.seal_undone_reveal(session, entry)
    flipped = {"before": "after", "after": "before"}
    inverse = tuple(
        journal.RowChange(
            change["table"], change["id"], change["after"], change["before"],
            gone=flipped.get(change.get("gone") or ""),
        )
        for change in sealing.changes_of(entry)
    )  # fmt: skip
    root = _root_action(session, entry)
    verb = "Undid" if kind == UNDO else "Redid"
    # A redo does the player's change again, and keeps what it kept: who was lost with a ship.
    lost = json.loads(root.detail).get(losses.LOST) if kind == REDO else None
    facts = {**({losses.LOST: lost} if lost else {}), **({"sealed_again": True} if sealed else {})}
    new = journal.append(
        session, campaign_id=entry.campaign_id, kind=kind, ship_id=entry.ship_id,
        side_id=entry.side_id, summary=f"{verb} #{root.id}: {root.summary}", changes=inverse,
        reverts_id=entry.id, facts=facts or None,
    )  # fmt: skip
    entry.reverted_by_id = new.id
    session.add(entry)
    ships = tuple(sorted({c["id"] for c in sealing.changes_of(entry) if c["table"] == "ship"}))
    return HistoryResult(entry_id=new.id or 0, reverted_id=entry.id or 0, summary=new.summary,
                         ship_ids=ships, sealed_again=sealed)  # fmt: skip


def undo_entry(factory: SessionFactory, *, entry_id: int) -> HistoryResult:
    """Undo one entry; refused while a later change to the same ship or rating is in force."""
    with session_scope(factory) as session:
        entry = get_row(session, JournalEntry, entry_id)
        if not entry.undoable or entry.kind == UNDO:
            raise InvalidInput({"journal": f"#{entry.id} ({entry.kind}) cannot be undone"})
        if entry.reverted_by_id is not None:
            undo = get_row(session, JournalEntry, entry.reverted_by_id)
            again = (
                f"; it was redone by #{undo.reverted_by_id}: undo that instead"
                if undo.reverted_by_id is not None
                else ""
            )
            raise InvalidInput({"journal": f"#{entry.id} was already undone by #{undo.id}{again}"})
        barrier = session.exec(
            _newest(
                entry.campaign_id,
                col(JournalEntry.id) > (entry.id or 0),
                col(JournalEntry.kind).in_(BARRIERS),
            )
        ).first()
        if barrier is not None:
            raise InvalidInput(
                {"journal": f"#{entry.id} cannot be undone: {barrier.summary} (#{barrier.id}) "
                 "came after it, and undo does not reach back past a scenario's start or close"}
            )  # fmt: skip
        dependents = _later_dependents(session, entry)
        if dependents:
            later = dependents[0]
            raise InvalidInput(
                {"journal": f"#{entry.id} cannot be undone: the later #{later.id} "
                 f"({later.summary}) depends on it; undo that first"}
            )  # fmt: skip
        result = _reverse(session, entry, UNDO)
    if result.sealed_again:  # the revealed words' old pages must not linger beside the file
        checkpoint(factory)
    return result


def _newest(campaign_id: int, *conditions: Any) -> Any:
    """The campaign's journal entries meeting the conditions, newest first."""
    return (
        select(JournalEntry)
        .where(JournalEntry.campaign_id == campaign_id, *conditions)
        .order_by(col(JournalEntry.id).desc())
    )


def undo_last(
    factory: SessionFactory, *, campaign_id: int, past_to: int | None = None
) -> HistoryResult:
    """Undo the campaign's newest change still in force (ctrl+z).

    When newer changes cannot be reversed (an addition, a deletion, a roll or a merge; or a
    change to a row since deleted), it undoes nothing and raises UndoSkipAsked, naming them and
    the change it would undo instead; it undoes that one only when called again with past_to
    set to its number, and nothing newer came since. A scenario's start or close is not passed.
    """
    with session_scope(factory) as session:
        get_row(session, Campaign, campaign_id)
        newest = session.exec(_newest(campaign_id, *STANDING).limit(SKIP_LIMIT)).all()
        entry = next((c for c in newest if c.undoable and _rows_exist(session, c)), None)
        skipped = newest[: newest.index(entry)] if entry is not None else newest
        if entry is None:
            why = [f": the newest change, #{c.id} ({c.summary}), {_why([c])}" for c in newest[:1]]
            raise InvalidInput({"journal": "nothing to undo in this campaign" + "".join(why)})
        entry_id = entry.id or 0
        barrier = any(c.kind in BARRIERS for c in skipped)  # undo_entry says why it stops there
        if skipped and past_to != entry_id and not barrier:
            names = ", ".join(f"#{c.id} ({c.summary})" for c in skipped[:3])
            more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
            raise UndoSkipAsked(
                f"{names}{more} {_why(skipped)}. "
                f"Press ctrl+z again to undo #{entry_id} ({entry.summary}) instead.",
                next_id=entry_id,
            )
    return undo_entry(factory, entry_id=entry_id)


def _why(entries: Sequence[JournalEntry]) -> str:
    """Why ctrl+z cannot reverse these entries."""
    deleted = all(entry.undoable for entry in entries)  # the others are not reversible at all
    return "cannot be undone" + (": changed something since deleted" if deleted else "")


def redo_last(factory: SessionFactory, *, campaign_id: int) -> HistoryResult:
    """Redo the newest undo, unless a new change was made since (ctrl+y)."""
    with session_scope(factory) as session:
        get_row(session, Campaign, campaign_id)
        newest_action = session.exec(
            _newest(
                campaign_id,
                col(JournalEntry.undoable).is_(True),
                col(JournalEntry.kind).not_in((UNDO, REDO)),
            )
        ).first()
        undo = session.exec(
            _newest(
                campaign_id,
                JournalEntry.kind == UNDO,
                col(JournalEntry.reverted_by_id).is_(None),
                col(JournalEntry.id) > (newest_action.id or 0 if newest_action else 0),
            )
        ).first()
        if undo is None:
            raise InvalidInput({"journal": "nothing to redo"})
        if json.loads(undo.detail).get("sealed_again"):
            raise InvalidInput({"journal": f"{undo.summary}: a reveal undone is not redone; "
                                "its owner reveals it again"})  # fmt: skip
        return _reverse(session, undo, REDO)


@dataclass(frozen=True)
class EntryView:
    """One journal line as the journal screen shows it."""

    id: int
    at: str
    scenario: str
    turn: int | None
    side: str
    ship: str
    ship_id: int | None
    kind: str
    summary: str
    undone: bool
    undoable: bool
    dice: str


@dataclass(frozen=True)
class JournalFilters:
    """The choices the journal screen offers: (label, id) pairs and the kinds present."""

    scenarios: tuple[tuple[str, int], ...]
    sides: tuple[tuple[str, int], ...]
    ships: tuple[tuple[str, int], ...]
    kinds: tuple[str, ...]


def journal_filters(factory: SessionFactory, *, campaign_id: int) -> JournalFilters:
    """Scenarios, sides, ships and kinds of a campaign's journal, for its filter pick lists."""
    with session_scope(factory) as session:
        scenarios, sides = _names(session, campaign_id)
        ships = session.exec(
            select(Ship.name, Ship.id)
            .join(Side, col(Ship.side_id) == col(Side.id))
            .where(Side.campaign_id == campaign_id)
            .order_by(col(Ship.name))
        ).all()
        return JournalFilters(
            scenarios=tuple((title, scenario_id or 0) for scenario_id, title in scenarios.items()),
            sides=tuple((name, side_id or 0) for side_id, name in sides.items()),
            ships=tuple((name, ship_id or 0) for name, ship_id in ships),
            kinds=tuple(sorted(_kinds(session, campaign_id))),
        )


def _names(session: Session, campaign_id: int) -> tuple[dict[int | None, str], ...]:
    """The campaign's scenario titles (in their order) and side names, by id."""
    scenarios = select(Scenario.id, Scenario.title).where(Scenario.campaign_id == campaign_id)
    sides = select(Side.id, Side.name).where(Side.campaign_id == campaign_id)
    return (
        dict(session.exec(scenarios.order_by(col(Scenario.position))).all()),
        dict(session.exec(sides.order_by(col(Side.id))).all()),
    )


def _kinds(session: Session, campaign_id: int) -> Sequence[str]:
    """The kinds in a campaign's journal, found by skipping from each kind to the next one on
    the (campaign_id, kind) index: a few lookups, where DISTINCT reads every entry."""
    kind = col(JournalEntry.kind)
    first = select(func.min(kind).label("kind")).where(JournalEntry.campaign_id == campaign_id)
    found = first.cte("kinds", recursive=True)
    following = (
        select(func.min(kind))
        .where(JournalEntry.campaign_id == campaign_id, kind > found.c.kind)
        .scalar_subquery()
    )
    found = found.union_all(select(following).where(found.c.kind.is_not(None)))
    return session.exec(select(found.c.kind).where(found.c.kind.is_not(None))).all()


def dice_text(detail: dict[str, Any]) -> str:
    """The dice of an entry in table words: each roll as `roll_text` writes it, each modifier,
    the total."""
    if not visibility.dice_shown(detail):
        return visibility.HIDDEN  # a secret change: its dice are sealed with it
    dice = detail.get("dice") or {}
    if "criticals" in dice:
        return ", ".join(f"{d['kind']} critical {roll_text(d['roll'])}" for d in dice["criticals"])
    if "d6" in dice:  # mine rolls, air drops, drifts, searches
        text = roll_text(dice["d6"]) if dice["d6"] is not None else ""
        if "drm" in dice:
            text += f" {dice['drm']:+d} = {dice['modified']}"
        if "target" in dice:
            text += f" vs {dice['target']}+"
        return text
    roll = dice.get("d10")
    if roll is None:
        return ""
    if "total" in dice:  # a command or crew test
        fire, extra = bool(dice.get("under_fire")), dice.get("extra") or 0
        return smr.test_words(roll, dice["modifier"], dice["total"], under_fire=fire, extra=extra)
    if dice.get("commander_modifier") is not None:  # the optional crew rule
        return f"{roll_text(roll)} {dice['commander_modifier']:+d} = {dice['modified']}"
    return roll_text(roll)


def list_entries(
    factory: SessionFactory,
    *,
    campaign_id: int,
    scenario_id: int | None = None,
    side_id: int | None = None,
    ship_id: int | None = None,
    kind: str | None = None,
    search: str = "",
    limit: int = 500,
) -> list[EntryView]:
    """A campaign's journal, newest first, filtered; at most `limit` lines (newest kept)."""
    if beyond_ids(campaign_id, scenario_id, side_id, ship_id) or bad_character(
        f"{kind or ''}{search}"
    ):
        return []  # no entry names such a row or holds such a character
    with session_scope(factory) as session:
        query = select(JournalEntry).where(JournalEntry.campaign_id == campaign_id)
        if scenario_id is not None:
            query = query.where(JournalEntry.scenario_id == scenario_id)
        if side_id is not None:
            query = query.where(JournalEntry.side_id == side_id)
        if ship_id is not None:
            query = query.where(JournalEntry.ship_id == ship_id)
        if kind:
            query = query.where(JournalEntry.kind == kind)
        if search.strip():
            # Literal, any case: % and _ in the text match themselves, not any characters.
            query = query.where(
                col(JournalEntry.summary).icontains(search.strip(), autoescape=True)
            )
        entries = session.exec(query.order_by(col(JournalEntry.id).desc()).limit(limit)).all()
        scenario_names, side_names = _names(session, campaign_id)
        ship_ids = {entry.ship_id for entry in entries if entry.ship_id is not None}
        ship_names = (
            {s.id: s.name for s in session.exec(select(Ship).where(col(Ship.id).in_(ship_ids)))}
            if ship_ids
            else {}
        )
        # An entry is undone while its undo stands; once that undo is itself redone, it is not.
        undo_ids = [entry.reverted_by_id for entry in entries if entry.reverted_by_id]
        redone = {
            undo.id
            for undo in session.exec(
                select(JournalEntry).where(col(JournalEntry.id).in_(undo_ids))
            )
            if undo.reverted_by_id is not None
        } if undo_ids else set()  # fmt: skip
        views = []
        for entry in entries:
            detail = json.loads(entry.detail)
            views.append(
                EntryView(
                    id=entry.id or 0,
                    at=entry.at.strftime("%Y-%m-%d %H:%M"),
                    scenario=scenario_names.get(entry.scenario_id, ""),
                    turn=entry.turn,
                    side=side_names.get(entry.side_id, ""),
                    ship=ship_names.get(entry.ship_id, ""),
                    ship_id=entry.ship_id,
                    kind=entry.kind,
                    summary=entry.summary + sync_decide.merge_note(detail),
                    undone=entry.reverted_by_id is not None and entry.reverted_by_id not in redone,
                    undoable=entry.undoable and entry.kind != UNDO,
                    dice=dice_text(detail),
                )
            )
        return views


def change_mark(factory: SessionFactory) -> tuple[int, int, int]:
    """A mark that moves whenever any program changes the database: the newest journal entry,
    and the number and newest id of the campaigns (which have no journal of their own).

    Screens compare it every few seconds to pick up other players' changes by themselves: a
    read, which neither waits for a change in progress nor holds one up.
    """
    with read_scope(factory) as session:
        newest = session.exec(select(func.max(JournalEntry.id))).one()
        campaigns = select(func.count(col(Campaign.id)), func.max(Campaign.id))
        count, last = session.exec(campaigns).one()
        return (newest or 0, count or 0, last or 0)
