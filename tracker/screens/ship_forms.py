"""Fields of the campaign and record-sheet forms, the counter and fuel forms too."""

from __future__ import annotations

from typing import Any

from tracker.rules import smr
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec
from tracker.services.campaigns import ScenarioCreate, SideCreate
from tracker.services.command import CommanderUpdate, CommandLoss, CrewUpdate, TestRoll
from tracker.services.fleet import ShipCreate, SquadronCreate
from tracker.services.mines import CounterUpdate, CounterView
from tracker.services.views import (
    CommanderView,
    CrewView,
    RecordSheet,
    ScenarioView,
    ShipView,
    SideView,
)


def side_fields(side: SideView | None) -> list[FieldSpec]:
    """The side form."""
    return specs_from(SideCreate, side)


# A scenario has no date until one is typed: the empty field says so, with no date of its own
# (a grey "13 Dec 1939", the sample's, read as the date a new scenario was given).
NO_DATE = "none yet: type it as you like"


def scenario_fields(scenario: ScenarioView | None) -> list[FieldSpec]:
    """The scenario form: its title and date."""
    return specs_from(ScenarioCreate, scenario, keys=("title", "date"),
                      date={"placeholder": NO_DATE})  # fmt: skip


def squadron_fields(name: str = "", air: bool = False, notes: str = "") -> list[FieldSpec]:
    """The squadron form."""
    return specs_from(SquadronCreate, {"name": name, "air": air, "notes": notes})


def ship_fields(ship: ShipView | None) -> list[FieldSpec]:
    """Every value of the ship row of the record sheet, as the ship's model declares it."""
    return specs_from(ShipCreate, ship, type_abbrev={"suggestions": smr.TYPE_ABBREVIATIONS})


def commander_fields(commander: CommanderView | None) -> list[FieldSpec]:
    """Name, training paid for, rolled or bought, and the d10: the commander's own, or blank
    for a new one and for the replacement of one lost (saved as it opened, the form would
    bring the lost man back)."""
    blank = {"name": "", "training": 3, "acquisition": "random", "roll": None}
    shown = commander if commander is not None and commander.status != "lost" else blank
    return specs_from(CommanderUpdate, shown, keys=("name", "training", "acquisition", "roll"))


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
    shown = crew or {"training": 3, "acquisition": "random", "roll": None}
    return specs_from(CrewUpdate, shown, keys=("training", "acquisition", "roll"))


def crew_preview(sheet: RecordSheet) -> Any:
    """A live preview of the crew quality, with the optional commander rule when it is on: his
    rated modifier, as command.set_crew adds it; a lost commander adds nothing (losses)."""
    commander = sheet.commander
    acting = commander is not None and commander.status != "lost"
    commander_modifier = commander.modifier_base if commander is not None and acting else None

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
                    return "Optional rule on: roll or buy the commander first (r)."
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
        *specs_from(TestRoll, keys=["roll"]),
        FieldSpec("under_fire", "Under any fire marker (-2)", kind="bool", value=under_fire),
        *specs_from(TestRoll, keys=["extra"]),
    ]  # fmt: skip


def test_preview(sheet: RecordSheet, ship: ShipView | None = None) -> Any:
    """The test's arithmetic as it stands, and whether it passes (6 or more); a crew test is of
    the selected `ship`'s crew, her own when she has one (SMR2 §3.2)."""

    def preview(values: dict[str, Any]) -> str:
        own = ship.own_crew if ship is not None else None
        crew = own if own is not None else sheet.crew
        rated = sheet.commander if values.get("subject") == "commander" else crew
        if rated is None:
            return f"{sheet.squadron_name} has no {values.get('subject')} rating yet."
        who = tested_name(sheet, ship, str(values.get("subject")))
        roll, extra = values.get("roll"), values.get("extra") or 0
        if not isinstance(roll, int):
            return (
                f"{who}: modifier {rated.modifier_now:+d}. Type the d10, or press ctrl+r to roll."
            )
        total = smr.test_total(roll, rated.modifier_now, under_fire=bool(values.get("under_fire")),
                               extra=extra)  # fmt: skip
        parts = f"d10 {roll} {rated.modifier_now:+d}"
        if values.get("under_fire"):
            parts += " -2 (under fire)"
        if extra:
            parts += f" {extra:+d}"
        verdict = "PASSES" if total >= smr.PASS_MARK else "FAILS"
        return f"{who}: {parts} = {total}: {verdict} (needs {smr.PASS_MARK} or more)"

    return preview


def tested_name(sheet: RecordSheet, ship: ShipView | None, subject: str) -> str:
    """Who a command or crew test is of, in the player's words, naming the ship tested: the
    squadron's commander and the ship he is aboard, or the crew of the selected ship, her own
    when she has one (SMR2 §3.2, §3.6), as the test's result names them (command.record_test)."""
    if subject == "commander":
        name = f" {sheet.commander.name}" if sheet.commander and sheet.commander.name else ""
        aboard = f" aboard {sheet.commander_ship}" if sheet.commander_ship else ", aboard no ship"
        return f"{sheet.squadron_name}'s commander{name}{aboard}"
    if ship is not None:
        return f"{ship.name}'s {'own ' if ship.own_crew is not None else ''}crew"
    return f"{sheet.squadron_name}'s crew"


def reduction_fields() -> list[FieldSpec]:
    """Combat reductions, each by a number of steps (floors: -2, 10 cm)."""
    return specs_from(CommandLoss)


def counter_fields(counter: CounterView) -> list[FieldSpec]:
    """The Second World War at Sea counter as printed: the size is typed, never derived."""
    return specs_from(CounterUpdate, counter)


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
