"""A reveal undone seals again everything it made public (docs/RULES.md §Secrets): the journal
entry of the reveal, and of every change made to the row while it was public, keeps its secret
values no more, in the file, in a backup taken after and in the export for the opponent; the
row's own sealed note is the one copy left, sealed by a passphrase set later. The class is every
reveal visibility.REVEALED_WHEN declares (a minefield revealed, a marker revealed), whichever
service wrote it. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from service_helpers import World
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry, Minefield, SubMarker
from tracker.models.kinds import JournalKind, MarkerState
from tracker.services import (
    backups,
    exchange,
    history,
    journal,
    markers,
    mines,
    roster,
    sealing,
    visibility,
)
from tracker.services.errors import InvalidInput
from tracker.services.roster import UnitFields
from tracker.services.visibility import Viewer

PASS = "Prien-U47"
# Words the tracker never writes of itself: each is a secret of Red's.
PLACE, LAYER, NOTES, DRIFTED_TO = "Scapa Q3", "Ulmwerk", "behind the blockships", "Scapa Q4"
SECRET_WORDS = (PLACE, LAYER, NOTES, DRIFTED_TO)


def _secret_field(factory: SessionFactory, world: World, passphrase: str | None) -> int:
    return mines.sow_minefield(
        factory, side_id=world.red_id, laid_by="surface", sector=PLACE, layer_name=LAYER,
        secret=True, drifting=True, notes=NOTES, passphrase=passphrase, complete=True,
    )  # fmt: skip


def _journal_text(factory: SessionFactory, campaign_id: int) -> str:
    """Every entry's wording and detail, with each sealed note taken out: what the journal
    says of itself, outside the notes a passphrase seals."""
    with session_scope(factory) as session:
        query = select(JournalEntry).where(JournalEntry.campaign_id == campaign_id)
        entries = session.exec(query.order_by(col(JournalEntry.id))).all()
        texts = [entry.summary + json.dumps(_unsealed(json.loads(entry.detail)))
                 for entry in entries]  # fmt: skip
    return "\n".join(texts)


def _unsealed(value: object) -> object:
    if isinstance(value, dict):
        return {key: _unsealed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unsealed(item) for item in value]
    if isinstance(value, str) and value.startswith(("plain:", "fernet:")):
        return "<sealed note>"
    return value


def _for_opponent(factory: SessionFactory, campaign_id: int) -> str:
    document = exchange.export_campaign(factory, campaign_id=campaign_id, viewer=Viewer.OPPONENT)
    return exchange.dumps(document)


@pytest.mark.parametrize("passphrase", [None, PASS], ids=["no-passphrase", "passphrase"])
def test_secrets_a_minefields_reveal_undone_is_sealed_again_with_its_drift_since(
    factory: SessionFactory, world: World, passphrase: str | None,
    stored_bytes: Callable[[], bytes], backend: str,
) -> None:  # fmt: skip
    if passphrase:
        sealing.set_passphrase(factory, side_id=world.red_id, passphrase=passphrase)
    field_id = _secret_field(factory, world, passphrase)
    revealed = mines.reveal(factory, minefield_id=field_id, passphrase=passphrase)
    drifted = mines.drift(factory, minefield_id=field_id, to_sector=DRIFTED_TO, d6=4, turn=1)
    assert PLACE in revealed and DRIFTED_TO in drifted  # public while revealed
    assert DRIFTED_TO in _for_opponent(factory, world.campaign_id)
    history.undo_last(factory, campaign_id=world.campaign_id)  # the drift
    undone = history.undo_last(factory, campaign_id=world.campaign_id)  # the reveal
    assert not any(word in undone.summary for word in SECRET_WORDS)

    text = _journal_text(factory, world.campaign_id)
    assert [word for word in SECRET_WORDS if word in text] == []
    assert [
        word for word in SECRET_WORDS if word in _for_opponent(factory, world.campaign_id)
    ] == []
    with session_scope(factory) as session:
        field = session.get(Minefield, field_id)
        assert field is not None and field.secret and (field.sector, field.notes) == ("", "")
    owner = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.red_id,
                         passphrase=passphrase)  # fmt: skip
    assert (owner.minefields[0].sector, owner.minefields[0].notes) == (PLACE, NOTES)
    if not passphrase:  # the row's plain note is the last copy: the passphrase seals it
        sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    stored = stored_bytes()
    assert [word for word in SECRET_WORDS if word.encode() in stored] == []
    if backend == "sqlite":
        taken = backups.back_up(factory, reason="closed-scenario-1").path
        assert taken is not None
        assert [word for word in SECRET_WORDS if word.encode() in taken.read_bytes()] == []
    assert undone.sealed_again


def test_secrets_a_reveal_undone_is_not_redone_but_revealed_again(
    factory: SessionFactory, world: World
) -> None:
    field_id = _secret_field(factory, world, None)
    mines.reveal(factory, minefield_id=field_id)
    history.undo_last(factory, campaign_id=world.campaign_id)
    with pytest.raises(InvalidInput, match="reveals it again"):
        history.redo_last(factory, campaign_id=world.campaign_id)
    assert PLACE in mines.reveal(factory, minefield_id=field_id)
    assert PLACE in _for_opponent(factory, world.campaign_id)


def _red_marker(factory: SessionFactory, world: World) -> SubMarker:
    unit = roster.save_unit(factory, side_id=world.red_id, fields=UnitFields(
        name="U-47", unit_type="submarine", points=10, hull_points=2))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=["Scapa Q1", "Scapa Q2"])
    with session_scope(factory) as session:
        return session.exec(select(SubMarker).where(SubMarker.unit_id == unit)).first()


def _revealing_entry(factory: SessionFactory, world: World, marker: SubMarker) -> None:
    """A marker's reveal as any service would journal it, undoable: its state and the unit it
    stands for in its change, the unit's name in its words."""
    with session_scope(factory) as session:
        row = session.get(SubMarker, marker.id)
        assert row is not None
        row.state = MarkerState.REVEALED
        journal.append(
            session, campaign_id=world.campaign_id, kind=JournalKind.MARKER, side_id=world.red_id,
            summary=f"Red: {marker.code} is U-47, revealed {NOTES}",
            changes=(journal.RowChange(
                "submarker", marker.id or 0, {"state": marker.state, "unit_id": marker.unit_id},
                {"state": MarkerState.REVEALED, "unit_id": marker.unit_id}),),
        )  # fmt: skip


def test_secrets_every_declared_reveal_undone_is_sealed_again() -> None:
    """The declaration: a minefield made public and a marker revealed are reveals, and nothing
    else is; a change that keeps a row as public as it was is none."""
    assert set(visibility.REVEALED_WHEN) == {"minefield", "submarker"}
    assert visibility.reveals("minefield", {"secret": True}, {"secret": False})
    assert not visibility.reveals("minefield", {"secret": False}, {"secret": True})
    assert not visibility.reveals("minefield", {"status": "sowing"}, {"status": "active"})
    assert visibility.reveals("submarker", {"state": "concealed"}, {"state": "revealed"})
    assert not visibility.reveals("submarker", {"state": "revealed"}, {"state": "removed"})
    assert not visibility.reveals("ship", {"torpedo_factors": 2}, {"torpedo_factors": 0})


def test_secrets_a_markers_reveal_undone_is_sealed_again(
    factory: SessionFactory, world: World
) -> None:
    marker = _red_marker(factory, world)
    _revealing_entry(factory, world, marker)
    assert NOTES in _for_opponent(factory, world.campaign_id)
    undone = history.undo_last(factory, campaign_id=world.campaign_id)
    assert NOTES not in undone.summary
    assert NOTES not in _journal_text(factory, world.campaign_id)
    assert NOTES not in _for_opponent(factory, world.campaign_id)
    with session_scope(factory) as session:  # which unit it stands for: out of the journal
        details = [json.loads(entry.detail) for entry in session.exec(select(JournalEntry))]
    units = [
        state.get("unit_id")
        for detail in details
        for change in detail["changes"]
        if change["table"] == "submarker"
        for state in (change["before"], change["after"])
    ]
    assert units and marker.unit_id not in units
    with session_scope(factory) as session:
        row = session.get(SubMarker, marker.id)
        assert row is not None and row.state == MarkerState.CONCEALED
    assert undone.sealed_again
