"""The fleet roster with decoy notes: units, markers, secrets, seals, and the hunt in play
(RULES.md §Subs; docs/RULES.md §Subs). Tests of a seed paragraph are named after it."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from depth import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from service_helpers import appended, fresh_factory, refusals, rows_by, seal_verified
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry, SubMarker, WasUnit
from tracker.rules import was
from tracker.rules.was import ConcealCause
from tracker.services import campaigns, hunt, markers, mines, roster, scenarios, sealing
from tracker.services.errors import InvalidInput
from tracker.services.history import redo_last, undo_last
from tracker.services.hunt import SearchParty
from tracker.services.roster import UnitFields
from tracker.services.visibility import Viewer, entry_as_seen

PASS = "wolfpack42"
FOUND = SearchParty(searcher="patrol_bomber")  # 4+: a roll of 6 always finds
GENERATED = settings(
    max_examples=examples(25), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


def _markers(factory: SessionFactory, side: int, **kwargs: object) -> list[roster.MarkerView]:
    return list(roster.roster(factory, side_id=side, **kwargs).markers)  # type: ignore[arg-type]


def _by_code(factory: SessionFactory, side: int) -> dict[str, roster.MarkerView]:
    return {m.code: m for m in _markers(factory, side, owner=True)}


def _place(factory: SessionFactory, axis: dict[str, int], unit: str, real: int,
           *sectors: str) -> markers.Assignment:  # fmt: skip
    return markers.assign_markers(factory, unit_id=axis[unit], real=real, sectors=sectors,
                                 rng=random.Random(4))  # fmt: skip


def _found(factory: SessionFactory, marker_id: int) -> None:
    assert "found" in hunt.record_search(factory, marker_id=marker_id, party=FOUND, roll=6)


def _summaries(factory: SessionFactory, campaign: int) -> list[str]:
    with session_scope(factory) as session:
        entries = session.exec(select(JournalEntry).where(
            JournalEntry.campaign_id == campaign).order_by(col(JournalEntry.id))).all()  # fmt: skip
        return [entry.summary for entry in entries]


def test_points_include_extra_decoys_and_the_budget_is_kept(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    view = roster.roster(factory, side_id=axis["side"])
    assert (view.points, view.budget) == (12 + 5 + 13, 100)
    with pytest.raises(InvalidInput, match="the fleet would cost 110 points; the budget is 100"):
        roster.save_unit(factory, side_id=axis["side"], fields=UnitFields(
            name="Bismarck", unit_type="battleship", points=80))  # fmt: skip
    with pytest.raises(InvalidInput) as caught:
        roster.save_unit(factory, side_id=axis["side"], fields=UnitFields(
            name="U-99", unit_type="submarine", points=10, extra_decoys=3))  # fmt: skip
    assert "extra_decoys" in caught.value.errors
    assert roster.roster(factory, side_id=axis["side"]).points == 30


def test_a_unit_edited_is_taken_back_by_ctrl_z_and_its_concealed_damage_kept_from_the_opponent(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    def unit() -> dict[str, object]:
        [row] = rows_by(factory, WasUnit, "id")[axis["U-552"]]
        return row.model_dump(exclude={"version"})

    before = unit()
    roster.save_unit(factory, side_id=axis["side"], unit_id=axis["U-552"], fields=UnitFields(
        name="U-552", unit_type="submarine", points=14, hull_points=1, damage=1))  # fmt: skip
    edited = unit()
    assert (edited["points"], edited["damage"]) == (14, 1)
    with session_scope(factory) as session:
        entry = session.exec(select(JournalEntry).order_by(col(JournalEntry.id).desc())).first()
        assert entry is not None and entry.undoable
        seen = entry_as_seen(entry.detail, viewer=Viewer.OPPONENT, own=False)
    [change] = json.loads(seen)["changes"]
    assert change["after"]["points"] == 14  # the damage is shown as the roster shows it: unknown
    assert change["before"]["damage"] is None and change["after"]["damage"] is None
    undo_last(factory, campaign_id=axis["campaign"])
    assert unit() == before
    redo_last(factory, campaign_id=axis["campaign"])
    assert unit() == edited


def test_par1_3_each_marker_gets_its_own_sector_random_code_and_seal(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    assignment = _place(factory, axis, "U-66", 2, "C4", "D7", "F2")
    owner = _by_code(factory, axis["side"])
    assert [owner[code].sector for code in assignment.codes] == ["C4", "D7", "F2"]
    assert [owner[code].real for code in assignment.codes] == [False, True, False]
    assert assignment.real_code == assignment.codes[1]
    # One seal per marker, each verifying alone: no seal groups two markers.
    assert len(set(assignment.seals)) == 3
    assert [owner[code].seal for code in assignment.codes] == list(assignment.seals)
    for seal in assignment.seals:
        assert seal_verified(factory, seal, axis["side"])
    opponent = _markers(factory, axis["side"])
    assert {(m.real, m.unit_id) for m in opponent} == {(None, None)}
    with pytest.raises(InvalidInput, match="its own sector"):
        _place(factory, axis, "U-552", 1, "A1", "A1")
    with pytest.raises(InvalidInput, match="one sector for each of the 2 markers"):
        _place(factory, axis, "U-552", 1, "A1")
    with pytest.raises(InvalidInput) as caught:  # said beside the marker's own sector field
        _place(factory, axis, "U-552", 1, "A1", " ")
    assert list(caught.value.errors) == ["sector_2"]


def test_par2_codes_are_drawn_at_random_not_one_after_another(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    drawn: set[tuple[str, ...]] = set()

    @GENERATED
    @given(seed=st.integers(0, 2**32))
    def draw(seed: int) -> None:
        assignment = markers.assign_markers(
            factory, unit_id=axis["U-552"], real=1, sectors=["A1", "B2"], rng=random.Random(seed)
        )
        numbers = sorted(int(code[2:]) for code in assignment.codes)
        drawn.add(assignment.codes)
        assert len(set(numbers)) == 2 and all(1 <= n <= 999 for n in numbers)
        with session_scope(factory) as session:  # off the map again for the next draw
            for marker in session.exec(select(SubMarker)).all():
                session.delete(marker)

    draw()
    assert len(drawn) > 10  # many different pairs, and not only neighbours
    assert any(abs(int(a[2:]) - int(b[2:])) > 1 for a, b in drawn)


def test_a_passphrase_encrypts_the_notes_in_the_file(
    factory: SessionFactory, axis: dict[str, int], stored_bytes: Callable[[], bytes]
) -> None:
    assignment = _place(factory, axis, "U-66", 1, "C4", "C5", "C6")
    sealing.set_passphrase(factory, side_id=axis["side"], passphrase=PASS)
    for wrong in ("", "nope", "wolfpack4"):
        with pytest.raises(InvalidInput, match="passphrase"):
            roster.roster(factory, side_id=axis["side"], owner=True, passphrase=wrong)
    owner = {m.code: m.real for m in _markers(factory, axis["side"], owner=True, passphrase=PASS)}
    assert [owner[code] for code in assignment.codes] == [True, False, False]
    raw = stored_bytes()
    assert b'"real"' not in raw and b"plain:" not in raw
    with pytest.raises(InvalidInput, match="at least 6 characters"):
        sealing.set_passphrase(factory, side_id=axis["side"], passphrase="abc", old_passphrase=PASS)


def test_a_seal_holds_until_its_note_is_edited_behind_the_trackers_back(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    assignment = _place(factory, axis, "U-552", 1, "D2", "D3")
    with session_scope(factory) as session:  # a tamperer turns the decoy into the real one
        marker = session.exec(select(SubMarker).where(
            SubMarker.code == assignment.codes[1])).one()  # fmt: skip
        marker.secret = marker.secret.replace('"real": false', '"real": true')
    assert seal_verified(factory, assignment.seals[0], axis["side"])
    assert not seal_verified(factory, assignment.seals[1], axis["side"])
    decoy = _by_code(factory, axis["side"])[assignment.codes[1]]
    _found(factory, decoy.id)
    message = hunt.attack_marker(factory, marker_id=decoy.id, success=True, damage=1)
    assert message.endswith(f"seal {assignment.seals[1]} BROKEN")


def test_par3_a_move_into_another_markers_square_is_refused_a_second_move_warns(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    first, second, _ = _place(factory, axis, "U-66", 2, "C4", "D4", "E4").codes
    placed = _by_code(factory, axis["side"])
    m1, m2 = placed[first], placed[second]
    assert markers.move_marker(factory, marker_id=m1.id, sector="C5", turn=2) == []
    assert markers.move_marker(factory, marker_id=m1.id, sector="C6", turn=2) == [
        f"{first} already moved this turn (one sector a turn)"]  # fmt: skip
    with pytest.raises(InvalidInput, match=f"c6 already holds {first}: one sub marker per sector"):
        markers.move_marker(factory, marker_id=m2.id, sector="c6", turn=2)
    assert _by_code(factory, axis["side"])[second].sector == "D4"


@pytest.mark.parametrize("sectors", [("A4", "C1", "a4"), ("b2", "B2", "C1"), ("Ä1", "C1", "ä1")])
def test_par3_two_markers_of_one_placement_never_share_a_sector_in_any_case(
    factory: SessionFactory, axis: dict[str, int], sectors: tuple[str, str]
) -> None:
    with pytest.raises(InvalidInput, match="one sub marker per sector"):
        _place(factory, axis, "U-66", 1, *sectors)


def test_par4_a_marker_is_attacked_only_after_a_successful_search_this_turn(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    real, decoy = _place(factory, axis, "U-552", 1, "D2", "E5").codes
    placed = _by_code(factory, axis["side"])
    with pytest.raises(InvalidInput, match="not found by a search this turn"):
        hunt.attack_marker(factory, marker_id=placed[decoy].id, success=True)
    missed = hunt.record_search(factory, marker_id=placed[decoy].id, party=FOUND, roll=1)
    assert missed == (
        f"{decoy} not found (roll 1 vs 4+): it cannot be attacked this turn; the "
        "air units that searched may attack other enemy units in the square"
    )
    with pytest.raises(InvalidInput, match="not found by a search this turn"):
        hunt.attack_marker(factory, marker_id=placed[decoy].id, success=True)
    with pytest.raises(InvalidInput, match="one search per square per turn"):
        hunt.record_search(factory, marker_id=placed[decoy].id, party=FOUND, roll=6)
    scenarios.advance_turn(factory, scenario_id=axis["scenario"])
    with pytest.raises(InvalidInput, match="not found by a search this turn"):
        hunt.attack_marker(factory, marker_id=placed[decoy].id, success=True)
    _found(factory, placed[decoy].id)
    assert hunt.attack_marker(factory, marker_id=placed[decoy].id, success=False) == (
        f"{decoy}: attack failed, the marker stays concealed"
    )  # found this turn: the surface phase may attack it again
    assert hunt.attack_marker(factory, marker_id=placed[decoy].id, success=True).startswith(
        f"{decoy} was a decoy: removed; seal"
    )
    states = {m.code: m.state for m in _markers(factory, axis["side"])}
    assert states == {real: "concealed", decoy: "removed"}


def test_par4_one_search_per_square_per_turn(factory: SessionFactory, axis: dict[str, int]) -> None:
    first, _ = _place(factory, axis, "U-552", 1, "D2", "E5").codes
    placed = _by_code(factory, axis["side"])
    hunt.record_search(factory, marker_id=placed[first].id, party=FOUND, roll=2)
    with pytest.raises(InvalidInput, match="sector D2 was searched this turn already"):
        hunt.record_search(factory, marker_id=placed[first].id, party=FOUND, roll=6)


def test_par4_the_hunt_needs_a_scenario_in_play(factory: SessionFactory) -> None:
    campaign = campaigns.create_campaign(factory, name="Between battles")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Axis").id
    sub = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-47", unit_type="submarine", points=10))  # fmt: skip
    markers.assign_markers(factory, unit_id=sub, real=1, sectors=["A1", "A2"])
    marker = _markers(factory, side)[0]
    with pytest.raises(InvalidInput, match="no scenario is in play"):
        hunt.record_search(factory, marker_id=marker.id, party=FOUND, roll=6)


def test_par4_elusive_quarry_comes_from_the_owners_data_and_only_the_target_shows(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    u66 = _place(factory, axis, "U-66", 1, "C4", "C5", "C6").codes
    u552 = _place(factory, axis, "U-552", 2, "D4", "D5").codes
    placed = _by_code(factory, axis["side"])
    counts = st.integers(0, 4)

    @GENERATED
    @given(searcher=st.sampled_from(was.SEARCHERS), extra=counts, hunters=counts,
           enemies=counts, night=st.booleans())  # fmt: skip
    def targets(searcher: str, extra: int, hunters: int, enemies: int, night: bool) -> None:
        party = SearchParty(searcher, extra, hunters, enemies, night)
        for codes, elusive in ((u66, True), (u552, False)):
            expected = was.search_target(searcher, extra_asw_units=extra, sub_hunters=hunters,
                                         enemy_units=enemies, night_or_weather=night,
                                         elusive_quarry=elusive)  # fmt: skip
            for code in codes:  # the decoys of an Elusive Quarry sub are elusive too
                assert (
                    hunt.search_target(factory, marker_id=placed[code].id, party=party) == expected
                )

    targets()
    hunters = SearchParty(searcher="surface", extra_asw_units=1, sub_hunters=1)
    message = hunt.record_search(factory, marker_id=placed[u66[2]].id, party=hunters, roll=4)
    assert message.startswith(f"{u66[2]} not found (roll 4 vs 5+)")  # 5 - 1 - 0 (cancelled) + 1
    assert not any("Elusive" in line for line in _summaries(factory, axis["campaign"]))


def test_par5_destroyed_sub_leaves_play(factory: SessionFactory, axis: dict[str, int]) -> None:
    codes = _place(factory, axis, "U-66", 2, "C4", "C5", "C6").codes
    placed = _by_code(factory, axis["side"])
    _found(factory, placed[codes[1]].id)
    message = hunt.attack_marker(factory, marker_id=placed[codes[1]].id, success=True,
                                   damage=2)  # fmt: skip
    gone = ", ".join(sorted(codes))
    assert message.startswith(f"{codes[1]} is U-66: revealed, destroyed, its markers leave "
                              f"play ({gone}); seal")  # fmt: skip
    assert {m.state for m in _markers(factory, axis["side"])} == {"removed"}
    assert any(f"leave play ({gone})" in line for line in _summaries(factory, axis["campaign"]))
    unit = next(u for u in roster.roster(factory, side_id=axis["side"]).units if u.name == "U-66")
    assert unit.destroyed and unit.damage == 2
    for cause in ConcealCause:
        with pytest.raises(InvalidInput, match="not revealed"):
            markers.reconceal(factory, unit_id=axis["U-66"], cause=cause)
    with pytest.raises(InvalidInput, match="out of play"):
        hunt.attack_marker(factory, marker_id=placed[codes[0]].id, success=True)
    with pytest.raises(InvalidInput, match="destroyed"):
        _place(factory, axis, "U-66", 1, "A1", "A2", "A3")


def test_par5_par12_a_sub_destroyed_by_a_mine_takes_its_markers_out_of_play(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    mines.sow_minefield(factory, side_id=axis["allies"], laid_by="surface", sector="D2",
                        complete=True)  # fmt: skip
    _place(factory, axis, "U-552", 1, "D2", "E5")
    message = hunt.mine_roll(factory, unit_id=axis["U-552"], roll=2, sector="D2")
    assert message.startswith("U-552 struck a mine in D2 (roll 2): destroyed, its markers leave")
    assert {m.state for m in _markers(factory, axis["side"])} == {"removed"}
    with pytest.raises(InvalidInput, match="destroyed"):
        hunt.mine_roll(factory, unit_id=axis["U-552"], roll=3, sector="D2")


def _revealed(factory: SessionFactory, axis: dict[str, int], unit: str) -> roster.MarkerView:
    """The unit's real marker, found and revealed by an attack doing no damage."""
    count = 3 if unit == "U-66" else 2
    codes = _place(factory, axis, unit, 1, *(f"H{n}" for n in range(count))).codes
    real = _by_code(factory, axis["side"])[codes[0]]
    _found(factory, real.id)
    hunt.attack_marker(factory, marker_id=real.id, success=True, damage=0)
    return real


@pytest.mark.parametrize(
    ("cause", "count"),
    [(ConcealCause.MOVED_INTO_WEATHER, 1), (ConcealCause.NO_ENEMY_PLACED, 1),
     (ConcealCause.GOT_AWAY, 2), (ConcealCause.WEATHER_ENTERED, 1)],
)  # fmt: skip
def test_par10_one_marker_for_weather_or_no_enemy_two_when_it_got_away(
    factory: SessionFactory, axis: dict[str, int], cause: ConcealCause, count: int
) -> None:
    shown = _revealed(factory, axis, "U-552")
    markers.move_marker(factory, marker_id=shown.id, sector="J9", turn=1)
    if count == 2:  # each in its own square, the owner saying where (§3)
        with pytest.raises(InvalidInput, match="one sector for each of the 2 markers"):
            markers.reconceal(factory, unit_id=axis["U-552"], cause=cause, real=2)
        with pytest.raises(InvalidInput, match="which of the 2 new markers is real"):
            markers.reconceal(factory, unit_id=axis["U-552"], cause=cause, sectors=["J9", "J8"])
    sectors = ["J9", "J8"][:count]
    typed = sectors if count == 2 else ()  # one marker: in the sub's square unless given
    fresh = markers.reconceal(factory, unit_id=axis["U-552"], cause=cause, real=count,
                             sectors=typed, rng=random.Random(1))  # fmt: skip
    assert len(fresh.codes) == count and len(set(fresh.seals)) == count
    owner = _by_code(factory, axis["side"])
    assert owner[shown.code].state == "removed"
    assert [(owner[c].state, owner[c].sector) for c in fresh.codes] == [
        ("concealed", sector) for sector in sectors
    ]
    assert [owner[c].real for c in fresh.codes] == [n == count for n in range(1, count + 1)]


def test_par11_a_revealed_sub_that_did_not_move_stays_revealed_unless_weather_entered(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    shown = _revealed(factory, axis, "U-552")
    for cause in (ConcealCause.MOVED_INTO_WEATHER, ConcealCause.NO_ENEMY_PLACED,
                  ConcealCause.GOT_AWAY):  # fmt: skip
        with pytest.raises(InvalidInput, match=r"did not move this turn.*\(§11\)"):
            markers.reconceal(factory, unit_id=axis["U-552"], cause=cause, real=1)
    markers.move_marker(factory, marker_id=shown.id, sector="J9", turn=1)
    scenarios.advance_turn(factory, scenario_id=axis["scenario"])  # turn 2: it has not moved
    with pytest.raises(InvalidInput, match="did not move this turn"):
        markers.reconceal(factory, unit_id=axis["U-552"], cause=ConcealCause.GOT_AWAY, real=1)
    fresh = markers.reconceal(factory, unit_id=axis["U-552"], cause=ConcealCause.WEATHER_ENTERED)
    assert len(fresh.codes) == 1
    with pytest.raises(InvalidInput, match="choose why"):
        markers.reconceal(factory, unit_id=axis["U-66"], cause="fog")  # type: ignore[arg-type]


def test_par9_a_concealed_sub_attacking_in_its_own_sector_is_revealed(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    decoy, real = _place(factory, axis, "U-552", 2, "D2", "D3").codes
    placed = _by_code(factory, axis["side"])
    with pytest.raises(InvalidInput, match="a decoy cannot attack"):
        hunt.sub_attacks(factory, marker_id=placed[decoy].id, same_sector=True)
    assert hunt.sub_attacks(factory, marker_id=placed[real].id, same_sector=False) == (
        f"{real} attacks from concealment and stays concealed"
    )
    assert hunt.sub_attacks(factory, marker_id=placed[real].id, same_sector=True) == (
        f"{real} is U-552: revealed by its attack"
    )
    assert hunt.sub_attacks(factory, marker_id=placed[real].id, same_sector=True) == (
        "U-552 attacks, revealed"
    )  # §9a: a revealed sub attacks in the usual manner
    states = {m.code: m.state for m in _markers(factory, axis["side"])}
    assert states == {decoy: "concealed", real: "revealed"}


def test_par9e_night_torpedoes_hit_on_5_and_6_against_a_target_hit_earlier(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    real, _ = _place(factory, axis, "U-552", 1, "D2", "D3").codes
    marker = _by_code(factory, axis["side"])[real]

    @GENERATED
    @given(dice=st.lists(st.integers(1, 6), min_size=1, max_size=6), night=st.booleans(),
           earlier=st.booleans())  # fmt: skip
    def attack(dice: list[int], night: bool, earlier: bool) -> None:
        message = hunt.sub_attacks(
            factory,
            marker_id=marker.id,
            same_sector=False,
            torpedo_dice=dice,
            night=night,
            target_hit_earlier=earlier,
        )
        hits = sum(roll >= (5 if night and earlier else 6) for roll in dice)
        assert f": {hits} {'hit' if hits == 1 else 'hits'} on " in message
        assert message.endswith("5+ (night, target hit earlier this turn)" if night and earlier
                                else "on 6")  # fmt: skip

    attack()
    with pytest.raises(InvalidInput, match=r"1\.\.6"):
        hunt.sub_attacks(factory, marker_id=marker.id, same_sector=False, torpedo_dice=[7])


def test_par12_a_mine_roll_needs_a_minefield_in_that_sector(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    with pytest.raises(InvalidInput, match="no minefield is recorded in C4: record it on the "
                       r"minefield ledger first$"):  # fmt: skip
        hunt.mine_roll(factory, unit_id=axis["U-66"], roll=1, sector="C4")
    mines.sow_minefield(factory, side_id=axis["allies"], laid_by="surface", sector="C4",
                        complete=True)  # fmt: skip
    assert hunt.mine_roll(factory, unit_id=axis["U-66"], roll=3, sector="c4") == (
        "U-66 passed the minefield in c4 (roll 3)"
    )
    assert hunt.mine_roll(factory, unit_id=axis["U-66"], roll=1, sector="C4") == (
        "U-66 struck a mine in C4 (roll 1): 1 hull damage"
    )
    with pytest.raises(InvalidInput, match=r"1\.\.6"):
        hunt.mine_roll(factory, unit_id=axis["U-66"], roll=7, sector="C4")
    owner = roster.roster(factory, side_id=axis["side"], owner=True)
    unit = next(u for u in owner.units if u.name == "U-66")
    assert (unit.damage, unit.crippled) == (1, True)


def test_par12_another_sides_secret_minefield_is_taken_on_its_owners_word(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    sealing.set_passphrase(factory, side_id=axis["allies"], passphrase="convoy-escort")
    mines.sow_minefield(factory, side_id=axis["allies"], laid_by="surface", sector="F6",
                        complete=True, secret=True, passphrase="convoy-escort")  # fmt: skip
    with pytest.raises(InvalidInput, match="another side's secret minefield lies there, say so"):
        hunt.mine_roll(factory, unit_id=axis["U-552"], roll=4, sector="F6")
    assert (
        hunt.mine_roll(factory, unit_id=axis["U-552"], roll=4, sector="F6", secret_minefield=True)
        == "U-552 passed the minefield in F6 (roll 4)"
    )


def test_par2_after_a_reveal_its_siblings_look_like_any_other_marker(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    u66 = _place(factory, axis, "U-66", 1, "C4", "C5", "C6").codes
    u552 = _place(factory, axis, "U-552", 1, "D4", "D5").codes
    placed = _by_code(factory, axis["side"])
    _found(factory, placed[u66[0]].id)
    hunt.attack_marker(factory, marker_id=placed[u66[0]].id, success=True, damage=1)
    seen = {m.code: m for m in _markers(factory, axis["side"])}
    assert (seen[u66[0]].state, seen[u66[0]].unit_id) == ("revealed", axis["U-66"])
    # U-66's decoys and U-552's markers: the same face, each its own seal, none the revealed one's.
    others = [seen[code] for code in (*u66[1:], *u552)]
    assert {(m.state, m.unit_id, m.real) for m in others} == {("concealed", None, None)}
    assert len({m.seal for m in others} | {seen[u66[0]].seal}) == 5
    summaries = _summaries(factory, axis["campaign"])
    placed = [line for line in summaries if "placed in" in line]
    assert len(placed) == 5 and all(line.count("M-") == 1 for line in placed)  # one per marker


def test_par4_par8_a_found_marker_reads_found_and_a_decoy_removed_reads_decoy_to_everyone(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    """What a search and an attack showed is shown to both players, the rest to the owner only
    (services.visibility): found this turn, then concealed again; a decoy removed, as the
    attack said, without saying whose; a revealed sub by its name."""
    side = axis["side"]
    real, decoy = _place(factory, axis, "U-552", 1, "D2", "E5").codes
    placed = _by_code(factory, side)

    def seen(owner: bool) -> dict[str, tuple[str, int | None, bool | None]]:
        return {m.code: (m.state, m.unit_id, m.real) for m in _markers(factory, side, owner=owner)}

    _found(factory, placed[real].id)
    _found(factory, placed[decoy].id)
    assert seen(False) == {real: ("found", None, None), decoy: ("found", None, None)}
    assert seen(True) == {real: ("found", axis["U-552"], True),
                          decoy: ("found", axis["U-552"], False)}  # fmt: skip
    said = hunt.attack_marker(factory, marker_id=placed[decoy].id, success=True)
    assert said.startswith(f"{decoy} was a decoy: removed")
    assert seen(False) == {real: ("found", None, None), decoy: ("removed", None, False)}
    assert seen(True)[decoy] == ("removed", axis["U-552"], False)
    scenarios.advance_turn(factory, scenario_id=axis["scenario"])
    assert seen(False) == {real: ("concealed", None, None), decoy: ("removed", None, False)}
    with pytest.raises(InvalidInput, match="out of play"):
        hunt.attack_marker(factory, marker_id=placed[decoy].id, success=True)
    with pytest.raises(InvalidInput, match="was removed"):
        markers.move_marker(factory, marker_id=placed[decoy].id, sector="E6", turn=2)
    _found(factory, placed[real].id)
    hunt.attack_marker(factory, marker_id=placed[real].id, success=True)
    assert seen(False) == {real: ("revealed", axis["U-552"], True),
                           decoy: ("removed", None, False)}  # fmt: skip


_UNIT = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["U-1", "u-1", "Émile", "ÉMILE", " Z 1 ", "", *"ABCDEFGH"]),
        "unit_type": st.sampled_from(["submarine", "destroyer"]),
        "points": st.sampled_from([0, 0, 10, 30, 60, 1000]),
        "extra_decoys": st.sampled_from([0, 0, 0, 1]),
    }
)


@settings(max_examples=examples(25), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(rows=st.lists(_UNIT, min_size=1, max_size=5), decoys_allowed=st.booleans())
@example(
    rows=[{"name": "A", "unit_type": "submarine", "points": 30, "extra_decoys": 1},
          {"name": "Émile", "unit_type": "destroyer", "points": 40}],
    decoys_allowed=True,
)  # fmt: skip
def test_subs_units_added_in_one_act_are_refused_and_journaled_as_each_added_alone(
    tmp_path_factory: pytest.TempPathFactory,
    migrated_template: Path,
    rows: list[UnitFields],
    decoys_allowed: bool,
) -> None:
    """Many units in one act (a CSV file's): a row is refused exactly when adding the rows one
    by one refuses it (its card, a name taken, the decoy option, the fleet budget counted with
    the rows accepted before it), and then none is added; else each is added and journaled as
    save_unit adds and journals one (RULES.md §Subs)."""
    with fresh_factory(tmp_path_factory, migrated_template, "units") as factory:
        campaign = campaigns.create_campaign(factory, name="C")
        campaigns.update_campaign(
            factory, campaign_id=campaign.id, name="C", was_fleet_points=100,
            extra_decoys_allowed=decoys_allowed,
        )  # fmt: skip
        sides = []
        for side_name in ("Blue", "Red"):
            side = campaigns.create_side(factory, campaign_id=campaign.id, name=side_name)
            sides.append(side.id)
            first = {"name": "U-1", "points": 10, "unit_type": "submarine"}
            roster.save_unit(factory, side_id=side.id, fields=first)
        alone, together = sides
        refused = refusals(lambda row: roster.save_unit(factory, side_id=alone, fields=row), rows)
        # The name's refusal names the side: this one's, the other's below.
        expected = {
            number: {key: said.replace("Blue already", "Red already") for key, said in row.items()}
            for number, row in refused.items()
        }
        outcome, new = appended(factory, lambda: roster.add_units(
            factory, side_id=together, rows=rows))  # fmt: skip
        by_side = rows_by(factory, WasUnit, "side_id")
        mine, theirs = by_side[together][1:], by_side[alone][1:]
        if expected or outcome != [u.id for u in mine]:
            assert (outcome.rows, new) == (expected, [])  # type: ignore[union-attr]
            assert mine == []
            return
        skip = {"id", "side_id", "uid"}  # each unit's identity is her own (test_row_identities)
        assert [u.model_dump(exclude=skip) for u in mine] == [
            u.model_dump(exclude=skip) for u in theirs
        ]
        assert [e.summary for e in new] == [f"Red: added {u.name} ({u.unit_type}, {u.points} pts)"
                                            for u in theirs]  # fmt: skip
        assert {(e.kind, e.side_id, e.undoable) for e in new} == {("roster", together, False)}
