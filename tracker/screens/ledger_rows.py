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


MINEFIELD_COLUMNS = (("#", 3), ("Owner", 12), ("Where", 24), ("Here", 4), ("Status", 9),
                     ("Laid by", 20), ("Turns", 5), ("Anchor", 8), ("Notes", 10))  # fmt: skip


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


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
        "" if field.hidden else str(field.count_here),
        Text(field.status, style=STATUS_STYLE.get(field.status, "")),
        Text("?" if field.hidden else laid, overflow="ellipsis", no_wrap=True),
        turns_text(field), "?" if field.hidden else "drifting" if field.drifting else "secured",
        Text(field.notes.replace("\n", " "), overflow="ellipsis", no_wrap=True),
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
        Text(view.name, style="bold"), Text(view.side_name), view.counter_size or "?",
        f"{speed}" + (f" (-{view.speed_lost})" if view.speed_lost else ""),
        f"{left}/{view.torpedo_factors}" if view.torpedo_factors else "-",
        HIDDEN if view.mines_hidden else mines_text,
        f"{view.hull_damage}/{view.hull_boxes}" if view.hull_boxes else str(view.hull_damage),
        f"-{view.gunnery_lost}" if view.gunnery_lost else "",
        fuel_track(view.fuel), Text(", ").join(state),
    ]  # fmt: skip
