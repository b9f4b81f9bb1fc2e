"""Reading a Squadron Record Sheet: one query per block, every derived rule computed here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import (
    Battery,
    Campaign,
    Commander,
    Crew,
    Critical,
    Scenario,
    Ship,
    ShipSnapshot,
    Side,
    Squadron,
)
from tracker.models.fields import read
from tracker.models.kinds import (
    Acquisition,
    CriticalStatus,
    HalfStrengthScope,
    ListStatus,
    ScenarioStatus,
    SnapshotPhase,
)
from tracker.rules import smr
from tracker.services import journal, visibility
from tracker.services.common import first_where, get_row, rows_where, side_and_campaign
from tracker.services.mines.counters import counters_of
from tracker.services.views import BatteryView, CommanderView, CrewView, RecordSheet, ShipView


def crew_how(crew: CrewView) -> str:
    """How the crew's quality was got: "rolled 5 at IV" (" → 6" if modified) or "bought at IV"."""
    level = smr.training_numeral(crew.training)
    if crew.acquisition != Acquisition.RANDOM:
        return f"bought at {level}"
    how = f"rolled {crew.roll} at {level}"
    if crew.roll_modified is not None and crew.roll_modified != crew.roll:
        how += f" → {crew.roll_modified}"
    return how


def _commander_view(commander: Commander) -> CommanderView:
    return read(
        CommanderView,
        commander,
        rating=smr.rating_name(commander.grade),
        modifier_base=smr.grade_modifier(commander.grade),
        radius_base_cm=smr.command_radius_cm(commander.grade, air=commander.air),
        command_limit=smr.command_limit(commander.grade),
        cost=smr.commander_cost(commander.training, air=commander.air),
    )


def _crew_view(crew: Crew) -> CrewView:
    return read(
        CrewView,
        crew,
        quality=smr.quality_name(crew.grade),
        modifier_base=smr.grade_modifier(crew.grade),
        # RULES.md §SMR2: keyed to the level paid for, like the commander's cost.
        cost_percent=smr.crew_cost_percent(crew.training),
    )


# The marks of a ship that owes a morale test (RULES.md §SMR2 "Who takes a morale test"): black
# smoke and white smoke at or below 1/3 (SMR2 §2.2), and her squadron at half strength (§3.4).
STRUCTURE_THIRD, FLOTATION_THIRD, HALF_STRENGTH = "S⅓", "F⅓", "½"
MORALE_WORDS = {STRUCTURE_THIRD: "black smoke", FLOTATION_THIRD: "white smoke",
                HALF_STRENGTH: "squadron at half strength"}  # fmt: skip


def morale_marks(
    structure: tuple[int, int], flotation: tuple[int, int], *, half_strength: bool, sunk: bool
) -> tuple[str, ...]:
    """Why a ship owes a morale test, as marks: a track (now, maximum) at or below 1/3, her squadron
    at half strength; none once sunk. The sheet, the ship, the scenario and the print read it."""
    if sunk:
        return ()
    marks = [
        mark
        for mark, (now, maximum) in ((STRUCTURE_THIRD, structure), (FLOTATION_THIRD, flotation))
        if smr.at_or_below_third(now, maximum)
    ]
    return (*marks, HALF_STRENGTH) if half_strength else tuple(marks)


def crew_of(session: Session, ship: Ship) -> Crew | None:
    """The ship's crew: its own once it left its first squadron, else its squadron's (SMR2 §3.2)."""
    if ship.crew_id is not None:
        return session.get(Crew, ship.crew_id)
    squadron = get_row(session, Squadron, ship.squadron_id)
    return session.get(Crew, squadron.crew_id) if squadron.crew_id else None


def _sheet_ship(
    session: Session, ship: Ship, squadron_crew: Crew | None, scale: str,
    scenario: Scenario | None, campaign_id: int = 0, own_crews: dict[int, Crew] | None = None,
    commander_lost: bool = False, half_strength: bool = False,
) -> ShipView:  # fmt: skip
    """A ship as the sheet shows it, with its derived values: 1/3 flags, the morale tests she
    owes, points with her own crew's when she has one (SMR2 §3.2), base width, and the critical
    hits in force with the newest one's effect. `squadron_crew` is its squadron's crew and
    `own_crews` its ships' own crews by id, each loaded once for a whole sheet; `half_strength`,
    whether her squadron is at half strength."""
    own = None
    if ship.crew_id is not None:
        own = (own_crews or {}).get(ship.crew_id) or session.get(Crew, ship.crew_id)
    crew = own if ship.crew_id is not None else squadron_crew
    crew_percent = smr.crew_cost_percent(crew.training) if crew else 0
    # The sheet's row shows them, so a player need not open the ship (SMR2 §8.8, §9.9).
    criticals = active_criticals(session, ship.id)
    return read(
        ShipView,
        ship,
        structure_third=smr.at_or_below_third(ship.structure_now, ship.structure_max),
        flotation_third=smr.at_or_below_third(ship.flotation_now, ship.flotation_max),
        crew_percent=crew_percent,
        points_total=smr.points_with_crew(ship.points_base, crew_percent),
        base_width_cm=smr.base_width_cm(ship.size_modifier, scale),
        out_of_command=out_of_command(ship, scenario, commander_lost=commander_lost),
        batteries=_batteries(session, ship.id or 0),
        campaign_id=campaign_id,
        own_crew=_crew_view(own) if own else None,
        criticals_in_force=len(criticals),
        newest_critical=criticals[-1].effect if criticals else "",
        morale=morale_marks(
            (ship.structure_now, ship.structure_max), (ship.flotation_now, ship.flotation_max),
            half_strength=half_strength, sunk=ship.sunk,
        ),
    )  # fmt: skip


def active_criticals(session: Session, ship_id: int | None) -> list[Critical]:
    """The ship's critical hits in force, oldest first."""
    in_force = Critical.ship_id == ship_id, Critical.status == CriticalStatus.ACTIVE
    return rows_where(session, Critical, *in_force)


def strengths(
    session: Session, campaign: Campaign, scenario: Scenario | None
) -> dict[int, tuple[int, int]]:
    """(original, afloat) of each squadron with original ships, for half strength (SMR2 §3.4), by
    the campaign's reading (docs/RULES.md §SMR2): "scenario", the ships it began the scenario
    with (before one begins, those afloat); "campaign", those it was formed with. One query."""
    side_ids = select(Side.id).where(Side.campaign_id == campaign.id).scalar_subquery()
    on_sides = col(Ship.side_id).in_(side_ids)
    # A retired ship stays one of the original ships, no longer afloat in the squadron.
    afloat = col(Ship.sunk).is_(False) & col(Ship.retired).is_(False)
    counted: Iterable[Any]
    if campaign.half_strength_scope == HalfStrengthScope.CAMPAIGN:
        counted = session.exec(select(Ship.original_squadron_id, afloat).where(on_sides))
    elif scenario is None or not (counted := _began(session, scenario)):
        counted = session.exec(select(Ship.squadron_id, afloat).where(on_sides, afloat))
    tally: dict[int, tuple[int, int]] = {}
    for squadron_id, is_afloat in counted:
        original, now = tally.get(squadron_id, (0, 0))
        tally[squadron_id] = (original + 1, now + bool(is_afloat))
    return tally


def _began(session: Session, scenario: Scenario) -> list[tuple[int, bool]]:
    """The squadron each ship began the scenario in, and whether it is afloat at its end (or
    now, before it ends)."""
    began = ShipSnapshot.scenario_id == scenario.id, ShipSnapshot.phase == SnapshotPhase.START
    starts = session.exec(
        select(ShipSnapshot.ship_id, ShipSnapshot.squadron_id, Ship.original_squadron_id, Ship.sunk)
        .join(Ship, col(Ship.id) == col(ShipSnapshot.ship_id))
        .where(*began)
    ).all()
    ended = ShipSnapshot.scenario_id == scenario.id, ShipSnapshot.phase == SnapshotPhase.END
    ends = dict(session.exec(select(ShipSnapshot.ship_id, ShipSnapshot.sunk).where(*ended)).all())
    # A snapshot from before the squadron was kept counts the ship's first squadron.
    return [
        (kept if kept is not None else first, not ends.get(ship_id, sunk))
        for ship_id, kept, first, sunk in starts
    ]


def at_half_strength(original: int, afloat: int) -> bool:
    """Whether a squadron of `original` ships, `afloat` afloat, is at half strength (SMR2 §3.4)."""
    return original > 0 and smr.half_strength(original, afloat)


def counted_in(session: Session, ship: Ship, scenario: Scenario | None) -> int:
    """The squadron whose strength a ship counts towards (SMR2 §3.4): the one it was formed in,
    or under the "scenario" reading the one it began the scenario in."""
    _, campaign = side_and_campaign(session, ship.side_id)
    if campaign.half_strength_scope == HalfStrengthScope.CAMPAIGN:
        return ship.original_squadron_id
    if scenario is None:
        return ship.squadron_id
    began = ShipSnapshot.ship_id == ship.id, ShipSnapshot.phase == SnapshotPhase.START
    start = first_where(session, ShipSnapshot, ShipSnapshot.scenario_id == scenario.id, *began)
    if start is not None and start.squadron_id is not None:
        return start.squadron_id
    return ship.squadron_id


def out_of_command(ship: Ship, scenario: Scenario | None, *, commander_lost: bool) -> bool:
    """Whether the ship is Out of Command (SMR2 §3.4): her squadron's commander lost and not yet
    replaced, or transferred this turn of the battle in play (not before or between battles).
    Every view that marks OoC reads it: the sheet, the ship, the scenario, the printed sheet."""
    return commander_lost or (
        scenario is not None
        and scenario.status == ScenarioStatus.IN_PLAY
        and ship.transferred_scenario_id == scenario.id
        and ship.transferred_turn == scenario.turn
    )


def _batteries(session: Session, ship_id: int) -> tuple[BatteryView, ...]:
    rows = rows_where(session, Battery, Battery.ship_id == ship_id)
    return tuple(read(BatteryView, row) for row in rows)


def _context(
    session: Session, squadron: Squadron
) -> tuple[Side, Campaign, Scenario | None, Commander | None, Crew | None, bool]:
    """A squadron's side, campaign, current scenario, commander and crew, and whether he is lost."""
    side, campaign = side_and_campaign(session, squadron.side_id)
    commander = session.get(Commander, squadron.commander_id) if squadron.commander_id else None
    crew = session.get(Crew, squadron.crew_id) if squadron.crew_id else None
    scenario = journal.current_scenario(session, side.campaign_id)
    return side, campaign, scenario, commander, crew, commander_lost(commander)


def commander_lost(commander: Commander | None) -> bool:
    """Whether a squadron's commander (None: it has none) is lost: its ships Out of Command."""
    return commander is not None and commander.status == ListStatus.LOST


def load_record_sheet(factory: SessionFactory, *, squadron_id: int) -> RecordSheet:
    """Everything a squadron's Record Sheet shows (RULES.md §SMR2), its ships' counters too."""
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
        side, campaign, scenario, commander, crew, lost = _context(session, squadron)
        ships = rows_where(
            session, Ship, Ship.squadron_id == squadron_id, col(Ship.retired).is_(False)
        )
        own_ids = [ship.crew_id for ship in ships if ship.crew_id is not None]
        crews = rows_where(session, Crew, col(Crew.id).in_(own_ids))
        own_crews = {row.id or 0: row for row in crews}
        original, afloat = strengths(session, campaign, scenario).get(squadron_id, (0, 0))
        half = at_half_strength(original, afloat)
        views = tuple(
            _sheet_ship(session, ship, crew, campaign.model_scale, scenario, own_crews=own_crews,
                        commander_lost=lost, half_strength=half)
            for ship in ships
        )  # fmt: skip
        aboard = (
            session.get(Ship, squadron.commander_ship_id) if squadron.commander_ship_id else None
        )
        return RecordSheet(
            campaign_id=campaign.id or 0,
            campaign_name=campaign.name,
            model_scale=campaign.model_scale,
            crew_roll_adds_commander=campaign.crew_roll_adds_commander,
            scenario=scenario.title if scenario else "",
            turn=scenario.turn if scenario else None,
            scenario_status=scenario.status if scenario else "",
            side_id=side.id or 0,
            side_name=side.name,
            squadron_id=squadron_id,
            squadron_name=squadron.name,
            air=squadron.air,
            notes=squadron.notes,
            squadron_version=squadron.version,
            commander=_commander_view(commander) if commander else None,
            crew=_crew_view(crew) if crew else None,
            ships=views,
            points_total=sum(view.points_total for view in views),
            original_count=original,
            original_afloat=afloat,
            half_strength=half,
            commander_ship=aboard.name if aboard else "",
            # In front of both players: a minelayer's mines show in the ledger's owner view.
            counters=counters_of(session, ships, visibility.Viewer.OPPONENT),
        )


def squadrons_of_side(factory: SessionFactory, *, side_id: int) -> list[tuple[int, str]]:
    with session_scope(factory) as session:
        rows = rows_where(session, Squadron, Squadron.side_id == side_id)
        return [(row.id or 0, row.name) for row in rows]


def load_ship(factory: SessionFactory, *, ship_id: int) -> tuple[ShipView, str]:
    """One ship with its batteries, and the name of the squadron it is in now."""
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        squadron = get_row(session, Squadron, ship.squadron_id)
        side, campaign, scenario, _, crew, lost = _context(session, squadron)
        original, afloat = strengths(session, campaign, scenario).get(squadron.id or 0, (0, 0))
        view = _sheet_ship(
            session, ship, crew, campaign.model_scale, scenario, side.campaign_id,
            commander_lost=lost, half_strength=at_half_strength(original, afloat),
        )  # fmt: skip
        return view, f"{side.name} · {squadron.name}"
