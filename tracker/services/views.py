"""Plain read models that services return: frozen, detached from any session."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel.main import SQLModelConfig

# A campaign, a scenario, a side, a battery, a commander, a crew and a ship are shown as their
# families' read models.
from tracker.models.campaign import CampaignRead as CampaignSummary
from tracker.models.campaign import ScenarioRead as ScenarioView
from tracker.models.campaign import SideBase
from tracker.models.fleet import BatteryRead as BatteryView
from tracker.models.fleet import CommanderRead as CommanderView
from tracker.models.fleet import CounterRead as CounterView
from tracker.models.fleet import CrewRead as CrewView
from tracker.models.fleet import ShipRead as ShipView


@dataclass(frozen=True)
class SquadronRef:
    id: int
    name: str
    side_id: int
    side_name: str
    ships: int


class SideView(SideBase):
    """A side as the campaign screen shows it, read as stored, with its squadrons."""

    model_config = SQLModelConfig(frozen=True)
    id: int
    squadrons: tuple[SquadronRef, ...] = ()
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
    # Each ship's counter by id, as both players at the table see it (docs/RULES.md §Secrets).
    counters: dict[int, CounterView] = field(default_factory=dict)

    @property
    def commander_refusal(self) -> str:
        """Why the commander may not act now (test, be reduced or restored, move), or "": the
        words the service refuses with, so a form need not open to be refused."""
        commander = self.commander
        lost = commander is not None and commander.status == "lost"
        name = commander.name if commander is not None else None
        return commander_refusal(self.squadron_name, name, lost=lost, ship=self.commander_ship)


def commander_refusal(squadron: str, name: str | None, *, lost: bool, ship: str) -> str:
    """Why a squadron's commander may not act (SMR2 §3.4, §10.3): none yet (`name` None) or lost
    (with `ship`, when he was aboard one); "" when he may."""
    if name is None:
        return f"{squadron} has no commander yet: roll or buy one first (r)"
    if not lost:
        return ""
    who = f" {name}" if name else ""
    where = f" with {ship}" if ship else ""
    return f"{squadron}'s commander{who} was lost{where}: type his replacement first (r)"


@dataclass(frozen=True)
class TestResult:
    roll: int
    modifier: int
    under_fire: bool
    extra: int
    total: int
    passed: bool
    subject: str
    # Who tested, in the player's words, naming the ship ("Alpha's commander Harwood aboard
    # Ajax", "Ajax's crew"), and the ship tested ("" for a commander aboard no ship).
    who: str = ""
    ship: str = ""


__all__ = [
    "BatteryView", "CampaignOverview", "CampaignSummary", "CommanderView", "CrewView",
    "RecordSheet", "ScenarioView", "ShipView", "SideView", "SquadronRef", "TestResult",
]  # fmt: skip
