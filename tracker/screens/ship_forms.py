"""Fields of the campaign and record-sheet forms; the record sheet's forms on its commander,
its crew and a ship's counter and fuel."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracker.rules import smr
from tracker.rules.dice import roll_text
from tracker.screens.calls import Call
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec, FormScreen
from tracker.services import command, fleet, mines
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
    TestResult,
)

if TYPE_CHECKING:
    from tracker.screens.base import TrackerScreen

Fields = Callable[[CounterView], list[FieldSpec]]


@dataclass(frozen=True)
class Tested:
    """A command or crew test recorded from the sheet, for its toast."""

    result: TestResult


def side_fields(side: SideView | None) -> list[FieldSpec]:
    return specs_from(SideCreate, side)


# A scenario has no date until one is typed: the empty field says so, with no date of its own
# (a grey "13 Dec 1939", the sample's, read as the date a new scenario was given).
NO_DATE = "none yet: type it as you like"


def scenario_fields(scenario: ScenarioView | None) -> list[FieldSpec]:
    return specs_from(ScenarioCreate, scenario, keys=("title", "date"),
                      date={"placeholder": NO_DATE})  # fmt: skip


def squadron_fields(name: str = "", air: bool = False, notes: str = "") -> list[FieldSpec]:
    return specs_from(SquadronCreate, {"name": name, "air": air, "notes": notes})


def edit_squadron(screen: TrackerScreen, record: RecordSheet, **options: Any) -> None:
    """The squadron's form (from the campaign or its own sheet), at the version read."""
    screen.open_form(
        f"Edit squadron {record.squadron_name}",
        squadron_fields(record.squadron_name, record.air, record.notes),
        screen.calling(
            fleet.update_squadron, squadron_id=record.squadron_id, version=record.squadron_version
        ),
        **options,
    )


def ship_fields(ship: ShipView | None) -> list[FieldSpec]:
    return specs_from(ShipCreate, ship, type_abbrev={"suggestions": smr.TYPE_ABBREVIATIONS})


@dataclass(frozen=True)
class ShipSaved:
    """A form added a ship: the sheet puts its cursor on it."""

    ship_id: int


def sister_form(screen: TrackerScreen, ship: ShipView) -> FormScreen:
    """A copy of the ship under another name: same class, data and batteries, undamaged."""

    copy = screen.calling(fleet.copy_ship, ship_id=ship.id)
    return FormScreen(
        f"Sister ship of {ship.name}",
        [FieldSpec("name", "Name of the sister ship")],
        lambda values: copy(values).map(ShipSaved),
        note="Same class, data and batteries; undamaged.",
    )


def transfer_form(
    screen: TrackerScreen, ship: ShipView, others: list[tuple[str, int]]
) -> FormScreen:
    """The ship moved to one of the `others` squadrons of her side, (name, id)."""

    def submit(values: dict[str, Any]) -> Call[str]:
        return Call(fleet.transfer_ship, screen.factory, ship_id=ship.id,
                    to_squadron_id=values["squadron"])  # fmt: skip

    return FormScreen(
        f"Transfer {ship.name}",
        [FieldSpec("squadron", "To squadron", kind="select", value=others[0][1],
                   options=others)],
        submit,
        note="It keeps its own crew; during a battle it is Out of Command until the end of "
        "the turn (SMR2 §3.2, §3.4).",
    )  # fmt: skip


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
            how = f"{roll_text(values['roll'])} at training {smr.training_numeral(training)}"
        else:
            return f"Cost {cost} pts. Type the d10 you rolled, or press ctrl+r to roll."
        unit = "stands" if air else "ships"
        return (
            f"{how} → {smr.rating_name(grade)} ({smr.grade_modifier(grade):+d})\n"
            f"radius {smr.command_radius_cm(grade, air=air)} cm · commands up to "
            f"{smr.command_limit(grade)} {unit} · cost {cost} pts (the level paid for)"
        )

    return preview


def commander_form(screen: TrackerScreen, sheet: RecordSheet, _ship: ShipView | None) -> FormScreen:
    commander = sheet.commander
    submit = screen.editing(command.set_commander, commander, squadron_id=sheet.squadron_id)
    lost = commander is not None and commander.status == "lost"
    title = "Replacement commander: roll or buy" if lost else "Commander: roll or buy"
    return FormScreen(
        title,
        commander_fields(commander),
        submit,
        preview=commander_preview(sheet.air),
        dice_field="roll",
    )


def crew_fields(crew: CrewView | None) -> list[FieldSpec]:
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
            how = roll_text(roll)
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


def crew_form(screen: TrackerScreen, sheet: RecordSheet, _ship: ShipView | None) -> FormScreen:
    return FormScreen(
        "Crew: roll or buy",
        crew_fields(sheet.crew),
        screen.editing(command.set_crew, sheet.crew, squadron_id=sheet.squadron_id),
        preview=crew_preview(sheet),
        dice_field="roll",
    )


def test_fields(under_fire: bool, commander_may_test: bool = True) -> list[FieldSpec]:
    """Who tests, the d10, fire markers and the situational modifier (SMR2 §3.6); a commander
    who may not test (none yet, or lost) leaves the crew's test to open on."""
    return [
        FieldSpec("subject", "Test", kind="select",
                  value="commander" if commander_may_test else "crew",
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
        if rated is sheet.commander and sheet.commander_refusal:
            return sheet.commander_refusal
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
        words = smr.test_words(roll, rated.modifier_now, total,
                               under_fire=bool(values.get("under_fire")), extra=extra)  # fmt: skip
        verdict = "PASSES" if total >= smr.PASS_MARK else "FAILS"
        return f"{who}: {words}: {verdict} (needs {smr.PASS_MARK} or more)"

    return preview


def test_form(screen: TrackerScreen, sheet: RecordSheet, ship: ShipView | None) -> FormScreen:
    """A command test, or a crew test of the selected `ship`'s crew (SMR2 §3.6)."""

    def submit(values: dict[str, Any]) -> Call[Tested]:
        # A crew test is of the selected ship's crew; the commander tests aboard his ship.
        crew_ship = ship if ship is not None and values["subject"] == "crew" else None
        return Call(command.record_test, screen.factory, squadron_id=sheet.squadron_id,
                    ship_id=crew_ship.id if crew_ship else None, **values).map(Tested)  # fmt: skip

    def title(values: dict[str, Any]) -> str:
        who = tested_name(sheet, ship, str(values.get("subject")))
        return f"Test of {who}" + ("" if sheet.squadron_name in who else f", {sheet.squadron_name}")

    own = ship is not None and ship.own_crew is not None
    return FormScreen(
        title,
        test_fields(bool(ship and ship.fire_markers), not sheet.commander_refusal),
        submit,
        preview=test_preview(sheet, ship),
        dice_field="roll",
        note="d10 + modifier, -2 under any fire marker, + situation: 6 or more passes."
        + (f" A crew test is of {ship.name}'s own crew." if ship and own else ""),
    )


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


def reduction_form(screen: TrackerScreen, sheet: RecordSheet, ship: ShipView | None) -> FormScreen:
    """Combat reductions to the commander and the crew, the selected ship's own crew's when
    she has one; to the crew alone when the commander may not be reduced (none yet, or lost)."""
    own = ship if ship is not None and ship.own_crew is not None else None
    submit = screen.calling(
        command.reduce_command, squadron_id=sheet.squadron_id, ship_id=own.id if own else None
    )
    note = "Floors: modifier -2, radius 10 cm; the number of ships commanded never drops."
    if own is not None:
        note += f" The crew reduction goes to {own.name}'s own crew."
    fields = reduction_fields()
    if sheet.commander_refusal:
        note = f"The crew only: {sheet.commander_refusal}. {note}"
        fields = [spec for spec in fields if spec.key == "crew_by"]
    return FormScreen("Combat reductions", fields, submit, note=note)


def restore_form(screen: TrackerScreen, squadron_id: int) -> FormScreen:
    return FormScreen(
        "Restore the commander",
        [FieldSpec("rule", "By the rule", placeholder="e.g. our repair rule, 12.2")],
        screen.calling(command.restore_command, squadron_id=squadron_id),
        note="Combat reductions stay with the commander, re-rolled or re-bought (SMR2 "
        "§3.5); the seed gives no rule that ends them: name the one your group plays.",
    )


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
    return [
        FieldSpec("factors", f"Fuel factors used (of {counter.fuel.full} full)", kind="int",
                  value=1 if counter.fuel.full else "", low=1, high=counter.fuel.full or None),
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


def counter_form(
    kind: str, screen: TrackerScreen, ship: ShipView, counter: CounterView
) -> FormScreen:
    """A form on the ship's counter (`kind`: counter, use_fuel or refuel) whose values go to
    one mines service; it edits the real values, as the owner sees them."""
    forms: dict[str, tuple[str, Fields, Callable[..., str], Callable[[CounterView], str]]] = {
        "counter": ("Counter of {name}", counter_fields, mines.save_counter, counter_note),
        "use_fuel": ("{name} uses fuel", use_fuel_fields, mines.use_fuel, use_fuel_note),
        "refuel": ("Refuel {name}", refuel_fields, mines.refuel_ship, refuel_note),
    }
    title, fields, service, note = forms[kind]
    submit = screen.editing(service, counter, ship_id=ship.id)
    return FormScreen(title.format(name=ship.name), fields(counter), submit, note=note(counter))
