"""The minefield ledger and the task-force mine check (RULES.md §Mines; RULES.md §Subs ¶12-13)."""

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field
from sqlmodel.main import SQLModelConfig

from tracker.models.base import CampaignRow, Model, Row
from tracker.models.campaign import utcnow
from tracker.models.fields import field, same_as
from tracker.models.identity import Identified
from tracker.models.kinds import (
    AppliesTo,
    CounterSize,
    HaltRule,
    Layer,
    MineCheckStatus,
    MinefieldStatus,
    Stored,
    text_column,
)
from tracker.models.roster import SubMarkerBase
from tracker.models.versioned import Edit, ShownRow, Versioned

COUNTER_SIZES = tuple(CounterSize)
LAYERS = tuple(Layer)
APPLIES_TO = tuple(AppliesTo)


class SeaBoundaryBase(Model):
    """A boundary between two sea areas of the campaign's map (their own: RULES.md §Mines)."""

    # Stored in sorted order: the boundary A|B is the boundary B|A.
    area_a: str = field(label="Sea area", max_length=40)
    area_b: str = field(label="Next sea area", max_length=40)


class SeaBoundary(CampaignRow, SeaBoundaryBase, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "area_a", "area_b"),)


class SeaBoundaryRead(SeaBoundaryBase):
    model_config = SQLModelConfig(frozen=True)
    id: int

    @property
    def label(self) -> str:
        return f"{self.area_a} | {self.area_b}"


# A minefield's ways of being laid that the sowing form offers: aircraft drop theirs, one roll
# per minefield, through the aerial drop.
SOWN_BY = [("surface ship", Layer.SURFACE), ("submarine", Layer.SUBMARINE)]


class MinefieldBase(Model):
    """What the player says of a minefield (RULES.md §Mines; RULES.md §Subs ¶13)."""

    # A War at Sea sector, as a marker's; a Second World War at Sea minefield lies on a boundary.
    sector: str = same_as(SubMarkerBase, "sector", label="or sector (War at Sea)")
    status: Stored[MinefieldStatus] = Field(default="sowing", sa_type=text_column(10))
    laid_by: Stored[Layer] = field(
        "surface", label="Laid by", options=SOWN_BY, sa_type=text_column(10)
    )
    layer_name: str = field("", label="or minelayer's name", max_length=60)
    drifting: bool = field(False, label="Drifting (else secured)")
    secret: bool = field(False, label="Secret (place and notes hidden from the opponent)")
    notes: str = field("", label="Notes", max_length=2000)


class MinefieldTurn(Edit):
    """The turn a form names for a minefield begun or completed (and, on a change of one on the
    ledger, the version of its row)."""

    turn: int | None = field(None, label="Turn", blank="the current turn", ge=1, le=999)


class MinefieldCreate(MinefieldBase, MinefieldTurn):
    """A minefield as the player sows it; its place, owner and minelayer are checked by the
    service against the campaign's map and ships."""

    complete: bool = field(False, label="Already complete (laid before the game)")


class Minefield(CampaignRow, MinefieldBase, Versioned, Identified, table=True):
    """One minefield on the ledger, on a boundary (Second World War at Sea) or in a sector
    (War at Sea). A secret one keeps its place and notes in `sealed`, like a marker's note."""

    side_id: int = Field(foreign_key="side.id", index=True, ondelete="CASCADE")
    boundary_id: int | None = Field(
        default=None, foreign_key="seaboundary.id", index=True, ondelete="CASCADE"
    )
    layer_ship_id: int | None = Field(
        default=None, foreign_key="ship.id", index=True, ondelete="SET NULL"
    )
    # A War at Sea submarine of a roster that lays it (a record-sheet ship is layer_ship_id).
    layer_unit_id: int | None = Field(
        default=None, foreign_key="wasunit.id", index=True, ondelete="SET NULL"
    )
    scenario_id: int | None = Field(default=None, foreign_key="scenario.id", ondelete="SET NULL")
    turn_started: int | None = Field(default=None)
    turn_completed: int | None = Field(default=None)
    drop_roll: int | None = Field(default=None)
    # "plain:{json}" or "fernet:{token}" of {"boundary_id", "sector", "notes", "path"} while
    # secret; empty once revealed (the fields then live in their own columns).
    sealed: str = Field(default="")
    # JSON list of a drifting minefield's moves: [{"turn", "from", "to", "d6"}]
    path: str = Field(default="[]")
    # The scenario and turn of its last drift: a minefield drifts once per turn at most.
    drift_scenario_id: int | None = Field(
        default=None, foreign_key="scenario.id", ondelete="SET NULL"
    )
    drift_turn: int | None = Field(default=None)
    at: datetime = Field(default_factory=utcnow)


class MinefieldRead(ShownRow, MinefieldBase):
    """One ledger line. A secret minefield's place, layer, notes, path, how it was laid and
    whether it drifts are never read from the row: the service gives every column as the viewer
    may see it (RULES.md §Secrets), and `hidden` says the viewer may not read its place."""

    side_id: int
    side_name: str
    where: str
    boundary_id: int | None
    count_here: int = 0
    # Declared by the base, shown retyped: "?" where the viewer may not see how it was laid.
    laid_by: str = MinefieldBase.model_fields["laid_by"]  # type: ignore[assignment]
    turn_started: int | None
    turn_completed: int | None
    drop_roll: int | None
    hidden: bool
    # Its drifts, one line each (the row keeps them as JSON).
    path: tuple[str, ...] = ()

    @property
    def layer(self) -> str:
        return self.layer_name


class MineTableRowBase(Model):
    low: int = Field(ge=-5, le=20)
    high: int = Field(ge=-5, le=20)
    applies_to: Stored[AppliesTo] = Field(default="all", max_length=5, sa_type=text_column(5))
    # The result in the tracker's effect words: "none", "speed-1 fuel-2", "crippled", "sunk"
    effects: str = Field(max_length=200)
    note: str = Field(default="", max_length=200)


class MineTableRow(CampaignRow, MineTableRowBase, table=True):
    """A row of the campaign's mine damage table: the variant's table is not in our sources."""


class MineCheck(CampaignRow, Versioned, Identified, table=True):
    """A task force entering a minefield: two cups, one roll a ship drawn (RULES.md §Mines)."""

    minefield_id: int = Field(foreign_key="minefield.id", index=True, ondelete="CASCADE")
    scenario_id: int | None = Field(default=None, foreign_key="scenario.id", ondelete="SET NULL")
    turn: int | None = Field(default=None)
    # Sown across the boundary, for the modifier (RULES.md §Mines: +1 each past the first).
    minefields: int = Field(default=1, ge=1, le=20)
    speed: int = Field(default=0, ge=0, le=20)  # the task force's, for the modifier
    leaving_board: bool = Field(default=False)
    first_cup: Stored[CounterSize] = Field(default="long", max_length=5, sa_type=text_column(5))
    rule: Stored[HaltRule] = Field(default="struck", max_length=6, sa_type=text_column(6))
    seed: int = Field(default=0)
    status: Stored[MineCheckStatus] = Field(
        default="in_progress", max_length=12, sa_type=text_column(12)
    )
    at: datetime = Field(default_factory=utcnow)


class MineCheckShip(Row, table=True):
    """A ship of the task force in a mine check: its cup, its place in the draw, its roll."""

    __table_args__ = (UniqueConstraint("check_id", "ship_id"),)
    check_id: int = Field(foreign_key="minecheck.id", index=True, ondelete="CASCADE")
    ship_id: int = Field(foreign_key="ship.id", index=True, ondelete="CASCADE")
    cup: Stored[CounterSize] = Field(max_length=5, sa_type=text_column(5))
    draw_no: int = Field(ge=1)  # its place in the random draw (the cups alternate)
    drawn: bool = Field(default=False)
    roll: int | None = Field(default=None)
    drm: int = Field(default=0)
    effects: str = Field(default="", max_length=200)
    struck: bool = Field(default=False)


class AirDrop(Model):
    """An aircraft's mine drop (RULES.md §Mines): its attack factors, as its counter prints them."""

    naval_attack: int = field(0, label="Naval Attack factor", ge=0, le=99)
    land_attack: int = field(0, label="Land Attack factor", ge=0, le=99)
