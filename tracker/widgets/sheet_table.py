"""The record sheet's ships: a row per ship, damage first, in columns fitted to the window."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tracker.services.views import ShipView
from tracker.widgets.search_table import SearchTable, SortAs
from tracker.widgets.tables import cell_width, give_way
from tracker.widgets.tones import ALERT, NOTICE, toned
from tracker.widgets.track_bar import track_bar

# (label, width): damage comes first, then the criticals in force; at 120 columns the last
# columns (the ship's data, not its state) scroll into view with the cursor.
SHIP_COLUMNS = (
    ("Ship", 12), ("Structure", 14), ("Flotation", 14), ("Fire", 4), ("Morale", 9), ("Crits", 12),
    ("Type", 4), ("Class", 9), ("Nation", 9), ("Sz Kn Ar", 8), ("Points", 9), ("Base", 4),
)  # fmt: skip
# The columns whose width follows what they hold, (narrowest, widest): names are not cut while
# the table has room.
FLEXIBLE = {"Ship": (8, 24), "Crits": (8, 30), "Class": (5, 16), "Nation": (6, 16)}
# When the columns up to Points do not fit, they give way in this order, each down to the width
# named, so that Points stays on screen at 120 columns: the nation and the class first (the
# ship's data), then the criticals (the newest one's effect is in the ship's view too), the
# ship's name last.
GIVE_WAY = (("Nation", 9), ("Class", 9), ("Crits", 8), ("Nation", 6), ("Class", 5), ("Ship", 8))


def ship_status(ship: ShipView) -> Text:
    """Sunk, the morale tests she owes (S⅓, F⅓, ½: services.sheet.morale_marks), Out of
    Command (OoC)."""
    if ship.sunk:
        return toned("SUNK", ALERT)
    if ship.condition:
        return toned(ship.condition, ALERT, overflow="ellipsis", no_wrap=True)
    text = toned(" ".join(ship.morale), ALERT)
    if ship.out_of_command:
        text.append(" OoC" if ship.morale else "OoC", style=NOTICE)
    return text


def criticals_cell(ship: ShipView) -> Text:
    """The critical hits in force: how many, then the newest one's effect (`2 B turret out`)."""
    if not ship.criticals_in_force:
        return Text("")
    return toned(f"{ship.criticals_in_force} {ship.newest_critical}", NOTICE,
                 overflow="ellipsis", no_wrap=True)  # fmt: skip


def ship_row(ship: ShipView) -> list[Any]:
    """One row of the ships table; names are plain Text so markup in them shows as typed."""
    return [
        Text(ship.name, style="bold", overflow="ellipsis", no_wrap=True),
        SortAs(
            track_bar(ship.structure_now, ship.structure_max, flagged=ship.structure_third),
            ship.structure_now,
        ),
        SortAs(
            track_bar(ship.flotation_now, ship.flotation_max, flagged=ship.flotation_third),
            ship.flotation_now,
        ),
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


def column_widths(rows: list[list[Any]], room: int) -> list[int]:
    """The width of each column of SHIP_COLUMNS for these rows in a table `room` cells wide."""
    labels = [label for label, _ in SHIP_COLUMNS]
    widths = [width for _, width in SHIP_COLUMNS]
    for label, (low, high) in FLEXIBLE.items():
        at = labels.index(label)
        held = max((cell_width(row[at]) for row in rows), default=0)
        widths[at] = min(max(held, len(label), low), high)
    shown = labels.index("Points") + 1
    return give_way(widths[:shown], labels, GIVE_WAY, room) + widths[shown:]


class SheetTable(SearchTable):
    """The ships, filtered and sorted as the player chose, the cursor kept on its ship."""

    def on_mount(self) -> None:
        # Keep the red of a flagged track visible under the cursor.
        self.cursor_foreground_priority = "renderable"
        self.add_sized_columns(SHIP_COLUMNS)

    def fill(self, ships: tuple[ShipView, ...], room: int, select: int | None) -> None:
        """The ships' rows in columns fitted to `room` cells; the ship `select` takes the
        cursor (one just added), else the cursor stays on its ship wherever it is now."""
        rows = [ship_row(ship) for ship in ships]
        self.set_widths(column_widths(rows, self.scrollable_content_region.width or room))
        self.show((str(ship.id), cells) for ship, cells in zip(ships, rows, strict=True))
        if select is not None:
            self.select_key(str(select))
