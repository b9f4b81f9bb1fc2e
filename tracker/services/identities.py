"""Campaigns and their rows known by their ids (models.identity) in any copy of a campaign.

A backup holds the campaign and its sides under the row numbers and names they had when it was
taken; a campaign imported into a file holds them under new numbers. Their ids are the same in
every copy, and are what a copy is searched by (services.sealing, docs/RULES.md §Secrets).
"""

from __future__ import annotations

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
    """The row number of the side in this copy of the file (a backup of any schema revision
    that has sides), or None when the copy does not hold it.

    A copy taken before the ids were kept (schema 0011 and earlier) is searched by the ids the
    upgrade gives its rows (models.identity.first_uid), never by a name."""
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
    """A document's rows with the ids they take in this file.

    An imported campaign keeps its ids when the file does not hold it: a campaign moved to
    another file, or exported, deleted and imported again, is the same campaign, and the
    backups that hold it are found by them. When the file holds it, the import is a second
    copy beside the first, a campaign of its own: every row of it gets a new id."""
    return renewed(tables) if _held(conn, tables) else tables


def renewed(tables: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The document's rows, each identified one with a new id: a campaign of its own."""
    fresh = {name: [{**row, "uid": new_uid()} for row in tables.get(name, [])]
             for name in IDENTIFIED}  # fmt: skip
    return {**tables, **fresh}


def held(factory: SessionFactory, *, document: dict[str, Any]) -> bool:
    """Whether the file holds the document's campaign already (its import is then a campaign
    of its own, with new ids), as import_campaign finds it."""
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
