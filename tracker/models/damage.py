"""Critical hits on ships, and the campaign's own critical-hit tables (SMR2 §8.8, §9.9)."""

from datetime import datetime

from sqlmodel import Field
from sqlmodel.main import SQLModelConfig

from tracker.models.base import CampaignRow, Model, ShipRow
from tracker.models.campaign import utcnow
from tracker.models.fields import field
from tracker.models.identity import Identified
from tracker.models.kinds import CriticalKind, CriticalStatus, Stored, text_column
from tracker.models.versioned import Versioned

CRITICAL_KINDS = tuple(CriticalKind)


class CriticalBase(Model):
    """A critical hit as the sheet, the print and the repairs show it, each value declared once."""

    kind: Stored[CriticalKind] = Field(max_length=12, sa_type=text_column(12))
    effect: str = Field(max_length=200)
    roll: int | None = Field(default=None)
    turn: int | None = Field(default=None)
    status: Stored[CriticalStatus] = Field(default="active", max_length=10, sa_type=text_column(10))


class Critical(ShipRow, CriticalBase, Versioned, Identified, table=True):
    scenario_id: int | None = Field(default=None)
    # The stat its table row changed and by how much it changed: put back when it is cleared.
    stat: str = Field(default="", max_length=20, sa_column_kwargs={"server_default": ""})
    amount: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    at: datetime = Field(default_factory=utcnow)


class CriticalRead(CriticalBase):
    """A ship's critical as its detail and repairs list it."""

    model_config = SQLModelConfig(frozen=True)
    id: int
    # Its number as `fix N` counts the criticals in force; 0 once repaired.
    number: int


class HitAmounts(Model):
    """The numbers of one hit or in-game repair (a damage line, or its form): declared once, the
    form asks within these bounds and the service checks against them."""

    structure: int = field(0, label="Structure lost", ge=0, le=999)
    flotation: int = field(0, label="Flotation lost", ge=0, le=999)
    fire_delta: int = field(0, label="Fire markers + / -", ge=-99, le=99)
    repair_structure: int = field(0, label="Structure repaired", ge=0, le=999)
    repair_flotation: int = field(0, label="Flotation repaired", ge=0, le=999)


class RepairAmounts(Model):
    """Structure and Flotation repaired between scenarios (within the campaign's allowance)."""

    structure: int = field(0, label="Structure repaired", ge=0, le=999)
    flotation: int = field(0, label="Flotation repaired", ge=0, le=999)


class CriticalTableRowBase(Model):
    kind: str = Field(max_length=12)
    low: int = Field(ge=1, le=100)
    high: int = Field(ge=1, le=100)
    effect: str = Field(max_length=200)
    # Optional stat the result changes at once, e.g. speed_kn -5 (the player's own table says).
    stat: str = Field(default="", max_length=20)
    amount: int = Field(default=0, ge=-99, le=99)


class CriticalTableRow(CampaignRow, CriticalTableRowBase, table=True): ...
