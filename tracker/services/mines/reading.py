"""The minefield ledger as a viewer reads it: every minefield through what the viewer may see,
the count of minefields beside each, the sea boundaries and the ships' counters (RULES.md §Mines,
§Subs ¶12-13).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, Minefield, SeaBoundary, Ship, Side
from tracker.models.fields import read
from tracker.models.kinds import MinefieldStatus
from tracker.models.mines import MinefieldRead as MinefieldView
from tracker.models.mines import SeaBoundaryRead as BoundaryView
from tracker.rules import was
from tracker.rules.dice import roll_text
from tracker.services import journal, visibility
from tracker.services.common import get_row, rows_where
from tracker.services.mines import places
from tracker.services.mines.counters import CounterView, _counter_view, _laid_by_ships
from tracker.services.sealing import side_key


@dataclass(frozen=True)
class Ledger:
    campaign_id: int
    owner_side_id: int | None
    minefields: tuple[MinefieldView, ...]
    boundaries: tuple[BoundaryView, ...]
    counters: tuple[CounterView, ...]
    turn: int | None
    owner_idle_seconds: int = 60  # the campaign's option: the owner view hides after this idle


# The row's columns the ledger line shows, looked up once: pydantic's model_fields is a costly
# property.
_LINE_FIELDS = tuple(
    sorted(set(MinefieldView.model_fields) & set(Minefield.model_fields) - {"id", "version"})
)


def _field_views(
    session: Session, fields: Sequence[Minefield], sides: dict[int | None, Side],
    owner_side_id: int | None, key: bytes | None, boundaries: dict[int, SeaBoundary],
) -> list[MinefieldView]:  # fmt: skip
    """The ledger's lines as the viewer (`owner_side_id`'s, or none) sees them, all at once: every
    column through visibility, none straight from the row, so that a secret one reads its
    placeholder unless the viewer may see it (`key` opens the viewer's own)."""
    viewer = visibility.Viewer.OWNER if owner_side_id else visibility.Viewer.OPPONENT
    seen = visibility.rows_as_seen("minefield", (
        ({name: getattr(field, name) for name in _LINE_FIELDS},
         field.side_id == owner_side_id, not field.secret) for field in fields
    ), viewer=viewer)  # fmt: skip
    views = []
    for field, shown in zip(fields, seen, strict=True):
        hidden = field.secret and field.side_id != owner_side_id
        place = ({"boundary_id": None, "sector": "", "notes": "", "path": [], "layer_name": ""}
                 if hidden else places.opened(session, field, key, boundaries))  # fmt: skip
        path = tuple(f"turn {step['turn'] or '?'}: {step['from']} → {step['to']}"
                     + (f" ({roll_text(step['d6'])})" if step.get("d6") else "")
                     for step in place["path"])  # fmt: skip
        shown.update(
            id=field.id or 0, version=field.version, side_name=sides[field.side_id].name,
            where="secret" if hidden else places.label(session, place["boundary_id"],
                                                       place["sector"], boundaries),
            boundary_id=place["boundary_id"], sector=place["sector"], notes=place["notes"],
            layer_name=place.get("layer_name", ""), path=path, hidden=hidden,
        )  # fmt: skip
        views.append(read(MinefieldView, field, **shown))
    return views


def _with_counts(views: list[MinefieldView]) -> list[MinefieldView]:
    """Each readable minefield with the count of active ones the viewer can place beside it:
    public ones, and in the owner's view the owner's secret ones too (RULES.md §Mines)."""

    def place(view: MinefieldView) -> tuple[int | None, str]:
        return view.boundary_id, was.square(view.sector or "")  # A4 and a4: one square

    places = Counter(
        place(view) for view in views if not view.hidden and view.status == MinefieldStatus.ACTIVE
    )
    return [
        view if view.hidden else view.model_copy(update={"count_here": max(1, places[place(view)])})
        for view in views
    ]


def ledger(
    factory: SessionFactory,
    *,
    campaign_id: int,
    owner_side_id: int | None = None,
    passphrase: str | None = None,
) -> Ledger:
    """The campaign's minefields and ships' counters. Secret minefields show only their owner,
    status and turns, except in the owner's view (with the passphrase when the side has one)."""
    with session_scope(factory) as session:
        campaign = get_row(session, Campaign, campaign_id)
        key = side_key(session, owner_side_id, passphrase) if owner_side_id else None
        ours = Side.campaign_id == campaign_id
        sides = {side.id: side for side in rows_where(session, Side, ours)}
        kept = Minefield.campaign_id == campaign_id, Minefield.status != MinefieldStatus.VOID
        fields = rows_where(session, Minefield, *kept)
        # Loaded once here rather than one query per minefield and per ship.
        by_areas = (SeaBoundary.area_a, SeaBoundary.area_b)
        rows = rows_where(
            session, SeaBoundary, SeaBoundary.campaign_id == campaign_id, order=by_areas
        )
        boundaries = {row.id or 0: row for row in rows}
        views = _with_counts(_field_views(session, fields, sides, owner_side_id, key, boundaries))
        ships = session.exec(
            select(Ship)
            .where(col(Ship.side_id).in_(list(sides)))
            .where((Ship.counter_size != "") | (Ship.fuel_full + Ship.fuel_empty
                                                + Ship.fuel_lost > 0))
            .order_by(col(Ship.side_id), col(Ship.name))
        ).all()  # fmt: skip
        scenario = journal.scenario_in_play(session, campaign_id)
        laid_by = _laid_by_ships(session, list(sides))
        return Ledger(
            campaign_id=campaign_id, owner_side_id=owner_side_id, minefields=tuple(views),
            boundaries=tuple(read(BoundaryView, row) for row in boundaries.values()),
            counters=tuple(_counter_view(
                session, ship, sides[ship.side_id], laid_by,
                visibility.Viewer.OWNER if ship.side_id == owner_side_id
                else visibility.Viewer.OPPONENT) for ship in ships),
            turn=scenario.turn if scenario else None,
            owner_idle_seconds=campaign.owner_idle_seconds,
        )  # fmt: skip
