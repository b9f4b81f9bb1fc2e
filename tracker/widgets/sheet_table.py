"""The record sheet's ships: a row per ship, damage first, in columns fitted to the window."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events

from tracker.services.views import ShipView
from tracker.widgets.search_table import SearchTable, SortAs
from tracker.widgets.tables import content_widths, fit_or_scroll, fits
from tracker.widgets.tones import ALERT, NOTICE, toned
from tracker.widgets.track_bar import track_bar

# (label, width): damage comes first, then the criticals in force, then the ship's data.
SHIP_COLUMNS = (
    ("Ship", 12), ("Structure", 14), ("Flotation", 14), ("Fire", 4), ("Morale", 6), ("Crits", 12),
    ("Type", 4), ("Class", 9), ("Nation", 9), ("Sz Kn Ar", 8), ("Points", 7), ("Base", 4),
)  # fmt: skip
# The columns whose width follows what they hold, (narrowest, widest): names are whole while
# the table has room; narrowed, a row wraps its names onto more lines (never cut).
FLEXIBLE = {
    "Ship": (4, 26), "Morale": (6, 11), "Crits": (5, 30), "Class": (5, 18), "Nation": (6, 16),
}  # fmt: skip
# When the columns do not all fit, they give way in this order, each down to the width named
# (never below its longest word): the nation and the class first (the ship's data), then the
# criticals, the morale marks, the name last. When they cannot all fit even so, the name keeps
# its width and what does not fit scrolls into view with the cursor (left, right), whole.
GIVE_WAY = (
    ("Nation", 9), ("Class", 11), ("Crits", 12), ("Nation", 7), ("Class", 8), ("Crits", 10),
    ("Morale", 6), ("Ship", 12),
)  # fmt: skip
# The width of a damage track's bar, and the narrower one of a table too narrow for it.
TRACK_BAR, TRACK_BAR_NARROW = 7, 4
TRACK_COLUMN_NARROW = 11


def ship_status(ship: ShipView) -> Text:
    """Sunk, the morale tests she owes (S⅓, F⅓, ½: services.sheet.morale_marks), Out of
    Command (OoC)."""
    if ship.sunk:
        return toned("SUNK", ALERT)
    if ship.condition:
        return toned(ship.condition, ALERT, overflow="ellipsis", no_wrap=True)
    return morale_cell(ship.morale, ship.out_of_command)


def morale_cell(morale: tuple[str, ...], out_of_command: bool) -> Text:
    """The morale tests a ship owes (S⅓, F⅓, ½) and Out of Command (OoC), marked alike on the
    sheet and the scenario."""
    text = toned(" ".join(morale), ALERT)
    if out_of_command:
        text.append(" OoC" if morale else "OoC", style=NOTICE)
    return text


def criticals_cell(ship: ShipView) -> Text:
    """The critical hits in force: how many, then the newest one's effect (`2 B turret out`)."""
    if not ship.criticals_in_force:
        return Text("")
    return toned(f"{ship.criticals_in_force} {ship.newest_critical}", NOTICE,
                 overflow="ellipsis", no_wrap=True)  # fmt: skip


def _track(now: int, most: int, flagged: bool, bar: int) -> SortAs:
    """A damage track's bar, sorted by the boxes left."""
    return SortAs(track_bar(now, most, width=bar, flagged=flagged), now)


def ship_row(ship: ShipView, bar: int = TRACK_BAR) -> list[Any]:
    """One row of the ships table, its tracks `bar` cells long; names are plain Text so markup
    in them shows as typed."""
    return [
        Text(ship.name, style="bold", overflow="ellipsis", no_wrap=True),
        _track(ship.structure_now, ship.structure_max, ship.structure_third, bar),
        _track(ship.flotation_now, ship.flotation_max, ship.flotation_third, bar),
        toned(str(ship.fire_markers or ""), ALERT),
        ship_status(ship),
        criticals_cell(ship),
        Text(ship.type_abbrev),
        Text(ship.class_name, overflow="ellipsis", no_wrap=True),
        Text(ship.nation, overflow="ellipsis", no_wrap=True),
        f"{ship.size_modifier:+d} {ship.speed_kn:>2} {ship.armour_class}",
        SortAs(f"{ship.points_base}→{ship.points_total}", ship.points_total),
        f"{ship.base_width_cm:g}",
    ]


def column_widths(rows: list[list[Any]], room: int, bar: int = TRACK_BAR) -> list[int]:
    """The width of each column of SHIP_COLUMNS for these rows in a table `room` cells wide,
    its tracks' bars `bar` cells long."""
    labels = [label for label, _ in SHIP_COLUMNS]
    widths = [width for _, width in SHIP_COLUMNS]
    if bar != TRACK_BAR:
        for label in ("Structure", "Flotation"):
            widths[labels.index(label)] = TRACK_COLUMN_NARROW
    held, words = content_widths(labels, rows)
    for label, (low, high) in FLEXIBLE.items():
        at = labels.index(label)
        widths[at] = min(max(held[at], low), high)
    return fit_or_scroll(widths, labels, GIVE_WAY, room, grow="Ship", words=words)


def track_width(ships: tuple[ShipView, ...], room: int) -> int:
    """The tracks' bars at their full length when every column fits so, else narrower."""
    rows = [ship_row(ship) for ship in ships]
    return TRACK_BAR if fits(column_widths(rows, room), room) else TRACK_BAR_NARROW


class SheetTable(SearchTable):
    """The ships, filtered and sorted as the player chose, the cursor kept on its ship; a row
    whose names do not fit wraps them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, wrap_rows=True, **kwargs)
        self.ships: tuple[ShipView, ...] | None = None  # as last filled
        self.room = 0  # the cells they were fitted to

    def on_resize(self, _: events.Resize) -> None:
        """Fitted again to the room it now has (once laid out: its gutter, a wider window); in
        the room it was filled for, it stays as it is."""
        room = self.scrollable_content_region.width or self.size.width
        if self.ships is not None and room != self.room:
            self.fill(self.ships, self.size.width, None)

    def on_mount(self) -> None:
        # Keep the red of a flagged track visible under the cursor.
        self.cursor_foreground_priority = "renderable"
        self.add_sized_columns(SHIP_COLUMNS)

    def fill(self, ships: tuple[ShipView, ...], room: int, select: int | None) -> None:
        """The ships' rows in columns fitted to `room` cells; the ship `select` takes the
        cursor (one just added), else the cursor stays on its ship wherever it is now."""
        self.ships = ships
        room = self.room = self.scrollable_content_region.width or room
        bar = track_width(ships, room)
        rows = [ship_row(ship, bar) for ship in ships]
        self.set_widths(column_widths(rows, room, bar))
        self.show((str(ship.id), cells) for ship, cells in zip(ships, rows, strict=True))
        if select is not None:
            self.select_key(str(select))
