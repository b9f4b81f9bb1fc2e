"""The ledger's tables: a minefield's row as the viewer may see it, a ship's counter and fuel."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tracker.rules.dice import roll_text
from tracker.services import mines
from tracker.services.mines import MinefieldView
from tracker.services.visibility import HIDDEN
from tracker.widgets.fuel_track import fuel_track
from tracker.widgets.search_table import SortAs
from tracker.widgets.tones import ALERT, CAUTION, ERROR, NOTICE, SECRET, toned

STATUS_STYLE = {
    "sowing": CAUTION, "active": ALERT, "scattered": "dim", "swept": "dim",
    "expended": "dim",
}  # fmt: skip


# Where a minefield lies and what it is come first; who laid it scrolls into view on a narrow
# terminal. When the columns do not all fit, the text ones give way in this order, wrapping.
MINEFIELD_COLUMNS = (("#", 3), ("Owner", 12), ("Where", 24), ("Status", 9), ("Turns", 5),
                     ("Notes", 10), ("Here", 4), ("Anchor", 8), ("Laid by", 20))  # fmt: skip
MINEFIELD_GIVE = (
    ("Notes", 20),
    ("Laid by", 16),
    ("Notes", 14),
    ("Laid by", 12),
    ("Where", 20),
    ("Laid by", 8),
    ("Notes", 8),
    ("Owner", 8),
    ("Where", 8),
)
MINEFIELD_FIT = (MINEFIELD_GIVE, ("Owner", "Where", "Notes", "Laid by"))
# A ship's fuel and state first (what mines cost her), then her counter's ratings.
COUNTER_COLUMNS = (("Ship", 14), ("Fuel", 18), ("State", 24), ("Speed", 6), ("Hull", 4),
                   ("Gun", 3), ("Torp", 4), ("Mines", 5), ("Size", 5), ("Side", 12))  # fmt: skip
COUNTER_GIVE = (("State", 12), ("Ship", 20), ("Side", 8), ("State", 6), ("Ship", 8))
COUNTER_FIT = (COUNTER_GIVE, ("Ship", "State", "Side"))


def turns_text(field: MinefieldView) -> str:
    """`3→5`: the turn sowing began and the turn it was complete (? when unknown)."""
    start = "?" if field.turn_started is None else str(field.turn_started)
    if field.status == "sowing":
        return f"{start}→"
    end = "?" if field.turn_completed is None else str(field.turn_completed)
    return start if end == start else f"{start}→{end}"


def minefield_row(field: MinefieldView) -> list[Any]:
    laid = field.laid_by + (f": {field.layer}" if field.layer else "")
    laid += f" ({roll_text(field.drop_roll)})" if field.drop_roll else ""
    where = Text("secret", style="italic dim") if field.hidden else Text(field.where)
    if field.secret and not field.hidden:
        where.append(" (secret)", style=SECRET)
    return [
        SortAs(f"#{field.id}", field.id), Text(field.side_name), where,
        Text(field.status, style=STATUS_STYLE.get(field.status, "")), turns_text(field),
        Text(field.notes.replace("\n", " ")), "" if field.hidden else str(field.count_here),
        "?" if field.hidden else "drifting" if field.drifting else "secured",
        Text("?" if field.hidden else laid),
    ]  # fmt: skip


def counter_row(view: mines.CounterView) -> list[Any]:
    speed = view.speed_rating - view.speed_lost
    state = []
    if view.sunk:
        state.append(toned("SUNK", ALERT))
    if view.crippled:
        state.append(toned("crippled", ERROR))
    if view.sowing_id is not None:
        state.append(toned(f"sowing #{view.sowing_id}: no torpedoes", NOTICE))
    mines_text = f"{view.mines_aboard}/{view.mines_loaded}" if view.mines_loaded else "-"
    left = HIDDEN if view.mines_hidden else view.torpedoes_left
    return [
        Text(view.name, style="bold"), fuel_track(view.fuel), Text(", ").join(state),
        f"{speed}" + (f" (-{view.speed_lost})" if view.speed_lost else ""),
        f"{view.hull_damage}/{view.hull_boxes}" if view.hull_boxes else str(view.hull_damage),
        f"-{view.gunnery_lost}" if view.gunnery_lost else "",
        f"{left}/{view.torpedo_factors}" if view.torpedo_factors else "-",
        HIDDEN if view.mines_hidden else mines_text, view.counter_size or "?",
        Text(view.side_name),
    ]  # fmt: skip
