"""What a packet must look like before a merge reads it: every part of the form tracker writes
(services.sync_pack), each row of a table this tracker has, each value of a column it has.

A packet's hashes show it was not changed by accident or by a careless hand; they are no
signature, and a packet made by hand can carry its own. So its form is checked whole, and a
value no column takes is refused by the database inside the merge's transaction
(services.sync_merge): either way a sentence, and nothing written.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tracker.models.kinds import JournalKind
from tracker.rules.checks import is_int
from tracker.services.document_checks import TABLES_BY_NAME
from tracker.services.document_shapes import JSON_SHAPES
from tracker.services.sync_ids import UNSHARED

_KINDS = frozenset(kind.value for kind in JournalKind)
_REFS = ("scenario", "side", "ship", "reverts")


def _text(value: Any, most: int = 400) -> bool:
    return isinstance(value, str) and len(value) <= most


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(_text(item, 36) for item in value)


def _one_of(value: Any, choices: Any) -> bool:
    """Whether a value read from a file is one of these words (a list or an object is none)."""
    return isinstance(value, str) and value in choices


def _columns(table: str) -> set[str]:
    return {column.name for column in TABLES_BY_NAME[table].c} - {"id", "version"}


def _change_problem(change: Any) -> str | None:
    if not isinstance(change, dict):
        return "a row change that is no object"
    table = change.get("table")
    if not _one_of(table, TABLES_BY_NAME) or table in UNSHARED:
        return f"a row of a table this tracker does not share ({str(table)[:40]!r})"
    if change.get("row") is not None and not _text(change["row"]):
        return f"a {table} named by no identity"
    columns = _columns(str(table))
    for side in ("before", "after"):
        state = change.get(side)
        if not isinstance(state, dict) or not set(state) <= columns:
            return f"a {table} {side} with columns this tracker does not have"
    if not (change.get("gone") is None or _one_of(change["gone"], ("before", "after"))):
        return f"a {table} change that is neither made, changed nor deleted"
    prev = change.get("prev", {})
    if not isinstance(prev, dict) or not all(_texts(uids) for uids in prev.values()):
        return f"a {table} change whose writers are not entries"
    return None


def _entry_problem(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return "an entry that is no object"
    if not (
        _text(entry.get("uid"), 36) and _text(entry.get("summary")) and _text(entry.get("at"), 40)
    ):
        return "an entry without its identity, time or summary"
    try:
        datetime.fromisoformat(entry["at"])
    except ValueError:
        return f"an entry whose time is no time ({entry['at']!r})"
    if not _one_of(entry.get("kind"), _KINDS):
        return f"an entry of a kind this tracker does not know ({str(entry.get('kind'))[:30]!r})"
    turn = entry.get("turn")
    if not (turn is None or is_int(turn)):
        return "an entry whose turn is no number"
    if not isinstance(entry.get("undoable"), bool):
        return "an entry that does not say whether it can be undone"
    if not all(entry.get(ref) is None or _text(entry[ref], 36) for ref in _REFS):
        return "an entry naming its scenario, side or ship by no identity"
    detail = entry.get("detail")
    if not isinstance(detail, dict) or not JSON_SHAPES["journalentry", "detail"](detail):
        return "an entry whose detail is not what tracker writes (its dice, its values)"
    if not _text(detail.get("copy", ""), 200):
        return "an entry whose copy is not named"
    if "decides" in detail and not _texts(detail["decides"]):
        return "a decision that names no entries"
    for key in ("changes", "rows"):
        if not isinstance(detail.get(key, []), list):
            return "an entry whose row changes are no list"
        for change in detail.get(key, []):
            if (problem := _change_problem(change)) is not None:
                return problem
    return None


def shape_problem(packet: dict[str, Any]) -> str | None:
    """What is wrong with the packet's form (None: nothing), in words for the player."""
    if not _one_of(packet.get("view", "owner"), ("owner", "opponent", "umpire")):
        return "it is made for no one this tracker knows"
    campaign = packet.get("campaign")
    if not (isinstance(campaign, dict) and _text(campaign.get("uid"), 36)
            and _text(campaign.get("name", ""))):  # fmt: skip
        return "its campaign is not named"
    if not _texts(packet.get("have", [])) or not isinstance(packet.get("entries"), list):
        return "its entries are not a list"
    for number, entry in enumerate(packet["entries"], 1):
        if (problem := _entry_problem(entry)) is not None:
            return f"entry {number} is {problem}"
    secrets = packet.get("secrets", {})
    if not isinstance(secrets, dict):
        return "its secrets are not an object"
    for table, rows in secrets.items():
        if not _one_of(table, TABLES_BY_NAME) or table in UNSHARED or not isinstance(rows, dict):
            return f"it holds secrets of a table this tracker does not share ({table[:40]!r})"
        columns = _columns(table)
        if not all(isinstance(values, dict) and set(values) <= columns for values in rows.values()):
            return f"it holds secrets of {table} in columns this tracker does not have"
    return None
