"""A ship's Second World War at Sea counter: its summary, and the record sheet's panel of it."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tracker.services.mines import CounterView
from tracker.services.views import ShipView
from tracker.services.visibility import HIDDEN
from tracker.widgets.fuel_track import fuel_track
from tracker.widgets.tones import ALERT, CAUTION, NOTICE


def has_counter(counter: CounterView) -> bool:
    """Whether the player entered any Second World War at Sea counter value for the ship."""
    return bool(
        counter.counter_size or counter.fuel.total or counter.speed_rating
        or counter.torpedo_factors or counter.hull_boxes
    )  # fmt: skip


def counter_summary(counter: CounterView) -> Text:
    """The counter in three lines: size, speed, hull and damage; fuel track; torpedoes, mines."""
    text = Text()
    text.append(f"{counter.counter_size} counter" if counter.counter_size else "no counter size",
                style="bold" if counter.counter_size else NOTICE)  # fmt: skip
    speed = counter.speed_rating - counter.speed_lost
    text.append(f" · speed {speed}")
    if counter.speed_lost:
        text.append(f" (rated {counter.speed_rating}, {counter.speed_lost} lost)", style=NOTICE)
    if counter.hull_boxes or counter.hull_damage:
        text.append(f" · hull {counter.hull_damage}/{counter.hull_boxes} boxes hit")
    if counter.gunnery_lost:
        text.append(f" · gunnery -{counter.gunnery_lost}", style=NOTICE)
    if counter.crippled:
        text.append(" · CRIPPLED", style=ALERT)
    if counter.sunk:
        text.append(" · SUNK", style=ALERT)
    text.append("\nFuel ")
    text.append_text(fuel_track(counter.fuel))
    if counter.fuel.total:
        text.append(" full/empty/lost", style="dim")
    if counter.fuel.lost:
        text.append(f" · {counter.fuel.lost} lost to mines: a friendly-port repair restores them",
                    style=NOTICE)  # fmt: skip
    if counter.mines_hidden:
        text.append(f"\nTorpedo factors {HIDDEN} of {counter.torpedo_factors}: how many carry "
                    "mines shows in the ledger's owner view")  # fmt: skip
    else:
        text.append(f"\nTorpedo factors {counter.torpedoes_left}")
    if counter.mines_loaded:
        text.append(f" of {counter.torpedo_factors} · minefields {counter.mines_loaded} loaded "
                    f"in their place, {counter.mines_aboard} aboard")  # fmt: skip
    if counter.sowing_id is not None:
        text.append(f" · sowing: no torpedo attacks (minefield #{counter.sowing_id})",
                    style=CAUTION)  # fmt: skip
    return text


class CounterPanel(Static):
    """The highlighted ship's counter, shown once any ship of the squadron has counter values:
    a squadron played with Stations Manned and Ready! alone never shows it."""

    def show(self, ship: ShipView | None, counters: dict[int, CounterView], hints: bool) -> None:
        """`hints`: the key that enters the values is named (not to the umpire)."""
        self.display = any(has_counter(counter) for counter in counters.values())
        counter = counters.get(ship.id) if ship else None
        if not self.display or ship is None or counter is None:
            return
        self.border_title = Text(f"Second World War at Sea counter: {ship.name}")  # not markup
        if has_counter(counter):
            self.update(counter_summary(counter))
        else:
            hint = ": press u to enter them" if hints else ""
            self.update(Text(f"{ship.name} has no counter values yet{hint}.", style="dim"))
