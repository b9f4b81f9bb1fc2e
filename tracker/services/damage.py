"""Recording hits and repairs during a game, with their consequences (SMR2 §2.2, §2.6).

The SMR2 damage and critical tables are not in our sources: the player types the points lost and
each critical's effect, or rolls on a table the campaign holds and the player typed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, case, col, literal, select

from tracker.db import SessionFactory, scratch_scope, session_scope
from tracker.models import Critical, Ship, Side, Squadron
from tracker.models.damage import CriticalRead as CriticalView  # a ship's critical, as shown
from tracker.models.damage import HitAmounts as HitAmounts  # re-exported: the hit's form
from tracker.models.fields import read
from tracker.models.fleet import within_bounds
from tracker.models.kinds import CriticalKind, CriticalStatus, JournalKind, ScenarioStatus
from tracker.rules import damage as rules
from tracker.rules.dice import roll_text
from tracker.rules.shorthand import nearest_names, rank_names
from tracker.services import damage_rows, journal, losses, repairs, rule_tables
from tracker.services.common import act, beyond_ids, get_row, rows_where, side_and_campaign
from tracker.services.errors import (
    InvalidInput,
    bad_character,
    character_problem,
    check,
    require_plain,
)
from tracker.services.fields import require_declared
from tracker.services.sheet import active_criticals


@dataclass(frozen=True)
class CriticalRequest:
    """One critical hit as entered: the effect typed, or a die roll on the campaign's table."""

    kind: str = "structural"
    effect: str = ""
    roll: int | None = None


@dataclass(frozen=True)
class HitRequest:
    """Everything one line of damage entry asks for, on one ship."""

    ship_id: int
    structure: int = 0
    flotation: int = 0
    repair_structure: int = 0
    repair_flotation: int = 0
    fire_delta: int = 0
    criticals: tuple[CriticalRequest, ...] = ()
    fixes: tuple[int, ...] = ()


@dataclass(frozen=True)
class ShipPick:
    id: int
    name: str
    side: str
    squadron: str
    sunk: bool


@dataclass(frozen=True)
class DamageResult:
    """A hit worked out: the tracks before and after, criticals, and what follows from it."""

    ship_id: int
    ship_name: str
    structure: rules.TrackChange
    flotation: rules.TrackChange
    fire_before: int
    fire_after: int
    criticals: tuple[str, ...] = ()
    speed: tuple[int, int] = (0, 0)  # before, after: a critical table row may change it
    fixed: tuple[str, ...] = ()
    consequences: tuple[str, ...] = ()
    # Said when no scenario has begun yet: the hit is damage the ship starts the campaign with.
    set_up: str = ""
    zero_reached: bool = False
    entry_id: int | None = None
    dice: tuple[dict[str, Any], ...] = field(default=())


# What a ShipPick shows, in its order (more columns than select's typed overloads take).
_PICK_COLUMNS: tuple[Any, ...] = (
    col(Ship.id), col(Ship.name), col(Side.name), col(Squadron.name), col(Ship.sunk),
)  # fmt: skip


def find_ships(
    factory: SessionFactory,
    *,
    campaign_id: int,
    query: str,
    limit: int = 8,
    first: int | None = None,
) -> list[ShipPick]:
    """Ships of the campaign whose names match the query, best first, afloat before sunk; with
    `first` (the ship damage entry was opened on) and no query, that ship first, whichever of
    the campaign's ships it is."""  # fmt: skip
    if beyond_ids(campaign_id):
        return []
    if beyond_ids(first):
        first = None  # no ship's: none comes first
    # Columns, not Ship objects: this runs on every keystroke, over every ship.
    listed = (
        select(*_PICK_COLUMNS)
        .join(Side, col(Ship.side_id) == col(Side.id))
        .join(Squadron, col(Ship.squadron_id) == col(Squadron.id))
        .where(Side.campaign_id == campaign_id, col(Ship.retired).is_(False))
    )
    blank = not query.strip()
    if blank:
        # Every ship matches an empty line: the database puts them in the finder's order (the
        # ship given, then afloat before sunk, each in the order added) and reads only those
        # listed, not the whole campaign's (on each opening of damage entry, and after a hit).
        given = case((col(Ship.id) == first, 0), else_=1) if first is not None else literal(1)
        listed = listed.order_by(given, col(Ship.sunk), col(Ship.id)).limit(limit)
    else:
        listed = listed.order_by(col(Ship.id))
    with session_scope(factory) as session:
        # Plain rows through the connection: the ORM's result handling of a thousand rows of
        # columns cost as much as reading them.
        rows = list(session.connection().execute(listed).all())
    if not blank:
        order = rank_names(query, [row[1] for row in rows])
        rows = sorted((rows[index] for index in order), key=lambda row: bool(row[4]))[:limit]
    return [
        ShipPick(id=ship_id or 0, name=name, side=side, squadron=squadron, sunk=sunk)
        for ship_id, name, side, squadron, sunk in rows
    ]


def nearest_ships(factory: SessionFactory, *, campaign_id: int, query: str) -> list[str]:
    """The campaign's ship names nearest one that matches none: what damage entry offers a typo."""
    names = (select(Ship.name).join(Side, col(Ship.side_id) == col(Side.id))
             .where(Side.campaign_id == campaign_id, col(Ship.retired).is_(False)))  # fmt: skip
    with session_scope(factory) as session:
        return nearest_names(query, list(session.exec(names).all()))


def _validate(request: HitRequest) -> None:
    errors: dict[str, str] = {}
    amounts = {key: getattr(request, key) for key in HitAmounts.model_fields}
    require_declared(errors, HitAmounts, **amounts)
    for critical in request.criticals:
        if critical.kind not in tuple(CriticalKind):
            errors["criticals"] = "a critical is structural or underwater"
        elif not critical.effect.strip() and critical.roll is None:
            errors["criticals"] = "each critical needs its effect typed, or a die roll"
        elif len(critical.effect) > 200:
            errors["criticals"] = "a critical's effect must be at most 200 characters"
        elif (char := bad_character(critical.effect)) is not None:
            errors["criticals"] = (
                f"a critical's effect holds {character_problem(char)}: retype it without it"
            )
        elif critical.roll is not None and not 1 <= critical.roll <= 100:
            errors["criticals"] = f"a critical die roll must be 1..100, got {critical.roll}"
    if not (
        request.structure or request.flotation or request.repair_structure
        or request.repair_flotation or request.fire_delta or request.criticals or request.fixes
    ):  # fmt: skip
        errors["line"] = "nothing to record: give sN, fN, fm+N, crit, rsN, rfN or fix N"
    check(errors)


def _apply(
    session: Session, request: HitRequest
) -> tuple[DamageResult, list[journal.RowChange], int, Any, damage_rows.Current | None]:
    """Change the rows as the hit says (the ship's in a copy, which record_hit writes): the result,
    the row changes, the campaign's id, the ship and the current scenario."""
    _validate(request)
    rows = damage_rows.read(session, request.ship_id)
    ship, campaign_id, scenario = rows.ship, rows.campaign_id, rows.scenario
    if ship.sunk:
        raise InvalidInput({"line": f"{ship.name} is sunk: nothing more can be recorded on it"})
    # The scenario in play is the current one whenever there is one.
    in_play = (
        scenario if scenario is not None and scenario.status == ScenarioStatus.IN_PLAY else None
    )
    if in_play is not None and not rows.taking_part:
        raise InvalidInput({"line": f"{ship.name} is not taking part in {in_play.title}"})
    if in_play is None and rows.played:
        # A hit or repair here would break the carried state: start of N+1 = end of N + repairs.
        raise InvalidInput(
            {"line": "no scenario is in play: begin the next one to record hits; repairs "
             "between scenarios are made on the repairs screen (r)"}
        )  # fmt: skip
    before = rows.fields()
    errors: dict[str, str] = {}
    structure, structure_over = rules.apply_loss(ship.structure_now, request.structure)
    flotation, flotation_over = rules.apply_loss(ship.flotation_now, request.flotation)

    def repaired(key: str, now: int, maximum: int) -> int:
        try:
            return rules.apply_repair(now, maximum, getattr(request, key))
        except ValueError as exc:
            errors[key] = f"{ship.name}: {exc}"
            return now

    structure = repaired("repair_structure", structure, ship.structure_max)
    flotation = repaired("repair_flotation", flotation, ship.flotation_max)
    fire = ship.fire_markers + request.fire_delta
    if fire < 0:
        errors["fire_delta"] = (
            f"{ship.name} has {ship.fire_markers} fire markers, not {-request.fire_delta}"
        )
    elif fire > (most := within_bounds(ship, "fire_markers", fire)):
        errors["fire_delta"] = f"{ship.name} would have {fire} fire markers; at most {most}"
    check(errors)
    ship.structure_now, ship.flotation_now, ship.fire_markers = structure, flotation, fire
    if ship.condition and structure and flotation:
        ship.condition = ""  # repaired back above zero: the journal keeps what happened there

    changes: list[journal.RowChange] = []
    applied: list[str] = []
    dice: list[dict[str, Any]] = []
    # SMR2 §2.6: criticals one at a time, each applied before the next.
    for critical in request.criticals:
        effect = critical.effect.strip()
        stat, amount = "", 0
        if not effect and critical.roll is not None:
            row = rule_tables.critical_row(session, campaign_id, critical.kind, critical.roll)
            effect = row.effect
            if row.stat in rule_tables.CRITICAL_STATS:
                was = getattr(ship, row.stat)
                # Within what the ship may hold: its bounds, a track no higher than its maximum.
                setattr(ship, row.stat, within_bounds(ship, row.stat, was + row.amount))
                stat, amount = row.stat, getattr(ship, row.stat) - was
        crit = Critical(
            stat=stat, amount=amount,
            ship_id=request.ship_id, kind=CriticalKind(critical.kind), effect=effect,
            roll=critical.roll, scenario_id=scenario.id if scenario else None,
            turn=scenario.turn if scenario else None,
        )  # fmt: skip
        session.add(crit)
        session.flush()
        changes.append(journal.RowChange("critical", crit.id or 0, {"status": CriticalStatus.VOID},
                                         {"status": "active"}))  # fmt: skip
        label = f"{critical.kind} critical"
        if critical.roll is not None:
            label += f" ({roll_text(critical.roll)})"
            dice.append({"die": "critical", "kind": critical.kind, "roll": critical.roll})
        applied.append(f"{label}: {effect}")
    active = active_criticals(session, request.ship_id) if request.fixes else []
    fixed: list[str] = []
    for number in request.fixes:
        if not 1 <= number <= len(active):
            raise InvalidInput(
                {"fixes": f"{ship.name} has {len(active)} critical(s) in force; no number {number}"}
            )
        crit = active[number - 1]
        if crit.status != CriticalStatus.ACTIVE:
            raise InvalidInput({"fixes": f"critical {number} is named twice"})
        changes.append(repairs.repair_critical(ship, crit))
        fixed.append(crit.effect)
    session.flush()  # the criticals' rows (the ship's own row is written by record_hit)
    changes.insert(0, journal.row_change("ship", ship.id, before, rows.fields()))

    tracks = (
        rules.TrackChange("Structure", before["structure_now"], ship.structure_now,
                          ship.structure_max, structure_over),
        rules.TrackChange("Flotation", before["flotation_now"], ship.flotation_now,
                          ship.flotation_max, flotation_over),
    )  # fmt: skip
    notes = [note for track in tracks for note in rules.consequences(ship.name, track)]
    result = DamageResult(
        ship_id=request.ship_id,
        ship_name=ship.name,
        structure=tracks[0],
        flotation=tracks[1],
        fire_before=before["fire_markers"],
        fire_after=ship.fire_markers,
        speed=(before["speed_kn"], ship.speed_kn),
        criticals=tuple(applied),
        fixed=tuple(fixed),
        consequences=tuple(notes),
        # RULES.md §SMR2 "Hits before the first scenario begins": set-up damage, carried into it.
        set_up=f"{ship.name} begins the first scenario with this damage" if in_play is None else "",
        zero_reached=any(t.after == 0 and t.before > 0 for t in tracks),
        dice=tuple(dice),
    )
    return result, changes, campaign_id, ship, scenario


def describe(result: DamageResult) -> str:
    """One line for the journal and the toast: what changed on the ship."""
    parts = []
    for track in (result.structure, result.flotation):
        if track.before != track.after or track.overflow:
            parts.append(f"{track.name[0]} {track.before}->{track.after}/{track.maximum}")
    if result.fire_before != result.fire_after:
        parts.append(f"fire {result.fire_before}->{result.fire_after}")
    if result.speed[0] != result.speed[1]:
        parts.append(f"speed {result.speed[0]}->{result.speed[1]} kn")
    parts.extend(result.criticals)
    parts.extend(f"repaired: {effect}" for effect in result.fixed)
    return f"{result.ship_name}: " + ", ".join(parts or ["no change"])


def preview_hit(factory: SessionFactory, *, request: HitRequest) -> DamageResult:
    """What recording the hit would do, worked out in a transaction that is rolled back."""
    with scratch_scope(factory) as session:
        result, _, _, _, _ = _apply(session, request)
        return result


def record_hit(factory: SessionFactory, *, request: HitRequest) -> DamageResult:
    """Apply a hit or an in-game repair and journal it, in one transaction (RULES.md §SMR2)."""
    with session_scope(factory) as session:
        result, changes, campaign_id, ship, scenario = _apply(session, request)
        damage_rows.write_ship(session, ship, changes[0])
        repair = request.repair_structure or request.repair_flotation or request.fixes
        entry_id = journal.insert_entry(
            session, campaign_id=campaign_id, ship_id=request.ship_id, side_id=ship.side_id,
            kind=JournalKind.REPAIR if repair else JournalKind.DAMAGE, summary=describe(result),
            before=changes[0].before, after=changes[0].after, changes=tuple(changes),
            dice={"criticals": list(result.dice)} if result.dice else None, scenario=scenario,
        )  # fmt: skip
        return DamageResult(**{**result.__dict__, "entry_id": entry_id})


def zero_outcomes(factory: SessionFactory, *, ship_id: int) -> list[str]:
    """The campaign's list of what may happen at zero Structure or Flotation."""
    with session_scope(factory) as session:
        _, campaign = side_and_campaign(session, get_row(session, Ship, ship_id).side_id)
        return [line.strip() for line in campaign.zero_outcomes.splitlines() if line.strip()]


def confirm_condition(factory: SessionFactory, *, ship_id: int, outcome: str) -> list[str]:
    """Record what happened to a ship at zero: sunk or scuttled, with every consequence of her
    loss (losses.sink, RULES.md §SMR2 "A ship lost"), or another condition the player names."""
    outcome = outcome.strip()
    errors: dict[str, str] = {}
    if not outcome:
        errors["outcome"] = "choose or type what happened"
    elif len(outcome) > 60:
        errors["outcome"] = "must be at most 60 characters"
    require_plain(errors, "outcome", outcome)
    check(errors)
    with act(factory, Ship, ship_id) as a:
        ship, session = a.row, a.session
        if ship.sunk:
            # Raising her again is undoing her sinking, which puts back all it did (ctrl+z).
            raise InvalidInput(
                {"outcome": f"{ship.name} is sunk: undo her sinking (ctrl+z) to correct it"}
            )
        scenario = journal.current_scenario(session, a.campaign_id)
        before = journal.row_state(ship)
        settled = losses.Settled()
        if rules.outcome_sinks(outcome):
            settled = losses.sink(session, ship, condition=outcome, scenario=scenario)
        else:
            ship.condition = outcome
        session.flush()
        change = journal.row_change("ship", ship_id, before, journal.row_state(ship))
        notes = [f"{ship.name}: {outcome}", *settled.notes]
        a.log(
            JournalKind.CONDITION, "; ".join(notes), ship_id=ship_id, side_id=ship.side_id,
            before=change.before, after=change.after, facts=settled.facts, scenario=scenario,
            changes=((change,) if change.after else ()) + settled.changes,
        )  # fmt: skip
        return notes


def list_criticals(factory: SessionFactory, *, ship_id: int) -> list[CriticalView]:
    """A ship's criticals in force (numbered as `fix N` counts them), then the repaired ones."""
    with session_scope(factory) as session:
        get_row(session, Ship, ship_id)
        kept = Critical.ship_id == ship_id, Critical.status != CriticalStatus.VOID
        rows = rows_where(session, Critical, *kept)
    in_force_first = sorted(rows, key=lambda row: row.status != CriticalStatus.ACTIVE)
    return [
        read(CriticalView, row, number=number if row.status == CriticalStatus.ACTIVE else 0)
        for number, row in enumerate(in_force_first, start=1)
    ]  # fmt: skip
