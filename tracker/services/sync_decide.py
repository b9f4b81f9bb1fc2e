"""A conflict of two copies decided by the player: this copy's value kept, or the other's taken
(docs/FILES.md "Copies that play apart").

The decision is an entry of its own, which names the entries it decides (`decides`): the one
held here and the one of this copy that changed the same values. A copy that merges it writes
its values whatever it held (the decision is the last word on them), and both copies mark both
entries decided by it: neither is held any more, and neither is undone (a new edit changes a
decided value).
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
from tracker.services.sync_ids import Identities, mapped

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
            raise InvalidInput({"entry": f"#{entry_id} is no merged entry held for a decision"})
        conn = session.connection()
        ids = Identities()
        ids.read(conn)
        changes, said = [], []
        for conflict in held["conflicts"]:
            number = ids.number.get((conflict["table"], conflict["row"]))
            if number is None:
                raise InvalidInput({"entry": f"#{entry_id}: its {conflict['table']} is deleted"})
            ours, theirs = conflict["ours"], conflict["theirs"]
            chosen, other = (ours, theirs) if keep == "ours" else (theirs, ours)
            table, field = conflict["table"], conflict["field"]

            def here(value: Any, table: str = table, field: str = field) -> dict[str, Any]:
                return mapped(table, {field: value}, lambda t, v: ids.number.get((t, v)))

            changes.append(journal.RowChange(table, number, here(other), here(chosen)))
            said.append(f"{conflict['name']} {field} {chosen!r}")
        for change in changes:
            table = TABLES_BY_NAME[change.table]
            values = dict(change.after)
            if "version" in table.c:
                values["version"] = table.c.version + 1
            conn.execute(update(table).where(table.c.id == change.row_id).values(**values))
        # This copy's side of the conflict: the entries that wrote its values here.
        ours_entries = sorted({uid for c in held["conflicts"] for uid in c["writers"]})
        whose = "this copy's" if keep == "ours" else "the other copy's"
        summary = f"Decided {entry.summary[:200]}: {', '.join(said)} ({whose})"
        decision = journal.append(session, campaign_id=entry.campaign_id, kind=JournalKind.SYNC,
                                  summary=summary, changes=tuple(changes), undoable=False,
                                  facts={"decides": [entry.uid, *ours_entries]})  # fmt: skip
        mark_decided(conn, [entry.uid, *ours_entries], decision.uid)
        return summary


def mark_decided(conn: Connection, uids: Iterable[str], decision: str) -> None:
    """The entries a decision decides: held no more, decided by it, undone no more."""
    for uid, detail in conn.execute(
        select(_JOURNAL.c.uid, _JOURNAL.c.detail).where(_JOURNAL.c.uid.in_(list(uids)))
    ).all():  # fmt: skip
        data = json.loads(detail)
        data.pop("held", None)
        data["decided"] = decision
        conn.execute(update(_JOURNAL).where(_JOURNAL.c.uid == uid).values(
            detail=json.dumps(data, sort_keys=True), undoable=False))  # fmt: skip


def outdecided_here(conn: Connection, decision: dict[str, Any]) -> bool:
    """Whether a decision of a packet decides entries that a decision of a greater identity
    decided here already (two players decided the one conflict apart)."""
    rows = conn.execute(
        select(_JOURNAL.c.detail).where(_JOURNAL.c.uid.in_(decision["detail"]["decides"]))
    ).scalars()
    return any(json.loads(detail).get("decided", "") > decision["uid"] for detail in rows)


def merge_note(detail: dict[str, Any]) -> str:
    """What the journal adds to a merged entry's line: held (why, and how to decide it), or
    decided; nothing for any other entry."""
    if "held" in detail:
        return f" · held, not written: {detail['held']['why']} (k decides it)"
    return " · a conflict, decided" if "decided" in detail else ""


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
        raise InvalidInput({"entry": f"#{entry_id} is no merged entry held for a decision"})
    return [f"#{entry_id} {entry.summary}: {held['why']}", *conflict_lines(held)]
