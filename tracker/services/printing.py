"""What a printed page is made of: a squadron's sheet as it stands, the names it is found by
(with every campaign's and side's), and where the page goes (beside the campaign file, through
safe_output). The pages themselves are drawn by tracker.publish from these read models.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlmodel import col, select

from tracker import paths, safe_output
from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, Side, Squadron
from tracker.models.kinds import CriticalStatus
from tracker.services import damage, mines, sheet
from tracker.services.backups import campaign_file
from tracker.services.common import get_row
from tracker.services.damage import CriticalView
from tracker.services.errors import InvalidInput
from tracker.services.mines import CounterView
from tracker.services.views import RecordSheet, ShipView
from tracker.services.visibility import Viewer

FORMATS = {"html": ".html", "markdown": ".md"}


@dataclass(frozen=True)
class PrintedShip:
    """A ship as printed: its sheet row, its criticals in force and its counter (if it has one)."""

    ship: ShipView
    criticals: tuple[CriticalView, ...]
    counter: CounterView | None


@dataclass(frozen=True)
class PrintedSheet:
    record: RecordSheet
    ships: tuple[PrintedShip, ...]
    printed_on: str


def _has_counter(counter: CounterView) -> bool:
    # A squadron played with Stations Manned and Ready! alone has no counter values at all.
    values = (counter.speed_rating, counter.torpedo_factors, counter.hull_boxes, counter.fuel.total)
    return bool(counter.counter_size) or any(values)


def load_printed_sheet(
    factory: SessionFactory, *, squadron_id: int, viewer: Viewer = Viewer.OWNER
) -> PrintedSheet:
    """The record sheet of a squadron with each ship's active criticals and counter, to print
    for its own side or (`viewer`) for the opponent or the umpire (docs/RULES.md §Secrets)."""
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    ships = []
    for ship in record.ships:
        criticals = damage.list_criticals(factory, ship_id=ship.id)
        counter = mines.counter(factory, ship_id=ship.id, viewer=viewer)
        ships.append(
            PrintedShip(
                ship=ship,
                criticals=tuple(c for c in criticals if c.status == CriticalStatus.ACTIVE),
                counter=counter if _has_counter(counter) else None,
            )
        )
    return PrintedSheet(record=record, ships=tuple(ships), printed_on=date.today().isoformat())


def named(factory: SessionFactory, *, depth: int) -> list[tuple[int, tuple[str, ...]]]:
    """Every campaign (depth 1), side (2) or squadron (3) with its names from the campaign
    down, in the order they were made: what a name typed on the command line is looked for in."""
    tables = (Campaign, Side, Squadron)[:depth]
    joins = (
        (Side, col(Side.campaign_id) == col(Campaign.id)),
        (Squadron, col(Squadron.side_id) == col(Side.id)),
    )
    query = select(col(tables[-1].id), *(col(table.name) for table in tables))
    query = query.select_from(Campaign)
    for table, on in joins[: depth - 1]:
        query = query.join(table, on)
    with session_scope(factory) as session:
        rows = session.connection().execute(query.order_by(*(col(table.id) for table in tables)))
        return [(row[0] or 0, tuple(row[1:])) for row in rows]


def default_sheet_path(factory: SessionFactory, *, squadron_id: int, fmt: str = "html") -> Path:
    """saves/<squadron>.html (or .md) beside the campaign file; the default saves/ folder when
    the campaign lives in a database that is not a file."""
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
    slug = re.sub(r"[^\w.-]+", "-", squadron.name).strip("-.") or f"squadron-{squadron_id}"
    name = slug + FORMATS.get(fmt, ".html")
    return campaign_folder(factory) / name


def campaign_folder(factory: SessionFactory) -> Path:
    """The folder of the campaign file (saves/ when the campaign is not in a file)."""
    db_file = campaign_file(factory)
    return Path(os.path.abspath(db_file)).parent if db_file else paths.default_saves_dir()


def write_file(
    factory: SessionFactory, *, path: str | Path, content: Callable[[], str],
    replace: bool = False, new_only: bool = False, private: bool = False,
) -> Path:  # fmt: skip
    """Write a page the player named, whole or not at all, through safe_output: over an existing
    file only when `replace` says the player confirmed, never when `new_only` (the umpire's
    view); `private` (a side's secrets) for the player alone, 0600 whatever the umask."""
    try:
        return safe_output.write_text(path, content, campaign=campaign_file(factory),
                                      replace=replace, new_only=new_only,
                                      private=private)  # fmt: skip
    except safe_output.OutputRefused as exc:
        raise InvalidInput({"path": str(exc)}) from exc
