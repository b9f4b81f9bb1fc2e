"""A task force entering a minefield: the cups, the draws, the rolls on the campaign's mine table
and what they do to each ship (RULES.md §Mines).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, MineCheck, MineCheckShip, Minefield, Ship
from tracker.models.kinds import (
    CounterSize,
    HaltRule,
    JournalKind,
    MineCheckStatus,
    MinefieldStatus,
)
from tracker.models.mines import COUNTER_SIZES
from tracker.rules import mine_check, swwas, was
from tracker.rules.dice import roll_text
from tracker.rules.words import plural
from tracker.services import journal, losses
from tracker.services.common import act, first_where, get_row, rows_where
from tracker.services.errors import MAX_INT, InvalidInput, check, require_range
from tracker.services.fields import require_declared
from tracker.services.mines import places
from tracker.services.mines.counters import _fuel, _set_fuel, _ship_and_side
from tracker.services.rule_tables import _lookup


@dataclass(frozen=True)
class DrawView:
    ship_id: int
    name: str
    cup: str
    draw_no: int
    drawn: bool
    roll: int | None
    drm: int
    effects: str
    struck: bool
    fuel: swwas.Fuel  # the ship's fuel now, so the check shows what the mines took

    @property
    def modified(self) -> int | None:
        return None if self.roll is None else self.roll + self.drm


@dataclass(frozen=True)
class CheckView:
    """A task force's mine check as it stands: the cups, the draws so far, the next ship."""

    id: int
    minefield: str
    minefield_id: int
    minefields: int
    speed: int
    leaving_board: bool
    drm: swwas.MineDrm  # the modifier every roll of the check takes, by cause
    first_cup: str
    rule: str
    status: str
    size: int
    halt_at: int
    draws: tuple[DrawView, ...]
    left: dict[str, int]
    next: DrawView | None
    message: str
    # What the roll just made brought about besides its effects: the losses of a ship it sank.
    said: tuple[str, ...] = ()

    @property
    def struck(self) -> int:
        return sum(1 for draw in self.draws if draw.drawn and draw.struck)

    @property
    def drawn(self) -> int:
        return sum(1 for draw in self.draws if draw.drawn)


def _too_slow(ship: Ship, speed: int) -> str | None:
    """Why a ship cannot move at the task force's speed, or None when it can (RULES.md §Mines:
    the +2 is for a ship moving speed 3 or more, which its damaged speed rating must allow)."""
    if not ship.speed_rating:
        if swwas.fast_entry(speed):
            return (f"{ship.name} has no speed rating on its counter: enter it (u on the record "
                    f"sheet) before it enters at speed {speed}")  # fmt: skip
        return None
    can = swwas.speed_available(ship.speed_rating, ship.speed_lost)
    if speed <= can:
        return None
    lost = f", {ship.speed_lost} lost to mines" if ship.speed_lost else ""
    return (
        f"{ship.name} makes speed {can} at most (rating {ship.speed_rating}{lost}): the task "
        f"force moves at {can} or less, or leaves it behind"
    )


def _count_here(session: Session, field: Minefield) -> int:
    """The active public minefields across the same boundary or in the same sector, at least 1:
    secret ones and ones still being sown are left out (RULES.md §Mines, a task force)."""
    if field.boundary_id is None and not field.sector:
        return 1
    query = select(Minefield).where(
        Minefield.campaign_id == field.campaign_id, Minefield.status == MinefieldStatus.ACTIVE,
        col(Minefield.secret).is_(False),
    )  # fmt: skip
    if field.boundary_id is not None:
        return max(
            1, len(session.exec(query.where(Minefield.boundary_id == field.boundary_id)).all())
        )
    here = was.square(field.sector)  # a sector typed in another case is the same square
    fields = session.exec(query.where(col(Minefield.boundary_id).is_(None))).all()
    return max(1, sum(was.square(other.sector) == here for other in fields))


def start_check(
    factory: SessionFactory,
    *,
    minefield_id: int,
    ship_ids: Sequence[int],
    speed: int,
    first_cup: str = "long",
    minefields: int | None = None,
    leaving_board: bool = False,
    seed: int | None = None,
) -> int:
    """A task force enters a minefield: its long and small counters go in two cups and are drawn
    at random, alternating from `first_cup` (RULES.md §Mines)."""
    errors: dict[str, str] = {}
    require_declared(errors, MineCheck, speed=speed)
    if first_cup not in COUNTER_SIZES:
        errors["first_cup"] = "must be long or small"
    if minefields is not None:
        require_declared(errors, MineCheck, minefields=minefields)
    if seed is not None:
        require_range(errors, "seed", seed, 0, MAX_INT)
    if not ship_ids:
        errors["ships"] = "choose the ships of the task force"
    elif len(set(ship_ids)) != len(ship_ids):
        errors["ships"] = "a ship is chosen twice"
    check(errors)
    with session_scope(factory) as session:
        field, _ = places.field_and_side(session, minefield_id)
        if field.secret:
            raise InvalidInput({"minefield": f"minefield #{field.id} is secret: its owner "
                                "reveals it first (r on the ledger)"})  # fmt: skip
        if field.status != MinefieldStatus.ACTIVE:
            raise InvalidInput({"minefield": f"minefield #{field.id} is {field.status}: only "
                                "an active minefield is checked"})  # fmt: skip
        running = _running(session, field.campaign_id)
        if running is not None:
            raise InvalidInput({"minefield": f"mine check #{running.id} is still in progress: "
                                "finish or abandon it first"})  # fmt: skip
        campaign = get_row(session, Campaign, field.campaign_id)
        cups: dict[str, list[int]] = {"long": [], "small": []}
        sides: dict[int, str] = {}
        for ship_id in ship_ids:
            ship, side = _ship_and_side(session, ship_id)
            sides.setdefault(side.id or 0, side.name)
            if side.campaign_id != field.campaign_id:
                errors["ships"] = f"{ship.name} is in another campaign"
            elif ship.sunk:
                errors["ships"] = f"{ship.name} is sunk"
            elif len(sides) > 1:
                errors["ships"] = (f"a task force is one side's ships: {ship.name} is "
                                   f"{side.name}'s, the others {next(iter(sides.values()))}'s; "
                                   "check each side's task force on its own")  # fmt: skip
            elif (problem := _too_slow(ship, speed)) is not None:
                errors["speed"] = problem
            elif ship.counter_size not in COUNTER_SIZES:
                errors["ships"] = (f"{ship.name} has no counter size: enter long or small on "
                                   "its counter (u on the record sheet)")  # fmt: skip
            else:
                cups[ship.counter_size].append(ship_id)
        check(errors)
        scenario_id, turn = places.turn_of(session, field.campaign_id, None)
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        check_row = MineCheck(
            campaign_id=field.campaign_id, minefield_id=minefield_id, scenario_id=scenario_id,
            turn=turn, minefields=minefields or _count_here(session, field), speed=speed,
            leaving_board=leaving_board, first_cup=CounterSize(first_cup),
            rule=campaign.mine_halt_rule, seed=seed,
        )  # fmt: skip
        session.add(check_row)
        session.flush()
        order = mine_check.draw_order(cups["long"], cups["small"], first=first_cup,
                                 rng=random.Random(seed))  # fmt: skip
        for draw_no, (cup, ship_id) in enumerate(order, start=1):
            session.add(MineCheckShip(check_id=check_row.id or 0, ship_id=ship_id,
                                      cup=CounterSize(cup), draw_no=draw_no))  # fmt: skip
        journal.append(
            session, campaign_id=field.campaign_id, kind=JournalKind.MINE_CHECK,
            summary=f"mine check #{check_row.id}: {plural(len(ship_ids), 'ship')} "
            f"{'enters' if len(ship_ids) == 1 else 'enter'} minefield "
            f"#{field.id} at speed {speed} ({len(cups['long'])} long, {len(cups['small'])} "
            f"small; {first_cup} cup first)", dice={"seed": seed},
        )  # fmt: skip
        return check_row.id or 0


def _message(row: MineCheck, struck: int, drawn: int, size: int) -> str:
    quarter = mine_check.quarter_of(size)
    counted = (
        f"{drawn} of {size} drawn" if row.rule == HaltRule.DRAWN else f"{struck} of {size} struck"
    )
    if row.status == MineCheckStatus.HALTED:
        return (f"{counted} (a quarter is {quarter}): the task force stops moving and replots "
                f"(19.25); the {size - drawn} ships not drawn pass")  # fmt: skip
    if row.status == MineCheckStatus.COMPLETE:
        return f"every ship drawn: {struck} of {size} struck mines"
    if row.status == MineCheckStatus.ABANDONED:
        return "abandoned"
    return f"{counted}; the check halts at {quarter}"


def check_view(factory: SessionFactory, *, check_id: int) -> CheckView:
    with session_scope(factory) as session:
        return _check_view(session, check_id)


def _check_view(session: Session, check_id: int) -> CheckView:
    row = get_row(session, MineCheck, check_id)
    field = get_row(session, Minefield, row.minefield_id)
    drm = swwas.mine_drm(row.minefields, row.speed)
    draws = []
    drawn = MineCheckShip.check_id == check_id
    for item in rows_where(session, MineCheckShip, drawn, order=MineCheckShip.draw_no):
        ship = get_row(session, Ship, item.ship_id)
        draws.append(DrawView(
            ship_id=item.ship_id, name=ship.name, cup=item.cup, draw_no=item.draw_no,
            drawn=item.drawn, roll=item.roll, drm=item.drm if item.drawn else drm.total,
            effects=item.effects, struck=item.struck, fuel=_fuel(ship),
        ))  # fmt: skip
    pending = [draw for draw in draws if not draw.drawn]
    size = len(draws)
    struck = sum(1 for draw in draws if draw.drawn and draw.struck)
    return CheckView(
        id=row.id or 0, minefield=f"#{field.id} " + places.label(
            session, field.boundary_id, field.sector),
        minefield_id=field.id or 0, minefields=row.minefields, speed=row.speed,
        leaving_board=row.leaving_board, drm=drm, first_cup=row.first_cup, rule=row.rule,
        status=row.status, size=size, halt_at=mine_check.quarter_of(size), draws=tuple(draws),
        left={cup: sum(1 for draw in pending if draw.cup == cup) for cup in COUNTER_SIZES},
        next=pending[0] if pending and row.status == MineCheckStatus.IN_PROGRESS else None,
        message=_message(row, struck, size - len(pending), size),
    )  # fmt: skip


def current_check(factory: SessionFactory, *, campaign_id: int) -> int | None:
    with session_scope(factory) as session:
        row = _running(session, campaign_id)
        return row.id if row else None


def _running(session: Session, campaign_id: int) -> MineCheck | None:
    running = MineCheck.campaign_id == campaign_id, MineCheck.status == MineCheckStatus.IN_PROGRESS
    return first_where(session, MineCheck, *running)


def table_effect(factory: SessionFactory, *, check_id: int, roll: int) -> str | None:
    """What the campaign's table says for the next ship on this d6, or None (no row: ask)."""
    with session_scope(factory) as session:
        view = _check_view(session, check_id)
        if view.next is None or not 1 <= roll <= 6:
            return None
        campaign_id = get_row(session, MineCheck, check_id).campaign_id
        row = _lookup(session, campaign_id, view.next.cup, roll + view.drm.total)
        return row.effects if row else None


def _apply(ship: Ship, effect: mine_check.MineEffect) -> tuple[list[str], str]:
    """The mine's effects on the ship, in words, and the condition she sinks in ("" when she
    stays afloat): her sinking is roll_mine's, through losses.sink, as every sinking is."""
    done = []
    sinks = ""
    if effect.speed:
        was = ship.speed_lost
        ship.speed_lost = min(ship.speed_rating, ship.speed_lost + effect.speed)
        done.append(f"speed {ship.speed_rating - ship.speed_lost} "
                    f"(-{ship.speed_lost - was})")  # fmt: skip
    if effect.gunnery:
        ship.gunnery_lost += effect.gunnery
        done.append(f"gunnery -{effect.gunnery}")
    if effect.fuel:
        before = _fuel(ship)
        after = swwas.lose_fuel(before, effect.fuel)
        _set_fuel(ship, after)
        done.append(f"fuel {after.lost - before.lost} lost")
    if effect.hull:
        hits = ship.hull_damage + effect.hull
        ship.hull_damage = min(ship.hull_boxes, hits) if ship.hull_boxes else hits
        done.append(f"hull {effect.hull}")
        if ship.hull_boxes and ship.hull_damage >= ship.hull_boxes and not effect.sunk:
            # Second World War at Sea: a ship sinks when its hull is used up (RULES.md §Mines).
            sinks = "Sunk: hull used up by a mine"
            done.append("hull used up: SUNK")
    if effect.crippled:
        ship.crippled = True
        done.append("crippled")
    if effect.sunk:
        sinks = "Sunk by a mine"
        done.append("SUNK")
    return done, sinks


def roll_mine(
    factory: SessionFactory, *, check_id: int, roll: int, effects: str | None = None
) -> CheckView:
    """Roll for the next ship drawn: the d6 plus the modifiers (RULES.md §Mines) on the campaign's
    mine table; `effects` is the player's result where the table has no row (or no table)."""
    if not 1 <= roll <= 6:
        raise InvalidInput({"roll": f"a d6 shows 1..6, got {roll}"})
    with session_scope(factory) as session:
        view = _check_view(session, check_id)
        row = get_row(session, MineCheck, check_id)
        if view.next is None:
            raise InvalidInput({"roll": f"mine check #{check_id} is {view.status}: no ship "
                                "left to draw"})  # fmt: skip
        draw, drm = view.next, view.drm.total
        modified = roll + drm
        if effects is None or not effects.strip():
            table_row = _lookup(session, row.campaign_id, draw.cup, modified)
            if table_row is None:
                raise InvalidInput({"effects": f"no row of the mine table covers {modified} for "
                                    f"a {draw.cup} counter: type the result (none, fuel-2, "
                                    "sunk, ...)"})  # fmt: skip
            effects = table_row.effects
        try:
            effect = mine_check.parse_mine_effects(effects)
        except ValueError as exc:
            raise InvalidInput({"effects": str(exc).removeprefix("effects: ")}) from exc
        ship, side = _ship_and_side(session, draw.ship_id)
        this_draw = MineCheckShip.check_id == check_id, MineCheckShip.ship_id == draw.ship_id
        [item] = rows_where(session, MineCheckShip, *this_draw)
        before_ship, before_item = journal.row_state(ship), journal.row_state(item)
        before_check = journal.row_state(row)
        done, sinks = _apply(ship, effect)
        scenario = journal.current_scenario(session, row.campaign_id)
        settled = (
            losses.sink(session, ship, condition=sinks, scenario=scenario)
            if sinks and not ship.sunk
            else losses.Settled()
        )
        item.drawn, item.roll, item.drm = True, roll, drm
        item.effects, item.struck = effect.words(), effect.struck
        struck = view.struck + (1 if effect.struck else 0)
        drawn = view.drawn + 1
        if drawn == view.size:
            row.status = MineCheckStatus.COMPLETE
        halted = (drawn >= mine_check.quarter_of(view.size) if row.rule == HaltRule.DRAWN
                  else swwas.mine_check_halts(struck, view.size))  # fmt: skip
        if halted and drawn < view.size:
            row.status = MineCheckStatus.HALTED
        session.flush()
        changes = [
            journal.row_change("ship", ship.id, before_ship, journal.row_state(ship)),
            journal.row_change("minecheckship", item.id, before_item, journal.row_state(item)),
        ]
        if row.status != before_check["status"]:
            changes.append(journal.row_change("minecheck", row.id, before_check,
                                              journal.row_state(row)))  # fmt: skip
        result = "; ".join([", ".join(done) if done else "no effect", *settled.notes])
        journal.append(
            session, campaign_id=row.campaign_id, kind=JournalKind.MINE, ship_id=ship.id,
            side_id=side.id, summary=f"{ship.name} ({draw.cup} cup) {roll_text(roll)} {drm:+d} = "
            f"{modified}: {result}", dice={"d6": roll, "drm": drm, "modified": modified},
            changes=(*changes, *settled.changes), facts=settled.facts, scenario=scenario,
        )  # fmt: skip
        return replace(_check_view(session, check_id), said=settled.notes)


def abandon_check(factory: SessionFactory, *, check_id: int) -> None:
    """Stop a check set up by mistake; the rolls already made stay (undo them one by one)."""
    with act(factory, MineCheck, check_id) as a:
        row = a.row
        if row.status != MineCheckStatus.IN_PROGRESS:
            raise InvalidInput({"check": f"mine check #{check_id} is already {row.status}"})
        before = journal.row_state(row)
        row.status = MineCheckStatus.ABANDONED
        change = journal.row_change("minecheck", row.id, before, journal.row_state(row))
        a.log(JournalKind.MINE_CHECK, f"mine check #{check_id} abandoned", changes=(change,))
