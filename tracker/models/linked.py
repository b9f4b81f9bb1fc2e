"""Linked scenarios: who takes part, each ship's state at start and end, repairs between them."""

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field

from tracker.models.base import Row, ShipRow
from tracker.models.campaign import utcnow
from tracker.models.identity import Identified
from tracker.models.kinds import RepairStatus, SnapshotPhase, Stored, text_column


class Participation(Row, table=True):
    """A ship taking part in a scenario (ships not taking part keep their state)."""

    __table_args__ = (UniqueConstraint("scenario_id", "ship_id"),)
    scenario_id: int = Field(foreign_key="scenario.id", index=True, ondelete="CASCADE")
    ship_id: int = Field(foreign_key="ship.id", index=True, ondelete="CASCADE")


class ScenarioSide(Row, table=True):
    """A side's correction factor in a scenario (SMR2 12.1 is not in our sources: the player's)."""

    __table_args__ = (UniqueConstraint("scenario_id", "side_id"),)
    scenario_id: int = Field(foreign_key="scenario.id", index=True, ondelete="CASCADE")
    side_id: int = Field(foreign_key="side.id", index=True, ondelete="CASCADE")
    correction_factor: str = Field(default="", max_length=60)


class ShipSnapshot(Row, table=True):
    """A ship's state at the start or the end of a scenario it took part in."""

    __table_args__ = (UniqueConstraint("scenario_id", "ship_id", "phase"),)
    scenario_id: int = Field(foreign_key="scenario.id", index=True, ondelete="CASCADE")
    ship_id: int = Field(foreign_key="ship.id", index=True, ondelete="CASCADE")
    phase: Stored[SnapshotPhase] = Field(max_length=5, sa_type=text_column(5))
    structure: int
    flotation: int
    fire_markers: int = 0
    speed_kn: int = 0
    sunk: bool = False
    condition: str = Field(default="", max_length=60)
    # JSON list of the criticals in force: [{"id", "kind", "effect"}]
    criticals: str = Field(default="[]")
    # The squadron the ship was in at that moment: a squadron's original composition for a
    # scenario is the ships it began it with (SMR2 §3.4).
    squadron_id: int | None = Field(default=None, foreign_key="squadron.id", ondelete="SET NULL")
    commander_modifier: int | None = None
    commander_radius_cm: int | None = None
    crew_modifier: int | None = None
    # JSON of the Second World War at Sea counter state: fuel, hull, speed and gunnery lost.
    counter: str = Field(default="{}", sa_column_kwargs={"server_default": "{}"})
    at: datetime = Field(default_factory=utcnow)


class Repair(ShipRow, Identified, table=True):
    """Repairs between scenarios, after the ship's last scenario (SMR2 12.2 is the group's own)."""

    # The campaign's last closed scenario when the repair was made: the period between two
    # scenarios it belongs to, against whose allowance it counts.
    after_scenario_id: int | None = Field(default=None, foreign_key="scenario.id",
                                          ondelete="SET NULL")  # fmt: skip
    structure: int = 0
    flotation: int = 0
    criticals_cleared: int = 0
    in_port: bool = True
    # Fuel factors lost to mines made empty again: only a repair in a friendly port does it.
    fuel_restored: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    notes: str = Field(default="", max_length=400)
    # void once the repair is undone (the journal keeps it)
    status: Stored[RepairStatus] = Field(default="done", max_length=10, sa_type=text_column(10))
    at: datetime = Field(default_factory=utcnow)
