"""The War at Sea fleet roster: unit cards, sub markers and their secret notes (RULES.md §Subs)."""

from datetime import datetime

from sqlalchemy import UniqueConstraint, false
from sqlmodel import Field, SQLModel

from tracker.models.campaign import utcnow
from tracker.models.kinds import MarkerState, Stored, UnitType, text_column
from tracker.models.versioned import Versioned

UNIT_TYPES = tuple(UnitType)
MARKER_STATES = tuple(MarkerState)


class WasUnitBase(SQLModel):
    name: str = Field(max_length=60)
    unit_type: Stored[UnitType] = Field(max_length=20, sa_type=text_column(20))
    nation: str = Field(default="", max_length=40)
    points: int = Field(default=0, ge=0)
    year: int | None = Field(default=None)
    speed: str = Field(default="", max_length=4)  # 1..3 for ships and subs, A for aircraft
    armor: int = Field(default=1, ge=0)
    vital_armor: int = Field(default=1, ge=0)
    hull_points: int = Field(default=1, ge=1)
    damage: int = Field(default=0, ge=0)
    # JSON {"main": [r0, r1, r2, r3], "secondary", "tertiary", "anti_air", "asw", "torpedo",
    # "bomb"}: dice by range, null where the card shows "-".
    attacks: str = Field(default="{}")
    # One ability per line: Sub Hunter, Elusive Quarry, Pinpointer, ... (user-editable).
    abilities: str = Field(default="", max_length=2000)
    extra_decoys: int = Field(default=0, ge=0, le=2)
    notes: str = Field(default="", max_length=2000)


class WasUnit(WasUnitBase, Versioned, table=True):
    __table_args__ = (UniqueConstraint("side_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    side_id: int = Field(foreign_key="side.id", index=True, ondelete="CASCADE")


class SubMarker(Versioned, table=True):
    """A generic face-down marker; which one is the real submarine is in `secret`."""

    __table_args__ = (UniqueConstraint("side_id", "code"),)
    id: int | None = Field(default=None, primary_key=True)
    side_id: int = Field(foreign_key="side.id", index=True, ondelete="CASCADE")
    unit_id: int = Field(foreign_key="wasunit.id", index=True, ondelete="CASCADE")
    code: str = Field(max_length=8)  # public face-down code, e.g. M-07
    sector: str = Field(default="", max_length=12)
    state: Stored[MarkerState] = Field(default="concealed", max_length=10, sa_type=text_column(10))
    created_turn: int | None = Field(default=None)
    moved_turn: int | None = Field(default=None)
    # The hunt (RULES.md §Subs ¶4): the scenario and turn of the last search for this marker, and
    # whether it found it. An aircraft or surface unit may attack a concealed marker only when found
    # this turn; one search per square per turn.
    search_scenario_id: int | None = Field(default=None)
    search_turn: int | None = Field(default=None)
    search_found: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # The owner's note: "plain:{json}" or, with a passphrase, "fernet:{token}". Never shown in
    # the opponent view.
    secret: str = Field(default="")
    # Public seal of the assignment this marker belongs to (salted hash, shown at assignment).
    seal: str = Field(default="", max_length=80)
    at: datetime = Field(default_factory=utcnow)


class SideSecret(SQLModel, table=True):
    """A side's passphrase check: a salt and a verifier, never the passphrase itself."""

    id: int | None = Field(default=None, primary_key=True)
    side_id: int = Field(foreign_key="side.id", unique=True, ondelete="CASCADE")
    salt: str = Field(max_length=64)
    verifier: str = Field(max_length=200)
