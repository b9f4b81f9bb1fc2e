"""Undo and redo over the journal (tracker.services.history): inverse entries are appended,
history is never rewritten."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from service_helpers import (
    Refused,
    World,
    appoint,
    attempt,
    begin_with_all,
    ctrl_z,
    edit_campaign,
    fresh_factory,
    get_row,
    replayed_states,
    rows_of_ship,
    save_table,
    ship_states,
)
from sqlalchemy import Engine
from sqlmodel import col, select

from tracker.db import SessionFactory, make_engine, migrate, session_factory, session_scope
from tracker.models import (
    Campaign,
    Commander,
    Crew,
    Critical,
    JournalEntry,
    Scenario,
    Ship,
    Side,
    Squadron,
)
from tracker.services import campaigns, command, damage, fleet, history
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields

SHIP_FIELDS = ("structure_now", "flotation_now", "fire_markers")
RefusedUndo = Callable[[Callable[[], object]], str]


def _track(factory: SessionFactory, ship_id: int) -> tuple[int, int, int]:
    ship = get_row(factory, Ship, ship_id)
    return ship.structure_now, ship.flotation_now, ship.fire_markers


def _entries(factory: SessionFactory) -> list[JournalEntry]:
    with session_scope(factory) as session:
        return list(session.exec(select(JournalEntry).order_by(col(JournalEntry.id))).all())


def _statuses(factory: SessionFactory, ship_id: int) -> list[str]:
    return [critical.status for critical in rows_of_ship(factory, Critical, ship_id)]


def _hit(factory: SessionFactory, ship_id: int, **values: Any) -> int:
    result = damage.record_hit(factory, request=HitRequest(ship_id=ship_id, **values))
    assert result.entry_id is not None
    return result.entry_id


@pytest.fixture
def exeter(world: World, add_ship: Callable[..., int]) -> int:
    return add_ship(world.alpha_id, "Exeter")


@pytest.fixture
def refused_undo(refused: Refused) -> RefusedUndo:
    """A refused undo or redo: InvalidInput on 'journal' alone, nothing written; its message."""
    return lambda call: refused(call, "journal").errors["journal"]


# --- undo_last and redo_last --------------------------------------------------------------------


def test_undo_last_restores_the_ship_and_voids_its_criticals(
    world: World, factory: SessionFactory, exeter: int
) -> None:
    hit_id = _hit(
        factory,
        exeter,
        structure=4,
        flotation=2,
        fire_delta=1,
        criticals=(CriticalRequest(effect="B turret out"),),
    )
    hit_summary = get_row(factory, JournalEntry, hit_id).summary
    assert _track(factory, exeter) == (5, 6, 1)
    count = len(_entries(factory))

    result = history.undo_last(factory, campaign_id=world.campaign_id)

    assert _track(factory, exeter) == (9, 8, 0)
    assert _statuses(factory, exeter) == ["void"]
    assert damage.list_criticals(factory, ship_id=exeter) == []
    entries = _entries(factory)
    assert len(entries) == count + 1  # appended, nothing deleted
    undo = entries[-1]
    assert (result.entry_id, result.reverted_id, result.ship_ids) == (undo.id, hit_id, (exeter,))
    assert result.summary == undo.summary == f"Undid #{hit_id}: {hit_summary}"
    assert (undo.kind, undo.reverts_id, undo.ship_id, undo.undoable) == (
        "undo",
        hit_id,
        exeter,
        True,
    )
    assert get_row(factory, JournalEntry, hit_id).reverted_by_id == undo.id
    # The undo entry carries its own row changes: the hit's, reversed.
    hit_changes = json.loads(get_row(factory, JournalEntry, hit_id).detail)["changes"]
    assert json.loads(undo.detail)["changes"] == [
        {"table": c["table"], "id": c["id"], "before": c["after"], "after": c["before"]}
        for c in hit_changes
    ]


def test_redo_last_applies_the_change_again(
    world: World, factory: SessionFactory, exeter: int
) -> None:
    hit_id = _hit(factory, exeter, structure=4, criticals=(CriticalRequest(effect="Fire"),))
    undo = history.undo_last(factory, campaign_id=world.campaign_id)
    count = len(_entries(factory))

    redo = history.redo_last(factory, campaign_id=world.campaign_id)

    assert _track(factory, exeter) == (5, 8, 0)
    assert _statuses(factory, exeter) == ["active"]
    entries = _entries(factory)
    assert len(entries) == count + 1
    assert (entries[-1].id, entries[-1].kind, entries[-1].reverts_id) == (
        redo.entry_id,
        "redo",
        undo.entry_id,
    )
    assert redo.reverted_id == undo.entry_id
    assert redo.summary.startswith(f"Redid #{hit_id}: Exeter")
    assert get_row(factory, JournalEntry, undo.entry_id).reverted_by_id == redo.entry_id
    # History is kept as it was.
    assert get_row(factory, JournalEntry, hit_id).reverted_by_id == undo.entry_id

    # And again: the redo is itself undone, then redone.
    again = history.undo_last(factory, campaign_id=world.campaign_id)
    assert again.reverted_id == redo.entry_id
    assert again.summary.startswith(f"Undid #{hit_id}: ")
    assert _track(factory, exeter) == (9, 8, 0)
    assert _statuses(factory, exeter) == ["void"]
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert _track(factory, exeter) == (5, 8, 0)


def test_several_undos_then_redos_walk_back_and_forth_in_order(
    world: World, factory: SessionFactory, exeter: int, ajax: int
) -> None:
    first = _hit(factory, exeter, structure=1)
    second = _hit(factory, ajax, flotation=2)
    third = _hit(factory, exeter, structure=2)
    undone = [
        history.undo_last(factory, campaign_id=world.campaign_id).reverted_id for _ in range(3)
    ]
    assert undone == [third, second, first]
    assert (_track(factory, exeter), _track(factory, ajax)) == ((9, 8, 0), (9, 8, 0))
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert (_track(factory, exeter), _track(factory, ajax)) == ((8, 8, 0), (9, 8, 0))
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert (_track(factory, exeter), _track(factory, ajax)) == ((8, 8, 0), (9, 6, 0))
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert (_track(factory, exeter), _track(factory, ajax)) == ((6, 8, 0), (9, 6, 0))


def test_undo_and_redo_survive_closing_and_reopening_the_file(
    world: World, engine: Engine, db_url: str, exeter: int
) -> None:
    factory = session_factory(engine)
    _hit(factory, exeter, structure=3)
    history.undo_last(factory, campaign_id=world.campaign_id)
    engine.dispose()

    reopened = make_engine(db_url)
    try:
        assert migrate(reopened) is None
        again = session_factory(reopened)
        assert _track(again, exeter) == (9, 8, 0)
        history.redo_last(again, campaign_id=world.campaign_id)
        assert _track(again, exeter) == (6, 8, 0)
        history.undo_last(again, campaign_id=world.campaign_id)
        assert _track(again, exeter) == (9, 8, 0)
    finally:
        reopened.dispose()


def test_nothing_to_undo_or_redo_is_refused(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    # Creating the campaign, sides, squadrons and the ship cannot be undone: ctrl+z says so.
    message = refused_undo(lambda: history.undo_last(factory, campaign_id=world.campaign_id))
    assert message.startswith("nothing to undo in this campaign: the newest change, #")
    assert message.endswith("(Added Exeter to Alpha), cannot be undone")
    message = refused_undo(lambda: history.redo_last(factory, campaign_id=world.campaign_id))
    assert message == "nothing to redo"
    _hit(factory, exeter, structure=1)
    refused_undo(lambda: history.redo_last(factory, campaign_id=world.campaign_id))
    history.undo_last(factory, campaign_id=world.campaign_id)
    refused_undo(lambda: history.undo_last(factory, campaign_id=world.campaign_id))
    history.redo_last(factory, campaign_id=world.campaign_id)
    refused_undo(lambda: history.redo_last(factory, campaign_id=world.campaign_id))


def test_undo_stays_within_its_campaign(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    _hit(factory, exeter, structure=1)
    other = campaigns.create_campaign(factory, name="Other")
    refused_undo(lambda: history.undo_last(factory, campaign_id=other.id))


def test_a_new_change_after_an_undo_clears_redo(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    _hit(factory, exeter, structure=1)
    history.undo_last(factory, campaign_id=world.campaign_id)
    _hit(factory, exeter, flotation=2)
    message = refused_undo(lambda: history.redo_last(factory, campaign_id=world.campaign_id))
    assert message == "nothing to redo"
    assert _track(factory, exeter) == (9, 6, 0)


def test_undo_entry_of_an_older_hit_is_refused_while_a_later_one_is_in_force(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    first = _hit(factory, exeter, structure=1)
    second = _hit(factory, exeter, flotation=1)
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=first))
    assert f"#{second} " in message and "undo that first" in message
    assert message.startswith(f"#{first} cannot be undone")
    # Once the later hit is undone, the older one can be.
    history.undo_entry(factory, entry_id=second)
    history.undo_entry(factory, entry_id=first)
    assert _track(factory, exeter) == (9, 8, 0)


def test_undo_entry_of_a_hit_on_another_ship_is_not_blocked(
    world: World, factory: SessionFactory, exeter: int, ajax: int
) -> None:
    first = _hit(factory, exeter, structure=1)
    _hit(factory, ajax, structure=2)
    history.undo_entry(factory, entry_id=first)
    assert (_track(factory, exeter), _track(factory, ajax)) == ((9, 8, 0), (7, 8, 0))


def test_a_redo_in_force_blocks_undoing_an_older_entry(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    first = _hit(factory, exeter, structure=1)
    _hit(factory, exeter, structure=1)
    history.undo_last(factory, campaign_id=world.campaign_id)
    redo = history.redo_last(factory, campaign_id=world.campaign_id)
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=first))
    assert f"#{redo.entry_id} " in message


def test_undoing_twice_or_undoing_an_undo_is_refused(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    hit = _hit(factory, exeter, structure=1)
    undo = history.undo_last(factory, campaign_id=world.campaign_id)
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=hit))
    assert message == f"#{hit} was already undone by #{undo.entry_id}"
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=undo.entry_id))
    assert "cannot be undone" in message
    redo = history.redo_last(factory, campaign_id=world.campaign_id)
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=hit))
    assert f"redone by #{redo.entry_id}" in message


def test_an_entry_without_row_changes_cannot_be_undone(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    created = [e for e in _entries(factory) if e.kind == "ship"][-1]
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=created.id or 0))
    assert "cannot be undone" in message


def test_a_hit_on_a_retired_ship_is_undone_after_the_retirement_never_past_it(
    world: World, factory: SessionFactory, exeter: int, refused_undo: RefusedUndo
) -> None:
    hit = _hit(factory, exeter, structure=1, criticals=(CriticalRequest(effect="Fire"),))
    retired = fleet.delete_ship(factory, ship_id=exeter)
    assert retired.startswith("Retired Exeter")  # its critical is a history to keep
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=hit))
    assert "Retired Exeter" in message and "undo that first" in message
    assert history.undo_last(factory, campaign_id=world.campaign_id).summary.endswith(retired)
    assert not get_row(factory, Ship, exeter).retired
    assert history.undo_last(factory, campaign_id=world.campaign_id).reverted_id == hit
    assert _track(factory, exeter)[0] == 9


def test_ctrl_z_names_what_it_cannot_undo_and_undoes_the_next_only_when_asked_again(
    world: World, factory: SessionFactory, exeter: int, add_ship: Callable[..., int],
    refused_undo: RefusedUndo,
) -> None:  # fmt: skip
    heidkamp = add_ship(world.raider_id, "Wilhelm Heidkamp")
    older = _hit(factory, heidkamp, structure=1)
    newer = _hit(factory, exeter, structure=2)
    fleet.delete_squadron(factory, squadron_id=world.alpha_id)  # Exeter goes with it, for good
    try:
        history.undo_last(factory, campaign_id=world.campaign_id)
    except history.UndoSkipAsked as asked:
        message, next_id = asked.errors["journal"], asked.next_id
    else:
        raise AssertionError("ctrl+z passed over a change silently")
    assert next_id == older
    assert f"#{newer} (" in message and "Exeter" in message
    assert f"ctrl+z again to undo #{older} (" in message and "Wilhelm Heidkamp" in message
    assert _track(factory, heidkamp)[0] == 8  # nothing undone yet
    # Asked about another entry than the one named, it names it again and undoes nothing.
    refused_undo(lambda: history.undo_last(factory, campaign_id=world.campaign_id, past_to=newer))
    result = history.undo_last(factory, campaign_id=world.campaign_id, past_to=older)
    assert result.reverted_id == older and _track(factory, heidkamp)[0] == 9


def test_undo_of_a_transfer_out_of_a_deleted_squadron_is_refused_cleanly(
    world: World, factory: SessionFactory, ajax: int, refused_undo: RefusedUndo
) -> None:
    fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    fleet.delete_squadron(factory, squadron_id=world.alpha_id)
    assert get_row(factory, Ship, ajax).squadron_id == world.bravo_id  # Ajax survives, in Bravo
    try:  # the deletion is named first: ctrl+z never passes over a change silently
        history.undo_last(factory, campaign_id=world.campaign_id)
    except history.UndoSkipAsked as asked:
        assert "(Deleted squadron Alpha) cannot be undone." in asked.errors["journal"]
        transfer = asked.next_id
    else:
        raise AssertionError("ctrl+z passed over the deletion silently")
    undo = partial(history.undo_last, factory, campaign_id=world.campaign_id, past_to=transfer)
    assert "deleted" in refused_undo(undo)


# --- the other journaled services ---------------------------------------------------------------


def test_undo_of_combat_reductions_restores_commander_and_crew(
    world: World, factory: SessionFactory
) -> None:
    appoint(factory, world.alpha_id, name="Harwood", training=3, acquisition="direct")
    command.set_crew(factory, squadron_id=world.alpha_id, training=4, acquisition="direct")

    def ratings() -> tuple[int, int, int]:
        with session_scope(factory) as session:
            [commander] = session.exec(select(Commander)).all()
            [crew] = session.exec(select(Crew)).all()
            return commander.modifier_now, commander.radius_now_cm, crew.modifier_now

    assert ratings() == (0, 40, 1)
    command.reduce_command(
        factory, squadron_id=world.alpha_id, modifier_by=1, radius_by_cm=10, crew_by=2
    )
    assert ratings() == (-1, 30, -1)
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert ratings() == (0, 40, 1)
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert ratings() == (-1, 30, -1)


def test_undo_of_a_rerolled_commander_and_crew_restores_the_earlier_ones(
    world: World, factory: SessionFactory, refused_undo: RefusedUndo
) -> None:
    appoint(factory, world.alpha_id, name="Harwood", training=3, acquisition="random", roll=1)
    command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=10)
    # The first rolls are not undoable (the squadron had none): nothing to undo yet.
    refused_undo(lambda: history.undo_last(factory, campaign_id=world.campaign_id))
    appoint(factory, world.alpha_id, name="Bell", training=5, acquisition="direct")
    command.set_crew(factory, squadron_id=world.alpha_id, training=1, acquisition="random", roll=1)

    def rated() -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        with session_scope(factory) as session:
            [c] = session.exec(select(Commander)).all()
            [k] = session.exec(select(Crew)).all()
            return (
                (c.name, c.acquisition, c.training, c.roll, c.grade, c.modifier_now),
                (k.training, k.roll, k.grade, k.modifier_now),
            )

    assert rated() == (("Bell", "direct", 5, None, 5, 2), (1, 1, 1, -2))
    history.undo_last(factory, campaign_id=world.campaign_id)  # the crew
    assert rated() == (("Bell", "direct", 5, None, 5, 2), (3, 10, 5, 2))
    history.undo_last(factory, campaign_id=world.campaign_id)  # the commander
    assert rated() == (("Harwood", "random", 3, 1, 1, -2), (3, 10, 5, 2))


def test_undo_of_a_transfer_restores_the_squadron(
    world: World, factory: SessionFactory, exeter: int
) -> None:
    command.set_crew(factory, squadron_id=world.alpha_id, training=4, acquisition="direct")
    begin_with_all(factory, world)  # a transfer in battle is Out of Command (RULES.md §SMR2)
    fleet.transfer_ship(factory, ship_id=exeter, to_squadron_id=world.bravo_id)
    ship = get_row(factory, Ship, exeter)
    assert ship.crew_id is not None  # it took its own crew along
    assert (ship.squadron_id, ship.transferred_scenario_id, ship.transferred_turn) == (
        world.bravo_id,
        world.scenario_id,
        1,
    )
    history.undo_last(factory, campaign_id=world.campaign_id)
    ship = get_row(factory, Ship, exeter)
    assert (ship.squadron_id, ship.original_squadron_id) == (world.alpha_id, world.alpha_id)
    assert (ship.transferred_scenario_id, ship.transferred_turn, ship.crew_id) == (
        None,
        None,
        None,
    )
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert get_row(factory, Ship, exeter).squadron_id == world.bravo_id


def test_undo_of_add_fire_markers(world: World, factory: SessionFactory, exeter: int) -> None:
    fleet.add_fire_markers(factory, ship_id=exeter, delta=2)
    fleet.add_fire_markers(factory, ship_id=exeter, delta=3)
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert get_row(factory, Ship, exeter).fire_markers == 2
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert get_row(factory, Ship, exeter).fire_markers == 0
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert get_row(factory, Ship, exeter).fire_markers == 2


def test_undo_of_an_edit_restores_the_ship(
    world: World, factory: SessionFactory, exeter: int
) -> None:
    before = get_row(factory, Ship, exeter)
    fleet.update_ship(
        factory,
        ship_id=exeter,
        fields=ShipFields(name="Exeter II", structure_max=12, structure_now=4, flotation_max=8),
    )
    edited = get_row(factory, Ship, exeter)
    assert (edited.name, edited.structure_now) == ("Exeter II", 4)
    history.undo_last(factory, campaign_id=world.campaign_id)
    # Every field as it was; the version counts the edit and its undo.
    restored = get_row(factory, Ship, exeter)
    assert restored.model_dump(exclude={"version"}) == before.model_dump(exclude={"version"})
    assert restored.version == before.version + 2


# Every form that edits a row, on the world's rows (Exeter the ship). The squadron's switch to
# an air group re-rates its commander's radius in the same act.
EDITS: dict[str, Callable[[SessionFactory, World, int], object]] = {
    "campaign": lambda f, w, _: edit_campaign(f, w.campaign_id, "Plate II", model_scale="1/3000"),
    "side": lambda f, w, _: campaigns.update_side(f, side_id=w.blue_id, name="Allies", nation="UK"),
    "scenario": lambda f, w, _: campaigns.update_scenario(f, scenario_id=w.scenario_id, title="D"),
    "squadron": lambda f, w, _: fleet.update_squadron(
        f, squadron_id=w.alpha_id, name="Force H", air=True, notes="n"
    ),
    "ship": lambda f, w, ship: fleet.update_ship(
        f, ship_id=ship, fields=ShipFields(name="Exeter II", speed_kn=28)
    ),
}


def _states(factory: SessionFactory) -> dict[str, list[dict[str, Any]]]:
    with session_scope(factory) as session:
        return {
            str(model.__tablename__): [row.model_dump(exclude={"version"}) for row in
                                       session.exec(select(model).order_by(col(model.id))).all()]
            for model in (Campaign, Side, Scenario, Squadron, Ship, Commander)
        }  # fmt: skip


@pytest.mark.parametrize("form", sorted(EDITS))
def test_ctrl_z_undoes_an_edit_of_every_form_and_never_passes_over_it(
    world: World, factory: SessionFactory, exeter: int, form: str
) -> None:
    appoint(factory, world.alpha_id, name="Harwood", training=3, acquisition="direct")
    # A hit first: ctrl+z after the edit takes back the edit, never reaching past it to the hit.
    hit = _hit(factory, exeter, structure=1)
    before = _states(factory)
    EDITS[form](factory, world, exeter)
    edited = _states(factory)
    assert edited != before
    undone = history.undo_last(factory, campaign_id=world.campaign_id)
    assert undone.reverted_id != hit
    assert _states(factory) == before
    history.redo_last(factory, campaign_id=world.campaign_id)
    assert _states(factory) == edited
    if form == "squadron":  # the commander's radius was re-rated with the switch, and back
        assert edited["commander"][0]["air"] and not before["commander"][0]["air"]
        assert edited["commander"][0]["radius_now_cm"] != before["commander"][0]["radius_now_cm"]


def test_an_edit_whose_old_name_was_taken_since_is_not_undone_and_says_which_name(
    world: World, factory: SessionFactory, refused_undo: RefusedUndo
) -> None:
    fleet.update_squadron(factory, squadron_id=world.alpha_id, name="Force H", air=False, notes="")
    renamed = _entries(factory)[-1]
    fleet.update_squadron(factory, squadron_id=world.bravo_id, name="Alpha", air=False, notes="")
    message = refused_undo(lambda: history.undo_entry(factory, entry_id=renamed.id or 0))
    assert "the name 'Alpha' has been taken since" in message
    assert get_row(factory, Squadron, world.alpha_id).name == "Force H"
    assert get_row(factory, Squadron, world.bravo_id).name == "Alpha"


def test_undo_of_a_sinking_refloats_the_ship(
    world: World, factory: SessionFactory, exeter: int
) -> None:
    _hit(factory, exeter, structure=9)
    damage.confirm_condition(factory, ship_id=exeter, outcome="Sunk")
    history.undo_last(factory, campaign_id=world.campaign_id)
    ship = get_row(factory, Ship, exeter)
    assert (ship.sunk, ship.condition, ship.structure_now) == (False, "", 0)
    _hit(factory, exeter, repair_structure=1)  # afloat again: it takes repairs
    assert get_row(factory, Ship, exeter).structure_now == 1


# --- property: the journal replays to the database, and undo/redo round-trip --------------------

_SHIPS = st.integers(0, 2)
_HIT = st.tuples(
    st.just("hit"),
    _SHIPS,
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(-1, 2),
    st.lists(st.one_of(st.integers(1, 10), st.sampled_from(["Fire", "Rudder"])), max_size=2),
)
_REPAIR = st.tuples(st.just("repair"), _SHIPS, st.integers(0, 2), st.integers(0, 1))
# one_of picks a branch uniformly: hits, repairs and undos are listed more than once to be common.
_OPERATIONS = st.lists(
    st.one_of(
        _HIT,
        _HIT,
        _HIT,
        _REPAIR,
        _REPAIR,
        st.tuples(st.just("fix"), _SHIPS, st.integers(1, 2)),
        st.tuples(st.just("fire"), _SHIPS, st.integers(0, 4)),
        st.tuples(st.just("condition"), _SHIPS, st.sampled_from(["Dead in the water", "Sunk"])),
        st.tuples(st.just("undo")),
        st.tuples(st.just("undo")),
        st.tuples(st.just("redo")),
    ),
    min_size=3,
    max_size=14,
)


def _run(factory: SessionFactory, campaign_id: int, ships: list[int], op: tuple[Any, ...]) -> None:
    """One operation; amounts are fitted to the ship so most of them are accepted."""
    kind = op[0]
    ship = get_row(factory, Ship, ships[op[1]]) if len(op) > 1 else None
    if kind == "hit":
        assert ship is not None
        _, _, lost_s, lost_f, fire, criticals = op
        requests = tuple(
            CriticalRequest(roll=c) if isinstance(c, int) else CriticalRequest(effect=c)
            for c in criticals
        )
        damage.record_hit(
            factory,
            request=HitRequest(
                ship.id or 0,
                structure=lost_s,
                flotation=lost_f,
                fire_delta=max(fire, -ship.fire_markers),
                criticals=requests,
            ),
        )
    elif kind == "repair":
        assert ship is not None
        _, _, rs, rf = op
        # Repairs that fit: never more than the track is missing.
        rs = min(rs, ship.structure_max - ship.structure_now)
        rf = min(rf, ship.flotation_max - ship.flotation_now)
        damage.record_hit(
            factory, request=HitRequest(ship.id or 0, repair_structure=rs, repair_flotation=rf)
        )
    elif kind == "fix":
        assert ship is not None
        active = len([v for v in damage.list_criticals(factory, ship_id=ship.id or 0) if v.number])
        number = 1 + (op[2] - 1) % active if active else op[2]
        damage.record_hit(factory, request=HitRequest(ship.id or 0, fixes=(number,)))
    elif kind == "fire":  # to op[2] markers, from the ship's
        now = get_row(factory, Ship, ships[op[1]]).fire_markers
        if op[2] != now:
            fleet.add_fire_markers(factory, ship_id=ships[op[1]], delta=op[2] - now)
    elif kind == "condition":
        damage.confirm_condition(factory, ship_id=ships[op[1]], outcome=op[2])
    elif kind == "undo":
        history.undo_last(factory, campaign_id=campaign_id)
    else:
        history.redo_last(factory, campaign_id=campaign_id)


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(opening=st.lists(_HIT, min_size=2, max_size=4), operations=_OPERATIONS)
def test_the_journal_replays_to_the_database_and_undo_redo_round_trips(
    tmp_path_factory: pytest.TempPathFactory,
    migrated_template: Path,
    opening: list[Any],
    operations: list[Any],
) -> None:
    with fresh_factory(tmp_path_factory, migrated_template, "history") as factory:
        campaign = campaigns.create_campaign(factory, name="C")
        campaigns.add_scenario(factory, campaign_id=campaign.id, title="S")
        side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue")
        squadron = fleet.create_squadron(factory, side_id=side.id, name="Alpha")
        table = [
            (1, 4, "Hull breach", "structure_now", -2),
            (5, 7, "Engine room", "speed_kn", -4),
            (8, 10, "Fire", "fire_markers", 1),
        ]
        save_table(factory, campaign.id, table)
        ships = [
            fleet.create_ship(
                factory,
                squadron_id=squadron,
                fields=ShipFields(name=name, structure_max=6, flotation_max=5, speed_kn=20),
            )
            for name in ("Exeter", "Ajax", "Achilles")
        ]
        created, _ = ship_states(factory)
        count = len(_entries(factory))

        # A few hits first, so that repairs, fixes and undos have something to work on.
        for op in [*opening, *operations]:
            try:
                _run(factory, campaign.id, ships, op)
            except InvalidInput:
                event(f"{op[0]} refused")  # a refusal writes nothing; the sequence goes on
            else:
                event(f"{op[0]} done")
            now = len(_entries(factory))
            assert now >= count  # the journal only grows
            count = now

        # (a) Replaying every entry's row changes gives the rows in the database.
        final = ship_states(factory)
        replayed_ships, replayed_crits = replayed_states(factory)
        assert replayed_crits == final[1]
        for ship_id, row in final[0].items():
            for key in SHIP_FIELDS:
                assert replayed_ships[ship_id][key] == row[key], (ship_id, key)
            assert replayed_ships[ship_id] == row, ship_id

        # (b) Undo everything: back to the ships as created, every critical void ...
        undone = 0
        while True:
            outcome = attempt(lambda: ctrl_z(factory, campaign.id))
            if outcome is not None:
                assert isinstance(outcome, InvalidInput), repr(outcome)
                assert outcome.errors["journal"].startswith("nothing to undo in this campaign")
                break
            undone += 1
            assert undone < 100
        ships_now, crits_now = ship_states(factory)
        assert ships_now == created
        assert set(crits_now.values()) <= {"void"}
        # ... then redo as many: back to where the sequence ended.
        for _ in range(undone):
            history.redo_last(factory, campaign_id=campaign.id)
        assert ship_states(factory) == final
        assert replayed_states(factory) == final


# Acts of every sort, reversible or not, on the world's ships and squadrons.
_ACTS = st.lists(
    st.sampled_from(["hit", "fire", "rename", "add side", "add ship", "retire", "scenario",
                     "undo", "redo"]),
    min_size=1, max_size=8,
)  # fmt: skip


def _act(factory: SessionFactory, world: World, act: str, tag: str) -> None:
    """One act of _ACTS; `tag` makes its names new."""
    ship = 0
    if act in ("add ship", "hit", "fire", "retire"):
        ship = fleet.create_ship(factory, squadron_id=world.raider_id,
                                 fields=ShipFields(name=f"Z{tag}", structure_max=9))  # fmt: skip
    if act == "hit":
        _hit(factory, ship, structure=1)
    elif act == "fire":
        fleet.add_fire_markers(factory, ship_id=ship, delta=1)
    elif act == "rename":
        fleet.update_squadron(factory, squadron_id=world.bravo_id, name=f"Bravo {tag}")
    elif act == "add side":
        campaigns.create_side(factory, campaign_id=world.campaign_id, name=f"Side {tag}")
    elif act == "retire":
        fleet.delete_ship(factory, ship_id=ship)
    elif act == "scenario":
        campaigns.add_scenario(factory, campaign_id=world.campaign_id, title=f"S {tag}")
    elif act in ("undo", "redo"):
        (history.undo_last if act == "undo" else history.redo_last)(
            factory, campaign_id=world.campaign_id
        )


@settings(max_examples=examples(20), deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(acts=_ACTS)
def test_ctrl_z_undoes_the_newest_change_in_force_or_names_it(
    world: World, factory: SessionFactory, acts: list[str]
) -> None:
    start = len(_entries(factory))  # the world is shared by the examples: names stay new
    for number, act in enumerate(acts):
        refused = attempt(partial(_act, factory, world, act, f"{start}-{number}"))
        assert refused is None or isinstance(refused, InvalidInput), repr(refused)
    in_force = [e for e in _entries(factory)
                if e.kind != "undo" and e.reverted_by_id is None]  # fmt: skip
    newest = in_force[-1]
    outcome = attempt(lambda: history.undo_last(factory, campaign_id=world.campaign_id))
    if isinstance(outcome, InvalidInput):
        assert f"#{newest.id} ({newest.summary})" in outcome.errors["journal"]
        event("named")
    else:
        assert outcome is None
        undo = _entries(factory)[-1]
        assert undo.reverts_id == newest.id
        event("undone")
