"""Every row an act writes is in its journal entry (services.rowlog): the database is the one
before the act with the entry's `changes` and `rows` written over it, for every act of a
campaign's making and of a scenario fought, which is what a copy of the campaign replays."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlmodel import col

from tracker.db import SessionFactory, read_scope
from tracker.models import TABLES, JournalEntry, Scenario, Ship, ShipClass, Squadron, UnitCard
from tracker.services import (
    command,
    damage,
    demo,
    fleet,
    history,
    repairs,
    scenarios,
    visibility,
)
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.rowlog import plain

State = dict[tuple[str, int], dict[str, Any]]
# A secret's columns: the journal keeps none of them (services.rowlog), their row alone does.
_SECRET = {
    name: {column.name for column in model.__table__.columns} - public  # type: ignore[attr-defined]
    for model in TABLES
    if (public := visibility.PUBLIC.get(name := str(model.__tablename__))) is not None
}
_KEPT = [model for model in TABLES if model not in (JournalEntry, ShipClass, UnitCard)]


def _state(factory: SessionFactory) -> tuple[State, int]:
    """Every row of every campaign table, and the newest entry's number."""
    state: State = {}
    with read_scope(factory) as session:
        for model in _KEPT:
            table = model.__table__  # type: ignore[attr-defined]
            for row in session.connection().execute(select(table)).mappings():
                values = {key: plain(value) for key, value in row.items()}
                state[(table.name, values.pop("id"))] = values
        last = session.connection().execute(select(col(JournalEntry.id)).order_by(
            col(JournalEntry.id).desc()).limit(1)).scalar()  # fmt: skip
    for values in state.values():
        values.pop("version", None)
    return state, last or 0


def _replayed(state: State, factory: SessionFactory, since: int) -> tuple[State, set[Any]]:
    """The state with every entry after `since` written over it, as its changes say, and the
    columns of secrets it leaves unsaid (table, id, column)."""
    replayed = {key: dict(values) for key, values in state.items()}
    hidden: set[Any] = set()
    with read_scope(factory) as session:
        details = session.exec(
            select(JournalEntry.detail).where(col(JournalEntry.id) > since)
            .order_by(col(JournalEntry.id))
        ).scalars().all()  # fmt: skip
    for detail in details:
        said = json.loads(detail)
        for change in [*(said.get("rows") or []), *(said.get("changes") or [])]:
            key = (change["table"], change["id"])
            hidden |= {(*key, column) for column in _SECRET.get(change["table"], ())}
            if change.get("gone") == "after":
                replayed.pop(key)
            elif change.get("gone") == "before":
                replayed[key] = dict(change["after"])
            else:
                replayed[key].update(change["after"])
    for values in replayed.values():
        values.pop("version", None)
    return replayed, hidden


def _each_act_kept(factory: SessionFactory, acts: list[Callable[[], object]]) -> None:
    for number, act in enumerate(acts):
        before, since = _state(factory)
        act()
        after, _ = _state(factory)
        replayed, hidden = _replayed(before, factory, since)
        for table, row_id, column in hidden:  # a secret's value: its row's alone
            for values in (after.get((table, row_id)), replayed.get((table, row_id))):
                if values is not None:
                    values.pop(column, None)
        missing = {key: after[key] for key in after if replayed.get(key) != after[key]}
        extra = {key: replayed[key] for key in replayed if key not in after}
        assert (missing, extra) == ({}, {}), f"act {number}"


def _ids(factory: SessionFactory) -> dict[str, int]:
    with read_scope(factory) as session:
        ships = {ship.name: ship.id or 0 for ship in session.exec(select(Ship)).scalars()}
        squadrons = {row.name: row.id or 0 for row in session.exec(select(Squadron)).scalars()}
        scenario = session.exec(select(Scenario)).scalars().first()
        assert scenario is not None
        return {**ships, **squadrons, "scenario": scenario.id or 0}


def test_every_row_an_act_writes_is_in_its_entry(factory: SessionFactory) -> None:
    campaign: list[int] = []
    _each_act_kept(factory, [lambda: campaign.append(demo.create_sample_campaign(factory))])
    ids = _ids(factory)
    exeter, ajax, spee = ids["Exeter"], ids["Ajax"], ids["Admiral Graf Spee"]

    def hit(ship: int, **values: Any) -> Callable[[], object]:
        return lambda: damage.record_hit(factory, request=HitRequest(ship, **values))

    fought = [
        lambda: scenarios.set_participants(
            factory, scenario_id=ids["scenario"], ship_ids=[exeter, ajax, spee]
        ),
        lambda: scenarios.start_scenario(factory, scenario_id=ids["scenario"]),
        hit(exeter, structure=3, criticals=(CriticalRequest(effect="Fire"),)),
        hit(ajax, structure=1, flotation=1),
        lambda: command.record_test(factory, squadron_id=ids["Force G"], subject="crew", roll=4),
        lambda: scenarios.advance_turn(factory, scenario_id=ids["scenario"]),
        hit(exeter, structure=20, flotation=20),
        lambda: history.undo_last(factory, campaign_id=campaign[0]),
        lambda: history.redo_last(factory, campaign_id=campaign[0]),
        lambda: fleet.add_fire_markers(factory, ship_id=spee, delta=2),
        lambda: scenarios.close_scenario(factory, scenario_id=ids["scenario"], outcome="won"),
        lambda: repairs.repair_ship(factory, ship_id=ajax, structure=1),
        lambda: fleet.update_ship(factory, ship_id=ajax, fields={"speed_kn": 30}),
    ]
    _each_act_kept(factory, fought)
    spare: list[int] = []
    side = _state(factory)[0][("squadron", ids["Force G"])]["side_id"]
    _each_act_kept(factory, [
        lambda: spare.append(fleet.create_squadron(factory, side_id=side, name="Spare")),
        lambda: fleet.create_ship(factory, squadron_id=spare[0], fields={
            "name": "Hasty", "structure_max": 4, "flotation_max": 4, "speed_kn": 36}),
        lambda: command.set_commander(factory, squadron_id=spare[0], name="Cdr Tovey",
                                      training=3, acquisition="direct"),
        lambda: fleet.delete_squadron(factory, squadron_id=spare[0]),
    ])  # fmt: skip
