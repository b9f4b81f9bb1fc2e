"""The campaign's story, scenario by scenario: the after-action report of a closed scenario
(the campaign report, services.campaign_story, gathers them).

Plain data, read from what was stored: each ship's start and end snapshots, the journal entries
still in force (an undone change is no part of the story), the criticals they made. Nothing is
worked out again from the rules. What a report says of a past scenario is read as it stood then:
names, data and crews through the journal (services.as_of), criticals carried in from its start
state, never from today's rows. Secrets follow the viewer rules (docs/RULES.md §Secrets): a
report for a side opens that side's sealed journal entries (with its passphrase, when it has
one); a report for everyone shows what is revealed and nothing more.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Campaign,
    Critical,
    JournalEntry,
    Scenario,
    ScenarioSide,
    Ship,
    ShipSnapshot,
    Side,
)
from tracker.models.kinds import JournalKind, ScenarioStatus, SnapshotPhase
from tracker.rules.damage import critical_text
from tracker.services import history, losses, secrets, sync_decide, visibility
from tracker.services.as_of import Then, Timeline
from tracker.services.common import get_row, rows_where
from tracker.services.errors import InvalidInput
from tracker.services.repairs import scenario_positions
from tracker.services.sealing import side_key


@dataclass(frozen=True)
class CriticalInForce:
    """A critical in force during a scenario: taken in it, or carried in (in its start state),
    and whether it was repaired before the scenario closed; `text` says which."""

    text: str
    carried: bool
    repaired: bool


@dataclass(frozen=True)
class ShipInAction:
    """A ship in one scenario as it stood then: its values, tracks, criticals and how it ended."""

    ship_id: int
    name: str
    side_id: int
    side: str
    squadron: str
    type_abbrev: str
    structure_max: int
    flotation_max: int
    points: int  # SMR2 points with its crew's percentage then (§3.2)
    start: tuple[int, int]
    end: tuple[int, int]
    criticals: tuple[CriticalInForce, ...]
    fire_markers: int  # placed on it during the scenario
    mines_struck: int
    fuel_lost: int
    sunk: bool  # sunk in this scenario
    fate: str  # its condition at the end, as the player recorded it ("" when none)

    @property
    def taken(self) -> int:
        return sum(not c.carried for c in self.criticals)

    @property
    def lost(self) -> bool:
        """Sunk, or left at zero in another condition the player named (dead in the water)."""
        return self.sunk or bool(self.fate)


@dataclass(frozen=True)
class CommanderLost:
    squadron: str
    side: str
    name: str
    ship: str  # the ship he was lost with ("" when the journal does not name one)
    turn: int | None


@dataclass(frozen=True)
class MineStruck:
    ship: str
    side: str
    turn: int | None
    dice: str
    effects: str
    fuel_lost: int


@dataclass(frozen=True)
class StoryLine:
    entry_id: int
    turn: int | None
    side: str
    ship: str
    kind: str
    summary: str
    dice: str


@dataclass(frozen=True)
class AfterActionReport:
    campaign: str
    scenario_id: int
    position: int
    title: str
    date: str
    turns: int
    outcome: str
    notes: str
    sides: tuple[tuple[str, str], ...]  # (side, correction factor)
    ships: tuple[ShipInAction, ...]
    commanders_lost: tuple[CommanderLost, ...]
    mines: tuple[MineStruck, ...]
    journal: tuple[StoryLine, ...]
    viewer: str  # the side the report is for, or "everyone"


# --- the viewer ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Reader:
    """Who the report is for: a side (and its key, when it has a passphrase), or everyone."""

    side_id: int | None
    name: str
    key: bytes | None

    def line(self, entry: JournalEntry) -> tuple[str, str]:
        """The entry's summary and dice as this reader may read them (docs/RULES.md §Secrets)."""
        own = self.side_id is not None and entry.side_id == self.side_id
        viewer = visibility.Viewer.OWNER if own else visibility.Viewer.OPPONENT
        detail = json.loads(visibility.entry_as_seen(entry.detail, viewer=viewer, own=own))
        summary, dice = entry.summary, history.dice_text(detail)
        if own and detail.get("sealed"):
            # The side's own secret change: its full wording and dice, opened with its key.
            opened = secrets.open_note(detail["sealed"], self.key)
            summary = str(opened.get("summary") or entry.summary)
            dice = history.dice_text({"dice": opened.get("dice")})
        return summary + sync_decide.recorded_in(detail), dice


def reader_for(
    session: Session, campaign_id: int, side_id: int | None, passphrase: str | None
) -> _Reader:
    if side_id is None:
        return _Reader(None, "everyone", None)
    side = get_row(session, Side, side_id)
    if side.campaign_id != campaign_id:
        raise InvalidInput({"side": f"{side.name} is a side of another campaign"})
    return _Reader(side_id, side.name, side_key(session, side_id, passphrase))


# --- reading the journal ------------------------------------------------------------------------


def _in_force(session: Session, scenario: Scenario) -> list[JournalEntry]:
    """The scenario's entries from its beginning to its (last) close, oldest first, less undone
    ones and undos: by the window, as a close is journaled under the next scenario planned."""
    campaign = JournalEntry.campaign_id == scenario.campaign_id
    began = session.exec(
        select(func.min(JournalEntry.id)).where(
            campaign, JournalEntry.kind == JournalKind.BEGIN,
            JournalEntry.scenario_id == scenario.id,
        )
    ).one()  # fmt: skip
    if began is None:
        return []
    after = col(JournalEntry.id) > began
    following = session.exec(
        select(func.min(JournalEntry.id)).where(campaign, after,
                                                JournalEntry.kind == JournalKind.BEGIN)
    ).one()  # fmt: skip
    window = [after] if following is None else [after, col(JournalEntry.id) < following]
    closed = session.exec(
        select(func.max(JournalEntry.id)).where(campaign, *window,
                                                JournalEntry.kind == JournalKind.CLOSE)
    ).one()  # fmt: skip
    last = [col(JournalEntry.id) <= closed] if closed is not None else window[1:]
    return list(
        session.exec(
            select(JournalEntry)
            .where(
                campaign, col(JournalEntry.id) >= began, *last,
                JournalEntry.kind != JournalKind.UNDO,
                col(JournalEntry.reverted_by_id).is_(None),
            )
            .order_by(col(JournalEntry.id))
        ).all()
    )  # fmt: skip


def _changes(entry: JournalEntry, table: str) -> Iterable[dict[str, Any]]:
    for change in json.loads(entry.detail).get("changes") or []:
        if change.get("table") == table:
            yield change


def _rose(change: dict[str, Any], column: str) -> int:
    """How much a change raised a number (0 when it lowered it or left it alone)."""
    before, after = change.get("before") or {}, change.get("after") or {}
    if column not in after:
        return 0
    return max(0, int(after[column] or 0) - int(before.get(column) or 0))


@dataclass
class _Tally:
    criticals: list[int]
    fixed: dict[int, int | None]  # criticals repaired in play, and the turn
    fire: int = 0
    mines: int = 0
    fuel: int = 0


def _tallies(entries: Sequence[JournalEntry]) -> dict[int, _Tally]:
    """Per ship: criticals made and repaired, fire markers placed, mines struck, fuel lost."""
    tallies: dict[int, _Tally] = defaultdict(lambda: _Tally([], {}))
    for entry in entries:
        for change in _changes(entry, "ship"):
            tally = tallies[change["id"]]
            tally.fire += _rose(change, "fire_markers")
            tally.fuel += _rose(change, "fuel_lost")
        if entry.ship_id is None:
            continue
        for change in _changes(entry, "critical"):
            status = ((change.get("before") or {}).get("status"),
                      (change.get("after") or {}).get("status"))  # fmt: skip
            if status == ("void", "active"):
                tallies[entry.ship_id].criticals.append(change["id"])
            elif status == ("active", "repaired"):
                tallies[entry.ship_id].fixed[change["id"]] = entry.turn
        for change in _changes(entry, "minecheckship"):
            if (change.get("after") or {}).get("struck"):
                tallies[entry.ship_id].mines += 1
    return tallies


# --- the after-action report --------------------------------------------------------------------


def campaign_rows(session: Session, campaign_id: int) -> tuple[dict[int, str], dict[int, Ship]]:
    """Side names and ships of a campaign, by id; the sides in the order they were made."""
    sides = {s.id or 0: s.name for s in rows_where(session, Side, Side.campaign_id == campaign_id)}
    ships = {s.id or 0: s for s in rows_where(session, Ship, col(Ship.side_id).in_(list(sides)))}
    return sides, ships


def _criticals(
    start: ShipSnapshot, tally: _Tally, rows: dict[int, Critical], positions: dict[int, int],
    position: int,
) -> tuple[CriticalInForce, ...]:  # fmt: skip
    """The criticals in force during the scenario: those its start state kept (carried in),
    then those it took; each says where it came from and whether it was repaired in play."""
    kept = {int(c["id"]): c for c in json.loads(start.criticals)}
    found = []
    for crit_id in [*kept, *(i for i in tally.criticals if i not in kept)]:
        row, carried = rows.get(crit_id), crit_id in kept
        kind, effect = (row.kind, row.effect) if row else (kept[crit_id]["kind"],
                                                           kept[crit_id]["effect"])  # fmt: skip
        text = critical_text(kind, effect, row.roll if row else None,
                             None if carried or row is None else row.turn)  # fmt: skip
        if carried:
            taken_in = positions.get(row.scenario_id or 0, position) if row else position
            text += f", carried from scenario {taken_in}" if taken_in < position else (
                ", carried from set-up")  # fmt: skip
        if crit_id in tally.fixed:
            turn = tally.fixed[crit_id]
            text += ", repaired" + (f" turn {turn}" if turn is not None else "")
        found.append(CriticalInForce(text=text, carried=carried, repaired=crit_id in tally.fixed))
    return tuple(found)


def read_after_action(
    session: Session, scenario: Scenario, reader: _Reader, timeline: Timeline | None = None
) -> AfterActionReport:
    campaign = get_row(session, Campaign, scenario.campaign_id)
    sides, ships = campaign_rows(session, campaign.id or 0)
    taken = rows_where(session, ShipSnapshot, ShipSnapshot.scenario_id == scenario.id)
    snaps = {(row.ship_id, row.phase): row for row in taken}
    entries = _in_force(session, scenario)
    # As it stood at the close: names, values and crews then (services.as_of).
    point = entries[-1].id if entries else None
    then = (timeline or Timeline(session, campaign.id or 0, since=point or 0)).at(point)
    tallies = _tallies(entries)
    wanted = [i for t in tallies.values() for i in t.criticals]
    wanted += [int(c["id"]) for (_, phase), snap in snaps.items()
               if phase == SnapshotPhase.START for c in json.loads(snap.criticals)]  # fmt: skip
    rows = {c.id or 0: c for c in rows_where(session, Critical, col(Critical.id).in_(wanted))}
    positions = scenario_positions(session, campaign.id or 0)
    in_action = []
    for (ship_id, phase), start in sorted(snaps.items(), key=lambda item: item[0]):
        if phase != SnapshotPhase.START:
            continue
        end = snaps.get((ship_id, SnapshotPhase.END), start)
        ship = then.ship(ship_id)
        assert ship is not None  # a ship with a snapshot is one of the campaign's
        squadron = start.squadron_id or ships[ship_id].squadron_id
        tally = tallies.get(ship_id, _Tally([], {}))
        in_action.append(
            ShipInAction(
                ship_id=ship_id, name=ship.name, side_id=ship.side_id,
                side=then.side(ship.side_id), squadron=then.squadron(squadron),
                type_abbrev=ship.type_abbrev, structure_max=ship.structure_max,
                flotation_max=ship.flotation_max, points=then.points(ship_id, squadron)[0],
                start=(start.structure, start.flotation), end=(end.structure, end.flotation),
                criticals=_criticals(start, tally, rows, positions, scenario.position),
                fire_markers=tally.fire, mines_struck=tally.mines, fuel_lost=tally.fuel,
                sunk=end.sunk and not start.sunk, fate=end.condition,
            )
        )  # fmt: skip
    order = {side_id: index for index, side_id in enumerate(sides)}
    in_action.sort(key=lambda s: (order.get(s.side_id, 0), s.squadron, s.ship_id))
    fought = rows_where(session, ScenarioSide, ScenarioSide.scenario_id == scenario.id)
    factors = {row.side_id: row.correction_factor for row in fought}
    return AfterActionReport(
        campaign=campaign.name, scenario_id=scenario.id or 0, position=scenario.position,
        title=scenario.title, date=scenario.date, turns=scenario.turn, outcome=scenario.outcome,
        notes=scenario.notes,
        sides=tuple((then.side(side_id), factors.get(side_id, "")) for side_id in sides),
        ships=tuple(in_action),
        commanders_lost=_commanders_lost(session, entries),
        mines=_mines(entries, then),
        journal=tuple(_story_line(entry, scenario, reader, then) for entry in entries),
        viewer=reader.name,
    )  # fmt: skip


def _story_line(entry: JournalEntry, scenario: Scenario, reader: _Reader, then: Then) -> StoryLine:
    summary, dice = reader.line(entry)
    ship = then.ship(entry.ship_id) if entry.ship_id is not None else None
    # The close is journaled under the next scenario planned, at its turn: no turn of this one.
    turn = entry.turn if entry.scenario_id == scenario.id else None
    return StoryLine(
        entry_id=entry.id or 0, turn=turn, side=then.side(entry.side_id),
        ship=ship.name if ship else "", kind=entry.kind, summary=summary, dice=dice,
    )  # fmt: skip


def _commanders_lost(
    session: Session, entries: Sequence[JournalEntry]
) -> tuple[CommanderLost, ...]:
    """Each commander lost in the scenario, as the entry of his loss kept him (losses.lost_in),
    never as today's rows say: his replacement takes over his row."""
    return tuple(
        CommanderLost(squadron=who["squadron"], side=who["side"], name=who["name"],
                      ship=who["ship"], turn=entry.turn)
        for entry in entries for who in losses.lost_in(session, entry)
    )  # fmt: skip


def _mines(entries: Sequence[JournalEntry], then: Then) -> tuple[MineStruck, ...]:
    struck = []
    for entry in entries:
        ship = then.ship(entry.ship_id) if entry.ship_id is not None else None
        if entry.kind != JournalKind.MINE or ship is None:
            continue
        items = [
            c for c in _changes(entry, "minecheckship") if (c.get("after") or {}).get("struck")
        ]
        if not items:
            continue
        fuel = sum(_rose(c, "fuel_lost") for c in _changes(entry, "ship"))
        struck.append(
            MineStruck(
                ship=ship.name, side=then.side(ship.side_id), turn=entry.turn,
                dice=history.dice_text(json.loads(entry.detail)),
                effects=str(items[0]["after"].get("effects", "")), fuel_lost=fuel,
            )
        )  # fmt: skip
    return tuple(struck)


def after_action_report(
    factory: SessionFactory, *, scenario_id: int, side_id: int | None = None,
    passphrase: str | None = None,
) -> AfterActionReport:  # fmt: skip
    """The after-action report of a closed scenario, for a side (its own secrets opened) or for
    everyone (side_id None: only what is revealed), docs/RULES.md §Secrets."""
    with session_scope(factory) as session:
        scenario = get_row(session, Scenario, scenario_id)
        if scenario.status != ScenarioStatus.CLOSED:
            raise InvalidInput(
                {"scenario": f"{scenario.title} is {scenario.status.replace('_', ' ')}: its "
                 "after-action report is written once it is closed (c on the scenario screen)"}
            )  # fmt: skip
        reader = reader_for(session, scenario.campaign_id, side_id, passphrase)
        return read_after_action(session, scenario, reader)
