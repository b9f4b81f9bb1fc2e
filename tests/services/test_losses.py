"""A ship lost, and the commander aboard her: every cause that sinks a ship has the same
consequences, every way a ship leaves her squadron settles who is aboard, and a lost commander
does nothing until he is replaced (docs/RULES.md §SMR2 "A ship lost, and the commander aboard",
"A ship leaving her squadron with the commander aboard", "Who takes a morale test")."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from service_helpers import Refused, World, appoint, begin_with_all, edit_campaign
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry
from tracker.models.fleet import ShipBase
from tracker.services import command, continuity, damage, fleet, history, mines, scenarios, sheet
from tracker.services.damage import HitRequest

AddShip = Callable[..., int]
# The key of a loss's journal entry that keeps who was lost: part of the campaign file's format.
LOST = "commanders_lost"
HIPPER, EUGEN = "Admiral Hipper", "Prinz Eugen"
COMMANDER_LOST = (
    "Alpha's commander Luetjens was lost with Admiral Hipper: its ships are Out of Command "
    "(SMR2 §3.4)"
)
HALF_STRENGTH = "Alpha at half strength or less (1 of 2 original ships afloat): morale tests"


@dataclass(frozen=True)
class Flagship:
    """Alpha's two ships, Luetjens aboard Admiral Hipper, and Red's minefield they may enter."""

    hipper: int
    eugen: int
    minefield: int
    commander_id: int


@pytest.fixture
def flagship(world: World, factory: SessionFactory, add_ship: AddShip) -> Flagship:
    hipper, eugen = add_ship(world.alpha_id, HIPPER), add_ship(world.alpha_id, EUGEN)
    for ship in (hipper, eugen):  # long counters of 2 hull boxes
        mines.save_counter(factory, ship_id=ship, counter_size="long", speed_rating=4,
                           hull_boxes=2)  # fmt: skip
    appoint(factory, world.alpha_id, name="Luetjens", training=3, acquisition="direct")
    command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=hipper)
    field = mines.sow_minefield(factory, side_id=world.red_id, laid_by="surface", sector="B4",
                                complete=True)  # fmt: skip
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert record.commander is not None and record.commander_ship == HIPPER
    return Flagship(hipper, eugen, field, record.commander.id)


# --- every cause that sinks a ship ---------------------------------------------------------------


def _at_zero(factory: SessionFactory, fs: Flagship, outcome: str, **hit: int) -> list[str]:
    damage.record_hit(factory, request=HitRequest(fs.hipper, **hit))
    return damage.confirm_condition(factory, ship_id=fs.hipper, outcome=outcome)


def _edited_to_zero(factory: SessionFactory, fs: Flagship) -> list[str]:
    """Structure typed down to zero on the ship's form; the sheet then asks what happened."""
    ship = sheet.load_ship(factory, ship_id=fs.hipper)[0]
    fields = {key: getattr(ship, key) for key in ShipBase.model_fields}
    fleet.update_ship(factory, ship_id=fs.hipper, fields={**fields, "structure_now": 0})
    return damage.confirm_condition(factory, ship_id=fs.hipper, outcome="Sunk")


def _mine(factory: SessionFactory, fs: Flagship, effects: str) -> tuple[str, ...]:
    check_id = mines.start_check(factory, minefield_id=fs.minefield, ship_ids=[fs.hipper],
                                 speed=1, seed=1)  # fmt: skip
    return mines.roll_mine(factory, check_id=check_id, roll=1, effects=effects).said


def _redone(factory: SessionFactory, fs: Flagship) -> tuple[str, ...]:
    """Sunk by gunfire, the sinking undone, then done again."""
    campaign_id = sheet.load_ship(factory, ship_id=fs.hipper)[0].campaign_id
    _at_zero(factory, fs, "Sunk", structure=99)
    history.undo_last(factory, campaign_id=campaign_id)
    return (history.redo_last(factory, campaign_id=campaign_id).summary,)


CAUSES: dict[str, Callable[[SessionFactory, Flagship], Any]] = {
    "gunfire": lambda factory, fs: _at_zero(factory, fs, "Sunk", structure=99),
    "torpedo, Flotation used up": lambda factory, fs: _at_zero(
        factory, fs, "Sunk by a torpedo", flotation=99
    ),
    "Structure edited to zero": _edited_to_zero,
    "scuttled": lambda factory, fs: _at_zero(factory, fs, "Scuttled", structure=99),
    "mine": lambda factory, fs: _mine(factory, fs, "sunk"),
    "hull used up by a mine": lambda factory, fs: _mine(factory, fs, "hull-2"),
    "redo of a sinking": _redone,
}


def _in_force(factory: SessionFactory, campaign_id: int) -> JournalEntry:
    """The newest journal entry still in force: the act's own."""
    with session_scope(factory) as session:
        entry = session.exec(
            select(JournalEntry)
            .where(JournalEntry.campaign_id == campaign_id, JournalEntry.kind != "undo",
                   col(JournalEntry.reverted_by_id).is_(None))
            .order_by(col(JournalEntry.id).desc())
        ).first()  # fmt: skip
        assert entry is not None
        session.expunge(entry)
        return entry


@pytest.mark.parametrize("cause", list(CAUSES))
def test_smr2_3_4_a_flagship_sunk_by_any_cause_loses_her_commander_alike(
    world: World, factory: SessionFactory, flagship: Flagship, cause: str
) -> None:
    begin_with_all(factory, world)
    said = "; ".join(CAUSES[cause](factory, flagship))

    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    hipper, eugen = record.ships
    assert hipper.sunk and hipper.condition.lower().startswith(("sunk", "scuttled"))
    # The commander aboard is lost with her; his squadron is Out of Command until replaced.
    assert record.commander is not None and record.commander.status == "lost"
    assert record.commander_ship == HIPPER
    assert eugen.out_of_command and not eugen.sunk
    # The squadron brought to half strength takes morale tests: said, and marked on the sheet.
    assert record.half_strength and eugen.morale == ("½",)
    assert COMMANDER_LOST in said and HALF_STRENGTH in said
    # One journal entry says it all and keeps who was lost, as he was.
    entry = _in_force(factory, world.campaign_id)
    assert COMMANDER_LOST in entry.summary and HALF_STRENGTH in entry.summary
    assert json.loads(entry.detail)[LOST] == [
        {"commander_id": flagship.commander_id, "name": "Luetjens", "squadron_id": world.alpha_id,
         "squadron": "Alpha", "side_id": world.blue_id, "side": "Blue",
         "ship_id": flagship.hipper, "ship": HIPPER},
    ]  # fmt: skip


@pytest.mark.parametrize("cause", [c for c in CAUSES if c != "redo of a sinking"])
def test_smr2_3_4_undoing_any_sinking_gives_the_commander_back(
    world: World, factory: SessionFactory, flagship: Flagship, cause: str
) -> None:
    begin_with_all(factory, world)
    CAUSES[cause](factory, flagship)
    history.undo_last(factory, campaign_id=world.campaign_id)
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert record.commander is not None and record.commander.status == "active"
    assert record.commander_ship == HIPPER
    assert not any(ship.sunk or ship.out_of_command for ship in record.ships)


def test_a_sunk_ship_is_not_raised_by_another_outcome(
    world: World, factory: SessionFactory, flagship: Flagship, refused: Refused
) -> None:
    begin_with_all(factory, world)
    _at_zero(factory, flagship, "Sunk", structure=99)
    error = refused(
        lambda: damage.confirm_condition(factory, ship_id=flagship.hipper, outcome="Towed home"),
        "outcome",
    )
    assert error.errors["outcome"] == f"{HIPPER} is sunk: undo her sinking (ctrl+z) to correct it"


# --- a lost commander may not act ------------------------------------------------------------


ACTS: dict[str, tuple[str, Callable[[SessionFactory, World, Flagship], object]]] = {
    "command test": ("subject", lambda factory, world, fs: command.record_test(
        factory, squadron_id=world.alpha_id, subject="commander", roll=10)),
    "reduced modifier": ("modifier_by", lambda factory, world, fs: command.reduce_command(
        factory, squadron_id=world.alpha_id, modifier_by=1)),
    "reduced radius": ("radius_by_cm", lambda factory, world, fs: command.reduce_command(
        factory, squadron_id=world.alpha_id, radius_by_cm=10)),
    "restored": ("rule", lambda factory, world, fs: command.restore_command(
        factory, squadron_id=world.alpha_id, rule="our repair rule")),
    "moved to another ship": ("ship", lambda factory, world, fs: command.set_commander_ship(
        factory, squadron_id=world.alpha_id, ship_id=fs.eugen)),
    "his modifier in the crew roll": ("roll", lambda factory, world, fs: command.set_crew(
        factory, squadron_id=world.alpha_id, training=3, acquisition="random", roll=5)),
}  # fmt: skip


@pytest.mark.parametrize("act", list(ACTS))
def test_smr2_3_4_a_lost_commander_neither_tests_nor_is_reduced_until_replaced(
    world: World, factory: SessionFactory, flagship: Flagship, refused: Refused, act: str
) -> None:
    edit_campaign(factory, world.campaign_id, "Test campaign", crew_roll_adds_commander=True)
    command.reduce_command(factory, squadron_id=world.alpha_id, modifier_by=1)  # to restore
    begin_with_all(factory, world)
    _at_zero(factory, flagship, "Sunk", structure=99)
    field, do = ACTS[act]
    error = refused(lambda: do(factory, world, flagship), field)
    assert error.errors[field].endswith(
        "Alpha's commander Luetjens was lost with Admiral Hipper: type his replacement first (r)"
    )
    # Replaced, the commander acts again.
    appoint(factory, world.alpha_id, name="Brinkmann", training=4, acquisition="direct")
    if act != "restored":  # the replacement bears no combat reduction to restore
        do(factory, world, flagship)


# --- every way a ship leaves her squadron ----------------------------------------------------


def _leave(factory: SessionFactory, world: World, fs: Flagship, way: str) -> str:
    if way == "deleted":  # she never took part in anything: deleted outright
        return fleet.delete_ship(factory, ship_id=fs.hipper)
    begin_with_all(factory, world)
    if way == "retired":
        return fleet.delete_ship(factory, ship_id=fs.hipper)
    if way == "transferred":
        return fleet.transfer_ship(factory, ship_id=fs.hipper, to_squadron_id=world.bravo_id)
    return "; ".join(_at_zero(factory, fs, "Sunk", structure=99))


@pytest.mark.parametrize("way", ["retired", "deleted", "transferred", "sunk"])
def test_smr2_6_7_every_way_a_flagship_leaves_settles_who_is_aboard(
    world: World, factory: SessionFactory, flagship: Flagship, way: str
) -> None:
    said = _leave(factory, world, flagship, way)
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    entry = _in_force(factory, world.campaign_id)
    assert record.commander is not None
    if way == "sunk":
        assert (record.commander.status, record.commander_ship) == ("lost", HIPPER)
        assert COMMANDER_LOST in said
    else:
        # Still Alpha's commander, aboard no ship until the player puts him aboard one.
        assert (record.commander.status, record.commander_ship) == ("active", "")
        aboard_none = (f"Alpha: Luetjens is aboard no ship now ({HIPPER} {way}"
                       f"{' to Bravo' if way == 'transferred' else ''}): put him aboard one of "
                       "Alpha's ships (g on the record sheet)")  # fmt: skip
        assert aboard_none in said and aboard_none in entry.summary
        command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=flagship.eugen)
        history.undo_last(factory, campaign_id=world.campaign_id)  # aboard Eugen undone
    # Undone, the ship is back and he is aboard her again.
    history.undo_last(factory, campaign_id=world.campaign_id)
    record = sheet.load_record_sheet(factory, squadron_id=world.alpha_id)
    assert record.commander is not None
    assert (record.commander.status, record.commander_ship) == ("active", HIPPER)
    assert [ship.name for ship in record.ships] == [HIPPER, EUGEN]


# --- the morale tests a ship owes ----------------------------------------------------------


def test_smr2_10_2_every_ship_owing_a_morale_test_is_marked_alike(
    world: World, factory: SessionFactory, flagship: Flagship, add_ship: AddShip
) -> None:
    graf = add_ship(world.raider_id, "Graf Spee")
    begin_with_all(factory, world)
    damage.record_hit(factory, request=HitRequest(graf, structure=6, flotation=6))  # 3/9, 2/8
    damage.record_hit(factory, request=HitRequest(flagship.eugen, flotation=6))  # 2/8
    _at_zero(factory, flagship, "Sunk", structure=99)
    expected = {EUGEN: ("F⅓", "½"), HIPPER: (), "Graf Spee": ("S⅓", "F⅓")}
    alpha = sheet.load_record_sheet(factory, squadron_id=world.alpha_id).ships
    raider = sheet.load_record_sheet(factory, squadron_id=world.raider_id).ships
    assert {ship.name: ship.morale for ship in (*alpha, *raider)} == expected
    assert {name: sheet.load_ship(factory, ship_id=ship_id)[0].morale
            for name, ship_id in ((EUGEN, flagship.eugen), ("Graf Spee", graf))} == {
        EUGEN: expected[EUGEN], "Graf Spee": expected["Graf Spee"]}  # fmt: skip
    for closed in (False, True):  # in play, then as the scenario ended
        if closed:
            scenarios.close_scenario(factory, scenario_id=world.scenario_id)
        detail = continuity.scenario_detail(factory, scenario_id=world.scenario_id)
        assert {ship.name: ship.morale for ship in detail.participants} == expected
