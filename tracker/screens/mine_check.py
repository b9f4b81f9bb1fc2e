"""A task force enters a minefield: two cups, one ship drawn at a time, a d6 each (RULES.md §Mines).

Long counters go in one cup and small ones in the other; ships are drawn at random, alternating
cups from the one the player chooses, and each rolls on the campaign's mine damage table with the
modifiers. The check halts when a quarter of the task force (rounded up) has struck mines, or,
with the campaign's literal option, when a quarter has been drawn: the task force then stops and
replots.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker.rules import swwas
from tracker.rules.words import plural
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.confirm import confirm
from tracker.screens.form import FieldSpec
from tracker.screens.mine_table import MineTableScreen
from tracker.screens.participants import ParticipantsScreen
from tracker.services import mines
from tracker.services.mines import CheckView, CounterView, DrawView, MinefieldView
from tracker.widgets.fuel_track import fuel_track
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import fit_columns, refill
from tracker.widgets.tones import ALERT, CAUTION, GOOD, toned

RULE_TEXT = {
    "struck": "halts when a quarter of the task force has struck mines",
    "drawn": "halts when a quarter of the task force has been drawn (literal reading)",
}


def drm_text(drm: swwas.MineDrm) -> str:
    """The modifier every roll of a check takes, and its causes: `+4 (+2 minefields, +2 speed)`."""
    return f"+{drm.total} (+{drm.minefields} minefields, +{drm.speed} speed)"


def setup_preview(values: dict[str, Any]) -> str:
    """The modifier every roll of the check will take, as the rule gives it for the speed and
    the minefields typed."""
    if values.get("speed") is None or values.get("minefields") is None:
        return "Give the speed: +2 at speed 3 or more; +1 per extra minefield, at most +3."
    drm = swwas.mine_drm(values["minefields"], values["speed"])
    return f"Modifier {drm_text(drm)} on every roll."


def start_check_flow(screen: TrackerScreen, field: MinefieldView) -> None:
    """Choose the task force's ships, then its speed and first cup, then open the check."""
    if field.hidden or field.secret:
        screen.notify(f"Minefield #{field.id} is secret: its owner reveals it first (r).",
                      severity="warning")  # fmt: skip
        return
    if field.status != "active":
        screen.notify(f"Minefield #{field.id} is {field.status}: only an active minefield is "
                      "checked.", severity="warning")  # fmt: skip
        return
    screen.call(Call(mines.counter_ships, screen.factory, campaign_id=_campaign_of(screen)),
                then=lambda ships: _choose_ships(screen, field, ships))  # fmt: skip


def _choose_ships(screen: TrackerScreen, field: MinefieldView, ships: list[CounterView]) -> None:
    if not ships:
        screen.notify("No ship afloat in the campaign to enter it.", severity="warning")
        return
    choices = [
        (f"{ship.side_name}: {ship.name}  ({ship.counter_size or 'no counter size'})",
         ship.ship_id, False)
        for ship in ships
    ]  # fmt: skip

    def chosen(ship_ids: list[int] | None) -> None:
        if ship_ids:
            _ask_setup(screen, field, ship_ids)

    screen.app.push_screen(
        ParticipantsScreen(f"The task force entering minefield #{field.id} ({field.where})",
                           choices), chosen)  # fmt: skip


def _campaign_of(screen: TrackerScreen) -> int:
    campaign_id = screen.current_campaign_id()
    assert campaign_id is not None
    return campaign_id


def _ask_setup(screen: TrackerScreen, field: MinefieldView, ship_ids: list[int]) -> None:
    fields = [
        FieldSpec("speed", "Task force speed", kind="int", value="", low=0, high=20),
        FieldSpec("leaving_board", "Ships leaving the tactical board", kind="bool",
                  value=False),
        FieldSpec("first_cup", "Draw first from", kind="select", value="long",
                  options=[("the long counters' cup", "long"),
                           ("the small counters' cup", "small")]),
        FieldSpec("minefields", "Minefields sown across this boundary", kind="int",
                  value=field.count_here, low=1, high=20),
    ]  # fmt: skip
    campaign_id = _campaign_of(screen)

    def submit(values: dict[str, Any]) -> Call[int]:
        return Call(
            mines.start_check,
            screen.factory, minefield_id=field.id, ship_ids=ship_ids,
            seed=screen.rng.randrange(2**31), **values,
        )  # fmt: skip

    def done(check_id: int | None) -> None:
        if check_id:
            screen.app.push_screen(MineCheckScreen(campaign_id, check_id))

    count = len(ship_ids)
    title = f"{plural(count, 'ship')} enter{'s' * (count == 1)} minefield #{field.id}"
    screen.open_form(title, fields, submit, preview=setup_preview, done=done)


def cups_text(view: CheckView) -> Text:
    text = Text()
    text.append(f"Long cup: {view.left['long']} left", style="bold")
    text.append(" · ")
    text.append(f"Small cup: {view.left['small']} left", style="bold")
    text.append(f" · struck {view.struck} of {view.size}, drawn {view.drawn}")
    text.append(f" · halts at {view.halt_at} {'struck' if view.rule == 'struck' else 'drawn'}")
    return text


def drawn_row(draw: DrawView) -> list[Any]:
    roll = [draw.cup, str(draw.roll), f"{draw.drm:+d}", str(draw.modified)]
    effect = toned(draw.effects, ALERT if draw.struck else GOOD)
    return [str(draw.draw_no), Text(draw.name, style="bold"), *roll, effect, fuel_track(draw.fuel)]


DRAW_COLUMNS = (("Draw", 4), ("Ship", 20), ("Cup", 6), ("d6", 3), ("DRM", 4), ("Total", 5),
                ("Result", 30), ("Fuel now", 20))  # fmt: skip


class MineCheckScreen(TrackerScreen):
    """The check in progress: enter or r rolls for the next ship drawn."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the ledger (the check waits)"),
        Binding("r,enter", "roll", "Roll", tooltip="Draw the next ship and roll its d6"),
        Binding("t", "table", "Mine table", tooltip="The campaign's mine damage table"),
        Binding("x", "abandon", "Abandon", tooltip="Abandon a check set up by mistake",
                show=False),
    ]  # fmt: skip
    READ_ONLY_ACTIONS = frozenset({"back", "table"})
    ENTER_ACTION = "roll"  # as the hint says

    def __init__(self, campaign_id: int, check_id: int) -> None:
        super().__init__()
        self.campaign_id = campaign_id
        self.check_id = check_id
        self.view: CheckView | None = None

    def body(self) -> ComposeResult:
        yield Static("", id="check-heading", markup=False)
        yield Static("", id="check-cups", markup=False)
        yield PlainTable(id="draw-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="check-message", markup=False)

    def on_mount(self) -> None:
        table = self.query_one("#draw-table", PlainTable).add_sized_columns(DRAW_COLUMNS)
        fit_columns(table, (("Result", 16), ("Ship", 12)), wrap=("Ship", "Result"))
        table.border_title = "Ships drawn"
        table.focus()

    def reload(self) -> None:
        self.load(Call(mines.check_view, self.factory, check_id=self.check_id), self._show)

    def _show(self, view: CheckView) -> None:
        self.view = view
        self.title = f"Mine check #{view.id}: minefield {view.minefield}"
        self.sub_title = view.status.replace("_", " ")
        heading = Text()
        heading.append(f"{plural(view.size, 'ship')} at speed {view.speed}", style="bold")
        if view.leaving_board:
            heading.append(" (leaving the tactical board)")
        heading.append(f" · {plural(view.minefields, 'minefield')} here: "
                       f"modifier {drm_text(view.drm)}")  # fmt: skip
        heading.append(f"\nFirst cup: {view.first_cup}.  The check {RULE_TEXT[view.rule]}.",
                       style="dim")  # fmt: skip
        self.query_one("#check-heading", Static).update(heading)
        self.query_one("#check-cups", Static).update(cups_text(view))
        rows = [(str(draw.draw_no), drawn_row(draw)) for draw in view.draws if draw.drawn]
        if (after := view.next) is not None:
            row = [str(after.draw_no), Text("next: ?", style="italic"), after.cup, "?"]
            rows.append((str(after.draw_no), [*row, f"{view.drm.total:+d}", "", "", ""]))
        table = self.query_one("#draw-table", DataTable)
        refill(table, rows)
        if view.next is not None:
            table.move_cursor(row=len(rows) - 1)
        message = Text(view.message)
        if view.status == "halted":
            message = toned(f"STOP: {view.message}", CAUTION)
        elif view.status == "in_progress" and not self.read_only:
            message.append("\nr or enter: draw the next ship and roll its d6 (ctrl+r rolls).")
        self.query_one("#check-message", Static).update(message)

    def action_table(self) -> None:
        self.app.push_screen(MineTableScreen(self.campaign_id))

    def action_roll(self) -> None:
        view = self.view
        if view is None or view.next is None:
            why = {
                "halted": "it has halted: the task force stops and replots; the ships not "
                "drawn pass",
                "complete": "every ship has been drawn",
                "abandoned": "it was abandoned",
            }.get(view.status if view else "", "it is gone")
            self.missing(f"No more draws: {why}.")
            return
        draw = view.next
        fields = [
            FieldSpec("roll", "d6 (ctrl+r rolls it)", kind="int", value="", low=1, high=6),
            FieldSpec("effects", "Result (blank: the campaign's table)", optional=True,
                      suggestions=("none", "speed-1", "gunnery-1", "fuel-1", "fuel-2",
                                   "hull-1", "crippled", "sunk")),
        ]  # fmt: skip

        drm = view.drm.total

        def preview(values: dict[str, Any]) -> str | Call[str]:
            roll = values.get("roll")
            if roll is None:
                return f"{draw.name} ({draw.cup} cup): roll the d6; the modifier is {drm:+d}."
            total = f"{roll} {drm:+d} = {roll + drm}"

            def said(effects: str | None) -> str:
                if effects is None:
                    return (f"{total}: no row of the mine table covers it for a {draw.cup} "
                            "counter; type the result.")  # fmt: skip
                return f"{total}: the table says {effects}."

            return Call(mines.table_effect, self.factory, check_id=self.check_id, roll=roll).map(
                said
            )

        def done(result: CheckView | None) -> None:
            if result is not None:
                last = next(d for d in result.draws if d.draw_no == draw.draw_no)
                self.notify(f"{last.name}: {last.effects}",
                            severity="warning" if last.struck else "information")  # fmt: skip
                if result.said:  # a ship sunk: her commander lost, her squadron's strength
                    self.notify("\n".join(result.said), severity="warning", markup=False)
                if result.status == "halted":
                    self.notify("The task force stops moving and replots (19.25).",
                                severity="warning", timeout=15)  # fmt: skip
            self.reload()

        self.open_form(f"Draw {draw.draw_no}: {draw.name} ({draw.cup} cup)", fields,
                       self.calling(mines.roll_mine, check_id=self.check_id),
                       preview=preview, dice_field="roll", dice_sides=6, done=done)  # fmt: skip

    def action_abandon(self) -> None:
        abandon = Call(mines.abandon_check, self.factory, check_id=self.check_id)
        question = (
            "Abandon this mine check? The rolls made stay in the journal (ctrl+z undoes them)."
        )
        confirm(self, question, lambda: self.call(abandon, then=lambda _none: self.dismiss()))
