"""Campaigns and their rows known by their ids (models.identity) in any copy of a campaign.

A backup holds the campaign and its sides under the row numbers and names they had when it was
taken; a campaign imported into a file holds them under new numbers. Their ids are the same in
every copy, and are what a copy is searched by (services.sealing, docs/RULES.md §Secrets).
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import bindparam, inspect, text
from sqlalchemy.engine import Connection

from tracker.db import SessionFactory, read_scope
from tracker.models import TABLES
from tracker.models.identity import Identified, first_uid, new_uid

# The tables whose rows carry an id of their own.
IDENTIFIED = tuple(str(model.__tablename__) for model in TABLES if issubclass(model, Identified))
# What a file is asked whether it holds a campaign by: its own id, and its sides' (a backup is
# searched by both, side_in).
KNOWN_BY = ("campaign", "side")
# The first schema revision whose every identified row has its id: the rows of a document
# written before it are given theirs by the upgrade, in the scratch file (services.exchange),
# and are not those of any other copy.
ROW_IDS = "0016"


def side_in(conn: Connection, *, campaign_uid: str, side_uid: str) -> int | None:
    """The row number of the side in this copy of the file (a backup of any schema revision with
    sides), or None; a copy of schema 0011 or earlier is searched by the ids the upgrade gives
    its rows (models.identity.first_uid), never by a name."""
    columns = {table: {column["name"] for column in inspect(conn).get_columns(table)}
               for table in KNOWN_BY}  # fmt: skip
    if all("uid" in names for names in columns.values()):
        found = conn.execute(
            text("SELECT side.id FROM side JOIN campaign ON campaign.id = side.campaign_id "
                 "WHERE side.uid = :side AND campaign.uid = :campaign"),
            {"side": side_uid, "campaign": campaign_uid},
        ).first()  # fmt: skip
        return None if found is None else int(found[0])
    rows = conn.execute(text("SELECT side.id, campaign.id, campaign.created_at FROM side "
                             "JOIN campaign ON campaign.id = side.campaign_id")).all()  # fmt: skip
    for side_id, campaign_id, created_at in rows:
        if (first_uid(created_at, campaign_id) == campaign_uid
                and first_uid(created_at, campaign_id, side_id) == side_uid):  # fmt: skip
            return int(side_id)
    return None


def as_imported(conn: Connection, tables: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A document's rows with the ids they take in this file: its own when the file does not hold
    the campaign (moved, or exported, deleted and imported again, it is the same campaign, and its
    backups are found by them); else new ones, a second copy, a campaign of its own."""
    return renewed(tables) if _held(conn, tables) else tables


def renewed(tables: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The document's rows, each identified one with a new id: a campaign of its own. Its journal's
    ids are renewed too, a gone row's included, so an undo in the copy never puts back a row of
    the first; a sealed part is not read, and keeps its ids."""
    new_of: dict[str, str] = {}

    def new(old: str) -> str:
        return new_of.setdefault(old, new_uid())

    fresh = {name: [{**row, "uid": new(row["uid"])} for row in tables.get(name, [])]
             for name in IDENTIFIED}  # fmt: skip

    def renew(found: re.Match[str]) -> str:
        return found[0].replace(found[1], new(found[1]))  # as written, the id alone new

    fresh["journalentry"] = [
        {**entry, "detail": _UID_IN_TEXT.sub(renew, entry["detail"])}
        for entry in fresh["journalentry"]
    ]
    return {**tables, **fresh}


# A row's id as an entry's JSON holds it (journal.row_state, written by json_text or json.dumps).
_UID_IN_TEXT = re.compile(r'"uid":\s*"([0-9a-f-]{36})"')


def held(factory: SessionFactory, *, document: dict[str, Any]) -> bool:
    """Whether the file holds the document's campaign already (its import then takes new ids)."""
    with read_scope(factory) as session:
        return _held(session.connection(), document["tables"])


def _held(conn: Connection, tables: dict[str, list[dict[str, Any]]]) -> bool:
    for name in KNOWN_BY:
        uids = [row["uid"] for row in tables.get(name, [])]
        if uids:
            query = text(f"SELECT 1 FROM {name} WHERE uid IN :uids")
            query = query.bindparams(bindparam("uids", expanding=True))
            if conn.execute(query, {"uids": uids}).first() is not None:
                return True
    return False
