"""Plain read models that services return: frozen, detached from any session."""

from __future__ import annotations

from dataclasses import dataclass

# A battery, a commander, a crew and a ship are shown as their families' read models.
from tracker.models.fleet import BatteryRead as BatteryView
from tracker.models.fleet import CommanderRead as CommanderView
from tracker.models.fleet import CrewRead as CrewView
from tracker.models.fleet import ShipRead as ShipView


@dataclass(frozen=True)
class CampaignSummary:
    id: int
    name: str
    notes: str
    model_scale: str
    crew_roll_adds_commander: bool
    sides: int
    ships: int
    current_scenario: str
    zero_outcomes: str = "Sunk\nDead in the water\nOther"
    repair_limit_structure: int | None = None
    repair_limit_flotation: int | None = None
    clear_fire_each_turn: bool = True
    was_fleet_points: int = 100
    extra_decoys_allowed: bool = True
    any_attack_reveals: bool = False
    mine_halt_rule: str = "struck"
    half_strength_scope: str = "scenario"
    aircraft_mission: str = "turn"
    owner_idle_seconds: int = 60
    version: int = 1  # the row version read: the edit form sends it back


@dataclass(frozen=True)
class ScenarioView:
    id: int
    title: str
    position: int
    date: str
    status: str
    turn: int
    ships: int = 0
    version: int = 1  # the row version read: the edit form sends it back


@dataclass(frozen=True)
class SquadronRef:
    id: int
    name: str
    side_id: int
    side_name: str
    ships: int


@dataclass(frozen=True)
class SideView:
    id: int
    name: str
    nation: str
    squadrons: tuple[SquadronRef, ...]
    version: int = 1  # the row version read: the edit form sends it back


@dataclass(frozen=True)
class CampaignOverview:
    campaign: CampaignSummary
    sides: tuple[SideView, ...]
    scenarios: tuple[ScenarioView, ...]


@dataclass(frozen=True)
class RecordSheet:
    campaign_id: int
    campaign_name: str
    model_scale: str
    crew_roll_adds_commander: bool
    scenario: str
    turn: int | None
    scenario_status: str
    side_id: int
    side_name: str
    squadron_id: int
    squadron_name: str
    air: bool
    notes: str
    commander: CommanderView | None
    crew: CrewView | None
    ships: tuple[ShipView, ...]
    points_total: int
    original_count: int
    original_afloat: int
    half_strength: bool
    # The ship carrying the commander (SMR2 §3.1), or the one he was lost with.
    commander_ship: str = ""
    # The squadron's row version read (models.versioned): its edit form sends it back.
    squadron_version: int = 1


@dataclass(frozen=True)
class TestResult:
    roll: int
    modifier: int
    under_fire: bool
    extra: int
    total: int
    passed: bool
    subject: str


__all__ = [
    "BatteryView", "CampaignOverview", "CampaignSummary", "CommanderView", "CrewView",
    "RecordSheet", "ScenarioView", "ShipView", "SideView", "SquadronRef", "TestResult",
]  # fmt: skip
