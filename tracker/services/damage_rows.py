"""The rows a hit reads and writes (services.damage): everything it checks read in one statement,
the ship written back as a row with its version checked.

A hit is what the player waits for at the table. Loading the ship and the current scenario as
ORM objects, and flushing the ship, took most of its own time: a `Ship` alone has 46
instrumented fields to set. The hit reads the ship's row into a plain namespace of its fields,
and the scenario's few columns the journal entry files it under.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, NamedTuple

from sqlalchemy import Select, Table, bindparam, update
from sqlalchemy import select as sql_select
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session

from tracker.models import Scenario, Ship, Side
from tracker.models.kinds import ScenarioStatus
from tracker.services import journal, scenarios
from tracker.services.common import beyond_ids
from tracker.services.errors import NotFound

_SHIP: Table = Ship.__table__  # type: ignore[attr-defined]
_SIDE: Table = Side.__table__  # type: ignore[attr-defined]
_SCENARIO: Table = Scenario.__table__  # type: ignore[attr-defined]
# Bookkeeping of the row, not a field a change names (journal.row_state leaves them out too).
_BOOKKEEPING = ("id", "version")


class Current(NamedTuple):
    """The campaign's current scenario (journal.current_scenario), as far as a hit reads it."""

    id: int
    title: str
    status: ScenarioStatus
    turn: int


@dataclass(frozen=True)
class HitRows:
    ship: Any  # the ship's row, its fields as attributes (a SimpleNamespace the hit changes)
    campaign_id: int
    scenario: Current | None
    taking_part: bool  # the ship takes part in the current scenario
    played: bool  # a scenario of the campaign was closed: between two, if none is in play

    def fields(self) -> dict[str, Any]:
        """The ship's fields now, without its id and version: a change's before or after."""
        return {k: v for k, v in vars(self.ship).items() if k not in _BOOKKEEPING}


_NOW = _SCENARIO.alias("now")
_CURRENT_COLUMNS = (_NOW.c.id, _NOW.c.title, _NOW.c.status, _NOW.c.turn)
_READ: Select[Any] = (
    sql_select(
        *_SHIP.c,
        _SIDE.c.campaign_id,
        *(column.label(f"now_{column.key}") for column in _CURRENT_COLUMNS),
        scenarios.taking_part(_NOW.c.id, _SHIP.c.id).label("taking_part"),
        scenarios.closed_one(_SIDE.c.campaign_id).label("played"),
    )
    .select_from(
        _SHIP.join(_SIDE, _SIDE.c.id == _SHIP.c.side_id).outerjoin(
            _NOW, _NOW.c.id == journal.current_scenario_id(_SIDE.c.campaign_id)
        )
    )
    .where(_SHIP.c.id == bindparam("ship_id"))
)
_EXTRA = ("campaign_id", *(f"now_{column.key}" for column in _CURRENT_COLUMNS))


def read(session: Session, ship_id: int) -> HitRows:
    """The ship, its campaign, the current scenario and whether she takes part in it."""
    row = None if beyond_ids(ship_id) else session.connection().execute(
        _READ, {"ship_id": ship_id}).first()  # fmt: skip
    if row is None:
        raise NotFound(f"ship {ship_id} no longer exists")
    values = row._asdict()
    taking_part, played = bool(values.pop("taking_part")), bool(values.pop("played"))
    campaign_id, *now = (values.pop(key) for key in _EXTRA)
    current = None
    if now[0] is not None:
        current = Current(now[0], now[1], ScenarioStatus(now[2]), now[3])
    return HitRows(SimpleNamespace(**values), campaign_id, current, taking_part, played)


# The fields set are the row's keys other than the two the WHERE names.
_WRITE_SHIP = update(_SHIP).where(
    _SHIP.c.id == bindparam("row_id"), _SHIP.c.version == bindparam("read")
)


def write_ship(session: Session, ship: Any, change: journal.RowChange) -> None:
    """The ship's fields the hit changed and its version (as read) raised by one, as a flush did
    (models.versioned), even for a hit that changes no field: matching no row, another program
    changed it since."""
    row = {**change.after, "version": ship.version + 1, "row_id": ship.id, "read": ship.version}
    written = session.connection().execute(_WRITE_SHIP, row)
    if written.rowcount != 1:
        raise StaleDataError(f"ship {ship.id} was changed by another program")
