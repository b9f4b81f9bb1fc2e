"""Every row an act writes, kept with its journal entry: what a copy of the campaign needs to
make the same change (docs/FILES.md "What a journal entry keeps of the rows it wrote").

An act names the rows undo takes back (journal.RowChange, `changes`); what else it wrote (a
scenario's snapshots when it begins, a squadron added, a commander lost with his ship) is found
here, at each flush of the act's session, and kept in the entry's `rows`: `changes` and `rows`
together are every row the act added, changed or deleted. A table of the library (ship classes,
unit cards) belongs to no campaign and is not kept, nor the journal itself.
"""

from __future__ import annotations

import inspect as frames
import json
import logging
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from sqlalchemy import event, inspect, text
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, SQLModel

from tracker.models import JournalEntry, ShipClass, UnitCard
from tracker.services import visibility

log = logging.getLogger(__name__)
_UNKEPT = (JournalEntry, ShipClass, UnitCard)
_KEY = "tracker.rows"  # in session.info: the changes flushed since the last entry took them
_OWN = ("id", "version")  # the row's number and its version are this file's own


def plain(value: Any) -> Any:
    """A column's value as the JSON of an entry keeps it."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def _state(row: SQLModel) -> dict[str, Any]:
    mapper = inspect(row).mapper
    return {
        column.key: plain(getattr(row, column.key))
        for column in mapper.column_attrs
        if column.key not in _OWN
    }


def _edited(row: SQLModel) -> tuple[dict[str, Any], dict[str, Any]]:
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    attrs = inspect(row).attrs
    for column in inspect(row).mapper.column_attrs:
        if column.key in _OWN:
            continue
        history = attrs[column.key].history
        if not history.added or (history.deleted and history.deleted[0] == history.added[0]):
            continue
        before[column.key] = plain(history.deleted[0]) if history.deleted else None
        after[column.key] = plain(history.added[0])
    return before, after


def _flushed(session: OrmSession, _context: Any) -> None:
    kept: list[dict[str, Any]] = session.info.setdefault(_KEY, [])
    for row in _rows(session.new):
        kept.append({"table": _table(row), "id": row.id, "before": {}, "after": _state(row),
                     "gone": "before"})  # fmt: skip
    for row in _rows(session.dirty):
        before, after = _edited(row)
        if after:
            kept.append({"table": _table(row), "id": row.id, "before": before, "after": after})
    for row in _rows(session.deleted):
        kept.append({"table": _table(row), "id": row.id, "before": _state(row), "after": {},
                     "gone": "after"})  # fmt: skip


def _rows(rows: Iterable[Any]) -> list[Any]:
    return [row for row in rows if isinstance(row, SQLModel) and not isinstance(row, _UNKEPT)]


def _table(row: SQLModel) -> str:
    return str(row.__tablename__)


event.listen(OrmSession, "after_flush", _flushed)


def added(session: Session, table: str, ids: list[int], states: list[dict[str, Any]]) -> None:
    """Rows an act wrote by a core INSERT of many (no flush sees them): kept as a flush's."""
    kept: list[dict[str, Any]] = session.info.setdefault(_KEY, [])
    for row_id, state in zip(ids, states, strict=True):
        after = {key: plain(value) for key, value in state.items() if key not in _OWN}
        kept.append({"table": table, "id": row_id, "before": {}, "after": after, "gone": "before"})


def _unsaid(change: dict[str, Any]) -> dict[str, Any] | None:
    """A change without the values of a secret's columns (visibility.PUBLIC: the others are
    for its side alone), or None when it changed nothing else: the journal keeps no copy of a
    secret, nor a sign that it changed; its row alone holds it (sealed under the side's
    passphrase when it has one)."""
    public = visibility.PUBLIC.get(change["table"])
    if public is None:
        return change
    before, after = (
        {key: value for key, value in change[side].items() if key in public}
        for side in ("before", "after")
    )
    if not (before or after):
        return None
    return {**change, "before": before, "after": after}


def taken(session: Session, named: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes flushed since the last entry, for the entry made now: a row's fields its
    named `changes` already give are left out of them (each change once). A copy writes an
    entry's `rows` first, then its `changes`: a critical is made (here) before its status is
    set (in `changes`, which undo reads)."""
    session.flush()
    kept = session.info.pop(_KEY, [])
    said: dict[tuple[str, int], set[str]] = {}
    whole: set[tuple[str, int]] = set()
    for change in named:
        key = (change["table"], change["id"])
        said.setdefault(key, set()).update(change["after"] or change["before"])
        if change.get("gone"):
            whole.add(key)
    rows = []
    for change in filter(None, map(_unsaid, kept)):
        key = (change["table"], change["id"])
        fields = said.get(key)
        if change.get("gone"):
            if key not in whole:
                rows.append(change)  # a row made or deleted, which `changes` only edits
        elif fields is None:
            rows.append(change)
        elif left := {k: value for k, value in change["after"].items() if k not in fields}:
            rows.append({**change, "before": {k: change["before"].get(k) for k in left},
                         "after": left})  # fmt: skip
    return rows


def unkept(session: Session) -> None:
    """The act's rows go with no entry: a whole campaign deleted, its journal with it."""
    session.flush()
    session.info.pop(_KEY, None)


def entry_written(session: Session, entry_id: int) -> None:
    """The act's newest entry, which changes flushed after it join at the commit."""
    session.info[_ENTRY] = entry_id


def _committing(session: OrmSession) -> None:
    """Changes flushed after the act's last entry join it; an act that wrote no entry is said
    in the log (its change reaches no other copy)."""
    session.flush()
    kept = session.info.pop(_KEY, [])
    if not kept:
        return
    entry_id = session.info.get(_ENTRY)
    if entry_id is None:
        if _by_a_service():
            UNJOURNALED.append(kept)
        log.warning("rows written with no journal entry: %s", sorted({c["table"] for c in kept}))
        return
    conn = session.connection()
    detail = json.loads(conn.execute(_DETAIL, {"id": entry_id}).scalar_one())
    detail["rows"] = [*(detail.get("rows") or []), *kept]
    conn.execute(_WRITE, {"id": entry_id, "detail": json.dumps(detail, sort_keys=True)})


def _by_a_service() -> bool:
    """Whether a service made the commit (not a test setting rows up by hand)."""
    frame = frames.currentframe()
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.startswith("tracker.services.") and name != __name__:
            return True
        frame = frame.f_back
    return False


_ENTRY = "tracker.entry"
_DETAIL = text("SELECT detail FROM journalentry WHERE id = :id")
_WRITE = text("UPDATE journalentry SET detail = :detail WHERE id = :id")
# Writes no entry took, kept for the tests that hold every act to its entry (tests/conftest.py).
UNJOURNALED: list[list[dict[str, Any]]] = []
event.listen(OrmSession, "before_commit", _committing)
