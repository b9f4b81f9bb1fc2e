"""A ship leaving play or her squadron, and the commander aboard her (RULES.md §SMR2 "A ship
lost, and the commander aboard").

One step for each: every cause that sinks a ship (gunfire or torpedoes at zero, a mine, a hull
used up, scuttling) goes through `sink`, and every way a ship leaves her squadron afloat
(retired, deleted, transferred) through `leave_squadron`. Each changes the rows in the caller's
transaction and returns what follows, for the act's one journal entry. `acting_commander` is the
one rule every act of a commander asks: a lost commander does nothing until he is replaced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col

from tracker.models import Commander, JournalEntry, Scenario, Ship, Side, Squadron
from tracker.models.kinds import JournalKind, ListStatus
from tracker.services import documents, journal, sheet
from tracker.services.common import first_where, get_row, rows_where, side_and_campaign
from tracker.services.errors import InvalidInput
from tracker.services.views import commander_refusal

# The key of a journal entry's detail that keeps who was lost with a ship, as he was then
# (commander, name, squadron, side, ship; ids and names): the story told later reads it there,
# never from today's rows, which a replacement renames (services.reports). A campaign read from
# another file has its ids renumbered (documents.map_journal).
LOST = documents.LOST


@dataclass(frozen=True)
class Settled:
    """What a ship leaving settled, for the act's one journal entry: the notes its result and
    summary say, the rows it changed (undo puts them back), and who was lost with her."""

    notes: tuple[str, ...] = ()
    changes: tuple[journal.RowChange, ...] = ()
    lost: tuple[dict[str, Any], ...] = ()

    @property
    def facts(self) -> dict[str, Any] | None:
        return {LOST: list(self.lost)} if self.lost else None


def _carrying(session: Session, ship: Ship) -> list[tuple[Squadron, Commander | None]]:
    """The squadrons whose commander sails in the ship (SMR2 §3.1), with their commanders."""
    aboard = Squadron.side_id == ship.side_id, Squadron.commander_ship_id == ship.id
    return [
        (squadron, session.get(Commander, squadron.commander_id) if squadron.commander_id else None)
        for squadron in rows_where(session, Squadron, *aboard)
    ]


def _strength(
    session: Session, squadron_id: int, scenario: Scenario | None
) -> tuple[int, int, bool]:
    _, campaign = side_and_campaign(session, get_row(session, Squadron, squadron_id).side_id)
    original, afloat = sheet.strengths(session, campaign, scenario).get(squadron_id, (0, 0))
    return original, afloat, sheet.at_half_strength(original, afloat)


def sink(session: Session, ship: Ship, *, condition: str, scenario: Scenario | None) -> Settled:
    """Sink a ship in the condition named: the commander aboard is lost with her, his
    squadron's ships Out of Command (SMR2 §3.4) until his replacement is typed (SMR2 §10.3); a
    squadron she brings to half strength takes morale tests. The caller journals her own row
    change (sunk, condition) with the changes and facts returned."""
    squadron = get_row(session, Squadron, sheet.counted_in(session, ship, scenario))
    was_half = _strength(session, squadron.id or 0, scenario)[2]
    ship.sunk, ship.condition = True, condition
    session.add(ship)
    session.flush()
    notes: list[str] = []
    original, afloat, half = _strength(session, squadron.id or 0, scenario)
    if half and not was_half:
        notes.append(
            f"{squadron.name} at half strength or less ({afloat} of {original} original ships "
            "afloat): morale tests"
        )
    changes: list[journal.RowChange] = []
    lost: list[dict[str, Any]] = []
    for carrying, commander in _carrying(session, ship):
        if commander is None or commander.status == ListStatus.LOST:
            continue
        commander.status = ListStatus.LOST
        session.add(commander)
        changes.append(
            journal.RowChange(
                "commander", commander.id or 0, {"status": ListStatus.ACTIVE},
                {"status": ListStatus.LOST},
            )
        )  # fmt: skip
        lost.append({
            "commander_id": commander.id, "name": commander.name,
            "squadron_id": carrying.id, "squadron": carrying.name,
            "side_id": carrying.side_id, "side": get_row(session, Side, carrying.side_id).name,
            "ship_id": ship.id, "ship": ship.name,
        })  # fmt: skip
        who = f"commander {commander.name}" if commander.name else "commander"
        notes.append(
            f"{carrying.name}'s {who} was lost with {ship.name}: its ships are Out of Command "
            "(SMR2 §3.4). SMR2 §10.3 is not in this tracker: type your rulebook's replacement "
            "(r on the record sheet)"
        )
    return Settled(tuple(notes), tuple(changes), tuple(lost))


def leave_squadron(session: Session, ship: Ship, *, how: str) -> Settled:
    """A ship leaves her squadron afloat (`how`: retired, deleted, transferred to ...): the
    commander aboard her stays aboard no ship until the player puts him aboard one (RULES.md
    §SMR2: SMR2 §6.7). A commander lost with her stays lost with her."""
    notes: list[str] = []
    changes: list[journal.RowChange] = []
    for squadron, commander in _carrying(session, ship):
        if commander is not None and commander.status == ListStatus.LOST:
            continue
        changes.append(
            journal.RowChange(
                "squadron", squadron.id or 0, {"commander_ship_id": ship.id},
                {"commander_ship_id": None},
            )
        )  # fmt: skip
        squadron.commander_ship_id = None
        session.add(squadron)
        who = commander.name if commander is not None and commander.name else "the commander"
        notes.append(
            f"{squadron.name}: {who} is aboard no ship now ({ship.name} {how}): put him aboard "
            f"one of {squadron.name}'s ships (g on the record sheet)"
        )
    return Settled(tuple(notes), tuple(changes))


def acting_commander(session: Session, squadron: Squadron, field: str, act: str = "") -> Commander:
    """The squadron's commander, refused on `field` (after `act`, what asked for him) when it
    has none yet or he was lost (SMR2 §3.4) and not yet replaced (SMR2 §10.3)."""

    commander = session.get(Commander, squadron.commander_id) if squadron.commander_id else None
    lost = commander is not None and commander.status == ListStatus.LOST
    ship = session.get(Ship, squadron.commander_ship_id) if squadron.commander_ship_id else None
    name = commander.name if commander is not None else None
    if problem := commander_refusal(squadron.name, name, lost=lost, ship=ship.name if ship else ""):
        raise InvalidInput({field: f"{act}: {problem}" if act else problem})
    assert commander is not None
    return commander


def lost_in(session: Session, entry: JournalEntry) -> list[dict[str, Any]]:
    """Who the entry lost, as he was then (name, squadron, side, ship): the facts `sink` kept. An
    older entry is read from its row changes: a lost commander's name is the one a later change
    of his row took away (his replacement's), else his row's name now."""
    detail = json.loads(entry.detail)
    if LOST in detail:
        return list(detail[LOST])
    lost = []
    for change in detail.get("changes") or ():
        if change["table"] != "commander" or (change["after"] or {}).get("status") != "lost":
            continue
        later = col(JournalEntry.id) > (entry.id or 0), JournalEntry.kind == JournalKind.COMMANDER
        renamed = rows_where(
            session, JournalEntry, JournalEntry.campaign_id == entry.campaign_id, *later
        )
        names = [
            later["before"]["name"]
            for other in renamed
            for later in json.loads(other.detail).get("changes") or ()
            if later["table"] == "commander" and later["id"] == change["id"]
            and "name" in (later["before"] or {})
        ]  # fmt: skip
        commander = session.get(Commander, change["id"])
        squadron = first_where(session, Squadron, Squadron.commander_id == change["id"])
        side = session.get(Side, squadron.side_id) if squadron is not None else None
        ship = session.get(Ship, entry.ship_id) if entry.ship_id is not None else None
        lost.append({
            "name": names[0] if names else commander.name if commander is not None else "",
            "squadron": squadron.name if squadron is not None else "",
            "side": side.name if side is not None else "",
            "ship": ship.name if ship is not None else "",
        })  # fmt: skip
    return lost
