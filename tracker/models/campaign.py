"""Campaign, its scenarios and its sides."""

from datetime import UTC, datetime

from sqlalchemy import UniqueConstraint, false, true
from sqlmodel import Field, SQLModel

from tracker.models.fields import INPUT_CONFIG, field
from tracker.models.kinds import (
    AircraftMission,
    HalfStrengthScope,
    HaltRule,
    ScenarioStatus,
    Stored,
    text_column,
)
from tracker.models.versioned import Versioned

DEFAULT_ZERO_OUTCOMES = "Sunk\nDead in the water\nOther"


def utcnow() -> datetime:
    """Timestamps are stored in UTC so a file moved between time zones stays ordered."""
    return datetime.now(UTC)


class CampaignBase(SQLModel):
    name: str = Field(max_length=80, index=True, unique=True)
    notes: str = Field(default="", max_length=4000)
    # Rule options players may reasonably differ on (README "Campaign options").
    model_scale: str = Field(default="1/2400", max_length=10)
    crew_roll_adds_commander: bool = Field(default=False)
    # What may happen at zero Structure or Flotation: the player's own list, one per line.
    zero_outcomes: str = Field(
        default=DEFAULT_ZERO_OUTCOMES,
        max_length=400,
        sa_column_kwargs={"server_default": DEFAULT_ZERO_OUTCOMES},
    )


class Campaign(CampaignBase, Versioned, table=True):
    # The group's own repair allowance between scenarios, per ship (SMR2 12.2 is not in our
    # sources); None means no limit.
    repair_limit_structure: int | None = Field(default=None, ge=0)
    repair_limit_flotation: int | None = Field(default=None, ge=0)
    # Fire (shell-splash) markers mark this turn's salvos: cleared when the turn advances.
    clear_fire_each_turn: bool = Field(default=True, sa_column_kwargs={"server_default": true()})
    # War at Sea: the fleet point budget, the optional extra decoys (RULES.md §Subs ¶1), and the
    # optional variant in which any attack on a surface unit reveals a concealed sub (§9).
    was_fleet_points: int = Field(default=100, ge=1, sa_column_kwargs={"server_default": "100"})
    extra_decoys_allowed: bool = Field(default=True, sa_column_kwargs={"server_default": true()})
    any_attack_reveals: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # Seconds without a key before the owner view of the roster and ledger hides itself.
    owner_idle_seconds: int = Field(default=60, ge=10, le=3600,
                                    sa_column_kwargs={"server_default": "60"})  # fmt: skip
    # A task force in a minefield halts when a quarter has struck mines ("struck")
    # or, read literally, when a quarter has been drawn ("drawn").
    mine_halt_rule: Stored[HaltRule] = Field(
        default="struck",
        max_length=6,
        sa_type=text_column(6),
        sa_column_kwargs={"server_default": "struck"},
    )
    # A squadron's original composition for half strength (SMR2 §3.4): the ships it began the
    # current scenario with ("scenario") or the ships it was formed with ("campaign").
    half_strength_scope: Stored[HalfStrengthScope] = Field(
        default="scenario",
        max_length=8,
        sa_type=text_column(8),
        sa_column_kwargs={"server_default": "scenario"},
    )
    # An aircraft's mine capacity is per mission (RULES.md §Mines): a mission is a game turn
    # ("turn") or a whole scenario ("scenario").
    aircraft_mission: Stored[AircraftMission] = Field(
        default="turn",
        max_length=8,
        sa_type=text_column(8),
        sa_column_kwargs={"server_default": "turn"},
    )
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)


class ScenarioBase(SQLModel):
    title: str = field(label="Title", min_length=1, max_length=120)
    position: int = Field(default=1, ge=1)
    date: str = field("", label="Date", max_length=40)
    status: Stored[ScenarioStatus] = Field(
        default="planned", max_length=10, sa_type=text_column(10)
    )
    turn: int = Field(default=1, ge=1)
    outcome: str = Field(default="", max_length=200, sa_column_kwargs={"server_default": ""})
    notes: str = Field(default="", max_length=4000, sa_column_kwargs={"server_default": ""})


class Scenario(ScenarioBase, Versioned, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")


class ScenarioCreate(ScenarioBase):
    """A scenario as the player names it (title and date; the rest is the campaign's)."""

    model_config = INPUT_CONFIG


class ScenarioUpdate(ScenarioCreate):
    """An edit of a scenario: its values and the version the player's form was opened with."""

    version: int | None = None


class SideBase(SQLModel):
    name: str = field(label="Name", min_length=1, max_length=60)
    nation: str = field("", label="Nation", max_length=40)


class Side(SideBase, Versioned, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")


class SideCreate(SideBase):
    model_config = INPUT_CONFIG


class SideUpdate(SideCreate):
    """An edit of a side: its values and the version the player's form was opened with."""

    version: int | None = None
