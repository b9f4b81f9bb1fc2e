"""Repairs between linked scenarios, within the campaign's allowance (RULES.md §SMR2; SMR2 12.2
is not in our sources: the group's own allowance, if any, is the campaign's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, Critical, Repair, Scenario, Ship
from tracker.models.damage import RepairAmounts
from tracker.models.kinds import CriticalStatus, JournalKind, RepairStatus, ScenarioStatus
from tracker.rules import damage as rules
from tracker.rules import linked, swwas
from tracker.services import journal
from tracker.services.common import act, first_where, get_row, side_and_campaign
from tracker.services.errors import InvalidInput, check
from tracker.services.fields import require_declared
from tracker.services.scenarios import is_taking_part


def _latest_closed(session: Session, campaign_id: int) -> Scenario | None:
    """The campaign's last closed scenario: repairs made now belong to the period after it."""
    closed = Scenario.campaign_id == campaign_id, Scenario.status == ScenarioStatus.CLOSED
    return first_where(session, Scenario, *closed, order=col(Scenario.position).desc())


# A repair done: the scenario it was made after (None: before any), Structure, Flotation.
Done = tuple[int | None, int, int]


def done_repairs(session: Session, ships: Any) -> dict[int, list[Done]]:
    """The repairs done to each of `ships` (ship ids, or a select of them), by ship."""
    rows = session.exec(
        select(Repair.ship_id, Repair.after_scenario_id, Repair.structure, Repair.flotation)
        .where(col(Repair.ship_id).in_(ships), Repair.status == RepairStatus.DONE)
        .order_by(col(Repair.id))
    )
    done: dict[int, list[Done]] = {}
    for ship_id, after_id, structure, flotation in rows:
        done.setdefault(ship_id, []).append((after_id, structure, flotation))
    return done


def repaired_in(
    done: Iterable[Done], positions: Mapping[int, int], after: int | None, before: int | None
) -> tuple[int, int]:
    """Of a ship's repairs done, those made after the scenario at position `after` closed (None:
    before any) and before the scenario at position `before` began; a ship that sat a scenario
    out gathers both periods. `positions`: the campaign's scenarios' positions, by id."""
    structure = flotation = 0
    for after_id, done_s, done_f in done:
        position = None if after_id is None else positions.get(after_id)
        if after is None:
            counts = after_id is None
        else:
            counts = (position is not None and after <= position
                      and (before is None or position < before))  # fmt: skip
        if counts:
            structure, flotation = structure + done_s, flotation + done_f
    return structure, flotation


def scenario_positions(session: Session, campaign_id: int) -> dict[int, int]:
    """Each of the campaign's scenarios' place in its order, by id."""
    rows = session.exec(
        select(Scenario.id, Scenario.position).where(Scenario.campaign_id == campaign_id)
    )
    return {scenario_id or 0: position for scenario_id, position in rows}


def _allowance(
    session: Session, campaign: Campaign, ship_id: int
) -> tuple[tuple[int, int | None], tuple[int, int | None]]:
    """(repaired since the latest scenario closed, the campaign's limit or None) for Structure,
    then Flotation: the allowance is per period between two scenarios (12.2 "per scenario")."""
    period = _latest_closed(session, campaign.id or 0)
    positions = scenario_positions(session, campaign.id or 0) if period is not None else {}
    done = done_repairs(session, [ship_id]).get(ship_id, [])
    done_s, done_f = repaired_in(done, positions, period.position if period else None, None)
    return (
        (done_s, campaign.repair_limit_structure),
        (done_f, campaign.repair_limit_flotation),
    )


def repairs_left(factory: SessionFactory, *, ship_id: int) -> tuple[int, int]:
    """Structure and Flotation a repair may still give the ship, within the allowance (§SMR2)."""
    with session_scope(factory) as session:
        ship = get_row(session, Ship, ship_id)
        _, campaign = side_and_campaign(session, ship.side_id)
        structure, flotation = _allowance(session, campaign, ship_id)
        return (
            linked.repair_room(ship.structure_max - ship.structure_now, *structure),
            linked.repair_room(ship.flotation_max - ship.flotation_now, *flotation),
        )


def repair_critical(ship: Ship, critical: Critical) -> journal.RowChange:
    """A critical in force repaired (between scenarios, or `fix N` in play): what it took from
    the ship's speed given back; the change undo reverses."""
    critical.status = CriticalStatus.REPAIRED
    ship.speed_kn = linked.restored(critical.stat, critical.amount, ship.speed_kn)
    return journal.RowChange("critical", critical.id or 0, {"status": CriticalStatus.ACTIVE},
                             {"status": CriticalStatus.REPAIRED})  # fmt: skip


def repair_ship(
    factory: SessionFactory,
    *,
    ship_id: int,
    structure: int = 0,
    flotation: int = 0,
    clear_criticals: Sequence[int] = (),
    in_port: bool = True,
    notes: str = "",
    fuel: bool = False,
) -> str:
    """Repairs between scenarios: never above maximum, within the campaign's allowance (12.2);
    `fuel`: factors lost to mines turn empty again, in a friendly port only (RULES.md §Mines)."""
    errors: dict[str, str] = {}
    require_declared(errors, RepairAmounts, structure=structure, flotation=flotation)
    require_declared(errors, Repair, notes=notes)
    check(errors)
    if fuel and not in_port:
        errors["fuel"] = "fuel lost to mines is repaired only in a friendly port"
    check(errors)
    if not (structure or flotation or clear_criticals or fuel):
        raise InvalidInput(
            {"structure": "nothing to repair: give Structure, Flotation, criticals or lost fuel"}
        )
    with act(factory, Ship, ship_id) as a:
        ship, session = a.row, a.session
        campaign = get_row(session, Campaign, a.campaign_id)
        if ship.sunk:
            raise InvalidInput({"structure": f"{ship.name} is sunk: it cannot be repaired"})
        playing = journal.scenario_in_play(session, a.campaign_id)
        if playing is not None and is_taking_part(session, ship_id, playing):
            raise InvalidInput(
                {"structure": f"{ship.name} is in {playing.title}, in play: repairs between "
                 "scenarios come after it closes (damage entry takes rsN/rfN during a game)"}
            )  # fmt: skip
        period = _latest_closed(session, campaign.id or 0)
        before = journal.row_state(ship)
        allowance = _allowance(session, campaign, ship_id)
        for key, amount, now, maximum, (done, limit) in (
            ("structure", structure, ship.structure_now, ship.structure_max, allowance[0]),
            ("flotation", flotation, ship.flotation_now, ship.flotation_max, allowance[1]),
        ):
            if problem := linked.over_allowance(key, amount, done, limit):
                errors[key] = problem
            try:
                rules.apply_repair(now, maximum, amount)
            except ValueError as exc:
                errors.setdefault(key, f"{ship.name}: {exc}")
        restored = ship.fuel_lost if fuel else 0
        if fuel and not restored:
            errors["fuel"] = f"{ship.name} has no fuel factors lost to mines"
        check(errors)
        ship.structure_now += structure
        ship.flotation_now += flotation
        if restored:  # the port's rule: lost factors turn empty (RULES.md §Mines)
            after = swwas.port_repair(swwas.Fuel(ship.fuel_full, ship.fuel_empty, ship.fuel_lost))
            ship.fuel_empty, ship.fuel_lost = after.empty, after.lost
        if ship.structure_now and ship.flotation_now:
            ship.condition = ""  # back above zero: what happened there is in the journal
        changes: list[journal.RowChange] = []
        cleared = []
        for critical_id in clear_criticals:
            critical = get_row(session, Critical, critical_id)
            if critical.ship_id != ship_id or critical.status != CriticalStatus.ACTIVE:
                raise InvalidInput({"criticals": "that critical is not in force on this ship"})
            changes.append(repair_critical(ship, critical))
            cleared.append(critical.effect)
        repair = Repair(
            ship_id=ship_id, after_scenario_id=period.id if period else None, structure=structure,
            flotation=flotation, criticals_cleared=len(cleared), in_port=in_port,
            notes=notes.strip(), fuel_restored=restored,
        )  # fmt: skip
        session.add(repair)
        session.flush()
        changes.insert(0, journal.row_change("ship", ship_id, before, journal.row_state(ship)))
        changes.append(journal.RowChange("repair", repair.id or 0, {"status": RepairStatus.VOID},
                                         {"status": RepairStatus.DONE}))  # fmt: skip
        where = "in port" if in_port else "at sea"
        parts = [f"S +{structure}" if structure else "", f"F +{flotation}" if flotation else ""]
        parts += [f"cleared: {effect}" for effect in cleared]
        parts.append(f"fuel {restored} lost → empty" if restored else "")
        summary = f"{ship.name} repaired {where}: " + ", ".join(p for p in parts if p)
        a.log(
            JournalKind.REPAIR,
            summary,
            ship_id=ship_id,
            side_id=ship.side_id,
            changes=tuple(changes),
        )
        return summary
