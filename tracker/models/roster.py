"""The War at Sea fleet roster: unit cards, sub markers and their secret notes (RULES.md §Subs)."""

from datetime import datetime

from sqlalchemy import UniqueConstraint, false
from sqlmodel import Field

from tracker.models.base import Input, Model, Row, SideRow
from tracker.models.campaign import utcnow
from tracker.models.fields import field, same_as
from tracker.models.fleet import ShipBase
from tracker.models.identity import Identified
from tracker.models.kinds import MarkerState, Stored, UnitType, text_column
from tracker.models.versioned import Edit, ShownRow, Versioned
from tracker.rules import was

UNIT_TYPES = tuple(UnitType)


class WasUnitBase(Model):
    """A War at Sea unit card as printed, each value declared once (RULES.md §Subs)."""

    name: str = field(label="Name", min_length=1, max_length=60)
    unit_type: Stored[UnitType] = field(
        label="Type", max_length=20, options=[(kind, kind) for kind in UNIT_TYPES],
        sa_type=text_column(20),
    )  # fmt: skip
    nation: str = same_as(ShipBase, "nation")
    class_name: str = same_as(ShipBase, "class_name")
    points: int = field(0, label="Points", ge=0, le=999)
    year: int | None = field(None, label="Year", blank="unknown", ge=1900, le=1950)
    speed: str = field("", label="Speed (1-3, A for aircraft)", max_length=4)
    armor: int = field(1, label="Armor", ge=0, le=30)
    vital_armor: int = field(1, label="Vital armor", ge=0, le=30)
    hull_points: int = field(1, label="Hull points", ge=1, le=20)
    # An aircraft's air-to-air dice (its card's aircraft gunnery), the initiative bonus of a
    # flagship, the planes a carrier holds: printed on the cards that have them.
    air_to_air: int | None = field(None, label="Air-to-air dice", blank="none", ge=0, le=20)
    flagship: int | None = field(None, label="Flagship rating", blank="none", ge=0, le=9)
    plane_capacity: int | None = field(None, label="Plane capacity", blank="none", ge=0, le=99)
    damage: int = field(0, label="Hull damage taken", ge=0, le=20)
    # JSON {"main": [r0, r1, r2, r3], "secondary", "tertiary", "anti_air", "asw", "torpedo",
    # "bomb"}: dice by range, null where the card shows "-".
    attacks: str = Field(default="{}")
    # One ability per line: Sub Hunter, Elusive Quarry, Pinpointer, ... (user-editable).
    abilities: str = field("", label="Abilities (; between)", max_length=2000)
    extra_decoys: int = field(
        0, label=f"Extra decoys ({was.DECOY_COST} pts each)", ge=0, le=was.MAX_EXTRA_DECOYS
    )
    notes: str = field("", label="Notes", max_length=2000)


class WasUnit(SideRow, WasUnitBase, Versioned, Identified, table=True):
    __table_args__ = (UniqueConstraint("side_id", "name"),)


class UnitCreate(WasUnitBase, Input):
    """A unit card as the player typed it; its attack rows are checked by the service."""


class UnitUpdate(Edit, UnitCreate): ...


class UnitRead(ShownRow, WasUnitBase):
    """A unit card as the roster shows it; the damage of a concealed submarine is None in the
    opponent view (RULES.md §Secrets)."""

    # Declared on the card (WasUnitBase), shown retyped (mypy: a read model may show a stored
    # field in another type): None where the viewer may not see it, the abilities one a line,
    # the attacks as dice by range.
    damage: int | None = WasUnitBase.model_fields["damage"]  # type: ignore[assignment]
    abilities: tuple[str, ...] = WasUnitBase.model_fields["abilities"]  # type: ignore[assignment]
    attacks: dict[str, list[int | None]] = {}  # type: ignore[assignment]
    crippled: bool | None
    destroyed: bool


class SubMarkerBase(Model):
    """Where a marker lies on the map, as its owner says it (RULES.md §Subs ¶2-3)."""

    sector: str = field("", label="Sector", max_length=12)


class MarkerPlace(Edit, SubMarkerBase):
    """A marker placed or moved: its sector and the turn of the move (a move names its sector;
    an assignment may leave it blank)."""

    # A database integer: a turn past it could not be stored.
    turn: int | None = field(None, label="Turn", blank="none in play", ge=1, le=2**31 - 1)


class SubMarker(SideRow, SubMarkerBase, Versioned, Identified, table=True):
    """A generic face-down marker; which one is the real submarine is in `secret`."""

    __table_args__ = (UniqueConstraint("side_id", "code"),)
    unit_id: int = Field(foreign_key="wasunit.id", index=True, ondelete="CASCADE")
    code: str = Field(max_length=8)  # public face-down code, e.g. M-07
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


class SideSecret(Row, table=True):
    """A side's passphrase check: a salt and a verifier, never the passphrase itself."""

    side_id: int = Field(foreign_key="side.id", unique=True, ondelete="CASCADE")
    salt: str = Field(max_length=64)
    verifier: str = Field(max_length=200)


class MarkerRead(ShownRow, SubMarkerBase):
    """A marker as the roster shows it; `real` (its owner's note) and `unit_id` are None in
    the opponent view (RULES.md §Secrets): never read from the row, always given."""

    code: str
    unit_id: int | None  # None in the opponent view: the marker is generic
    state: str
    real: bool | None
    seal: str
