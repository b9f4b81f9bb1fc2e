"""Plain read models that services return: frozen, detached from any session."""

from __future__ import annotations

from dataclasses import dataclass, field

# A battery is shown as its family's read model (models.fleet.BatteryRead).
from tracker.models.fleet import BatteryRead as BatteryView


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
class CommanderView:
    id: int
    name: str
    air: bool
    acquisition: str
    training: int
    roll: int | None
    grade: int
    rating: str
    modifier_base: int
    modifier_now: int
    radius_base_cm: int
    radius_now_cm: int
    command_limit: int
    cost: int
    status: str
    version: int = 1  # the row version read: the edit form sends it back


@dataclass(frozen=True)
class CrewView:
    id: int
    acquisition: str
    training: int
    roll: int | None
    roll_modified: int | None
    grade: int
    quality: str
    modifier_base: int
    modifier_now: int
    cost_percent: int
    version: int = 1  # the row version read: the edit form sends it back


@dataclass(frozen=True)
class ShipView:
    id: int
    name: str
    class_name: str
    type_abbrev: str
    nation: str
    size_modifier: int
    speed_kn: int
    armour_class: str
    structure_now: int
    structure_max: int
    flotation_now: int
    flotation_max: int
    structure_third: bool
    flotation_third: bool
    fire_markers: int
    points_base: int
    crew_percent: int
    points_total: int
    base_width_cm: float
    torpedoes: str
    sraa_dp: str
    radar: str
    notes: str
    sunk: bool
    condition: str
    squadron_id: int
    original_squadron_id: int
    out_of_command: bool
    batteries: tuple[BatteryView, ...] = field(default=())
    campaign_id: int = 0
    # The crew the ship took with it from its first squadron (SMR2 §3.2); None: its squadron's.
    own_crew: CrewView | None = None
    # The row version read (models.versioned): an edit form sends it back as expected_version.
    version: int = 1
    # The critical hits in force (neither repaired nor undone), and the newest one's effect.
    criticals_in_force: int = 0
    newest_critical: str = ""


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
