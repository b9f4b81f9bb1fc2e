"""A campaign played in copies, as every copy of it exports it (docs/FILES.md "Copies that play
apart").

Each copy numbers its journal in the order it wrote or merged the entries, keeps its own lines
of the packets it merged and which copy recorded each entry, and, in an entry merged where a
number had changed apart, what it wrote there. An export is of the campaign, not of the copy, so
two copies that hold the same entries export the same document:
- the journal in an order every copy finds alike: each entry after those it came after (the last
  writers of the values it changed, the entry it undoes or redoes, the entries it decides), the
  others by time and then identity;
- each entry as the copy that made it recorded it (documents.recorded), saying what it came
  after only where that order does not;
- the copy's own lines left out: the packets it merged, which copy recorded an entry;
- every other table's rows in the order of the entries that made them, after the rows no entry
  made.
The journal of a campaign that has merged no packet is this copy's alone, and stays as it is.
"""

from __future__ import annotations

import heapq
import json
from typing import Any

from sqlalchemy.engine import Connection

from tracker.services.document_checks import PLAN, TABLE_PLANS
from tracker.services.documents import LIBRARY, every_change, iso_time, merged_copy, recorded
from tracker.services.sync_ids import Identities, merge_record
from tracker.services.sync_writers import Prevs, Writers

Rows = dict[str, list[tuple[Any, ...]]]
_COLUMN = {name: n for n, name in enumerate(TABLE_PLANS["journalentry"].columns)}


def as_every_copy_has_it(conn: Connection, rows: Rows) -> None:
    """The campaign's rows, read by documents.campaign_rows, as every copy exports them
    (changed in place); nothing changes for a campaign that has merged no packet."""
    if not merged_copy(rows, PLAN):
        return
    journal = rows["journalentry"]
    column = _COLUMN
    details = [json.loads(row[column["detail"]]) for row in journal]
    ids = Identities()
    ids.read(conn)
    ids.walk(details)
    for row in journal:
        ids.add("journalentry", row[column["id"]], row[column["uid"]])
    entries = [(row, detail) for row, detail in zip(journal, details, strict=True)
               if not merge_record(row[column["kind"]], detail)]  # fmt: skip
    prevs = Writers().walk((_walked(row, detail, ids) for row, detail in entries), ids)
    entries = _in_order(entries, prevs, ids)
    # What that order says each change came after: a `prev` is kept where it says otherwise.
    implied: Prevs = {}
    given = [_with_prevs(detail, prevs[row[column["uid"]]]) for row, detail in entries]
    Writers().walk(
        (_walked(row, detail, ids) for (row, _), detail in zip(entries, given, strict=True)),
        ids, implied,
    )  # fmt: skip
    # Undone by the entry that says it reverts it, here or merged held and decided since.
    undone = {row[column["reverts_id"]]: row[column["id"]] for row, _ in entries}
    rows["journalentry"] = [
        _row(row, undone.get(row[column["id"]]),
             _as_recorded(detail, prevs[row[column["uid"]]], implied.get(row[column["uid"]], {})))
        for row, detail in entries
    ]  # fmt: skip
    _rows_in_order_made(rows, [detail for _, detail in entries])


def _row(row: tuple[Any, ...], reverted_by: int | None, detail: str) -> tuple[Any, ...]:
    out = list(row)
    out[_COLUMN["reverted_by_id"]], out[_COLUMN["detail"]] = reverted_by, detail
    return tuple(out)


def _walked(row: tuple[Any, ...], detail: dict[str, Any], ids: Identities) -> Any:
    reverts = ids.of.get(("journalentry", row[_COLUMN["reverts_id"]]))
    return row[_COLUMN["uid"]], row[_COLUMN["kind"]], reverts, detail


def _in_order(
    entries: list[tuple[tuple[Any, ...], dict[str, Any]]], prevs: Prevs, ids: Identities
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The entries, each after those it came after, the others by time and then identity."""
    uid = _COLUMN["uid"]
    by_uid = {row[uid]: (row, detail) for row, detail in entries}
    after: dict[str, set[str]] = {}
    for row, detail in entries:
        came = {writer for change in prevs[row[uid]].values() for fields in change.values()
                for writer in fields}  # fmt: skip
        came |= set(detail.get("decides") or ())
        came.add(_walked(row, detail, ids)[2])
        after[row[uid]] = came & by_uid.keys() - {row[uid]}
    waiting = {key: len(came) for key, came in after.items()}
    then: dict[str, list[str]] = {}
    for key, came in after.items():
        for earlier in came:
            then.setdefault(earlier, []).append(key)

    def place(key: str) -> tuple[str, str]:
        return iso_time(by_uid[key][0][_COLUMN["at"]]), key

    ready = [place(key) for key, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    ordered: list[str] = []
    while ready:
        _, key = heapq.heappop(ready)
        ordered.append(key)
        for later in then.get(key, ()):
            waiting[later] -= 1
            if waiting[later] == 0:
                heapq.heappush(ready, place(later))
    # An entry that came after one of its own followers (no journal a tracker writes has one)
    # still goes in, by its time.
    ordered += sorted(by_uid.keys() - set(ordered), key=place)
    return [by_uid[key] for key in ordered]


def _with_prevs(detail: dict[str, Any], prevs: dict[int, dict[str, list[str]]]) -> dict[str, Any]:
    """The entry's detail with what each change came after given (for the walk in order)."""
    changes = [{**change, "prev": prevs[number]} for number, change in
               enumerate(every_change(detail))]  # fmt: skip
    return _with_changes(detail, changes)


def _with_changes(detail: dict[str, Any], changes: list[dict[str, Any]]) -> dict[str, Any]:
    made = len(detail.get("rows") or [])
    out = {**detail, "changes": changes[made:]}
    if made:
        out["rows"] = changes[:made]
    return out


def _as_recorded(
    detail: dict[str, Any], prevs: dict[int, dict[str, list[str]]], implied: dict[int, Any]
) -> str:
    """The entry's detail as the copy that made it recorded it, in every copy alike."""
    changes = []
    for number, change in enumerate(every_change(detail)):
        out = {key: value for key, value in recorded(change).items() if key != "prev"}
        said = {field: writers for field, writers in prevs[number].items()
                if writers != implied.get(number, {}).get(field)}  # fmt: skip
        changes.append(out | ({"prev": said} if said else {}))
    kept = {key: value for key, value in detail.items() if key != "copy"}  # this copy's own
    return json.dumps(_with_changes(kept, changes), sort_keys=True)


def _rows_in_order_made(rows: Rows, details: list[dict[str, Any]]) -> None:
    """Every other table's rows: those no entry made first (as numbered), then in the order of
    the entries that made them."""
    made: dict[tuple[str, int], tuple[int, int]] = {}
    for place, detail in enumerate(details):
        for number, change in enumerate(every_change(detail)):
            if change.get("gone") == "before":
                made.setdefault((change["table"], change["id"]), (place, number))
    for table, table_rows in rows.items():
        if table not in LIBRARY and table not in ("campaign", "journalentry"):

            def made_at(row: tuple[Any, ...], table: str = table) -> tuple[int, int]:
                return made.get((table, row[0]), (-1, row[0]))

            table_rows.sort(key=made_at)
