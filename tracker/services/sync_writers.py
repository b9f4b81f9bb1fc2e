"""Who wrote each value last, by the journal: how a merge tells a change made after what this
copy holds from one made apart from it (docs/FILES.md "Copies that play apart").

Each value of a row (table, row identity, field) has its last writers: the entries that wrote
it and that no entry known here wrote after. A change made in a copy was made after every
writer that copy knew (`prev`, which a packet carries and a merged entry keeps). Merged, a
change takes the place of the writers in its `prev` and stands beside any other: the writers
of a value are the same in two copies that hold the same entries, whatever the order they
merged them in, and so is what they settle the value to (`settle`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from tracker.models import JournalEntry
from tracker.models.kinds import JournalKind
from tracker.rules.checks import is_int
from tracker.services.document_checks import BOUNDS
from tracker.services.documents import every_change, recorded
from tracker.services.sync_ids import REFS, Identities, held_whole, mapped

Key = tuple[str, str, str]  # table, row identity, field
# What each change of each entry came after: by entry, change number and field, the writers.
Prevs = dict[str, dict[int, dict[str, list[str]]]]

# What a hit, a repair, fuel or fire did to a number is done again to the number there: such
# entries, and the undo or redo of one, change numbers by as much in every copy.
RELATIVE = frozenset({JournalKind.DAMAGE, JournalKind.REPAIR, JournalKind.FUEL,
                      JournalKind.FIRE, JournalKind.MINE, JournalKind.REDUCTION})  # fmt: skip
_AGAIN = frozenset({JournalKind.UNDO, JournalKind.REDO})
_UNSETTLED = object()
_JOURNAL = JournalEntry.__table__  # type: ignore[attr-defined]


def fields(change: dict[str, Any], row: str | None) -> list[Key]:
    """The values a change writes (a deletion writes none)."""
    if row is None or change.get("gone") == "after":
        return []
    return [(change["table"], row, field) for field in change["after"]]


def _same(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class Writers:
    """Every value's last writers, with what each wrote, as a copy's journal gives them."""

    def __init__(self) -> None:
        self.of: dict[Key, set[str]] = {}
        self.value: dict[tuple[str, Key], Any] = {}
        self.relative: dict[str, bool] = {}  # by entry: does it change numbers by as much
        self.counted: set[tuple[str, Key]] = set()  # the numbers changed by as much
        self.decisions: set[str] = set()

    def known(self, key: Key) -> set[str]:
        return self.of.get(key, set())

    def is_relative(self, kind: str, reverts: str | None) -> bool:
        if kind in _AGAIN:
            return reverts is not None and self.relative.get(reverts, False)
        return kind in RELATIVE

    def settle(self, key: Key, uid: str, value: Any, prev: set[str] | None, decision: bool) -> Any:
        """What the value is once this entry's change of it stands beside its other last
        writers (`is_unsettled` of it: left for the player to decide)."""
        others = self.known(key) - (prev if prev is not None else self.known(key))
        values = {other: self.value.get((other, key)) for other in others} | {uid: value}
        deciding = self.decisions & others | ({uid} if decision else set())
        return _resolved(values, {u for u in others if (u, key) in self.counted}, deciding)

    def wrote(
        self,
        uid: str,
        key: Key,
        value: Any,
        prev: set[str] | None,
        *,
        decision: bool = False,
        counted: bool = False,
    ) -> None:
        """An entry wrote this value, after the writers in `prev` (None: after every writer):
        a decision's, or a number changed by as much (`counted`)."""
        self.of[key] = (self.known(key) - prev if prev is not None else set()) | {uid}
        self.value[(uid, key)] = value
        if decision:
            self.decisions.add(uid)
        if counted:
            self.counted.add((uid, key))

    def walk(
        self,
        entries: Iterable[tuple[str, str, str | None, dict[str, Any]]],
        ids: Identities,
        known: Prevs | None = None,
    ) -> Prevs:
        """Follow a journal (each entry's identity, kind, the identity of the entry it reverts,
        and detail, oldest first). What each entry's changes came after (its `prev`), by entry
        and change number: a merged entry's as it keeps them, any other's every writer known.
        `known` takes every writer known at each change, kept or not."""
        found: Prevs = {}
        for uid, kind, reverts, detail in entries:
            self.relative[uid] = self.is_relative(kind, reverts)
            changes = [recorded(change) for change in every_change(detail)]
            found[uid] = {}
            whole = held_whole(detail)
            for number, change in enumerate(changes):
                row = ids.of.get((change["table"], change["id"]))
                # A value its `prev` leaves out came after no writer, as the merge wrote it.
                kept = change.get("prev")
                found[uid][number] = prevs = {
                    key[2]: sorted(self.known(key) if kept is None else kept.get(key[2], ()))
                    for key in fields(change, row)
                }
                if known is not None:
                    known.setdefault(uid, {})[number] = {
                        key[2]: sorted(self.known(key)) for key in fields(change, row)
                    }
                if whole:
                    continue  # held whole (a row it names is gone): it wrote nothing
                after = mapped(change["table"], change["after"],
                               lambda table, number: ids.of.get((table, number)))  # fmt: skip
                for key in fields(change, row):
                    prev = set(prevs[key[2]]) if kept is not None else None
                    counted = self.relative[uid] and counted_field(
                        key, change["before"].get(key[2]), after[key[2]]
                    )
                    self.wrote(uid, key, after[key[2]], prev, decision="decides" in detail,
                               counted=counted)  # fmt: skip
        return found

    def unsettled(self, key: Key) -> bool:
        """Whether the value's last writers leave it for the player to decide."""
        writers = self.known(key)
        values = {uid: self.value.get((uid, key)) for uid in writers}
        relative = {uid for uid in writers if (uid, key) in self.counted}
        return relative != writers and is_unsettled(
            _resolved(values, relative, self.decisions & writers)
        )


def _resolved(values: dict[str, Any], relative: set[str], decisions: set[str]) -> Any:
    """What last writers settle a value to: the one value they all wrote; of decisions made
    apart, the one of the greatest identity; else unsettled. A number changed apart by as
    much (a hit) beside a value written leaves it unsettled: which value stands is open."""
    if relative and len(values) > 1:
        return _UNSETTLED
    if len({_same(one) for one in values.values()}) == 1:
        return next(iter(values.values()))
    if set(values) <= decisions:
        return values[max(values)]
    return _UNSETTLED


def by_as_much(
    table: str, field: str, now: Any, change: tuple[Any, Any], row: Mapping[str, Any]
) -> int:
    """A number changed by as much as a change (before, after) did elsewhere, within the bounds
    its model declares and its track's maximum (the row's `structure_max` for `structure_now`)."""
    low, high = BOUNDS.get(table, {}).get(field, (None, None))
    most = row.get(field.removesuffix("_now") + "_max") if field.endswith("_now") else None
    value: int = now + change[1] - change[0]  # numbers all (counted_field)
    for bound in (high, most):
        value = value if bound is None else min(value, bound)
    return value if low is None else max(value, low)


def counted_field(key: Key, *values: Any) -> bool:
    """Whether a relative change changes this value by as much: numbers (not flags, not text),
    and not a reference to a row."""
    return all(is_int(value) for value in values) and key[2] not in REFS.get(key[0], {})


def is_unsettled(value: Any) -> bool:
    return value is _UNSETTLED


def journal_writers(conn: Connection, campaign_id: int, ids: Identities) -> Writers:
    """Every value's last writers as this copy's journal gives them (its rows deleted since
    known by their entries)."""
    rows = conn.execute(
        select(_JOURNAL.c.id, _JOURNAL.c.uid, _JOURNAL.c.kind, _JOURNAL.c.reverts_id,
               _JOURNAL.c.detail)
        .where(_JOURNAL.c.campaign_id == campaign_id).order_by(_JOURNAL.c.id)
    ).mappings().all()  # fmt: skip
    details = [json.loads(row["detail"]) for row in rows]
    ids.walk(details)
    for row in rows:
        ids.add("journalentry", row["id"], row["uid"])
    writers = Writers()
    writers.walk(journal_rows(rows, details, ids), ids)
    return writers


def journal_rows(
    rows: Iterable[Any], details: Iterable[dict[str, Any]], ids: Identities
) -> Iterable[tuple[str, str, str | None, dict[str, Any]]]:
    """Journal rows as `Writers.walk` follows them: the entry reverted named by its identity."""
    for row, detail in zip(rows, details, strict=True):
        yield row["uid"], row["kind"], ids.of.get(("journalentry", row["reverts_id"])), detail
