"""Campaign, its scenarios and its sides."""

from datetime import UTC, datetime
from typing import Annotated

from sqlalchemy import UniqueConstraint, false, true
from sqlmodel import Field

from tracker.models.base import CampaignRow, Input, Model, Row
from tracker.models.fields import field, one_of
from tracker.models.identity import Identified
from tracker.models.kinds import (
    AircraftMission,
    HalfStrengthScope,
    HaltRule,
    ScenarioStatus,
    Stored,
    text_column,
)
from tracker.models.versioned import Edit, ShownRow, Versioned
from tracker.rules import smr, was

DEFAULT_ZERO_OUTCOMES = "Sunk\nDead in the water\nOther"


def utcnow() -> datetime:
    """Timestamps are stored in UTC so a file moved between time zones stays ordered."""
    return datetime.now(UTC)


SCALE_OPTIONS = [(scale, scale) for scale in smr.SCALES]
# The readings a campaign chooses between, with the words the form shows (the default first).
HALT_OPTIONS = [("have struck mines", HaltRule.STRUCK),
                ("have been drawn (literal reading)", HaltRule.DRAWN)]  # fmt: skip
HALF_STRENGTH_OPTIONS = [
    ("began this scenario with", HalfStrengthScope.SCENARIO),
    ("was formed with (whole campaign)", HalfStrengthScope.CAMPAIGN),
]
MISSION_OPTIONS = [("turn (one mission a turn)", AircraftMission.TURN),
                   ("scenario", AircraftMission.SCENARIO)]  # fmt: skip


class CampaignBase(Model):
    """A campaign and the rule options players may reasonably differ on, each declared once
    (docs/GUIDE.md "Campaign options"; docs/RULES.md says which rule each option reads)."""

    name: str = field(label="Name", min_length=1, max_length=80, index=True, unique=True)
    notes: str = field("", label="Notes", max_length=4000)
    # The words are the bound: the column's length only stores the longest of them.
    model_scale: Annotated[str, one_of(smr.SCALES)] = field(
        "1/2400", label="Model scale", options=SCALE_OPTIONS, sa_type=text_column(10)
    )
    crew_roll_adds_commander: bool = field(
        False, label="Crew roll adds commander's modifier (optional rule)"
    )
    # Fire (shell-splash) markers mark this turn's salvos: cleared when the turn advances.
    clear_fire_each_turn: bool = field(
        True, label="Fire markers come off at each new turn",
        sa_column_kwargs={"server_default": true()},
    )  # fmt: skip
    # The group's own repair allowance between scenarios, per ship (SMR2 12.2 is not in our
    # sources); None means no limit. A ship's tracks go up to 9999: no allowance needs more.
    repair_limit_structure: int | None = field(
        None, label="Repair allowance: Structure", blank="none", ge=0, le=9999
    )
    repair_limit_flotation: int | None = field(
        None, label="Repair allowance: Flotation", blank="none", ge=0, le=9999
    )
    # War at Sea: the fleet point budget, the optional extra decoys (RULES.md §Subs ¶1), and the
    # optional variant in which any attack on a surface unit reveals a concealed sub (§9).
    was_fleet_points: int = field(
        100, label="War at Sea fleet points", ge=1, le=10_000,
        sa_column_kwargs={"server_default": "100"},
    )  # fmt: skip
    extra_decoys_allowed: bool = field(
        True, label=f"Extra decoys may be bought ({was.DECOY_COST} pts)",
        sa_column_kwargs={"server_default": true()},
    )  # fmt: skip
    any_attack_reveals: bool = field(
        False, label="Any sub attack reveals it", sa_column_kwargs={"server_default": false()}
    )
    mine_halt_rule: Stored[HaltRule] = field(
        "struck", label="Task force in a minefield halts when a quarter", options=HALT_OPTIONS,
        sa_type=text_column(6), sa_column_kwargs={"server_default": "struck"},
    )  # fmt: skip
    # A squadron's original composition for half strength (SMR2 §3.4): the ships it began the
    # current scenario with ("scenario") or the ships it was formed with ("campaign").
    half_strength_scope: Stored[HalfStrengthScope] = field(
        "scenario", label="Half strength counts the ships a squadron",
        options=HALF_STRENGTH_OPTIONS, sa_type=text_column(8),
        sa_column_kwargs={"server_default": "scenario"},
    )  # fmt: skip
    # An aircraft's mine capacity is per mission (RULES.md §Mines): a mission is a game turn
    # ("turn") or a whole scenario ("scenario").
    aircraft_mission: Stored[AircraftMission] = field(
        "turn", label="An aircraft's mine capacity is per", options=MISSION_OPTIONS,
        sa_type=text_column(8), sa_column_kwargs={"server_default": "turn"},
    )  # fmt: skip
    # Seconds without a key before the owner view of the roster and ledger hides itself.
    owner_idle_seconds: int = field(
        60, label="Owner view hides after (seconds idle)", ge=10, le=3600,
        sa_column_kwargs={"server_default": "60"},
    )  # fmt: skip
    # What may happen at zero Structure or Flotation: the player's own list, one per line.
    zero_outcomes: str = field(
        DEFAULT_ZERO_OUTCOMES, label="At zero Structure/Flotation", max_length=400,
        sa_column_kwargs={"server_default": DEFAULT_ZERO_OUTCOMES},
    )  # fmt: skip


class Campaign(Row, CampaignBase, Versioned, Identified, table=True):
    created_at: datetime = Field(default_factory=utcnow)


class CampaignRead(ShownRow, CampaignBase):
    sides: int
    ships: int
    current_scenario: str


class CampaignCreate(CampaignBase, Input): ...


class CampaignUpdate(Edit, CampaignCreate): ...


class ScenarioBase(Model):
    title: str = field(label="Title", min_length=1, max_length=120)
    position: int = Field(default=1, ge=1)
    date: str = field("", label="Date", max_length=40)
    status: Stored[ScenarioStatus] = Field(
        default="planned", max_length=10, sa_type=text_column(10)
    )
    turn: int = Field(default=1, ge=1)
    outcome: str = Field(default="", max_length=200, sa_column_kwargs={"server_default": ""})
    notes: str = Field(default="", max_length=4000, sa_column_kwargs={"server_default": ""})


class Scenario(CampaignRow, ScenarioBase, Versioned, Identified, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "position"),)


class ScenarioRead(ShownRow, ScenarioBase):
    ships: int = 0  # the ships taking part


class ScenarioCreate(ScenarioBase, Input):
    """A scenario as the player names it (title and date; the rest is the campaign's)."""


class ScenarioUpdate(Edit, ScenarioCreate): ...


class SideBase(Model):
    name: str = field(label="Name", min_length=1, max_length=60)
    nation: str = field("", label="Nation", max_length=40)


class Side(CampaignRow, SideBase, Versioned, Identified, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)


class SideCreate(SideBase, Input): ...


class SideUpdate(Edit, SideCreate): ...
