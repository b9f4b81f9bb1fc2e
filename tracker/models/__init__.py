"""SQLModel tables, one module per area; importing this registers every table on the metadata."""

from tracker.models.campaign import Campaign, Scenario, Side
from tracker.models.damage import Critical, CriticalTableRow
from tracker.models.fleet import Battery, Commander, Crew, Ship, Squadron
from tracker.models.journal import JournalEntry
from tracker.models.library import ShipClass, UnitCard
from tracker.models.linked import Participation, Repair, ScenarioSide, ShipSnapshot
from tracker.models.mines import MineCheck, MineCheckShip, Minefield, MineTableRow, SeaBoundary
from tracker.models.roster import SideSecret, SubMarker, WasUnit

# Every table model, named once: what walks the tables' declarations (their bounds and words for
# a campaign file's checks) reads this list; tests/test_compat.py holds it equal to SQLModel's
# own registry of mapped classes.
TABLES = (
    Campaign, Side, Scenario, Critical, CriticalTableRow, Battery, Commander, Crew, Ship,
    Squadron, JournalEntry, ShipClass, UnitCard, Participation, Repair, ScenarioSide,
    ShipSnapshot, MineCheck, MineCheckShip, Minefield, MineTableRow, SeaBoundary, SideSecret,
    SubMarker, WasUnit,
)  # fmt: skip
