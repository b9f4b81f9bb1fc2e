"""Who last wrote each value, by the journal: how a merge tells a change made after what this
copy holds from one made apart from it (docs/FILES.md "Copies that play apart").

Each value of a row (table, row identity, field) has its writers: the entry that last wrote it,
or, after two copies wrote the same value apart, both. A packet's change of a value carries the
writers its copy knew (`prev`). Merged, a change whose `prev` holds every writer known here was
made after them: it is written. Any other was made apart from one of them: the same value
written joins the writers (`joined`, kept in the entry here), a number of a hit adds up, and a
different value is a conflict.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tracker.services.documents import every_change
from tracker.services.sync_ids import Identities

Key = tuple[str, str, str]  # table, row identity, field


def key_text(key: Key) -> str:
    return "|".join(key)


def fields(change: dict[str, Any], row: str | None) -> list[Key]:
    """The values a change writes (a deletion writes none)."""
    if row is None or change.get("gone") == "after":
        return []
    return [(change["table"], row, field) for field in change["after"]]


class Writers:
    """Every value's writers, as a copy's journal gives them."""

    def __init__(self) -> None:
        self.of: dict[Key, set[str]] = {}

    def known(self, key: Key) -> set[str]:
        return self.of.get(key, set())

    def wrote(self, uid: str, keys: Iterable[Key], joined: Iterable[str] = ()) -> None:
        """An entry wrote these values: alone, or beside the writers before (`joined`)."""
        beside = set(joined)
        for key in keys:
            if key_text(key) in beside:
                self.of.setdefault(key, set()).add(uid)
            else:
                self.of[key] = {uid}

    def walk(
        self, entries: Iterable[tuple[str, dict[str, Any]]], ids: Identities
    ) -> dict[str, dict[int, dict[str, list[str]]]]:
        """Follow a journal (each entry's identity and detail, oldest first): an entry held or
        decided wrote nothing. What each entry's changes found, by entry and change number
        (its `prev`)."""
        found: dict[str, dict[int, dict[str, list[str]]]] = {}
        for uid, detail in entries:
            changes = every_change(detail)
            rows = [ids.of.get((change["table"], change["id"])) for change in changes]
            found[uid] = {
                number: {key[2]: sorted(self.known(key)) for key in fields(change, row)}
                for number, (change, row) in enumerate(zip(changes, rows, strict=True))
            }
            if "held" in detail or "decided" in detail:
                continue
            self.wrote(uid, [k for c, r in zip(changes, rows, strict=True) for k in fields(c, r)],
                       detail.get("joined", ()))  # fmt: skip
        return found
