"""Squadrons, their commanders and crews, ships and their batteries (SMR2 §3)."""

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import ValidationInfo, field_validator, model_validator
from sqlalchemy import UniqueConstraint, false
from sqlmodel import Field

from tracker.models.base import CampaignRow, Input, Model, ShipRow, SideRow
from tracker.models.campaign import SideBase
from tracker.models.fields import field, one_of, rule_of, same_as
from tracker.models.identity import Identified
from tracker.models.kinds import Acquisition, CounterSize, ListStatus, Stored, text_column
from tracker.models.versioned import Edit, Shown, ShownRow, Versioned
from tracker.rules import smr, swwas

TRAINING_OPTIONS = [
    (f"{numeral}  ({smr.rating_name(level)} / {smr.quality_name(level)})", level)
    for level, numeral in enumerate(smr.TRAINING_NUMERALS, start=1)
]
ACQUISITION_OPTIONS = [("Rolled on the d10 table", "random"), ("Bought directly", "direct")]


class RatingBase(Model):
    """A commander's or a crew's rating as the player generates it: the training level paid
    for, rolled on the d10 table or bought directly (SMR2 §3.1, §3.2)."""

    training: int = field(label="Training level paid for", ge=1, le=5, options=TRAINING_OPTIONS)
    acquisition: Stored[Acquisition] = field(
        "random", label="How", max_length=10, options=ACQUISITION_OPTIONS, sa_type=text_column(10)
    )
    roll: int | None = field(
        None, label="d10 rolled (blank if bought)", blank="bought", ge=1, le=10
    )


class CommanderBase(RatingBase):
    """A commander: a rating with a name (SMR2 §3.1)."""

    name: str = field("", label="Name", max_length=60)


class Commander(CampaignRow, CommanderBase, Versioned, Identified, table=True):
    air: bool = Field(default=False)
    grade: int = Field(ge=1, le=5)
    modifier_now: int = Field(ge=-2, le=2)
    radius_now_cm: int = Field(ge=10)
    status: Stored[ListStatus] = Field(default="active", max_length=10, sa_type=text_column(10))


class CrewUpdate(Edit, RatingBase): ...


class CommanderUpdate(CommanderBase, CrewUpdate): ...


class Crew(CampaignRow, RatingBase, Versioned, Identified, table=True):
    roll_modified: int | None = Field(default=None, ge=1, le=10)
    grade: int = Field(ge=1, le=5)
    modifier_now: int = Field(ge=-2, le=2)


class CrewRead(ShownRow, RatingBase):
    """A crew as the record sheet shows it: its rating, what the rules make of it (SMR2 §3.2)."""

    roll_modified: int | None = None
    grade: int
    quality: str
    modifier_base: int
    modifier_now: int
    cost_percent: int


class CommanderRead(ShownRow, CommanderBase):
    """A commander as the record sheet shows him: his rating, what the rules make of it (§3.1)."""

    air: bool
    grade: int
    rating: str
    modifier_base: int
    modifier_now: int
    radius_base_cm: int
    radius_now_cm: int
    command_limit: int
    cost: int
    status: str


class SquadronBase(Model):
    """A squadron (or air group) as the player names it (RULES.md §SMR2)."""

    name: str = field(label="Name", min_length=1, max_length=60)
    air: bool = field(False, label="Air group (aircraft stands, not ships)")
    notes: str = field("", label="Notes", max_length=2000)


class Squadron(SideRow, SquadronBase, Versioned, Identified, table=True):
    __table_args__ = (UniqueConstraint("side_id", "name"),)
    commander_id: int | None = Field(default=None, foreign_key="commander.id", ondelete="SET NULL")
    crew_id: int | None = Field(default=None, foreign_key="crew.id", ondelete="SET NULL")
    # The ship carrying the commander, from which command is measured (SMR2 §3.1). No foreign
    # key: a ship already names its squadron, and the two tables would each wait for the other.
    commander_ship_id: int | None = Field(default=None)


class SquadronCreate(SquadronBase, Input): ...


class SquadronUpdate(Edit, SquadronCreate): ...


class ShipBase(Model):
    """A ship's data-sheet values and present state, each declared once (RULES.md §SMR2)."""

    name: str = field(label="Name", min_length=1, max_length=60)
    class_name: str = field("", label="Class", max_length=60)
    type_abbrev: str = field("", label="Type (BB, CA, CL, DD, ...)", printed="Type", max_length=8)
    nation: str = same_as(SideBase, "nation")
    size_modifier: int = field(0, label="Size modifier (-3..+3)", printed="Size", ge=-3, le=3)
    speed_kn: int = field(0, label="Speed (knots)", printed="Speed", ge=0, le=60)
    armour_class: str = field("", label="Armour class", printed="Armour", max_length=20)
    structure_max: int = field(1, label="Structure max", printed="Structure", ge=1, le=9999)
    structure_now: int = field(1, label="Structure now", blank="max", ge=0)
    flotation_max: int = field(1, label="Flotation max", printed="Flotation", ge=1, le=9999)
    flotation_now: int = field(1, label="Flotation now", blank="max", ge=0)
    fire_markers: int = field(0, label="Fire markers", printed="Fire", ge=0, le=99)
    points_base: int = field(0, label="Points (before crew %)", printed="Points", ge=0, le=99999)
    torpedoes: str = field("", label="Torpedoes", max_length=200)
    sraa_dp: str = field("", label="SRAA / DP", printed="SR AA/DP", max_length=200)
    radar: str = field("", label="Radar", max_length=200)
    notes: str = field("", label="Notes", max_length=4000)


# Each track's present value never passes its maximum: said here once, for every way a ship's
# values arrive (a form, a CSV row, a campaign file, a critical that changes a track).
TRACKS = {"structure_now": "structure_max", "flotation_now": "flotation_max"}


def tracks_above_max(values: Mapping[str, Any]) -> dict[str, str]:
    """{a track's present value: what is wrong} for each track above its maximum."""
    return {
        now: f"must not exceed {top.replace('_', ' ')} ({values[top]}), got {values[now]}"
        for now, top in TRACKS.items()
        if isinstance(values.get(now), int) and isinstance(values.get(top), int)
        and values[now] > values[top]
    }  # fmt: skip


def within_bounds(ship: ShipBase, key: str, value: int) -> int:
    """`value` brought within what the ship's `key` may hold: its declared bounds and, for a
    track's present value, the track's maximum."""
    rule = rule_of(key, ShipBase.model_fields[key])
    high = getattr(ship, TRACKS[key]) if key in TRACKS else rule.high
    value = value if rule.low is None else max(rule.low, value)
    return value if high is None else min(high, value)


class ShipCreate(ShipBase, Input):
    """A new ship as the player typed it; a blank Structure or Flotation now is its max."""

    @field_validator(*TRACKS)
    @classmethod
    def _not_above_max(cls, now: int, info: ValidationInfo) -> int:
        # The maximum is declared, so validated, before its track's present value.
        key = info.field_name or ""
        if problem := tracks_above_max({**info.data, key: now}).get(key):
            raise ValueError(problem)
        return now

    @model_validator(mode="before")
    @classmethod
    def _now_is_max_when_blank(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for track in ("structure", "flotation"):
                if data.get(f"{track}_now") is None:
                    data = {**data, f"{track}_now": data.get(f"{track}_max", 1)}
        return data


class ShipUpdate(Edit, ShipCreate): ...


COUNTER_SIZE_OPTIONS = [("blank (not entered)", ""), *((size, size) for size in CounterSize)]
COUNTER_SIZE_SAID = "must be long or small (as printed on the counter)"


def _counter(label: str, high: int) -> Any:
    """A counter value: a count of 0..high, stored with a default of 0 for older files."""
    return field(0, label=label, ge=0, le=high, sa_column_kwargs={"server_default": "0"})


class PrintedCounter(Model):
    """A ship's Second World War at Sea counter as printed (what a counters CSV file gives):
    entered, never derived, each value declared once (RULES.md §Mines)."""

    counter_size: Annotated[str, one_of(("", *CounterSize), said=COUNTER_SIZE_SAID)] = field(
        # The words are the bound: the column's length only stores the longest of them.
        "", label="Counter size", options=COUNTER_SIZE_OPTIONS, sa_type=text_column(5),
        sa_column_kwargs={"server_default": ""},
    )  # fmt: skip
    speed_rating: int = _counter("Speed rating", 20)
    torpedo_factors: int = _counter("Torpedo factors", 99)
    # Minefields loaded in place of torpedo factors at set-up (fixed for the scenario).
    mines_loaded: int = _counter("Minefields loaded (in place of torpedo factors)", 99)
    hull_boxes: int = _counter("Hull boxes", 99)
    fuel_full: int = _counter("Fuel factors full", 99)
    fuel_empty: int = _counter("Fuel factors empty", 99)


class CounterBase(PrintedCounter):
    """A ship's counter as printed, and what mines did to it (RULES.md §Mines)."""

    # The damage mines did: a repair or a correction is typed over it.
    speed_lost: int = _counter("Mine damage: speed lost", 20)
    gunnery_lost: int = _counter("Mine damage: gunnery lost", 99)
    hull_damage: int = _counter("Mine damage: hull boxes hit", 99)
    crippled: bool = field(False, label="Crippled", sa_column_kwargs={"server_default": false()})


class CounterUpdate(Edit, CounterBase):
    """A counter as typed; its version is its ship's."""


class CounterRead(Shown, CounterBase):
    """A ship's counter as the ledger and the sheet show it, with its fuel and the minefields
    it laid (RULES.md §Mines). Its version is its ship's (the counter and fuel forms send it
    back), not part of what the counter says: an undo restores the values, not the version."""

    ship_id: int
    name: str
    side_id: int
    side_name: str
    mines_laid: int
    sowing_id: int | None
    sunk: bool
    fuel: swwas.Fuel
    # The opponent's and the umpire's view of a ship with torpedo factors: how many it gave
    # over to mines is its side's secret (mines, laid, sowing and torpedoes left read 0).
    mines_hidden: bool = False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CounterRead):
            return NotImplemented
        said = set(type(self).model_fields) - {"version"}
        return all(getattr(self, key) == getattr(other, key) for key in said)

    __hash__ = None  # type: ignore[assignment]  # equal counters may differ in version

    @property
    def torpedoes_left(self) -> int:
        """Torpedo factors not given over to mines (RULES.md §Mines: one per minefield loaded)."""
        return swwas.sub_torpedo_factors_left(self.torpedo_factors, self.mines_loaded)

    @property
    def mines_aboard(self) -> int:
        return max(0, self.mines_loaded - self.mines_laid)


class Ship(SideRow, ShipBase, CounterBase, Versioned, Identified, table=True):
    __table_args__ = (UniqueConstraint("side_id", "name"),)
    squadron_id: int = Field(foreign_key="squadron.id", index=True)
    # Frozen at set-up: morale strength counts original members only (SMR2 §3.4).
    original_squadron_id: int = Field(foreign_key="squadron.id", index=True)
    transferred_turn: int | None = Field(default=None)
    transferred_scenario_id: int | None = Field(default=None)
    # The ship's own crew once it has left its first squadron: a crew belongs to its ship
    # (SMR2 §3.2); None while the ship's crew is its squadron's.
    crew_id: int | None = Field(default=None, foreign_key="crew.id", ondelete="SET NULL")
    sunk: bool = Field(default=False)
    # What the player confirmed when Structure or Flotation reached zero (the seeds do not say).
    condition: str = Field(default="", max_length=60, sa_column_kwargs={"server_default": ""})
    fuel_lost: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    # A ship deleted after it took part in a scenario: kept for the scenarios' history and its
    # squadron's original strength, gone from the sheet and the pick lists.
    retired: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


MOUNTS = ("turret", "casemate", "shielded", "open", "SRAA", "DP")


class BatteryBase(Model):
    """A weapon mount of a ship's data sheet (SMR2 §2.4 definitions)."""

    mount: Annotated[str, one_of(MOUNTS)] = field(
        label="Mount", max_length=12, options=[(mount, mount) for mount in MOUNTS]
    )
    calibre: str = field("", label="Calibre", max_length=20)
    guns: int = field(1, label="Number of guns", ge=0, le=99)
    ip: str = field("", label="IP (impact power)", max_length=20)
    range_bands: str = field("", label="Range bands", max_length=40)
    notes: str = field("", label="Notes", max_length=400)


class Battery(ShipRow, BatteryBase, Versioned, Identified, table=True): ...


class BatteryUpdate(Edit, BatteryBase): ...


class BatteryRead(ShownRow, BatteryBase): ...


class ShipRead(ShownRow, ShipBase):
    """A ship as the record sheet shows it, with what the rules make of it (SMR2 §2, §3)."""

    structure_third: bool
    flotation_third: bool
    crew_percent: int
    points_total: int
    base_width_cm: float
    sunk: bool
    condition: str
    squadron_id: int
    original_squadron_id: int
    out_of_command: bool
    batteries: tuple[BatteryRead, ...] = ()
    campaign_id: int = 0
    # The crew the ship took with it from its first squadron (SMR2 §3.2); None: its squadron's.
    own_crew: CrewRead | None = None
    # The critical hits in force (neither repaired nor undone), and the newest one's effect.
    criticals_in_force: int = 0
    newest_critical: str = ""
    # The morale tests she owes, as marks (services.sheet.morale_marks): "S⅓", "F⅓", "½".
    morale: tuple[str, ...] = ()


class TestRoll(Model):
    """A command or crew test's numbers (SMR2 §3.6): the d10 and the situational modifier."""

    __test__ = False  # not a test case, whatever its name says to pytest

    roll: int = field(label="d10 rolled", ge=1, le=10)
    extra: int = field(0, label="Situational modifier", ge=-20, le=20)


class CommandLoss(Model):
    """Combat reductions to a squadron's command and crew, each a number of steps down (SMR2
    §3.1, §3.2; the floors, -2 and 10 cm, are the rules')."""

    modifier_by: int = field(0, label="Command modifier down by", ge=0, le=4)
    radius_by_cm: int = field(0, label="Command radius down by (cm)", ge=0, le=100)
    crew_by: int = field(0, label="Crew modifier down by", ge=0, le=4)
