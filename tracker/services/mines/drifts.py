"""Drifting minefields: they scatter in the end-of-turn phase, once a turn, from the end of the
turn they are laid (RULES.md §Subs ¶13). Every drift and the count of drifts still due at the
end of a turn ask one rule (`_drift_refusal`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, col

from tracker.db import SessionFactory, session_scope
from tracker.models import Minefield
from tracker.models.kinds import MinefieldStatus
from tracker.rules import was
from tracker.rules.dice import roll_text
from tracker.services import journal
from tracker.services.common import rows_where
from tracker.services.errors import InvalidInput, check
from tracker.services.mines import places
from tracker.services.sealing import side_key

LIVE = (MinefieldStatus.SOWING, MinefieldStatus.ACTIVE)  # minefields that are on the map


def drift(
    factory: SessionFactory,
    *,
    minefield_id: int,
    to_boundary_id: int | None = None,
    to_sector: str = "",
    d6: int | None = None,
    turn: int | None = None,
    passphrase: str | None = None,
    version: int | None = None,
) -> str:
    """A drifting minefield scatters at the end of the turn to the place the player gives (or
    the way a d6 said); the ledger keeps its path (RULES.md §Subs ¶13)."""
    errors: dict[str, str] = {}
    if d6 is not None and not 1 <= d6 <= 6:
        errors["d6"] = "a d6 shows 1..6"
    with session_scope(factory) as session:
        field, side = places.field_and_side(session, minefield_id, version)
        if not field.drifting:
            raise InvalidInput({"minefield": f"minefield #{field.id} is secured: it stays put"})
        if field.status not in LIVE:
            raise InvalidInput({"minefield": f"minefield #{field.id} is {field.status}"})
        to_sector = places.validated(session, field.campaign_id, to_boundary_id, to_sector, errors)
        check(errors)
        key = side_key(session, side.id or 0, passphrase) if field.secret else None
        scenario_id, turn = places.turn_of(session, field.campaign_id, turn)
        refusal = _drift_refusal(field, scenario_id, turn)
        if refusal:
            raise InvalidInput({"minefield": f"minefield #{field.id}: {refusal}"})
        place = places.opened(session, field, key)
        old = places.label(session, place["boundary_id"], place["sector"])
        new = places.label(session, to_boundary_id, to_sector)
        place["path"] = [*place["path"], {"turn": turn, "from": old, "to": new, "d6": d6}]
        place["boundary_id"], place["sector"] = to_boundary_id, to_sector
        before = journal.row_state(field)
        places.store(session, field, place, key)
        field.drift_scenario_id, field.drift_turn = scenario_id, turn
        way = f" ({roll_text(d6)})" if d6 is not None else ""
        summary = f"{side.name}: minefield #{field.id} drifted from {old} to {new}{way}"
        dice = {"d6": d6} if d6 is not None else None
        if field.secret:
            # A secret drift says nothing in clear, and is not undoable: its before and after
            # would be the sealed notes alone, which the row already keeps.
            places.journal_laid(session, side, field, summary, key, dice=dice)
            return f"{side.name}: minefield #{field.id} drifted"  # no place, no die
        places.field_change(session, field, side, before, summary, dice=dice)
        return summary


def _drift_refusal(field: Minefield, scenario_id: int | None, turn: int | None) -> str | None:
    """Why this minefield may not drift at the end of this turn, or None: the one rule of a
    drift and of the count of drifts still due (RULES.md §Subs ¶13)."""
    return was.drift_refusal(
        turn, complete=field.status == MinefieldStatus.ACTIVE,
        laid_turn=field.turn_completed if field.scenario_id == scenario_id else None,
        last_drift_turn=field.drift_turn if field.drift_scenario_id == scenario_id else None,
    )  # fmt: skip


def _public_drifting(session: Session, campaign_id: int) -> Sequence[Minefield]:
    """The public drifting minefields on the map, complete: a secret one's drifting is its
    owner's to know (RULES.md §Secrets), so no count shown at the table includes it."""
    return rows_where(session, Minefield, Minefield.campaign_id == campaign_id,
                      col(Minefield.drifting).is_(True), col(Minefield.secret).is_(False),
                      Minefield.status == MinefieldStatus.ACTIVE)  # fmt: skip


def not_drifted(factory: SessionFactory, *, campaign_id: int) -> int:
    """How many public drifting minefields may drift yet this turn in play (RULES.md §Subs ¶13)."""
    with session_scope(factory) as session:
        playing = journal.scenario_in_play(session, campaign_id)
        if playing is None:
            return 0
        return sum(
            1
            for row in _public_drifting(session, campaign_id)
            if _drift_refusal(row, playing.id, playing.turn) is None
        )


def drifting(factory: SessionFactory, *, campaign_id: int) -> int:
    """How many public drifting minefields are on the map, complete (RULES.md §Subs ¶13)."""
    with session_scope(factory) as session:
        return len(_public_drifting(session, campaign_id))
