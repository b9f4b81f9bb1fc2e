"""Appending to the campaign journal, inside the caller's transaction."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from tracker.models import JournalEntry, Scenario


def current_scenario(session: Session, campaign_id: int) -> Scenario | None:
    """The scenario in play, else the first planned one, else the last closed one."""
    scenarios = session.exec(
        select(Scenario).where(Scenario.campaign_id == campaign_id).order_by(col(Scenario.position))
    ).all()
    for status in ("in_play", "planned"):
        for scenario in scenarios:
            if scenario.status == status:
                return scenario
    return scenarios[-1] if scenarios else None


def append(
    session: Session,
    *,
    campaign_id: int,
    kind: str,
    summary: str,
    ship_id: int | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    dice: dict[str, Any] | None = None,
) -> JournalEntry:
    """Add one entry describing a change; the caller's commit makes it durable with the change."""
    scenario = current_scenario(session, campaign_id)
    entry = JournalEntry(
        campaign_id=campaign_id,
        scenario_id=scenario.id if scenario else None,
        turn=scenario.turn if scenario else None,
        ship_id=ship_id,
        kind=kind,
        summary=summary[:400],
        detail=json.dumps({"before": before, "after": after, "dice": dice}, sort_keys=True),
    )
    session.add(entry)
    return entry


def changes(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Only the fields that differ, as (before, after), so an entry says what changed."""
    keys = [key for key in after if before.get(key) != after[key]]
    return {key: before.get(key) for key in keys}, {key: after[key] for key in keys}
