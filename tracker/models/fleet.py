"""Squadrons, their commanders and crews, ships and their batteries (SMR2 §3)."""

from sqlalchemy import UniqueConstraint, false
from sqlmodel import Field, SQLModel

from tracker.models.kinds import Acquisition, ListStatus, Stored, text_column
from tracker.models.versioned import Versioned


class Commander(Versioned, table=True):
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    name: str = Field(default="", max_length=60)
    air: bool = Field(default=False)
    acquisition: Stored[Acquisition] = Field(
        default="random", max_length=10, sa_type=text_column(10)
    )
    training: int = Field(ge=1, le=5)
    roll: int | None = Field(default=None, ge=1, le=10)
    grade: int = Field(ge=1, le=5)
    modifier_now: int = Field(ge=-2, le=2)
    radius_now_cm: int = Field(ge=10)
    status: Stored[ListStatus] = Field(default="active", max_length=10, sa_type=text_column(10))


class Crew(Versioned, table=True):
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    acquisition: Stored[Acquisition] = Field(
        default="random", max_length=10, sa_type=text_column(10)
    )
    training: int = Field(ge=1, le=5)
    roll: int | None = Field(default=None, ge=1, le=10)
    roll_modified: int | None = Field(default=None, ge=1, le=10)
    grade: int = Field(ge=1, le=5)
    modifier_now: int = Field(ge=-2, le=2)


class Squadron(Versioned, table=True):
    __table_args__ = (UniqueConstraint("side_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    side_id: int = Field(foreign_key="side.id", index=True, ondelete="CASCADE")
    name: str = Field(max_length=60)
    air: bool = Field(default=False)
    commander_id: int | None = Field(default=None, foreign_key="commander.id", ondelete="SET NULL")
    crew_id: int | None = Field(default=None, foreign_key="crew.id", ondelete="SET NULL")
    notes: str = Field(default="", max_length=2000)
    # The ship carrying the commander, from which command is measured (SMR2 §3.1). No foreign
    # key: a ship already names its squadron, and the two tables would each wait for the other.
    commander_ship_id: int | None = Field(default=None)


class ShipBase(SQLModel):
    name: str = Field(max_length=60)
    class_name: str = Field(default="", max_length=60)
    type_abbrev: str = Field(default="", max_length=8)
    nation: str = Field(default="", max_length=40)
    size_modifier: int = Field(default=0, ge=-3, le=3)
    speed_kn: int = Field(default=0, ge=0, le=60)
    armour_class: str = Field(default="", max_length=20)
    structure_max: int = Field(default=1, ge=1)
    structure_now: int = Field(default=1, ge=0)
    flotation_max: int = Field(default=1, ge=1)
    flotation_now: int = Field(default=1, ge=0)
    fire_markers: int = Field(default=0, ge=0)
    points_base: int = Field(default=0, ge=0)
    torpedoes: str = Field(default="", max_length=200)
    sraa_dp: str = Field(default="", max_length=200)
    radar: str = Field(default="", max_length=200)
    notes: str = Field(default="", max_length=4000)


class Ship(ShipBase, Versioned, table=True):
    __table_args__ = (UniqueConstraint("side_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    side_id: int = Field(foreign_key="side.id", index=True, ondelete="CASCADE")
    squadron_id: int = Field(foreign_key="squadron.id", index=True)
    # Frozen at set-up: morale strength counts original members only (SMR2 §3.4).
    original_squadron_id: int = Field(foreign_key="squadron.id", index=True)
    transferred_turn: int | None = Field(default=None)
    transferred_scenario_id: int | None = Field(default=None)
    # The ship's own crew once it has left its first squadron: a crew belongs to its ship
    # (SMR2 §3.2); None while the ship's crew is its squadron's.
    crew_id: int | None = Field(default=None, foreign_key="crew.id", ondelete="SET NULL")
    sunk: bool = Field(default=False)
    # What the player confirmed when Structure or Flotation reached zero (the seeds do not say).
    condition: str = Field(default="", max_length=60, sa_column_kwargs={"server_default": ""})
    # Second World War at Sea counter values (RULES.md §Mines): entered, never derived.
    counter_size: str = Field(default="", max_length=5, sa_column_kwargs={"server_default": ""})
    speed_rating: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    speed_lost: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    torpedo_factors: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    # Minefields loaded in place of torpedo factors at set-up (fixed for the scenario).
    mines_loaded: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    gunnery_lost: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    hull_boxes: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    hull_damage: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    crippled: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    fuel_full: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    fuel_empty: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    fuel_lost: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    # A ship deleted after it took part in a scenario: kept for the scenarios' history and its
    # squadron's original strength, gone from the sheet and the pick lists.
    retired: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class Battery(Versioned, table=True):
    id: int | None = Field(default=None, primary_key=True)
    ship_id: int = Field(foreign_key="ship.id", index=True, ondelete="CASCADE")
    mount: str = Field(max_length=12)  # turret | casemate | shielded | open | SRAA | DP
    calibre: str = Field(default="", max_length=20)
    guns: int = Field(default=1, ge=0)
    ip: str = Field(default="", max_length=20)
    range_bands: str = Field(default="", max_length=40)
    notes: str = Field(default="", max_length=400)
