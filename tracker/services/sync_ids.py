"""A row's number in this file and its identity in every copy of its campaign, both ways.

A packet (services.sync_pack) names every row by its identity: its `uid` (models.identity), or,
for a row that is only a link between others (a ship taking part in a scenario, her snapshot at
its start), the identities of what it links and the values that make it one of a kind (its
unique key). A row deleted since keeps the identity its journal entry's state gives it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from tracker.models.kinds import JournalKind
from tracker.services.document_checks import PLAN, TABLES_BY_NAME
from tracker.services.documents import every_change

# A row with no uid of its own is known by these columns (its table's unique key, or, for a
# rule table's line, what makes it one): the rows they name by their identity, the others as is.
LINKS: dict[str, tuple[str, ...]] = {
    "participation": ("scenario_id", "ship_id"),
    "scenarioside": ("scenario_id", "side_id"),
    "shipsnapshot": ("scenario_id", "ship_id", "phase"),
    "minecheckship": ("check_id", "ship_id"),
    "seaboundary": ("campaign_id", "area_a", "area_b"),
    "criticaltablerow": ("campaign_id", "kind", "low", "high"),
    "minetablerow": ("campaign_id", "low", "high", "applies_to"),
    "sidesecret": ("side_id",),
}
# Travels in no packet as a row: the journal itself, and the library shared by a file's campaigns.
UNSHARED = frozenset({"journalentry", "shipclass", "unitcard"})
REFS = PLAN.refs_of


class Identities:
    """Rows of a campaign file by number and by identity."""

    def __init__(self) -> None:
        self.of: dict[tuple[str, int], str] = {}  # (table, number) -> identity
        self.number: dict[tuple[str, str], int] = {}  # (table, identity) -> number
        self._added: list[tuple[str, int, str]] = []

    def add(self, table: str, number: int, identity: str) -> None:
        self.of[(table, number)] = identity
        self.number[(table, identity)] = number
        self._added.append((table, number, identity))

    def count(self) -> int:
        return len(self._added)

    def forget(self, count: int) -> None:
        """Forget the rows added since `count` were known (their writing was taken back)."""
        while len(self._added) > count:
            table, number, identity = self._added.pop()
            self.of.pop((table, number), None)
            self.number.pop((table, identity), None)

    def identity(self, table: str, state: Mapping[str, Any]) -> str | None:
        """The identity a row's full state gives it (None: a row it links is unknown)."""
        if "uid" in state:
            return str(state["uid"])
        parts = []
        for column in LINKS[table]:
            value = state.get(column)
            target = REFS.get(table, {}).get(column)
            if target is not None and value is not None:
                value = self.of.get((target, value))
                if value is None:
                    return None
            parts.append(f"{column}={value}")
        return ";".join(parts)

    def read(self, conn: Connection) -> None:
        """Every row of the file that a packet may name (parents first, so a link's parts are
        known before the link)."""
        for plan in PLAN.tables:
            if plan.name in UNSHARED:
                continue
            table = TABLES_BY_NAME[plan.name]
            if "uid" in table.c:
                for number, uid in conn.execute(select(table.c.id, table.c.uid)):
                    self.add(plan.name, number, uid)
            elif plan.name in LINKS:
                columns = [table.c.id, *(table.c[name] for name in LINKS[plan.name])]
                for row in conn.execute(select(*columns)).mappings():
                    identity = self.identity(plan.name, dict(row))
                    if identity is not None:
                        self.add(plan.name, row["id"], identity)

    def walk(self, details: Iterable[dict[str, Any]]) -> None:
        """Rows the journal made or deleted, by the identity their state gave them then (a
        row deleted since is known by its entry alone). An entry merged and held whole wrote
        none of its rows here."""
        for detail in details:
            if held_whole(detail):
                continue
            for change in every_change(detail):
                table = change["table"]
                if change.get("gone") and table not in UNSHARED and (
                    table in LINKS or "uid" in (change["after"] or change["before"])
                ):  # fmt: skip
                    state = change["after"] or change["before"]
                    identity = self.identity(table, state)
                    if identity is not None and (table, change["id"]) not in self.of:
                        self.add(table, change["id"], identity)


def merge_record(kind: str, detail: dict[str, Any]) -> bool:
    """A copy's line that it merged a packet, and what the other copy had: its own, in no packet
    and no export."""
    return kind == JournalKind.SYNC and "have" in detail


def held_whole(detail: dict[str, Any]) -> bool:
    """An entry merged and held with nothing of it written (a row it names missing here): it
    made no row and wrote no value here, and a later packet that holds it tries it again."""
    return "held" in detail and not detail["held"]["conflicts"]


def mapped(
    table: str, state: Mapping[str, Any], convert: Any, *, refs: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A row's state with every column that names a row given through `convert(target, value)`
    (a number to an identity, or back)."""
    refs = REFS.get(table, {}) if refs is None else refs
    return {
        key: convert(refs[key], value) if key in refs and value is not None else value
        for key, value in state.items()
    }
