"""What damage entry shows when it opens, read at once."""

from __future__ import annotations

from dataclasses import dataclass

from tracker.db import SessionFactory
from tracker.models.damage import CRITICAL_KINDS as CRITICAL_KINDS  # re-exported: the hit form's
from tracker.services import damage, damage_lines, rule_tables, scenarios
from tracker.services.damage import ShipPick
from tracker.services.scenarios import TurnView


@dataclass(frozen=True)
class Opening:
    lines: list[str] | None  # the campaign's recorded lines (None: not asked for)
    turn: TurnView | None
    dice: dict[str, int | None]  # each critical table's die (None: no table)
    ships: list[ShipPick]  # the ships the empty line offers


def read_opening(
    factory: SessionFactory, *, campaign_id: int, lines: bool, first: int | None = None
) -> Opening:
    """What damage entry opens on, in one call (read one by one, each waited for a redraw): the
    recorded lines (if asked for), the turn, the critical tables' dice and the ships offered."""
    return Opening(
        lines=damage_lines.recall_lines(factory, campaign_id=campaign_id) if lines else None,
        turn=scenarios.current_turn(factory, campaign_id=campaign_id),
        dice=rule_tables.table_dice(factory, campaign_id=campaign_id, kinds=CRITICAL_KINDS),
        ships=damage.find_ships(factory, campaign_id=campaign_id, query="", first=first),
    )  # fmt: skip
