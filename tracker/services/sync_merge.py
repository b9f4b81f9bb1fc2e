"""Merging a packet of another copy of the campaign: its entries this copy lacks, in order, each
with the rows it wrote, by rules a player can predict (docs/FILES.md "Copies that play apart").

- A value takes the entry's value when the entry was made after its last writers here; beside
  other writers, it takes what they settle to (sync_writers): the one value they wrote, or the
  decision of the greatest identity.
- A hit, a repair, fuel or fire (sync_writers.RELATIVE) changes a number by as much here as it
  did there: two copies' hits on one ship add up.
- A value that both copies changed to different values is a conflict: it is held, not written,
  and the entry is kept in the journal with what conflicted, for the player to decide
  (sync_decide). A row it names that this copy deleted holds the entry whole.
- An entry this copy has already (the same identity) is passed over: a packet merged twice
  changes nothing.
The packet is refused whole, with a sentence and nothing written, when it is of another
campaign, of a newer tracker, or altered by hand (its hash chain broken); a merge is one
transaction, after a backup of the campaign file.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from tracker.campaign_file import head_revision, revision_chain
from tracker.db import SessionFactory, read_scope, session_scope
from tracker.models import Campaign, JournalEntry
from tracker.models.kinds import JournalKind
from tracker.services import backups, journal, visibility
from tracker.services.document_checks import (
    TABLE_PLANS,
    TABLES_BY_NAME,
    check_value,
    data_columns,
    rule_problems,
)
from tracker.services.document_reader import MAX_BYTES, too_large
from tracker.services.documents import SIDES, every_change
from tracker.services.errors import InvalidInput
from tracker.services.rowlog import plain
from tracker.services.sync_decide import conflict_lines, mark_decided, settle_held
from tracker.services.sync_ids import Identities, held_whole, mapped
from tracker.services.sync_pack import ENTRY_REFS, FORMAT, VERSION, chained, other_has
from tracker.services.sync_shape import shape_problem
from tracker.services.sync_writers import (
    Key,
    Writers,
    by_as_much,
    counted_field,
    fields,
    is_unsettled,
    journal_writers,
)
from tracker.services.text_files import open_file

ZERO_TRACKS = {"structure_now": "Structure", "flotation_now": "Flotation"}
_JOURNAL = JournalEntry.__table__  # type: ignore[attr-defined]
_CAMPAIGN = Campaign.__table__  # type: ignore[attr-defined]


@dataclass
class Merged:
    """What a merge did: entries written, entries held (with why), entries it had already."""

    campaign: str = ""
    added: int = 0
    held: list[str] = field(default_factory=list)
    # What the two copies' play together brought about, for the player to settle (a ship at
    # zero Structure or Flotation by both copies' hits: her condition is the player's call).
    notes: list[str] = field(default_factory=list)
    known: int = 0
    backup: str | None = None


class _Held(Exception):
    """An entry that cannot be written as it stands: why, and what conflicted."""

    def __init__(self, why: str, conflicts: list[dict[str, Any]] | None = None) -> None:
        super().__init__(why)
        self.why, self.conflicts = why, conflicts or []


def refusal(packet: Any) -> str | None:
    """Why a packet cannot be merged anywhere (None: its form and its hash chain hold)."""
    if not isinstance(packet, dict) or packet.get("format") != FORMAT:
        return "this is not a tracker packet: make one with `tracker sync pack`"
    if not isinstance(packet.get("version"), int) or packet["version"] > VERSION:
        return "this packet was made by a newer tracker: update tracker to merge it"
    schema = packet.get("schema")
    if schema != head_revision():
        if not isinstance(schema, str) or schema not in revision_chain():
            return "this packet was made by a newer tracker: update tracker to merge it"
        return (
            "this packet was made by an older tracker: open its campaign with this one, pack again"
        )
    problem = shape_problem(packet)
    if problem is not None:
        return f"this packet is damaged: {problem}; ask for a new packet"
    campaign, entries = packet["campaign"], packet["entries"]
    previous = campaign.get("uid")
    for number, entry in enumerate(entries, 1):
        said = {key: value for key, value in entry.items() if key != "hash"}
        if not isinstance(entry, dict) or entry.get("hash") != chained(str(previous), said):
            return (f"entry {number} of this packet was changed, taken out or put in by hand "
                    "(its hash does not follow): ask for a new packet")  # fmt: skip
        previous = entry["hash"]
    if packet.get("secrets_hash") != chained(str(previous), {"secrets": packet.get("secrets")}):
        return (
            "this packet's secrets were changed by hand (their hash does not follow): ask for "
            "a new packet"
        )
    return None


def merge(factory: SessionFactory, *, packet: Any) -> Merged:
    """Write the packet's entries this copy lacks (InvalidInput, nothing written, for a packet
    refused)."""
    why = refusal(packet)
    if why is not None:
        raise InvalidInput({"packet": why})
    packet = copy.deepcopy(packet)  # its entries take what is written here (the caller's stays)
    uid, name = packet["campaign"]["uid"], packet["campaign"].get("name", "")
    with read_scope(factory) as session:
        conn = session.connection()
        campaign_id = conn.execute(select(_CAMPAIGN.c.id).where(_CAMPAIGN.c.uid == uid)).scalar()
        if campaign_id is None:
            why = f"this file does not hold the campaign {name!r} of this packet (nor a copy of it)"
            raise InvalidInput({"packet": f"{why}: merge it into a copy of that campaign"})
        present, had, seen = _known(conn, campaign_id)
    merged = Merged(name, known=sum(entry["uid"] in present for entry in packet["entries"]))
    have = packet.get("have", [])
    done = merged.known == len(packet["entries"]) and set(have) <= had
    if done or packet["secrets_hash"] in seen:
        return merged  # a packet merged before: nothing to write
    taken = backups.back_up(factory, reason="before merging a packet")
    merged.backup = str(taken.path) if taken.path else None
    try:
        _merge(factory, packet, campaign_id, merged)
    except _Unwritable as exc:
        raise InvalidInput({"packet": f"this packet holds {exc}: ask for a new packet"}) from exc
    except (SQLAlchemyError, TypeError, ValueError, KeyError, AttributeError) as exc:
        # A value no column of this file takes (a packet made by hand can hold anything its
        # form allows): the transaction is rolled back whole.
        why = f"this packet holds a value this campaign file cannot take ({type(exc).__name__})"
        raise InvalidInput({"packet": f"{why}: ask for a new packet"}) from exc
    return merged


def _merge(
    factory: SessionFactory, packet: dict[str, Any], campaign_id: int, merged: Merged
) -> None:
    """The merge's one transaction."""
    have = packet.get("have", [])
    with session_scope(factory) as session:
        conn = session.connection()
        present, _, _ = _known(conn, campaign_id)  # as the write lock found it
        ids = Identities()
        ids.read(conn)
        writers = journal_writers(conn, campaign_id, ids)
        said: dict[int, str] = {}
        for entry in packet["entries"]:
            if entry["uid"] in present:
                continue
            held: _Held | None = None
            savepoint = conn.begin_nested()
            added = ids.count()
            wrote: list[_Wrote] = []
            try:
                wrote, conflicts = _write(conn, ids, entry, writers, packet["secrets"],
                                          merged.notes, packet.get("view", "owner"))  # fmt: skip
                savepoint.commit()
                if conflicts:
                    named = ", ".join(f"{c['name']} {c['field']}" for c in conflicts)
                    held = _Held(f"this copy changed {named} too", conflicts)
            except _Held as exc:
                savepoint.rollback()
                ids.forget(added)
                held, wrote = exc, []
            again = ids.number.get(("journalentry", entry["uid"]))  # held whole before
            number = _journal(conn, ids, entry, campaign_id, held, again)
            if held is not None:
                said[number] = f"#{number} {entry['summary']}: {held.why}"
            merged.added += again is None or held is None
            writers.relative[entry["uid"]] = writers.is_relative(entry["kind"], entry["reverts"])
            decision = "decides" in entry["detail"]
            if decision:  # the entries it decided: decided here too (even while it is held)
                mark_decided(conn, set().union(*(prev for _, _, prev, _ in wrote)), entry["uid"])
            for key, value, prev, counted in wrote:
                writers.wrote(entry["uid"], key, value, prev, counted=counted, decision=decision)
        settle_held(conn, campaign_id, writers)
        still = conn.execute(select(_JOURNAL.c.id, _JOURNAL.c.detail).where(
            _JOURNAL.c.id.in_(list(said)))).all()  # fmt: skip
        merged.held = [said[number] for number, detail in still if "held" in json.loads(detail)]
        _write_secrets(conn, ids, packet["secrets"])
        journal.append(session, campaign_id=campaign_id, kind=JournalKind.SYNC,
                       summary=f"Merged a packet: {merged.added} entries, {len(merged.held)} held",
                       facts={"have": have, "packet": packet["secrets_hash"]},
                       scenario=None)  # fmt: skip


def _write_secrets(
    conn: Connection, ids: Identities, secrets: dict[str, dict[str, dict[str, Any]]]
) -> None:
    """The secrets of the packet's rows, as the other copy's rows keep them now."""
    for table_name, rows in secrets.items():
        table = TABLES_BY_NAME[table_name]
        for row, values in rows.items():
            number = ids.number.get((table_name, row))
            if number is not None:
                current = conn.execute(select(table).where(table.c.id == number)).mappings().one()
                try:
                    written = _local(ids, table_name, values, current)
                except _Held:
                    continue  # it names a row this copy does not have
                conn.execute(update(table).where(table.c.id == number).values(**written))


def _known(conn: Connection, campaign_id: int) -> tuple[set[str], set[str], set[str]]:
    """The campaign's entries here (but those held whole, which a later packet may bring what
    they lacked), those the other copy is known to have, and the packets merged here (by the
    hash that ends each)."""
    rows = conn.execute(
        select(_JOURNAL.c.uid, _JOURNAL.c.kind, _JOURNAL.c.detail)
        .where(_JOURNAL.c.campaign_id == campaign_id).order_by(_JOURNAL.c.id)
    ).all()  # fmt: skip
    details = [(uid, kind, json.loads(detail)) for uid, kind, detail in rows]
    merges = [detail for _, kind, detail in details if kind == JournalKind.SYNC]
    present = {uid for uid, _, detail in details if not held_whole(detail)}
    return present, other_has(merges), {detail.get("packet", "") for detail in merges}


class _Unwritable(Exception):
    """A value no column of this file takes, or one the forms would refuse: the whole packet
    is refused (a packet made by hand; its hashes are no signature)."""


def _local(
    ids: Identities, table: str, state: dict[str, Any], current: Any = None
) -> dict[str, Any]:
    """A packet's state of a row as this file writes it: numbers for identities, times; each
    value checked as a campaign file's import checks it (its type, its bounds, its words), the
    row it makes with `current` (the row as it is here) too."""

    def number(target: str, identity: Any) -> Any:
        found = ids.number.get((target, identity))
        if found is None:
            raise _Held(f"it names a {target} this copy does not have")
        return found

    out = mapped(table, state, number)
    columns = TABLES_BY_NAME[table].c
    for key, value in out.items():
        if (problem := check_value(columns[key], value)) is not None:
            raise _Unwritable(f"{table} {key}: {problem}")
    row = {**({k: plain(v) for k, v in current.items()} if current else {}), **out}
    if row.keys() >= {column.name for column in data_columns(TABLES_BY_NAME[table])}:
        for key, problem in rule_problems(table, row):
            raise _Unwritable(f"{table} {key}: {problem}")
    for key in TABLE_PLANS[table].times & out.keys():
        if isinstance(out[key], str):
            out[key] = datetime.fromisoformat(out[key])
    return out


_Wrote = tuple[Key, Any, set[str], bool]  # a value, as the entry wrote it, after whom, counted


def _write(
    conn: Connection,
    ids: Identities,
    entry: dict[str, Any],
    writers: Writers,
    secrets: dict[str, dict[str, dict[str, Any]]],
    notes: list[str],
    view: str,
) -> tuple[list[_Wrote], list[dict[str, Any]]]:
    """Write an entry's rows: the values it wrote, and its conflicts (values not written)."""
    relative = writers.is_relative(entry["kind"], entry["reverts"])
    decision = "decides" in entry["detail"]
    secrets_kept = view == "owner"
    taken_back = _done_here(conn, entry["reverts"]) if relative and entry["reverts"] else {}
    wrote: list[_Wrote] = []
    conflicts: list[dict[str, Any]] = []
    for change in every_change(entry["detail"]):
        table_name, row = change["table"], change["row"]
        if row is None:
            raise _Held("it was made before every row an act writes was kept")
        table = TABLES_BY_NAME[table_name]
        number = ids.number.get((table_name, row))
        gone = change.get("gone")
        prevs = change.get("prev", {})
        if gone == "before":
            if number is None and table_name in visibility.PUBLIC and not secrets_kept:
                raise _Held(f"it makes a {table_name} whose secrets this packet leaves out "
                            "(a packet for the opponent): merge the owner's packet")  # fmt: skip
            if number is None:
                kept = secrets.get(table_name, {}).get(row, {})  # a secret's, as its side keeps it
                state = _local(ids, table_name, {**change["after"], **kept})
                made = conn.execute(insert(table).values(**state)).inserted_primary_key
                assert made is not None
                ids.add(table_name, made[0], row)
            wrote += [(key, change["after"][key[2]], set(prevs.get(key[2], ())), False)
                      for key in fields(change, row)]  # fmt: skip
            continue
        if number is None:
            if gone == "after":
                continue  # deleted here too
            raise _Held(f"it changes a {table_name} deleted in this copy")
        current = conn.execute(select(table).where(table.c.id == number)).mappings().one()
        here = mapped(table_name, {key: plain(value) for key, value in current.items()},
                      lambda target, value: ids.of.get((target, value)))  # fmt: skip
        if gone == "after":
            changed = [key for key, value in change["before"].items() if here.get(key) != value]
            if changed:
                raise _Held(
                    f"it deletes a {table_name} changed in this copy ({', '.join(changed)})"
                )
            conn.execute(table.delete().where(table.c.id == number))
            continue
        values: dict[str, Any] = {}
        counted: list[str] = []  # numbers changed by as much: what it wrote here may differ
        for key, after in change["after"].items():
            before, now = change["before"].get(key), here.get(key)
            value, prev = (table_name, row, key), set(prevs.get(key, ()))
            if relative and counted_field(value, before, after, now):
                # Done again by as much, whatever the number is here; an undo or a redo takes
                # back what the entry it reverts did here (a hit may have found less to take).
                done = taken_back.get((table_name, number, key), (before, after))
                done = done if counted_field(value, *done) else (before, after)
                values[key] = by_as_much(table_name, key, now, done, here)
                counted.append(key)
                wrote.append((value, after, prev, True))
                apart = not writers.known(value) <= prev
                if apart and key in ZERO_TRACKS and values[key] == 0 and (now or 0) > 0:
                    notes.append(f"{here.get('name', table_name)} reached zero "
                                 f"{ZERO_TRACKS[key]} with both copies' hits: "
                                 "confirm her condition on the record sheet (z)")  # fmt: skip
                continue
            wrote.append((value, after, prev, False))
            settled = writers.settle(value, entry["uid"], after, prev, decision)
            if is_unsettled(settled):
                conflicts.append({"table": table_name, "row": row, "field": key,
                                  "name": f"{table_name} {here.get('name') or ''}".strip(),
                                  "was": before, "ours": now, "theirs": after,
                                  "writers": sorted(writers.known(value) - prev)})  # fmt: skip
            elif settled != now:
                values[key] = settled
        if values:
            if not decision:
                # The entry here says what was written here: what undo puts back is this copy's.
                # What the copy that made it recorded is kept beside (documents.recorded): what
                # a packet and an export carry. (A decision keeps what it decided: which of two
                # decisions stands goes by it.)
                kept = {side: {key: change[side][key] for key in counted} for side in SIDES}
                change["before"].update({key: here.get(key) for key in values})
                change["after"].update(values)
                if any(change[side][key] != kept[side][key] for side in SIDES for key in counted):
                    change["recorded"] = kept
            written = _local(ids, table_name, values, current)
            if "version" in table.c:
                written["version"] = table.c.version + 1
            conn.execute(update(table).where(table.c.id == number).values(**written))
            if table_name != "ship":
                continue
            if (
                entry["kind"] == JournalKind.REPAIR
                and here["sunk"]
                and ZERO_TRACKS.keys() & counted
            ):
                # A repair of a sunk ship is refused in a copy: made apart, it is written (the
                # copies' play stands alike in both), and the player is told.
                notes.append(f"{here['name']} is sunk in this copy and was repaired in the "
                             "other: check her on the record sheet")  # fmt: skip
            ship = here | values
            if values.get("sunk") and all(ship.get(track, 0) > 0 for track in ZERO_TRACKS):
                tracks = ", ".join(f"{name} {ship[track]}" for track, name in ZERO_TRACKS.items())
                notes.append(f"{here['name']} was sunk in the other copy while above zero here "
                             f"({tracks}): check her on the record sheet")  # fmt: skip
    return wrote, conflicts


def _done_here(conn: Connection, reverts: str) -> dict[tuple[str, int, str], tuple[Any, Any]]:
    """What the entry an undo or a redo reverts did here, number by number, turned around
    (from its after back to its before): by row and field."""
    detail = conn.execute(select(_JOURNAL.c.detail).where(_JOURNAL.c.uid == reverts)).scalar()
    if detail is None:
        return {}
    return {
        (change["table"], change["id"], key): (after, change["before"].get(key))
        for change in every_change(json.loads(detail))
        for key, after in (change["after"] or {}).items()
        if change.get("gone") is None and change["before"]
    }


def _journal(
    conn: Connection,
    ids: Identities,
    entry: dict[str, Any],
    campaign_id: int,
    held: _Held | None,
    again: int | None,
) -> int:
    """The entry in this copy's journal, under its own identity: rows named by their numbers
    here (0 for one this copy does not have), held with why when it was not written."""

    def number(target: str, identity: Any) -> Any:
        return ids.number.get((target, identity), 0 if target != "journalentry" else None)

    detail = {
        key: value for key, value in entry["detail"].items() if key not in ("changes", "rows")
    }
    for key in ("changes", "rows"):
        detail[key] = [
            {"table": change["table"], "id": number(change["table"], change["row"]),
             "before": mapped(change["table"], change["before"], number),
             "after": mapped(change["table"], change["after"], number),
             **({"gone": change["gone"]} if change.get("gone") else {}),
             **({"recorded": change["recorded"]} if "recorded" in change else {}),
             "prev": change.get("prev", {})}
            for change in entry["detail"].get(key) or []
        ]  # fmt: skip
    if not detail["rows"]:
        detail.pop("rows")
    if held is not None:
        # Undone no more while it is held; settled, it is undone as it was recorded (sync_decide).
        detail["held"] = {"why": held.why, "conflicts": held.conflicts,
                          "undoable": entry["undoable"]}  # fmt: skip
    refs = {key: ids.number.get((table, entry[key.removesuffix("_id")]))
            for key, table in ENTRY_REFS.items()}  # fmt: skip
    if again is not None:  # held whole at an earlier merge: written now, or held as it was
        if held is None:
            text = json.dumps(detail, sort_keys=True)
            conn.execute(update(_JOURNAL).where(_JOURNAL.c.id == again)
                         .values(detail=text, undoable=entry["undoable"], **refs))  # fmt: skip
            _reverted(conn, refs["reverts_id"], again)
        return again
    written = conn.execute(insert(_JOURNAL).values(
        uid=entry["uid"], at=datetime.fromisoformat(entry["at"]), campaign_id=campaign_id,
        turn=entry["turn"], kind=entry["kind"], summary=entry["summary"],
        detail=json.dumps(detail, sort_keys=True),
        undoable=entry["undoable"] and held is None, **refs,
    )).inserted_primary_key  # fmt: skip
    assert written is not None
    ids.add("journalentry", written[0], entry["uid"])
    entry_id: int = written[0]
    if held is None:
        _reverted(conn, refs["reverts_id"], entry_id)
    return entry_id


def _reverted(conn: Connection, reverts: int | None, entry_id: int) -> None:
    """The entry an undo or a redo reverts, marked reverted by it."""
    if reverts is not None:
        conn.execute(update(_JOURNAL).where(_JOURNAL.c.id == reverts)
                     .values(reverted_by_id=entry_id))  # fmt: skip


def held(factory: SessionFactory, *, campaign_id: int) -> list[str]:
    """The campaign's merged entries held for the player, each with what conflicted."""
    with read_scope(factory) as session:
        rows = session.connection().execute(
            select(_JOURNAL.c.id, _JOURNAL.c.summary, _JOURNAL.c.detail)
            .where(_JOURNAL.c.campaign_id == campaign_id, _JOURNAL.c.detail.like('%"held"%'))
            .order_by(_JOURNAL.c.id)
        ).all()  # fmt: skip
    lines = []
    for number, summary, detail in rows:
        said = json.loads(detail).get("held")
        if said is not None:
            lines += [f"#{number} {summary}: {said['why']}", *conflict_lines(said)]
    return lines


def merge_file(factory: SessionFactory, *, path: str | Path) -> Merged:
    """Merge the packet in the file the player named: read as every file a player names is
    (text_files.open_file: refused unread when it is no file or too large), a file that is no
    JSON refused as no packet."""
    with open_file(Path(path).expanduser(), limit=MAX_BYTES, too_large=too_large) as file:
        raw = file.read()
    try:
        packet = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput({"packet": "this is not a tracker packet (not JSON)"}) from exc
    return merge(factory, packet=packet)
