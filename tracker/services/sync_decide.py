"""A conflict of two copies decided by the player: this copy's value kept, or the other's taken
(docs/FILES.md "Copies that play apart").

The decision is an entry of its own, written after every writer of the values it decides: in
the other copy it takes their place as any later change does. Two decisions of one value made
apart settle to the one of the greater identity in both copies. The entries a decision was
made after, on the values it decides, are marked decided by it, in every copy: held no more,
and undone no more (a new edit changes a decided value). A held entry whose values a change
made after it settled is held no more.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from tracker.db import SessionFactory, read_scope, session_scope
from tracker.models import JournalEntry
from tracker.models.kinds import JournalKind
from tracker.services import journal
from tracker.services.common import get_row
from tracker.services.document_checks import TABLES_BY_NAME
from tracker.services.errors import InvalidInput
from tracker.services.rowlog import plain
from tracker.services.sync_ids import Identities, mapped
from tracker.services.sync_writers import Writers, journal_writers

CHOICES = ("ours", "theirs")
_JOURNAL = JournalEntry.__table__  # type: ignore[attr-defined]


def decide(factory: SessionFactory, *, entry_id: int, keep: str) -> str:
    """Decide a held entry's conflicts: `keep` "ours" (this copy's values stay) or "theirs"
    (the other copy's are written). What was decided, in a sentence."""
    if keep not in CHOICES:
        raise InvalidInput({"keep": "must be 'ours' (this copy's values) or 'theirs'"})
    with session_scope(factory) as session:
        entry = get_row(session, JournalEntry, entry_id)
        held = json.loads(entry.detail).get("held")
        if not held or not held["conflicts"]:
            raise InvalidInput({"entry": "this entry is not held for a decision"})
        conn = session.connection()
        ids = Identities()
        writers = journal_writers(conn, entry.campaign_id, ids)
        changes, said, keys = [], [], []
        for conflict in held["conflicts"]:
            key = (conflict["table"], conflict["row"], conflict["field"])
            number = ids.number.get(key[:2])
            if number is None:
                raise InvalidInput({"entry": f"its {conflict['table']} is deleted in this copy"})
            if not writers.unsettled(key):
                continue  # settled since the merge
            table, field = TABLES_BY_NAME[key[0]], key[2]
            now = conn.execute(select(table.c[field]).where(table.c.id == number)).scalar()
            ours = mapped(key[0], {field: plain(now)}, lambda t, v: ids.of.get((t, v)))[field]
            chosen = ours if keep == "ours" else conflict["theirs"]

            def here(value: Any, table: str = key[0], field: str = field) -> dict[str, Any]:
                return mapped(table, {field: value}, lambda t, v: ids.number.get((t, v)))

            changes.append(journal.RowChange(key[0], number, here(ours), here(chosen)))
            said.append(f"{conflict['name']} {field} {chosen!r}")
            keys.append((key, chosen))
        for change in changes:
            table = TABLES_BY_NAME[change.table]
            values = dict(change.after)
            if "version" in table.c:
                values["version"] = table.c.version + 1
            conn.execute(update(table).where(table.c.id == change.row_id).values(**values))
        whose = "this copy's" if keep == "ours" else "the other copy's"
        summary = f"#{entry_id} was settled since it was merged: nothing to decide"
        if changes:
            summary = f"Decided {entry.summary[:200]}: {', '.join(said)} ({whose})"
            decision = journal.append(session, campaign_id=entry.campaign_id,
                                      kind=JournalKind.SYNC, summary=summary,
                                      changes=tuple(changes), undoable=False,
                                      facts={"decides": [entry.uid]})  # fmt: skip
            # The entries it decides: both copies' writers of the values (undone no more).
            mark_decided(conn, {uid for key, _ in keys for uid in writers.known(key)},
                         decision.uid)  # fmt: skip
            for key, chosen in keys:
                writers.wrote(decision.uid, key, chosen, None, decision=True)
        settle_held(conn, entry.campaign_id, writers)
        return summary


def settle_held(conn: Connection, campaign_id: int, writers: Writers) -> None:
    """The campaign's held entries whose values are all settled now (by a change made after
    them: a decision marks those it decides), held no more, and undone as they were recorded."""
    rows = conn.execute(
        select(_JOURNAL.c.uid, _JOURNAL.c.detail).where(
            _JOURNAL.c.campaign_id == campaign_id, _JOURNAL.c.detail.like('%"held"%'))
    ).all()  # fmt: skip
    for uid, detail in rows:
        held = json.loads(detail).get("held")
        if not held or not held["conflicts"]:
            continue
        keys = [(c["table"], c["row"], c["field"]) for c in held["conflicts"]]
        if not any(writers.unsettled(key) for key in keys):
            data = json.loads(detail)
            undoable = data.pop("held").get("undoable", False)
            conn.execute(update(_JOURNAL).where(_JOURNAL.c.uid == uid).values(
                detail=json.dumps(data, sort_keys=True), undoable=undoable))  # fmt: skip


def mark_decided(conn: Connection, uids: Iterable[str], decision: str) -> None:
    """The entries a decision decides: held no more, decided by it, undone no more. Decided by
    decisions made apart, an entry names the one of the greatest identity, in every copy."""
    for uid, detail in conn.execute(
        select(_JOURNAL.c.uid, _JOURNAL.c.detail).where(_JOURNAL.c.uid.in_(list(uids)))
    ).all():  # fmt: skip
        data = json.loads(detail)
        data.pop("held", None)
        data["decided"] = max(decision, data.get("decided", ""))
        conn.execute(update(_JOURNAL).where(_JOURNAL.c.uid == uid).values(
            detail=json.dumps(data, sort_keys=True), undoable=False))  # fmt: skip


def recorded_in(detail: dict[str, Any]) -> str:
    """Which copy recorded a merged entry, as its lines say it (nothing for one of this copy)."""
    return f" · recorded in {detail['copy']}" if "copy" in detail else ""


def merge_note(detail: dict[str, Any]) -> str:
    """What the journal adds to a merged entry's line: the copy that recorded it, and held (why,
    and how to decide it) or decided; nothing for an entry recorded here."""
    said = recorded_in(detail)
    if "held" in detail:
        return f"{said} · held, not written: {detail['held']['why']} (k decides it)"
    return said + (" · a conflict, decided" if "decided" in detail else "")


def conflict_lines(held: dict[str, Any]) -> list[str]:
    """A held entry's conflicts, a line each: the value before, this copy's, the other's."""
    return [f"  {c['name']} {c['field']}: was {c['was']!r}, this copy {c['ours']!r}, "
            f"the other {c['theirs']!r}" for c in held["conflicts"]]  # fmt: skip


def conflicts(factory: SessionFactory, *, entry_id: int) -> list[str]:
    """What a held entry's decision decides (InvalidInput for an entry not held)."""
    with read_scope(factory) as session:
        entry = get_row(session, JournalEntry, entry_id)
    held = json.loads(entry.detail).get("held")
    if not held or not held["conflicts"]:
        raise InvalidInput({"entry": "this entry is not held for a decision"})
    return [f"#{entry_id} {entry.summary}: {held['why']}", *conflict_lines(held)]
