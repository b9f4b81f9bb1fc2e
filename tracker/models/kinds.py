"""Every status, kind, phase and outcome the tables store, as enums: a typo is a mypy error.

The stored values are these strings (a StrEnum member is its value), so no file changes; the
columns stay plain text of their length (`text_column`), not a database enum type.
"""

from enum import StrEnum
from typing import Annotated, TypeVar

from pydantic import PlainSerializer
from sqlmodel import AutoString

E = TypeVar("E", bound=StrEnum)

# A row read from a file holds the stored string as it is (a value no enum knows still reads);
# a row's dump (the journal's before and after) gives the string, whether a member or a string.
Stored = Annotated[E, PlainSerializer(str, return_type=str)]


def text_column(length: int) -> AutoString:
    """The column type an enum field is stored in: the plain text it always was."""
    return AutoString(length=length)


class ScenarioStatus(StrEnum):
    PLANNED = "planned"
    IN_PLAY = "in_play"
    CLOSED = "closed"
    ARCHIVED = "archived"


class ListStatus(StrEnum):
    ACTIVE = "active"
    LOST = "lost"


class Acquisition(StrEnum):
    """How a commander or crew was found (SMR2 §3): rolled for, or chosen."""

    RANDOM = "random"
    DIRECT = "direct"


class CriticalKind(StrEnum):
    STRUCTURAL = "structural"
    UNDERWATER = "underwater"


class CriticalStatus(StrEnum):
    ACTIVE = "active"
    REPAIRED = "repaired"
    VOID = "void"  # an undone hit: kept, never shown as damage


class RepairStatus(StrEnum):
    DONE = "done"
    VOID = "void"


class SnapshotPhase(StrEnum):
    START = "start"
    END = "end"


class CounterSize(StrEnum):
    """As printed on a Second World War at Sea counter; also the cup it is drawn from."""

    LONG = "long"
    SMALL = "small"


class AppliesTo(StrEnum):
    ALL = "all"
    LONG = "long"
    SMALL = "small"


class MinefieldStatus(StrEnum):
    SOWING = "sowing"
    ACTIVE = "active"
    SCATTERED = "scattered"
    SWEPT = "swept"
    EXPENDED = "expended"
    VOID = "void"  # undone: kept for the journal, never on the map


class Layer(StrEnum):
    SURFACE = "surface"
    SUBMARINE = "submarine"
    AIRCRAFT = "aircraft"


class HaltRule(StrEnum):
    """The campaign's reading of the mine check's halt (RULES.md §Mines)."""

    STRUCK = "struck"
    DRAWN = "drawn"


class MineCheckStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    HALTED = "halted"
    COMPLETE = "complete"
    ABANDONED = "abandoned"


class HalfStrengthScope(StrEnum):
    SCENARIO = "scenario"
    CAMPAIGN = "campaign"


class AircraftMission(StrEnum):
    TURN = "turn"
    SCENARIO = "scenario"


class MarkerState(StrEnum):
    CONCEALED = "concealed"
    REVEALED = "revealed"
    REMOVED = "removed"
    # Shown by a successful attack to be a decoy, and removed from play (RULES.md §Subs ¶5, ¶8):
    # out of play as a removed marker is, and known to everyone for a decoy.
    DECOY = "decoy"


# The states of a marker out of play: no move, search or attack takes it back.
MARKERS_OUT_OF_PLAY = frozenset({MarkerState.REMOVED, MarkerState.DECOY})


class UnitType(StrEnum):
    BATTLESHIP = "battleship"
    CRUISER = "cruiser"
    DESTROYER = "destroyer"
    CARRIER = "carrier"
    AUXILIARY = "auxiliary"
    TORPEDO_BOAT = "torpedo boat"
    SUBMARINE = "submarine"
    FIGHTER = "fighter"
    DIVE_BOMBER = "dive bomber"
    TORPEDO_BOMBER = "torpedo bomber"
    PATROL_BOMBER = "patrol bomber"
    AIRCRAFT = "aircraft"  # a card printed with plain Aircraft as its type


class JournalKind(StrEnum):
    """What a journal entry records: the journal screen filters on it, undo reads it."""

    BACKUP = "backup"
    BATTERY = "battery"
    BEGIN = "begin"
    CAMPAIGN = "campaign"
    CLOSE = "close"
    COMMANDER = "commander"
    CONDITION = "condition"
    CORRECTION = "correction"
    COUNTER = "counter"
    CREW = "crew"
    DAMAGE = "damage"
    FIRE = "fire"
    FUEL = "fuel"
    LEDGER = "ledger"
    MARKER = "marker"
    MINE = "mine"
    MINE_CHECK = "mine check"
    MINEFIELD = "minefield"
    REDO = "redo"
    REDUCTION = "reduction"
    REPAIR = "repair"
    ROSTER = "roster"
    SCENARIO = "scenario"
    SEARCH = "search"
    SECRET = "secret"
    SHIP = "ship"
    SIDE = "side"
    SQUADRON = "squadron"
    SYNC = "sync"
    TABLE = "table"
    TEST = "test"
    TORPEDO = "torpedo"
    TRANSFER = "transfer"
    TURN = "turn"
    UNDO = "undo"
