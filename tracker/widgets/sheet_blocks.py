"""The record sheet's three boxes over its ships: the commander, the crew, the squadron."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from tracker.rules import smr
from tracker.services import sheet
from tracker.services.views import RecordSheet


def commander_block(record: RecordSheet, hints: bool = True) -> str:
    """The commander's box: rating, modifier and radius now/base, unit limit, cost."""
    commander = record.commander
    if commander is None:
        return "No commander yet." + ("\nPress r to roll or buy one." if hints else "")
    how = (
        f"rolled {commander.roll} at {smr.training_numeral(commander.training)}"
        if commander.acquisition == "random"
        else f"bought at {smr.training_numeral(commander.training)}"
    )
    unit = "stands" if commander.air else "ships"
    if commander.status == "lost":
        return (
            f"{commander.name or 'The commander'}: LOST"
            + (f" with {record.commander_ship}" if record.commander_ship else "")
            + "\nShips Out of Command (SMR2 §3.4)\nSMR2 §10.3 is not in this tracker:\n"
            + ("r types" if hints else "type")
            + " your rulebook's replacement"
        )
    aboard = f" · aboard {record.commander_ship}" if record.commander_ship else ""
    return (
        f"{commander.name or '(unnamed)'}{aboard}\n"
        f"{commander.rating} · {how}\n"
        f"Modifier {commander.modifier_now:+d} (base {commander.modifier_base:+d})\n"
        f"Radius {commander.radius_now_cm} cm (base {commander.radius_base_cm})\n"
        f"Commands {commander.command_limit} {unit} · cost {commander.cost}"
    )


def crew_block(record: RecordSheet, hints: bool = True) -> str:
    """The crew's box: quality, roll, modifier now/base, points percentage, optional rule."""
    crew = record.crew
    rule = "on" if record.crew_roll_adds_commander else "off"
    if crew is None:
        hint = "\nPress w to roll or buy one." if hints else ""
        return f"No crew rating yet.{hint}\nOptional commander rule: {rule}" + own_crews(record)
    text = (
        f"{crew.quality} · {sheet.crew_how(crew)}\n"
        f"Modifier {crew.modifier_now:+d} (base {crew.modifier_base:+d})\n"
        f"Points {crew.cost_percent:+d}% on each ship\n"
        f"Optional commander rule: {rule}"
    )
    return text + own_crews(record)


def own_crews(record: RecordSheet) -> str:
    """The ships that sail with a crew of their own, taken from their first squadron (§3.2)."""
    return "".join(
        f"\n{ship.name}: own crew {ship.own_crew.quality} {ship.own_crew.modifier_now:+d}"
        for ship in record.ships
        if ship.own_crew is not None
    )


def strength_lines(original: int, afloat: int, half: bool) -> str:
    """Original ships afloat and half strength, worded alike on the sheet and the scenario."""
    if not original:
        return "Afloat: no original ships\nHalf strength: -"
    return (
        f"Afloat {afloat} of {original} original\n"
        f"Half strength: {'YES: morale tests' if half else 'no'}"
    )


def totals_block(record: RecordSheet) -> str:
    """Squadron totals: points, original ships afloat, half strength, ships beyond his limit."""
    strength = strength_lines(record.original_count, record.original_afloat, record.half_strength)
    text = f"Points {record.points_total}\n{strength}\nScale {record.model_scale}"
    afloat = sum(1 for ship in record.ships if not ship.sunk)
    if record.commander and afloat > record.commander.command_limit:
        # SMR2 §3.3: only that many may take In Command actions in a turn.
        text += f"\n{afloat} ships, he commands {record.commander.command_limit}"
    return text


class SheetBlocks(Horizontal):
    def compose(self) -> ComposeResult:
        for id_, title in (("commander", "Commander"), ("crew", "Crew"), ("totals", "Squadron")):
            block = Static("", id=f"{id_}-block", markup=False)
            block.border_title = title
            yield block

    def show(self, record: RecordSheet, hints: bool) -> None:
        """The squadron as read; `hints`: the keys that change it are named (not to the umpire)."""
        self.query_one("#commander-block", Static).update(commander_block(record, hints))
        self.query_one("#crew-block", Static).update(crew_block(record, hints))
        self.query_one("#totals-block", Static).update(totals_block(record))
