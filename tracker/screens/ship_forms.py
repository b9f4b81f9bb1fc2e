"""Fields of the campaign and record-sheet forms, the counter and fuel forms too."""

from __future__ import annotations

from typing import Any

from tracker.rules import smr
from tracker.screens.form import FieldSpec
from tracker.services.fleet import TYPE_ABBREVIATIONS, ShipFields
from tracker.services.mines import CounterView
from tracker.services.views import CommanderView, CrewView, RecordSheet, ShipView, SideView

TRAINING_OPTIONS = [
    (f"{numeral}  ({smr.rating_name(level)} / {smr.quality_name(level)})", level)
    for level, numeral in enumerate(smr.TRAINING_NUMERALS, start=1)
]
ACQUISITION_OPTIONS = [("Rolled on the d10 table", "random"), ("Bought directly", "direct")]


def side_fields(side: SideView | None) -> list[FieldSpec]:
    """The side form."""
    return [
        FieldSpec("name", "Name", value=side.name if side else ""),
        FieldSpec("nation", "Nation", value=side.nation if side else ""),
    ]


def squadron_fields(name: str = "", air: bool = False, notes: str = "") -> list[FieldSpec]:
    """The squadron form."""
    return [
        FieldSpec("name", "Name", value=name),
        FieldSpec("air", "Air group (aircraft stands, not ships)", kind="bool", value=air),
        FieldSpec("notes", "Notes", value=notes),
    ]


def ship_fields(ship: ShipView | None) -> list[FieldSpec]:
    """Every value of the ship row of the record sheet."""
    base = ship or ShipView(
        id=0, name="", class_name="", type_abbrev="", nation="", size_modifier=0, speed_kn=0,
        armour_class="", structure_now=1, structure_max=1, flotation_now=1, flotation_max=1,
        structure_third=False, flotation_third=False, fire_markers=0, points_base=0,
        crew_percent=0, points_total=0, base_width_cm=0.0, torpedoes="", sraa_dp="", radar="",
        notes="", sunk=False, condition="", squadron_id=0, original_squadron_id=0,
        out_of_command=False,
    )  # fmt: skip
    return [
        FieldSpec("name", "Name", value=base.name),
        FieldSpec("class_name", "Class", value=base.class_name),
        FieldSpec("type_abbrev", "Type (BB, CA, CL, DD, ...)", value=base.type_abbrev,
                  suggestions=TYPE_ABBREVIATIONS),
        FieldSpec("nation", "Nation", value=base.nation),
        FieldSpec("size_modifier", "Size modifier (-3..+3)", kind="int",
                  value=base.size_modifier, low=-3, high=3),
        FieldSpec("speed_kn", "Speed (knots)", kind="int", value=base.speed_kn, low=0, high=60),
        FieldSpec("armour_class", "Armour class", value=base.armour_class),
        FieldSpec("structure_max", "Structure max", kind="int", value=base.structure_max, low=1),
        FieldSpec("structure_now", "Structure now (blank: max)", kind="int",
                  value=base.structure_now if ship else "", low=0, optional=True),
        FieldSpec("flotation_max", "Flotation max", kind="int", value=base.flotation_max, low=1),
        FieldSpec("flotation_now", "Flotation now (blank: max)", kind="int",
                  value=base.flotation_now if ship else "", low=0, optional=True),
        FieldSpec("fire_markers", "Fire markers", kind="int", value=base.fire_markers, low=0),
        FieldSpec("points_base", "Points (before crew %)", kind="int", value=base.points_base,
                  low=0),
        FieldSpec("torpedoes", "Torpedoes", value=base.torpedoes),
        FieldSpec("sraa_dp", "SRAA / DP", value=base.sraa_dp),
        FieldSpec("radar", "Radar", value=base.radar),
        FieldSpec("notes", "Notes", value=base.notes),
    ]  # fmt: skip


def to_ship_fields(values: dict[str, Any]) -> ShipFields:
    """The form's values as the service's input."""
    return ShipFields(**values)


def commander_fields(commander: CommanderView | None) -> list[FieldSpec]:
    """Name, training paid for, rolled or bought, and the d10."""
    return [
        FieldSpec("name", "Name", value=commander.name if commander else ""),
        FieldSpec("training", "Training level paid for", kind="select",
                  value=commander.training if commander else 3, options=TRAINING_OPTIONS),
        FieldSpec("acquisition", "How", kind="select",
                  value=commander.acquisition if commander else "random",
                  options=ACQUISITION_OPTIONS),
        FieldSpec("roll", "d10 rolled (blank if bought)", kind="int",
                  value=commander.roll if commander and commander.roll else "", low=1, high=10),
    ]  # fmt: skip


def commander_preview(air: bool) -> Any:
    """A live preview: what the roll or purchase gives (SMR2 §3.1 ratings and training)."""

    def preview(values: dict[str, Any]) -> str:
        training = values.get("training")
        if not isinstance(training, int):
            return ""
        cost = smr.commander_cost(training, air=air)
        if values.get("acquisition") == "direct":
            grade = training
            how = "bought"
        elif isinstance(values.get("roll"), int):
            grade = smr.grade_from_roll(training, values["roll"])
            how = f"d10 {values['roll']} at training {smr.training_numeral(training)}"
        else:
            return f"Cost {cost} pts. Type the d10 you rolled, or press ctrl+r to roll."
        unit = "stands" if air else "ships"
        return (
            f"{how} → {smr.rating_name(grade)} ({smr.grade_modifier(grade):+d})\n"
            f"radius {smr.command_radius_cm(grade, air=air)} cm · commands up to "
            f"{smr.command_limit(grade)} {unit} · cost {cost} pts (the level paid for)"
        )

    return preview


def crew_fields(crew: CrewView | None) -> list[FieldSpec]:
    """Training paid for, rolled or bought, and the d10."""
    return [
        FieldSpec("training", "Training level", kind="select",
                  value=crew.training if crew else 3, options=TRAINING_OPTIONS),
        FieldSpec("acquisition", "How", kind="select",
                  value=crew.acquisition if crew else "random", options=ACQUISITION_OPTIONS),
        FieldSpec("roll", "d10 rolled (blank if bought)", kind="int",
                  value=crew.roll if crew and crew.roll else "", low=1, high=10),
    ]  # fmt: skip


def crew_preview(sheet: RecordSheet) -> Any:
    """A live preview of the crew quality, with the optional commander rule when it is on."""
    commander_modifier = sheet.commander.modifier_now if sheet.commander else None

    def preview(values: dict[str, Any]) -> str:
        training = values.get("training")
        if not isinstance(training, int):
            return ""
        percent = f"points {smr.crew_cost_percent(training):+d}% on each ship"
        if values.get("acquisition") == "direct":
            grade, how = training, "bought"
        elif isinstance(values.get("roll"), int):
            roll = values["roll"]
            how = f"d10 {roll}"
            if sheet.crew_roll_adds_commander:
                if commander_modifier is None:
                    return "Optional rule on: assign the commander first (r)."
                roll = smr.crew_roll(roll, commander_modifier)
                how += f" {commander_modifier:+d} commander = {roll}"
            grade = smr.grade_from_roll(training, roll)
        else:
            return f"{percent}. Type the d10 you rolled, or press ctrl+r to roll."
        return f"{how} → {smr.quality_name(grade)} ({smr.grade_modifier(grade):+d}) · {percent}"

    return preview


def test_fields(sheet: RecordSheet, under_fire: bool) -> list[FieldSpec]:
    """Who tests, the d10, fire markers and the situational modifier (SMR2 §3.6)."""
    return [
        FieldSpec("subject", "Test", kind="select", value="commander",
                  options=[("Command (commander's modifier)", "commander"),
                           ("Crew (crew quality modifier)", "crew")]),
        FieldSpec("roll", "d10 rolled", kind="int", value="", low=1, high=10),
        FieldSpec("under_fire", "Under any fire marker (-2)", kind="bool", value=under_fire),
        FieldSpec("extra", "Situational modifier", kind="int", value=0, low=-20, high=20),
    ]  # fmt: skip


def test_preview(sheet: RecordSheet, own: ShipView | None = None) -> Any:
    """The test's arithmetic as it stands, and whether it passes (6 or more); a crew test of a
    ship with a crew of its own (`own`) uses that crew (SMR2 §3.2)."""

    def preview(values: dict[str, Any]) -> str:
        crew = own.own_crew if own is not None else sheet.crew
        rated = sheet.commander if values.get("subject") == "commander" else crew
        if rated is None:
            return f"{sheet.squadron_name} has no {values.get('subject')} rating yet."
        roll, extra = values.get("roll"), values.get("extra") or 0
        if not isinstance(roll, int):
            return f"Modifier {rated.modifier_now:+d}. Type the d10, or press ctrl+r to roll."
        total = smr.test_total(roll, rated.modifier_now, under_fire=bool(values.get("under_fire")),
                               extra=extra)  # fmt: skip
        parts = f"d10 {roll} {rated.modifier_now:+d}"
        if values.get("under_fire"):
            parts += " -2 (under fire)"
        if extra:
            parts += f" {extra:+d}"
        verdict = "PASSES" if total >= smr.PASS_MARK else "FAILS"
        return f"{parts} = {total}: {verdict} (needs {smr.PASS_MARK} or more)"

    return preview


def reduction_fields() -> list[FieldSpec]:
    """Combat reductions, each by a number of steps (floors: -2, 10 cm)."""
    return [
        FieldSpec("modifier_by", "Command modifier down by", kind="int", value=0, low=0, high=4),
        FieldSpec("radius_by_cm", "Command radius down by (cm)", kind="int", value=0, low=0,
                  high=100),
        FieldSpec("crew_by", "Crew modifier down by", kind="int", value=0, low=0, high=4),
    ]  # fmt: skip


COUNTER_SIZE_OPTIONS = [("blank (not entered)", ""), ("long", "long"), ("small", "small")]


def counter_fields(counter: CounterView) -> list[FieldSpec]:
    """The Second World War at Sea counter as printed: the size is typed, never derived."""
    return [
        FieldSpec("counter_size", "Counter size", kind="select", value=counter.counter_size,
                  options=COUNTER_SIZE_OPTIONS),
        FieldSpec("speed_rating", "Speed rating", kind="int", value=counter.speed_rating, low=0,
                  high=20),
        FieldSpec("torpedo_factors", "Torpedo factors", kind="int",
                  value=counter.torpedo_factors, low=0, high=99),
        FieldSpec("mines_loaded", "Minefields loaded (in place of torpedo factors)", kind="int",
                  value=counter.mines_loaded, low=0, high=99),
        FieldSpec("hull_boxes", "Hull boxes", kind="int", value=counter.hull_boxes, low=0,
                  high=99),
        FieldSpec("fuel_full", "Fuel factors full", kind="int", value=counter.fuel.full, low=0,
                  high=99),
        FieldSpec("fuel_empty", "Fuel factors empty", kind="int", value=counter.fuel.empty,
                  low=0, high=99),
        FieldSpec("speed_lost", "Mine damage: speed lost", kind="int", value=counter.speed_lost,
                  low=0, high=20),
        FieldSpec("gunnery_lost", "Mine damage: gunnery lost", kind="int",
                  value=counter.gunnery_lost, low=0, high=99),
        FieldSpec("hull_damage", "Mine damage: hull boxes hit", kind="int",
                  value=counter.hull_damage, low=0, high=99),
        FieldSpec("crippled", "Crippled", kind="bool", value=counter.crippled),
    ]  # fmt: skip


def counter_note(counter: CounterView) -> str:
    """What the counter form leaves alone: fuel lost to mines."""
    note = ("Second World War at Sea counter values, as printed on the ship's counter; the "
            "mine damage lines take your group's repairs and corrections.")  # fmt: skip
    if counter.fuel.lost:
        note += (
            f" {counter.fuel.lost} fuel factors lost to mines stay lost until a repair in a "
            "friendly port (Repairs): more full fuel typed here bypasses that rule and is "
            "journaled as a correction."
        )
    return note


def use_fuel_fields(counter: CounterView) -> list[FieldSpec]:
    """How many full fuel factors the ship used."""
    return [
        FieldSpec("factors", f"Fuel factors used (of {counter.fuel.full} full)", kind="int",
                  value=1 if counter.fuel.full else "", low=1, high=99),
    ]  # fmt: skip


def refuel_fields(counter: CounterView) -> list[FieldSpec]:
    """How many empty fuel factors to fill; blank fills them all."""
    return [
        FieldSpec("factors", f"Factors to refuel (blank: all {counter.fuel.empty} empty)",
                  kind="int", value="", low=1, high=99, optional=True),
    ]  # fmt: skip


def use_fuel_note(counter: CounterView) -> str:
    return "Full fuel factors become empty; a refuel (O on the record sheet) fills them again."


def refuel_note(counter: CounterView) -> str:
    """Refuelling fills empty factors only; lost ones wait for a friendly port (RULES.md §Mines)."""
    note = "Refuelling fills empty fuel factors only."
    if counter.fuel.lost:
        note += f" {counter.fuel.lost} lost to mines need a repair in a friendly port first."
    return note
