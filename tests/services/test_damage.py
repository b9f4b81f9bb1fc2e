"""Recording hits, repairs and criticals, the critical tables, sinking and the ship finder
(tracker.services.damage)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from service_helpers import (
    Journaled,
    Refused,
    Snapshot,
    World,
    attempt,
    begin_with_all,
    get_row,
    rows_of_ship,
    save_table,
)

from tracker.db import SessionFactory, session_scope
from tracker.models import Critical, CriticalTableRow, JournalEntry, Ship
from tracker.models.damage import CRITICAL_KINDS
from tracker.rules.damage import TrackChange
from tracker.services import campaigns, continuity, damage, fleet, rule_tables, scenarios
from tracker.services.damage import CriticalRequest, HitRequest


def _hit(factory: SessionFactory, ship_id: int, **values: Any) -> damage.DamageResult:
    return damage.record_hit(factory, request=HitRequest(ship_id=ship_id, **values))


def _typed(*effects: str, kind: str = "structural") -> tuple[CriticalRequest, ...]:
    return tuple(CriticalRequest(kind=kind, effect=effect) for effect in effects)


def _rolled(*rolls: int, kind: str = "structural") -> tuple[CriticalRequest, ...]:
    return tuple(CriticalRequest(kind=kind, roll=roll) for roll in rolls)


@pytest.fixture
def exeter(world: World, add_ship: Callable[..., int]) -> int:
    """A heavy cruiser of Alpha: Structure 9, Flotation 8, 30 knots, no fire."""
    return add_ship(world.alpha_id, "Exeter", speed_kn=30)


@pytest.fixture
def table(world: World, factory: SessionFactory) -> dict[str, int]:
    """The campaign's structural critical table, as a player might type it in."""
    rows = {
        "rudder": (1, 3, "Rudder jammed", "speed_kn", -5),
        "fire": (4, 6, "Fire aft", "fire_markers", 1),
        "turret": (7, 10, "B turret out", "", 0),
    }
    return dict(zip(rows, save_table(factory, world.campaign_id, rows.values()), strict=True))


# --- record_hit ---------------------------------------------------------------------------------


def test_record_hit_changes_the_ship_and_journals_one_entry(
    world: World, factory: SessionFactory, exeter: int, journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        result = _hit(
            factory,
            exeter,
            structure=6,
            flotation=1,
            fire_delta=2,
            criticals=_typed("B turret out"),
        )

    ship = get_row(factory, Ship, exeter)
    assert (ship.structure_now, ship.flotation_now, ship.fire_markers) == (3, 7, 2)
    assert (ship.structure_max, ship.flotation_max, ship.speed_kn, ship.sunk) == (9, 8, 30, False)
    [crit] = rows_of_ship(factory, Critical, exeter)
    assert (crit.kind, crit.effect, crit.roll, crit.status) == (
        "structural",
        "B turret out",
        None,
        "active",
    )
    assert (crit.scenario_id, crit.turn) == (world.scenario_id, 1)

    entry = new.only
    assert result.entry_id == entry.id
    assert (entry.kind, entry.ship_id, entry.side_id, entry.undoable) == (
        "damage",
        exeter,
        world.blue_id,
        True,
    )
    assert entry.summary == (
        "Exeter: S 9->3/9, F 8->7/8, fire 0->2, structural critical: B turret out"
    )
    assert new.detail["changes"] == [
        {
            "table": "ship",
            "id": exeter,
            "before": {"structure_now": 9, "flotation_now": 8, "fire_markers": 0},
            "after": {"structure_now": 3, "flotation_now": 7, "fire_markers": 2},
        },
        {
            "table": "critical",
            "id": crit.id,
            "before": {"status": "void"},
            "after": {"status": "active"},
        },
    ]
    assert new.detail["before"] == {"structure_now": 9, "flotation_now": 8, "fire_markers": 0}
    assert new.detail["dice"] is None

    assert result.structure == TrackChange("Structure", 9, 3, 9, 0)
    assert result.flotation == TrackChange("Flotation", 8, 7, 8, 0)
    assert (result.fire_before, result.fire_after) == (0, 2)
    assert result.criticals == ("structural critical: B turret out",)
    assert result.consequences == ("Exeter at or below 1/3 Structure (black smoke): morale test",)
    assert result.zero_reached is False


def test_record_hit_touches_only_its_own_ship(
    world: World, factory: SessionFactory, exeter: int, add_ship: Callable[..., int]
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    before = get_row(factory, Ship, ajax)
    _hit(factory, exeter, structure=1, criticals=_typed("Hit"))
    assert get_row(factory, Ship, ajax) == before
    assert rows_of_ship(factory, Critical, ajax) == []


def test_preview_writes_nothing_and_matches_what_recording_returns(
    world: World,
    factory: SessionFactory,
    exeter: int,
    table: dict[str, int],
    db_state: Callable[[], Snapshot],
) -> None:
    request = HitRequest(
        ship_id=exeter,
        structure=2,
        flotation=7,
        fire_delta=1,
        criticals=(*_rolled(2), *_typed("Flooding", kind="underwater")),
    )
    before = db_state()
    previewed = damage.preview_hit(factory, request=request)
    assert db_state() == before
    assert previewed.entry_id is None

    recorded = damage.record_hit(factory, request=request)
    assert recorded.entry_id is not None
    assert dataclasses.replace(recorded, entry_id=None) == previewed
    assert recorded.flotation == TrackChange("Flotation", 8, 1, 8, 0)
    assert recorded.consequences == ("Exeter at or below 1/3 Flotation (white smoke): morale test",)
    assert get_row(factory, Ship, exeter).speed_kn == 25


def test_damage_beyond_zero_clamps_and_names_the_overflow(
    factory: SessionFactory, exeter: int
) -> None:
    result = _hit(factory, exeter, structure=12, flotation=3)
    ship = get_row(factory, Ship, exeter)
    assert (ship.structure_now, ship.flotation_now, ship.sunk) == (0, 5, False)
    assert result.structure == TrackChange("Structure", 9, 0, 9, 3)
    assert result.zero_reached is True
    assert result.consequences == (
        "Exeter: Structure at zero: confirm what happened",
        "Exeter: 3 Structure beyond zero not applied",
    )
    # Hit again at zero: only the overflow, no second "confirm".
    again = _hit(factory, exeter, structure=2)
    assert again.structure == TrackChange("Structure", 0, 0, 9, 2)
    assert again.zero_reached is False
    assert again.consequences == ("Exeter: 2 Structure beyond zero not applied",)


def test_a_repair_that_fits_is_journaled_as_a_repair(factory: SessionFactory, exeter: int) -> None:
    _hit(factory, exeter, structure=7, flotation=2)
    result = _hit(factory, exeter, repair_structure=2, repair_flotation=2)
    ship = get_row(factory, Ship, exeter)
    assert (ship.structure_now, ship.flotation_now) == (4, 8)
    assert result.consequences == ("Exeter back above 1/3 Structure: black smoke removed",)
    assert result.entry_id is not None
    assert get_row(factory, JournalEntry, result.entry_id).kind == "repair"


def test_a_repair_above_the_maximum_is_refused_saying_how_much_fits(
    factory: SessionFactory, exeter: int, refused: Refused
) -> None:
    _hit(factory, exeter, structure=3)
    outcome = refused(lambda: _hit(factory, exeter, repair_structure=4), "repair_structure")
    assert outcome.errors["repair_structure"] == "Exeter: at most 3 can be repaired (6/9), got 4"
    outcome = refused(lambda: _hit(factory, exeter, repair_flotation=1), "repair_flotation")
    assert "at most 0" in outcome.errors["repair_flotation"]
    refused(
        lambda: _hit(factory, exeter, repair_structure=5, repair_flotation=5),
        "repair_structure",
        "repair_flotation",
    )
    # Nor through the preview.
    refused(
        lambda: damage.preview_hit(factory, request=HitRequest(exeter, repair_structure=4)),
        "repair_structure",
    )
    assert get_row(factory, Ship, exeter).structure_now == 6


def test_a_sunk_ship_takes_no_more_hits(
    factory: SessionFactory, exeter: int, refused: Refused
) -> None:
    _hit(factory, exeter, structure=9)
    damage.confirm_condition(factory, ship_id=exeter, outcome="Sunk")
    outcome = refused(lambda: _hit(factory, exeter, flotation=1), "line")
    assert "sunk" in outcome.errors["line"]
    refused(lambda: _hit(factory, exeter, repair_structure=1), "line")


def test_an_empty_request_is_refused(
    factory: SessionFactory, exeter: int, refused: Refused
) -> None:
    outcome = refused(lambda: _hit(factory, exeter), "line")
    assert "nothing to record" in outcome.errors["line"]
    refused(lambda: _hit(factory, exeter, structure=0, fire_delta=0), "line")


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"structure": -1}, "structure"),
        ({"flotation": 1000}, "flotation"),
        ({"repair_structure": -2}, "repair_structure"),
        ({"fire_delta": 100}, "fire_delta"),
        ({"criticals": (CriticalRequest(kind="magazine", effect="x"),)}, "criticals"),
        ({"criticals": (CriticalRequest(effect="   "),)}, "criticals"),
        ({"criticals": (CriticalRequest(roll=0),)}, "criticals"),
        ({"criticals": (CriticalRequest(roll=101),)}, "criticals"),
        ({"criticals": (CriticalRequest(effect="x" * 201),)}, "criticals"),
    ],
)
def test_out_of_range_requests_are_refused(
    factory: SessionFactory, exeter: int, refused: Refused, values: dict[str, Any], key: str
) -> None:
    refused(lambda: _hit(factory, exeter, **values), key)


def test_removing_more_fire_markers_than_present_is_refused(
    factory: SessionFactory, exeter: int, refused: Refused
) -> None:
    fleet.add_fire_markers(factory, ship_id=exeter, delta=1)
    outcome = refused(lambda: _hit(factory, exeter, fire_delta=-2), "fire_delta")
    assert outcome.errors["fire_delta"] == "Exeter has 1 fire markers, not 2"
    _hit(factory, exeter, fire_delta=-1)
    assert get_row(factory, Ship, exeter).fire_markers == 0


# --- criticals ----------------------------------------------------------------------------------


def test_typed_criticals_are_stored_active_in_order(factory: SessionFactory, exeter: int) -> None:
    result = _hit(
        factory,
        exeter,
        criticals=(*_typed(" B turret out "), *_typed("Flooding", kind="underwater")),
    )
    rows = rows_of_ship(factory, Critical, exeter)
    assert [(c.kind, c.effect, c.status) for c in rows] == [
        ("structural", "B turret out", "active"),
        ("underwater", "Flooding", "active"),
    ]
    assert result.criticals == (
        "structural critical: B turret out",
        "underwater critical: Flooding",
    )
    # A critical alone leaves the tracks as they were.
    assert result.structure == TrackChange("Structure", 9, 9, 9, 0)
    assert result.consequences == ()


def test_a_roll_without_a_table_is_refused_telling_what_to_do(
    world: World, factory: SessionFactory, exeter: int, refused: Refused
) -> None:
    outcome = refused(lambda: _hit(factory, exeter, structure=1, criticals=_rolled(5)), "criticals")
    message = outcome.errors["criticals"]
    assert "type the effect" in message and "table" in message and "structural" in message
    # A structural table does not answer an underwater roll.
    rule_tables.save_table_row(
        factory, campaign_id=world.campaign_id, kind="structural", low=1, high=10, effect="Fire"
    )
    outcome = refused(
        lambda: _hit(factory, exeter, criticals=_rolled(5, kind="underwater")),
        "criticals",
    )
    assert "underwater" in outcome.errors["criticals"]


@pytest.mark.parametrize(
    ("roll", "effect", "speed", "fire"),
    [
        (1, "Rudder jammed", 25, 0),
        (3, "Rudder jammed", 25, 0),
        (4, "Fire aft", 30, 1),
        (6, "Fire aft", 30, 1),
        (7, "B turret out", 30, 0),
        (10, "B turret out", 30, 0),
    ],
)
def test_a_roll_takes_the_covering_row_and_applies_its_stat(
    world: World,
    factory: SessionFactory,
    exeter: int,
    table: dict[str, int],
    journaled: Journaled,
    roll: int,
    effect: str,
    speed: int,
    fire: int,
) -> None:
    with journaled(world.campaign_id) as new:
        result = _hit(factory, exeter, criticals=_rolled(roll))
    ship = get_row(factory, Ship, exeter)
    assert (ship.speed_kn, ship.fire_markers) == (speed, fire)
    [crit] = rows_of_ship(factory, Critical, exeter)
    assert (crit.effect, crit.roll, crit.status) == (effect, roll, "active")
    assert result.criticals == (f"structural critical (roll {roll}): {effect}",)
    assert result.dice == ({"die": "critical", "kind": "structural", "roll": roll},)
    assert new.detail["dice"] == {"criticals": [dict(result.dice[0])]}
    ship_change = new.detail["changes"][0]
    assert ship_change["table"] == "ship" and ship_change["id"] == exeter
    if speed != 30:
        assert ship_change["after"] == {"speed_kn": speed}
    elif fire:
        assert ship_change["after"] == {"fire_markers": fire}
    else:
        assert ship_change["after"] == {}


def test_a_typed_effect_wins_over_the_table_and_changes_no_stat(
    factory: SessionFactory, exeter: int, table: dict[str, int]
) -> None:
    _hit(factory, exeter, criticals=(CriticalRequest(effect="Bridge hit", roll=2),))
    [crit] = rows_of_ship(factory, Critical, exeter)
    assert (crit.effect, crit.roll) == ("Bridge hit", 2)
    assert get_row(factory, Ship, exeter).speed_kn == 30


@pytest.mark.parametrize(("rolls", "expected"), [((2, 7), 3), ((7, 2), 2)])
def test_criticals_apply_one_at_a_time_in_sequence(
    world: World, factory: SessionFactory, exeter: int, rolls: tuple[int, int], expected: int
) -> None:
    """SMR2 §2.6: each critical is applied before the next. From 4 Structure (of 9), -5 then +3
    is 4 -> 0 -> 3; +3 then -5 is 4 -> 7 -> 2. Adding the two first (4 - 2) would give 2 both ways.
    """
    save_table(
        factory,
        world.campaign_id,
        [
            (1, 5, "Magazine fire", "structure_now", -5),
            (6, 10, "Damage control", "structure_now", 3),
        ],
    )
    result = _hit(factory, exeter, structure=5, criticals=_rolled(*rolls))
    assert get_row(factory, Ship, exeter).structure_now == expected
    assert result.structure == TrackChange("Structure", 9, expected, 9, 0)
    assert [c.roll for c in rows_of_ship(factory, Critical, exeter)] == list(rolls)
    assert result.consequences == ("Exeter at or below 1/3 Structure (black smoke): morale test",)


def test_two_speed_criticals_stack_and_stop_at_zero(
    factory: SessionFactory, exeter: int, table: dict[str, int]
) -> None:
    _hit(factory, exeter, criticals=_rolled(1, 2))
    assert get_row(factory, Ship, exeter).speed_kn == 20
    _hit(factory, exeter, criticals=_rolled(3, 3, 3, 3, 3))
    assert get_row(factory, Ship, exeter).speed_kn == 0


def test_a_roll_outside_every_row_is_refused(
    world: World, factory: SessionFactory, exeter: int, refused: Refused
) -> None:
    rule_tables.save_table_row(
        factory, campaign_id=world.campaign_id, kind="structural", low=1, high=6, effect="Fire"
    )
    outcome = refused(
        lambda: _hit(factory, exeter, structure=2, criticals=_rolled(3, 9)), "criticals"
    )
    assert "covers a roll of 9" in outcome.errors["criticals"]


def test_fix_marks_the_nth_critical_in_force_repaired(
    world: World, factory: SessionFactory, exeter: int, journaled: Journaled, refused: Refused
) -> None:
    _hit(factory, exeter, criticals=_typed("A turret out", "Rudder jammed", "Radar out"))
    a, rudder, radar = rows_of_ship(factory, Critical, exeter)
    with journaled(world.campaign_id) as new:
        result = _hit(factory, exeter, fixes=(2,))
    assert result.fixed == ("Rudder jammed",)
    assert new.only.kind == "repair"
    assert new.only.summary == "Exeter: repaired: Rudder jammed"
    assert new.detail["changes"] == [
        {"table": "ship", "id": exeter, "before": {}, "after": {}},
        {
            "table": "critical",
            "id": rudder.id,
            "before": {"status": "active"},
            "after": {"status": "repaired"},
        },
    ]
    assert [c.status for c in rows_of_ship(factory, Critical, exeter)] == [
        "active",
        "repaired",
        "active",
    ]

    views = damage.list_criticals(factory, ship_id=exeter)
    assert [(v.id, v.number, v.effect, v.status) for v in views] == [
        (a.id, 1, "A turret out", "active"),
        (radar.id, 2, "Radar out", "active"),
        (rudder.id, 0, "Rudder jammed", "repaired"),
    ]
    # Two in force now: fix 3 and fix 0 are out of range; naming one twice is refused.
    outcome = refused(lambda: _hit(factory, exeter, fixes=(3,)), "fixes")
    assert outcome.errors["fixes"] == "Exeter has 2 critical(s) in force; no number 3"
    refused(lambda: _hit(factory, exeter, fixes=(0,)), "fixes")
    outcome = refused(lambda: _hit(factory, exeter, fixes=(1, 1)), "fixes")
    assert "named twice" in outcome.errors["fixes"]
    # fix 2 now means Radar out.
    assert _hit(factory, exeter, fixes=(2,)).fixed == ("Radar out",)


def test_fix_on_a_ship_without_criticals_is_refused(
    factory: SessionFactory, exeter: int, refused: Refused
) -> None:
    outcome = refused(lambda: _hit(factory, exeter, fixes=(1,)), "fixes")
    assert "0 critical(s)" in outcome.errors["fixes"]


def test_list_criticals_numbers_only_this_ships_criticals(
    world: World, factory: SessionFactory, exeter: int, add_ship: Callable[..., int]
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    _hit(factory, ajax, criticals=_typed("Ajax's"))
    _hit(factory, exeter, criticals=(*_typed("First"), *_typed("Second", kind="underwater")))
    views = damage.list_criticals(factory, ship_id=exeter)
    assert [(v.number, v.kind, v.effect, v.turn) for v in views] == [
        (1, "structural", "First", 1),
        (2, "underwater", "Second", 1),
    ]
    assert damage.list_criticals(factory, ship_id=ajax)[0].number == 1


# --- the critical tables ------------------------------------------------------------------------


def dice(factory: SessionFactory, campaign_id: int) -> dict[str, int | None]:
    """Both critical tables' dice, as damage entry reads them."""
    return rule_tables.table_dice(factory, campaign_id=campaign_id, kinds=CRITICAL_KINDS)


def test_critical_table_lists_rows_by_low_and_table_die_is_the_highest(
    world: World, factory: SessionFactory, table: dict[str, int]
) -> None:
    rows = rule_tables.critical_table(factory, campaign_id=world.campaign_id, kind="structural")
    assert [(r.id, r.table, r.low, r.high, r.effect, r.stat, r.amount) for r in rows.rows] == [
        (table["rudder"], "structural", 1, 3, "Rudder jammed", "speed_kn", -5),
        (table["fire"], "structural", 4, 6, "Fire aft", "fire_markers", 1),
        (table["turret"], "structural", 7, 10, "B turret out", "", 0),
    ]
    assert dice(factory, world.campaign_id) == {"structural": 10, "underwater": None}
    empty = rule_tables.critical_table(factory, campaign_id=world.campaign_id, kind="underwater")
    assert empty.rows == ()


def test_table_rows_are_per_campaign(
    world: World, factory: SessionFactory, table: dict[str, int]
) -> None:
    other = campaigns.create_campaign(factory, name="Other")
    rule_tables.save_table_row(
        factory, campaign_id=other.id, kind="structural", low=1, high=20, effect="Other"
    )
    assert dice(factory, other.id)["structural"] == 20
    assert dice(factory, world.campaign_id)["structural"] == 10
    # Read together (damage entry's opening), each is its table's die, and only its campaign's.
    kinds = ("structural", "underwater", "no such table", "[b]")
    for campaign_id in (world.campaign_id, other.id, 10**30):
        assert rule_tables.table_dice(factory, campaign_id=campaign_id, kinds=kinds) == {
            kind: rule_tables.critical_table(factory, campaign_id=campaign_id, kind=kind).die
            for kind in kinds
        }


def test_save_table_row_edits_a_row_in_place_and_journals(
    world: World, factory: SessionFactory, table: dict[str, int], journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        row_id = rule_tables.save_table_row(
            factory,
            campaign_id=world.campaign_id,
            row_id=table["turret"],
            kind="structural",
            low=7,
            high=12,
            effect=" A and B turrets out ",
        )
    assert row_id == table["turret"]
    assert new.only.kind == "table" and "7-12" in new.only.summary
    last = rule_tables.critical_table(factory, campaign_id=world.campaign_id, kind="structural")
    assert (last.rows[-1].id, last.rows[-1].low, last.rows[-1].high, last.rows[-1].effect) == (
        row_id, 7, 12, "A and B turrets out"
    )  # fmt: skip
    assert dice(factory, world.campaign_id)["structural"] == 12


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"low": 5, "high": 8}, "low"),  # overlaps 4-6 and 7-10
        ({"low": 10, "high": 10}, "low"),
        ({"low": 12, "high": 11}, "high"),
        ({"low": 0, "high": 11}, "low"),
        ({"low": 11, "high": 101}, "high"),
        ({"low": 11, "high": 12, "stat": "armour"}, "stat"),
        ({"low": 11, "high": 12, "stat": "speed_kn", "amount": -100}, "amount"),
        ({"low": 11, "high": 12, "effect": "  "}, "effect"),
        ({"low": 11, "high": 12, "kind": "magazine"}, "kind"),
    ],
)
def test_save_table_row_refuses_bad_rows(
    world: World,
    factory: SessionFactory,
    table: dict[str, int],
    refused: Refused,
    values: dict[str, Any],
    key: str,
) -> None:
    arguments: dict[str, Any] = {"kind": "structural", "effect": "Something"}
    arguments.update(values)
    refused(
        lambda: rule_tables.save_table_row(factory, campaign_id=world.campaign_id, **arguments),
        key,
    )


def test_an_overlap_names_the_row_it_clashes_with(
    world: World, factory: SessionFactory, table: dict[str, int], refused: Refused
) -> None:
    outcome = refused(
        lambda: rule_tables.save_table_row(
            factory, campaign_id=world.campaign_id, kind="structural", low=2, high=2, effect="X"
        ),
        "low",
    )
    assert outcome.errors["low"] == (
        "overlaps the row 1-3 (structural): Rudder jammed; change that row or these numbers"
    )
    # The other kind's table is separate: the same numbers are fine there.
    rule_tables.save_table_row(
        factory, campaign_id=world.campaign_id, kind="underwater", low=2, high=2, effect="X"
    )


def test_delete_table_row_removes_it(
    world: World, factory: SessionFactory, table: dict[str, int], journaled: Journaled
) -> None:
    with journaled(world.campaign_id) as new:
        rule_tables.delete_table_row(factory, row_id=table["turret"])
    assert "7-10" in new.only.summary
    with session_scope(factory) as session:
        assert session.get(CriticalTableRow, table["turret"]) is None
    assert dice(factory, world.campaign_id)["structural"] == 6


def test_save_table_row_leaves_another_campaigns_row_alone(
    world: World, factory: SessionFactory
) -> None:
    other = campaigns.create_campaign(factory, name="Other")
    theirs = rule_tables.save_table_row(
        factory, campaign_id=other.id, kind="structural", low=1, high=5, effect="Theirs"
    )
    before = rule_tables.critical_table(factory, campaign_id=other.id, kind="structural")
    attempt(
        lambda: rule_tables.save_table_row(
            factory,
            campaign_id=world.campaign_id,
            row_id=theirs,
            kind="structural",
            low=20,
            high=30,
            effect="Mine",
        )
    )
    assert rule_tables.critical_table(factory, campaign_id=other.id, kind="structural") == before


# --- bounds the ship row keeps ------------------------------------------------------------------


def test_fire_markers_never_go_above_99(factory: SessionFactory, exeter: int) -> None:
    _hit(factory, exeter, fire_delta=99)
    attempt(lambda: _hit(factory, exeter, fire_delta=99))
    assert get_row(factory, Ship, exeter).fire_markers <= 99


def test_a_speed_critical_keeps_speed_within_0_to_60(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    fast = add_ship(world.alpha_id, "Le Fantasque", speed_kn=58)
    rule_tables.save_table_row(
        factory, campaign_id=world.campaign_id, kind="structural", low=1, high=10,
        effect="Boilers flat out", stat="speed_kn", amount=5,
    )  # fmt: skip
    attempt(lambda: _hit(factory, fast, criticals=_rolled(4)))
    assert get_row(factory, Ship, fast).speed_kn <= 60


# --- confirm_condition --------------------------------------------------------------------------


def test_sinking_one_of_two_original_ships_puts_the_squadron_at_half_strength(
    world: World,
    factory: SessionFactory,
    exeter: int,
    add_ship: Callable[..., int],
    journaled: Journaled,
) -> None:
    add_ship(world.alpha_id, "Ajax")
    begin_with_all(factory, world)
    _hit(factory, exeter, structure=9)
    with journaled(world.campaign_id) as new:
        notes = damage.confirm_condition(factory, ship_id=exeter, outcome=" Sunk ")
    assert notes == [
        "Exeter: Sunk",
        "Alpha at half strength or less (1 of 2 original ships afloat): morale tests",
    ]
    ship = get_row(factory, Ship, exeter)
    assert (ship.sunk, ship.condition) == (True, "Sunk")
    assert new.only.kind == "condition" and new.only.undoable
    assert json.loads(new.only.detail)["changes"] == [
        {
            "table": "ship",
            "id": exeter,
            "before": {"sunk": False, "condition": ""},
            "after": {"sunk": True, "condition": "Sunk"},
        }
    ]


def test_half_strength_is_announced_once_when_it_is_reached(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    ships = [add_ship(world.alpha_id, name) for name in ("Exeter", "Ajax", "Achilles")]
    begin_with_all(factory, world)
    # 2 of 3 afloat is more than half.
    assert damage.confirm_condition(factory, ship_id=ships[0], outcome="sunk") == ["Exeter: sunk"]
    assert get_row(factory, Ship, ships[0]).sunk is True
    assert damage.confirm_condition(factory, ship_id=ships[1], outcome="Sunk")[1:] == [
        "Alpha at half strength or less (1 of 3 original ships afloat): morale tests"
    ]
    assert damage.confirm_condition(factory, ship_id=ships[2], outcome="Sunk") == ["Achilles: Sunk"]


def test_half_strength_counts_original_members_only(
    world: World, factory: SessionFactory, exeter: int, add_ship: Callable[..., int]
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    add_ship(world.bravo_id, "Achilles")
    begin_with_all(factory, world)
    fleet.transfer_ship(factory, ship_id=ajax, to_squadron_id=world.bravo_id)
    # Ajax now sails with Bravo but still counts for Alpha (SMR2 §3.4).
    notes = damage.confirm_condition(factory, ship_id=ajax, outcome="Sunk")
    assert notes[1:] == [
        "Alpha at half strength or less (1 of 2 original ships afloat): morale tests"
    ]


def test_a_condition_other_than_sunk_leaves_the_ship_afloat(
    world: World, factory: SessionFactory, exeter: int, add_ship: Callable[..., int]
) -> None:
    add_ship(world.alpha_id, "Ajax")
    _hit(factory, exeter, flotation=8)
    notes = damage.confirm_condition(factory, ship_id=exeter, outcome="Dead in the water")
    assert notes == ["Exeter: Dead in the water"]
    ship = get_row(factory, Ship, exeter)
    assert (ship.sunk, ship.condition) == (False, "Dead in the water")
    # Still afloat: it can be hit and repaired.
    _hit(factory, exeter, repair_flotation=1)
    assert get_row(factory, Ship, exeter).flotation_now == 1


@pytest.mark.parametrize("outcome", ["", "   ", "x" * 61])
def test_a_blank_or_long_condition_is_refused(
    factory: SessionFactory, exeter: int, refused: Refused, outcome: str
) -> None:
    refused(
        lambda: damage.confirm_condition(factory, ship_id=exeter, outcome=outcome),
        "outcome",
    )


def test_zero_outcomes_are_the_campaigns_list(factory: SessionFactory, exeter: int) -> None:
    assert damage.zero_outcomes(factory, ship_id=exeter) == ["Sunk", "Dead in the water", "Other"]


# --- find_ships ---------------------------------------------------------------------------------


def test_find_ships_ranks_matches_and_puts_sunk_ships_last(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    exeter = add_ship(world.alpha_id, "Exeter")
    ajax = add_ship(world.alpha_id, "Ajax")
    achilles = add_ship(world.bravo_id, "Achilles")
    spee = add_ship(world.raider_id, "Admiral Graf Spee")
    other = campaigns.create_campaign(factory, name="Other")
    other_side = campaigns.create_side(factory, campaign_id=other.id, name="Blue")
    other_squadron = fleet.create_squadron(factory, side_id=other_side.id, name="Elsewhere")
    fleet.create_ship(factory, squadron_id=other_squadron, fields=fleet.ShipFields(name="Ajax"))

    def find(query: str, limit: int = 8) -> list[int]:
        picks = damage.find_ships(factory, campaign_id=world.campaign_id, query=query, limit=limit)
        return [pick.id for pick in picks]

    assert find("a") == [ajax, achilles, spee]
    assert find("ajax") == [ajax]
    assert find("agspee") == [spee]
    assert find("spee") == [spee]  # a word prefix
    assert find("x") == [exeter, ajax]  # both substrings: in the order added
    assert find("") == [exeter, ajax, achilles, spee]
    assert find("", limit=2) == [exeter, ajax]
    assert find("zzz") == []
    [pick] = damage.find_ships(factory, campaign_id=world.campaign_id, query="graf")
    assert (pick.name, pick.side, pick.squadron, pick.sunk) == (
        "Admiral Graf Spee",
        "Red",
        "Raider",
        False,
    )

    damage.confirm_condition(factory, ship_id=ajax, outcome="Sunk")
    assert find("a") == [achilles, spee, ajax]
    assert find("") == [exeter, achilles, spee, ajax]
    assert damage.find_ships(factory, campaign_id=world.campaign_id, query="ajax")[0].sunk is True


def test_an_empty_line_offers_the_ship_damage_entry_is_on_first_however_far_down_it_is(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    ships = [add_ship(world.alpha_id, f"Destroyer {n:02}") for n in range(12)]

    def find(query: str, first: int | None, limit: int = 8) -> list[int]:
        picks = damage.find_ships(factory, campaign_id=world.campaign_id, query=query,
                                  limit=limit, first=first)  # fmt: skip
        return [pick.id for pick in picks]

    for ship in ships:  # each of them, the ninth to the twelfth beyond the empty line's eight
        assert find("", ship) == [ship, *[s for s in ships if s != ship]][:8]
        assert find("", ship, limit=1) == [ship]
    assert find("", None) == ships[:8]
    # A name typed is found by its name, wherever damage entry was opened.
    assert find("destroyer 03", ships[11]) == [ships[3]]


def test_the_scenario_shows_each_ships_fate_in_play_and_as_it_ended_once_closed(
    world: World, factory: SessionFactory, exeter: int, add_ship: Callable[..., int]
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    begin_with_all(factory, world)
    _hit(factory, exeter, structure=9)
    damage.confirm_condition(factory, ship_id=exeter, outcome="Dead in the water")

    def fates() -> dict[str, tuple[bool, str]]:
        detail = continuity.scenario_detail(factory, scenario_id=world.scenario_id)
        return {ship.name: (ship.sunk, ship.fate) for ship in detail.participants}

    assert fates() == {"Exeter": (False, "Dead in the water"), "Ajax": (False, "")}
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    damage.confirm_condition(factory, ship_id=ajax, outcome="Scuttled")  # after the battle
    assert fates() == {"Exeter": (False, "Dead in the water"), "Ajax": (False, "")}
