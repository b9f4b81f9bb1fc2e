"""No plain copy outlives the passphrase: a side's secrets sealed again everywhere they are kept.

Setting or changing a passphrase seals the side's marker notes, secret minefields and the
journal entries of its secret changes under the new key, in the campaign file and in every
backup of it (docs/RULES.md §Secrets). A backup that cannot be rewritten is named, so the player
can delete it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from tracker.db import (
    DatabaseProblem,
    SessionFactory,
    checkpoint,
    list_backups,
    make_engine,
    session_scope,
)
from tracker.models import Campaign, JournalEntry, Side, SideSecret
from tracker.models.kinds import JournalKind
from tracker.services import identities, secrets, visibility
from tracker.services.backups import campaign_file
from tracker.services.common import act, beyond_ids, rows_where
from tracker.services.errors import DatabaseUnavailable, InvalidInput

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sealed:
    """What setting a passphrase left behind: backups that still hold the side's plain notes,
    and whether the campaign file's write-ahead log could be folded in (False: another program
    reads the file, and a plain copy may remain in it until that program closes)."""

    plain_backups: tuple[Path, ...] = ()
    checkpointed: bool = True


def side_key(session: Session, side_id: int, passphrase: str | None) -> bytes | None:
    """The side's key when it has a passphrase (which must be given and right), else None."""
    if beyond_ids(side_id):
        return None  # no such side
    secret = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
    if secret is None:
        return None
    if not passphrase:
        raise InvalidInput({"passphrase": "this side's notes are locked: give its passphrase"})
    return secrets.check_passphrase(passphrase, secret.salt, secret.verifier)


def set_passphrase(
    factory: SessionFactory, *, side_id: int, passphrase: str, old_passphrase: str | None = None
) -> Sealed:
    """Set or change a side's passphrase, sealing its secrets again (RULES.md §Secrets)."""
    with act(factory, Side, side_id) as a:
        session = a.session
        old_key = side_key(session, side_id, old_passphrase)
        salt = secrets.new_salt()
        verifier = secrets.make_verifier(passphrase, salt)
        reseal_rows(session.connection(), side_id, old_key, secrets.derive_key(passphrase, salt))
        row = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
        row = row or SideSecret(side_id=side_id, salt=salt, verifier=verifier)
        row.salt, row.verifier = salt, verifier
        session.add(row)
        a.log_side(
            JournalKind.SECRET, f"passphrase {'changed' if old_key else 'set'}; notes encrypted"
        )
    # The plain notes' old pages must not linger in the WAL beside the file.
    folded = checkpoint(factory)
    plain = reseal_backups(
        factory, side_id=side_id, passphrase=passphrase, old_passphrase=old_passphrase
    )
    return Sealed(plain_backups=plain, checkpointed=folded)


# Where a side's sealed notes are kept: (table, column) of its rows that carry one.
_NOTES = (("submarker", "secret"), ("minefield", "sealed"))


def reseal_rows(conn: Connection, side_id: int, old_key: bytes | None, new_key: bytes) -> None:
    """Seal every secret of a side again under a new key, in the database behind conn: the
    campaign file, or a backup of it at any schema revision (its own tables are read)."""
    tables = set(inspect(conn).get_table_names())
    for table, column in _NOTES:
        if table not in tables:
            continue  # a backup older than the table: nothing of it to seal
        # A row changed here is a change another player's open form must not overwrite.
        columns = {column["name"] for column in inspect(conn).get_columns(table)}
        bump = ", version = version + 1" if "version" in columns else ""
        stored = conn.execute(text(f"SELECT id, {column} FROM {table} "
                                   f"WHERE side_id = :side AND {column} != ''"),
                              {"side": side_id}).all()  # fmt: skip
        for row_id, note in stored:
            sealed = secrets.seal_note(secrets.open_note(note, old_key), new_key)
            conn.execute(text(f"UPDATE {table} SET {column} = :note{bump} WHERE id = :id"),
                         {"note": sealed, "id": row_id})  # fmt: skip
    # Only entries that keep a note: every other entry of the side stays as written.
    entries = conn.execute(
        text("SELECT id, detail FROM journalentry WHERE side_id = :side "
             "AND (detail LIKE :plain OR detail LIKE :sealed)"),
        {"side": side_id, "plain": f"%{secrets.PLAIN}%", "sealed": f"%{secrets.SEALED}%"},
    ).all()  # fmt: skip
    for entry_id, detail in entries:
        conn.execute(text("UPDATE journalentry SET detail = :detail WHERE id = :id"),
                     {"detail": visibility.reseal_detail(detail, old_key, new_key),
                      "id": entry_id})  # fmt: skip


@dataclass(frozen=True)
class _Sealing:
    """What every backup is sealed by: the side's ids, its passphrase now and the one before."""

    campaign_uid: str
    side_uid: str
    verifier: SideSecret
    old_passphrase: str | None
    key: bytes


def _reseal_backup(path: Path, sealing: _Sealing) -> bool:
    """Seal one backup's copy of the side under the new key; False when it cannot be done."""
    try:
        if secrets.PLAIN.encode() not in path.read_bytes():
            # Nothing plain in it (taken before any secret, or sealed already): left as it is,
            # whatever schema it has (a backup taken before an upgrade keeps the old one).
            return True
    except OSError as exc:
        log.warning("could not read backup %s: %s", path, exc)
        return False
    engine = make_engine(str(path))
    try:
        with engine.begin() as conn:
            side_id = identities.side_in(conn, campaign_uid=sealing.campaign_uid,
                                         side_uid=sealing.side_uid)  # fmt: skip
            if side_id is None:
                return True  # this backup does not hold the side: nothing of it to seal
            if not _reseal_held(conn, side_id, sealing):
                return True  # sealed already, under this passphrase or an older one
        with engine.connect() as raw_conn:
            raw: Any = raw_conn.connection.driver_connection
            raw.execute("VACUUM")  # the freed pages of the plain notes, gone from the file
            # Back to one file, as a backup is kept: the log folded in and removed.
            raw.execute("PRAGMA journal_mode=DELETE")
        return True
    except (
        DatabaseUnavailable,
        DatabaseProblem,
        SQLAlchemyError,
        sqlite3.Error,
        OSError,
        ValueError,  # InvalidInput, or a campaign's time that is no time: the backup is damaged
    ) as exc:
        log.warning("could not seal the notes in backup %s: %s", path, exc)
        return False
    finally:
        engine.dispose()


def _reseal_held(conn: Connection, side_id: int, sealing: _Sealing) -> bool:
    """Seal the side's rows of a backup under the new key, with its passphrase check; False
    when they are sealed already (under this passphrase, or an older one not given)."""
    held = conn.execute(text("SELECT salt, verifier FROM sidesecret WHERE side_id = :side"),
                        {"side": side_id}).first()  # fmt: skip
    old_key = None
    if held is not None:
        if held[0] == sealing.verifier.salt:
            return False
        try:
            old_key = secrets.check_passphrase(sealing.old_passphrase or "", held[0], held[1])
        except InvalidInput:
            return False  # sealed under an older passphrase: nothing plain in it
    reseal_rows(conn, side_id, old_key, sealing.key)
    values = {"side": side_id, "salt": sealing.verifier.salt,
              "verifier": sealing.verifier.verifier}  # fmt: skip
    if held is None:
        conn.execute(text("INSERT INTO sidesecret (side_id, salt, verifier) "
                          "VALUES (:side, :salt, :verifier)"), values)  # fmt: skip
    else:
        conn.execute(text("UPDATE sidesecret SET salt = :salt, verifier = :verifier "
                          "WHERE side_id = :side"), values)  # fmt: skip
    return True


def reseal_backups(
    factory: SessionFactory, *, side_id: int, passphrase: str, old_passphrase: str | None
) -> tuple[Path, ...]:
    """Seal the side's secrets in every backup under its passphrase now set, the side found there
    by its and its campaign's ids (never a name or a row number); the backups not rewritten."""
    path = campaign_file(factory)
    if path is None:
        return ()
    with session_scope(factory) as session:
        side = session.get(Side, side_id)
        verifier = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
        if side is None or verifier is None:
            return ()
        session.expunge(verifier)
        campaign = session.get(Campaign, side.campaign_id)
        assert campaign is not None  # a side's campaign: a foreign key
        side_uid, campaign_uid = side.uid, campaign.uid
    key = secrets.check_passphrase(passphrase, verifier.salt, verifier.verifier)
    sealing = _Sealing(campaign_uid, side_uid, verifier, old_passphrase, key)
    return tuple(backup.path for backup in list_backups(path)
                 if not _reseal_backup(backup.path, sealing))  # fmt: skip


def seal_undone_reveal(session: Session, entry: JournalEntry) -> bool:
    """An entry undone that revealed a secret (visibility.reveals): it, and every later entry about
    the rows it revealed, sealed again as the rows are (docs/RULES.md §Secrets); False when it
    revealed nothing. A redo reveals again, with the owner's passphrase."""
    rows = {(change["table"], change["id"]) for change in changes_of(entry)
            if visibility.reveals(change["table"], change.get("before") or {},
                                  change.get("after") or {})}  # fmt: skip
    if not rows:
        return False
    after = JournalEntry.campaign_id == entry.campaign_id, col(JournalEntry.id) > (entry.id or 0)
    later = rows_where(session, JournalEntry, *after)
    for written in (entry, *later):
        touched = [(change["table"], change["id"]) for change in changes_of(written)
                   if (change["table"], change["id"]) in rows]  # fmt: skip
        if not touched:
            continue
        side = session.get(Side, written.side_id) if written.side_id else None
        table, row_id = touched[0]
        words = f"{side.name + ': ' if side else ''}{visibility.SECRET_AGAIN[table]} #{row_id} " \
            "(its reveal undone: secret again)"  # fmt: skip
        # An undo or redo of a later change keeps its own words before the row's.
        verb = written.summary.split(": ", 1)[0] + ": " if written.reverts_id else ""
        written.summary = verb + words
        written.detail = json.dumps(visibility.sealed_again(json.loads(written.detail)),
                                    sort_keys=True)  # fmt: skip
        session.add(written)
    return True


def changes_of(entry: JournalEntry) -> list[dict[str, Any]]:
    """The rows an entry names for undo (its "changes"), as undo and the sealing read them."""
    return list(json.loads(entry.detail).get("changes") or [])


def delete_backups(factory: SessionFactory, *, paths: Sequence[Path]) -> int:
    """Delete backups of this campaign file that still hold plain notes; how many went."""
    path = campaign_file(factory)
    known = {backup.path.resolve() for backup in list_backups(path)} if path else set()
    gone = 0
    for backup in paths:
        if backup.resolve() not in known:
            raise InvalidInput({"backup": f"{backup} is not a backup of this campaign file"})
        backup.unlink(missing_ok=True)
        gone += 1
    return gone
