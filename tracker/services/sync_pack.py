"""A packet: the journal entries of a campaign that another copy of it has not seen, each with
every row it wrote, named by identity (docs/FILES.md "Copies that play apart").

The other copy's last packet merged here says what it had (`have`): a packet holds the
entries it lacked and every one made since, oldest first; with no packet merged yet, all of
them. Each entry carries the hash of the one before it, so an entry changed, taken out or put
in by hand is found (services.sync_merge refuses the packet).
"""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from tracker.campaign_file import head_revision
from tracker.db import SessionFactory, read_scope
from tracker.models import Campaign, JournalEntry
from tracker.services import backups, documents, printing, visibility
from tracker.services.common import get_row
from tracker.services.document_checks import TABLES_BY_NAME
from tracker.services.documents import every_change, recorded
from tracker.services.rowlog import plain
from tracker.services.sync_ids import UNSHARED, Identities, mapped, merge_record
from tracker.services.sync_writers import Writers, journal_rows

FORMAT = "tracker-packet"
VERSION = 1
_JOURNAL = JournalEntry.__table__  # type: ignore[attr-defined]
# An entry's own columns that name a row, and the row's table.
ENTRY_REFS = {"scenario_id": "scenario", "side_id": "side", "ship_id": "ship",
              "reverts_id": "journalentry"}  # fmt: skip


_OWN = ("changes", "rows", "held", "decided")


def copy_name(factory: SessionFactory) -> str:
    """What names this copy in the other copies' journals: its file (or server) and the
    machine it is on, as `keeper.db on lenovo`."""
    key = backups.database_key(factory)
    path = backups.campaign_file(factory)
    return f"{Path(key).name if path is not None else key} on {socket.gethostname()}"[:200]


def chained(previous: str, entry: dict[str, Any]) -> str:
    """An entry's hash: of the one before it and of the entry itself, as written."""
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{previous}\n{text}".encode()).hexdigest()


def pack(
    factory: SessionFactory,
    *,
    campaign_id: int,
    everything: bool = False,
    viewer: visibility.Viewer = visibility.Viewer.OWNER,
) -> dict[str, Any]:
    """The packet of the campaign's entries another copy lacks (`everything`: all of them), as
    `viewer` may see them: the owner's with the secrets of their rows, any other's without a
    secret (each entry's detail as the journal shows it to them, visibility.entry_as_seen)."""
    with read_scope(factory) as session:
        campaign = get_row(session, Campaign, campaign_id)
        conn = session.connection()
        rows = conn.execute(
            select(_JOURNAL).where(_JOURNAL.c.campaign_id == campaign_id).order_by(_JOURNAL.c.id)
        ).mappings().all()  # fmt: skip
        ids = Identities()
        ids.read(conn)
        hidden = _hidden(conn)
    details = [json.loads(row["detail"]) for row in rows]
    owner = viewer is visibility.Viewer.OWNER
    ids.walk(details)
    for row in rows:
        ids.add("journalentry", row["id"], row["uid"])
    prevs = Writers().walk(journal_rows(rows, details, ids), ids)
    merges = [d for row, d in zip(rows, details, strict=True) if merge_record(row["kind"], d)]
    have = set() if everything else other_has(merges)
    previous = campaign.uid
    entries = []
    here = copy_name(factory)
    for row, detail in zip(rows, details, strict=True):
        if row["uid"] in have or merge_record(row["kind"], detail):
            continue
        seen = (
            detail
            if owner
            else json.loads(visibility.entry_as_seen(row["detail"], viewer=viewer, own=False))
        )
        entry = _entry(row, {"copy": here, **seen}, ids, prevs[row["uid"]])
        entry["hash"] = previous = chained(previous, entry)
        entries.append(entry)
    secrets = _secrets(entries, hidden, ids) if owner else {}
    return {
        "format": FORMAT,
        "version": VERSION,
        "view": viewer.value,
        "schema": head_revision(),
        "campaign": {"uid": campaign.uid, "name": campaign.name},
        "have": [row["uid"] for row in rows],
        "entries": entries,
        "secrets": secrets,
        "secrets_hash": chained(previous, {"secrets": secrets}),
    }


def _hidden(conn: Connection) -> dict[tuple[str, int], dict[str, Any]]:
    """The values of every secret's columns, as their rows keep them (sealed under the side's
    passphrase when it has one): no journal entry keeps them (services.rowlog)."""
    found = {}
    for name, public in visibility.PUBLIC.items():
        if name in UNSHARED:
            continue
        table = TABLES_BY_NAME[name]
        columns = [column for column in table.c if column.name not in public | {"version"}]
        for row in conn.execute(select(table.c.id, *columns)).mappings():
            found[(name, row["id"])] = {
                key: plain(value) for key, value in row.items() if key != "id"
            }
    return found


def _secrets(
    entries: list[dict[str, Any]], hidden: dict[tuple[str, int], dict[str, Any]], ids: Identities
) -> dict[str, dict[str, dict[str, Any]]]:
    """The secrets of the rows a packet's entries wrote, as their rows keep them now, named by
    identity: the owner's copy has them, as the owner's export does."""
    secrets: dict[str, dict[str, dict[str, Any]]] = {}
    for entry in entries:
        for change in every_change(entry["detail"]):
            table, row = change["table"], change["row"]
            number = ids.number.get((table, row)) if row else None
            values = hidden.get((table, number)) if number is not None else None
            if values is not None:
                secrets.setdefault(table, {})[row] = mapped(
                    table, values, lambda target, value: ids.of.get((target, value))
                )
    return secrets


def other_has(merges: list[dict[str, Any]]) -> set[str]:
    """The entries the other copy is known to have, from the merges in the journal:
    those its packets merged here had, and those it merged of this copy's packets. With more
    than two copies, some may be another's: `tracker sync pack --all` sends every entry."""
    return {uid for detail in merges for uid in detail.get("have", ())}


def _entry(
    row: Any, detail: dict[str, Any], ids: Identities, prevs: dict[int, dict[str, list[str]]]
) -> dict[str, Any]:
    def identity(table: str, number: Any) -> Any:
        return ids.of.get((table, number))

    # Whether an entry is held or decided here is this copy's own: the other copy finds its own.
    said = {key: value for key, value in detail.items() if key not in _OWN}
    said["changes"], said["rows"] = [], []
    made = len(detail.get("rows") or [])
    for number, change in enumerate(every_change(detail)):
        if change["table"] not in UNSHARED:
            packed = _change(change, identity) | {"prev": prevs[number]}
            said["rows" if number < made else "changes"].append(packed)
    return {
        "uid": row["uid"],
        "at": row["at"].isoformat(),
        "kind": row["kind"],
        "summary": row["summary"],
        "turn": row["turn"],
        "undoable": bool(row["undoable"]),
        **{key.removesuffix("_id"): identity(table, row[key]) for key, table in ENTRY_REFS.items()},
        "detail": said,
    }


def _change(change: dict[str, Any], identity: Any) -> dict[str, Any]:
    change = recorded(change)
    table = change["table"]
    out = {
        "table": table,
        "row": identity(table, change["id"]),
        "before": mapped(table, change["before"] or {}, identity),
        "after": mapped(table, change["after"] or {}, identity),
    }
    return out | ({"gone": change["gone"]} if change.get("gone") else {})


def every_row_named(entry: dict[str, Any]) -> bool:
    """Whether the packet names every row an entry wrote (an entry made before its rows were
    kept, or naming a row deleted before, cannot be merged: it is held)."""
    detail = entry["detail"]
    return all(change["row"] is not None for change in every_change(detail))


def write_packet(
    factory: SessionFactory,
    *,
    campaign_id: int,
    path: str | Path,
    replace: bool = False,
    new_only: bool = False,
    viewer: visibility.Viewer = visibility.Viewer.OWNER,
) -> Path:
    """Write the packet to the file the player named (printing.write_file: never the campaign
    file or a backup, another file only when `replace`); the owner's is for the player alone."""
    owner = viewer is visibility.Viewer.OWNER

    def text() -> str:
        packet = pack(factory, campaign_id=campaign_id, viewer=viewer)
        return documents.dumps(packet).decode()

    return printing.write_file(factory, path=path, content=text, replace=replace,
                               new_only=new_only, private=owner)  # fmt: skip


def packet_path(factory: SessionFactory, *, campaign_id: int) -> str:
    """Where a packet goes unless the player names another file: the campaign's folder."""
    with read_scope(factory) as session:
        name = get_row(session, Campaign, campaign_id).name
    stem = "".join(c if c.isalnum() else "-" for c in name.split(",")[0]).strip("-").lower()
    return str(printing.campaign_folder(factory) / f"{stem or 'campaign'}-packet.json")
