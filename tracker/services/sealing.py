"""No plain copy outlives the passphrase: a side's secrets sealed again everywhere they are kept.

Setting or changing a passphrase seals the side's marker notes, secret minefields and the
journal entries of its secret changes under the new key, in the campaign file and in every
backup of it (docs/RULES.md §Secrets). A backup that cannot be rewritten is named, so the player
can delete it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from tracker.db import (
    DatabaseProblem,
    SessionFactory,
    list_backups,
    make_engine,
    session_factory,
    session_scope,
)
from tracker.models import JournalEntry, Minefield, Side, SideSecret, SubMarker
from tracker.services import secrets, visibility
from tracker.services.backups import campaign_file
from tracker.services.errors import DatabaseUnavailable, InvalidInput

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sealed:
    """What setting a passphrase left behind: backups that still hold the side's plain notes,
    and whether the campaign file's write-ahead log could be folded in (False: another program
    reads the file, and a plain copy may remain in it until that program closes)."""

    plain_backups: tuple[Path, ...] = ()
    checkpointed: bool = True


def reseal_side(session: Session, side_id: int, old_key: bytes | None, new_key: bytes) -> None:
    """Seal every secret of a side again under a new key, in this session's database."""
    for marker in session.exec(select(SubMarker).where(SubMarker.side_id == side_id)).all():
        marker.secret = secrets.seal_note(secrets.open_note(marker.secret, old_key), new_key)
    secret_fields = select(Minefield).where(
        Minefield.side_id == side_id, col(Minefield.secret).is_(True)
    )
    for field in session.exec(secret_fields).all():
        field.sealed = secrets.seal_note(secrets.open_note(field.sealed, old_key), new_key)
    # Only entries that keep a note: every other entry of the side stays as written.
    entries = select(JournalEntry).where(
        JournalEntry.side_id == side_id,
        col(JournalEntry.detail).contains(secrets.PLAIN)
        | col(JournalEntry.detail).contains(secrets.SEALED),
    )
    for entry in session.exec(entries).all():
        entry.detail = visibility.reseal_detail(entry.detail, old_key, new_key)


def _reseal_backup(
    path: Path, side_id: int, side_name: str, verifier: SideSecret, old_passphrase: str | None,
    new_key: bytes,
) -> bool:  # fmt: skip
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
        factory = session_factory(engine)
        with session_scope(factory) as session:
            side = session.get(Side, side_id)
            if side is None or side.name != side_name:
                return True  # this backup does not hold the side: nothing of it to seal
            held = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
            old_key = None
            if held is not None:
                if held.salt == verifier.salt:
                    return True  # sealed already under this passphrase
                try:
                    old_key = secrets.check_passphrase(old_passphrase or "", held.salt,
                                                       held.verifier)  # fmt: skip
                except InvalidInput:
                    return True  # sealed under an older passphrase: nothing plain in it
            reseal_side(session, side_id, old_key, new_key)
            held = held or SideSecret(side_id=side_id, salt=verifier.salt, verifier="")
            held.salt, held.verifier = verifier.salt, verifier.verifier
            session.add(held)
        with engine.connect() as conn:
            raw: Any = conn.connection.driver_connection
            raw.execute("VACUUM")  # the freed pages of the plain notes, gone from the file
            # Back to one file, as a backup is kept: the log folded in and removed.
            raw.execute("PRAGMA journal_mode=DELETE")
        return True
    except (
        InvalidInput,
        DatabaseUnavailable,
        DatabaseProblem,
        SQLAlchemyError,
        sqlite3.Error,
        OSError,
    ) as exc:
        log.warning("could not seal the notes in backup %s: %s", path, exc)
        return False
    finally:
        engine.dispose()


def reseal_backups(
    factory: SessionFactory, *, side_id: int, passphrase: str, old_passphrase: str | None
) -> tuple[Path, ...]:
    """Seal the side's secrets in every backup of the campaign file under its passphrase now
    set; the backups that could not be rewritten (they may still hold plain notes)."""
    path = campaign_file(factory)
    if path is None:
        return ()
    with session_scope(factory) as session:
        side = session.get(Side, side_id)
        verifier = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
        if side is None or verifier is None:
            return ()
        session.expunge(verifier)
        side_name = side.name
    key = secrets.check_passphrase(passphrase, verifier.salt, verifier.verifier)
    failed = [
        backup.path
        for backup in list_backups(path)
        if not _reseal_backup(backup.path, side_id, side_name, verifier, old_passphrase, key)
    ]
    return tuple(failed)


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
