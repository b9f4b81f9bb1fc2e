"""The fleet roster with decoy notes: units, markers, secrets, seals (seed 004, DOMAIN 3)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlmodel import select

from tracker.db import SessionFactory, session_scope
from tracker.models import SubMarker
from tracker.services import campaigns, roster
from tracker.services.errors import InvalidInput
from tracker.services.roster import UnitFields

PASS = "wolfpack42"


@pytest.fixture
def axis(factory: SessionFactory) -> dict[str, int]:
    """A side with two submarines (one with an extra decoy) and a destroyer."""
    campaign = campaigns.create_campaign(factory, name="Atlantic")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Axis").id
    u66 = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-66", unit_type="submarine", points=12, armor=3, vital_armor=6, hull_points=2,
        extra_decoys=1, abilities="Elusive Quarry\nWolfpack",
        attacks={"torpedo": [3, 3, 2, None]}))  # fmt: skip
    u552 = roster.save_unit(factory, side_id=side, fields=UnitFields(
        name="U-552", unit_type="submarine", points=13, hull_points=1))  # fmt: skip
    return {"campaign": campaign.id, "side": side, "U-66": u66, "U-552": u552}


def _markers(factory: SessionFactory, side: int, **kwargs: object) -> list[roster.MarkerView]:
    return list(roster.roster(factory, side_id=side, **kwargs).markers)  # type: ignore[arg-type]


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


def test_markers_are_generic_in_the_opponent_view_and_named_in_the_owner_view(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    assignment = roster.assign_markers(factory, unit_id=axis["U-66"], real=2, sector="C4", turn=1)
    assert assignment.codes == ("M-01", "M-02", "M-03") and assignment.real_code == "M-02"
    opponent = _markers(factory, axis["side"])
    assert [(m.code, m.real, m.unit_id) for m in opponent] == [
        ("M-01", None, None), ("M-02", None, None), ("M-03", None, None)]  # fmt: skip
    owner = _markers(factory, axis["side"], owner=True)
    assert [m.real for m in owner] == [False, True, False]


def test_a_passphrase_encrypts_the_notes_in_the_file(
    factory: SessionFactory, axis: dict[str, int], stored_bytes: Callable[[], bytes]
) -> None:
    roster.assign_markers(factory, unit_id=axis["U-66"], real=1, sector="C4")
    roster.set_passphrase(factory, side_id=axis["side"], passphrase=PASS)
    for wrong in ("", "nope", "wolfpack4"):
        with pytest.raises(InvalidInput, match="passphrase"):
            roster.roster(factory, side_id=axis["side"], owner=True, passphrase=wrong)
    owner = _markers(factory, axis["side"], owner=True, passphrase=PASS)
    assert [m.real for m in owner] == [True, False, False]
    raw = stored_bytes()
    assert b'"real"' not in raw and b"plain:" not in raw
    with pytest.raises(InvalidInput, match="at least 6 characters"):
        roster.set_passphrase(factory, side_id=axis["side"], passphrase="abc", old_passphrase=PASS)


def test_the_seal_holds_until_the_notes_are_edited_behind_the_trackers_back(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    assignment = roster.assign_markers(factory, unit_id=axis["U-552"], real=1, sector="D2")
    assert roster.verify_seal(factory, seal=assignment.seal, side_id=axis["side"])
    with session_scope(factory) as session:
        for marker in session.exec(select(SubMarker)).all():  # a tamperer swaps real and decoy
            marker.secret = (
                marker.secret.replace('"real": true', '"real": X')
                .replace('"real": false', '"real": true')
                .replace('"real": X', '"real": false')
            )
    assert not roster.verify_seal(factory, seal=assignment.seal, side_id=axis["side"])


def test_move_warns_attack_reveals_decoy_removed_and_reconceal_makes_two_fresh_markers(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    roster.assign_markers(factory, unit_id=axis["U-66"], real=2, sector="C4", turn=1)
    m1, m2, _ = _markers(factory, axis["side"])
    assert roster.move_marker(factory, marker_id=m1.id, sector="C5", turn=2) == []
    assert roster.move_marker(factory, marker_id=m1.id, sector="C6", turn=2) == [
        "M-01 already moved this turn (one sector a turn)"]  # fmt: skip
    assert roster.move_marker(factory, marker_id=m2.id, sector="C6", turn=2) == [
        "C6 already holds M-01: one sub marker per sector"]  # fmt: skip
    assert roster.attack_marker(factory, marker_id=m1.id, success=False) == (
        "M-01: attack failed, the marker stays concealed"
    )
    assert roster.attack_marker(factory, marker_id=m1.id, success=True) == (
        f"M-01 was a decoy: removed; seal {m1.seal} verified"
    )
    with pytest.raises(InvalidInput, match="decoy already removed"):
        roster.attack_marker(factory, marker_id=m1.id, success=True)
    assert roster.attack_marker(factory, marker_id=m2.id, success=True, damage=1) == (
        f"M-02 is U-66: revealed, 1 hull damage; seal {m1.seal} verified"
    )
    view = roster.roster(factory, side_id=axis["side"])
    assert next(u for u in view.units if u.name == "U-66").crippled
    revealed = [m for m in view.markers if m.state == "revealed"]
    assert [(m.code, m.unit_id) for m in revealed] == [("M-02", axis["U-66"])]
    fresh = roster.reconceal(factory, unit_id=axis["U-66"], real=1, turn=3)
    assert fresh.codes == ("M-04", "M-05")
    states = {m.code: (m.state, m.sector) for m in _markers(factory, axis["side"])}
    assert states == {
        "M-01": ("removed", "C6"), "M-02": ("removed", "C6"), "M-03": ("concealed", "C4"),
        "M-04": ("concealed", "C6"), "M-05": ("concealed", "C6"),
    }  # fmt: skip


def test_a_reveal_says_when_the_seal_is_broken(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    roster.assign_markers(factory, unit_id=axis["U-552"], real=1, sector="D2")
    _, second = _markers(factory, axis["side"])
    with session_scope(factory) as session:  # the notes edited behind the tracker's back
        for marker in session.exec(select(SubMarker)).all():
            marker.secret = (
                marker.secret.replace('"real": true', '"real": X')
                .replace('"real": false', '"real": true')
                .replace('"real": X', '"real": false')
            )
    message = roster.attack_marker(factory, marker_id=second.id, success=True, damage=1)
    assert message == f"M-02 is U-552: revealed, 1 hull damage; seal {second.seal} BROKEN"


def test_a_concealed_sub_attacking_in_its_own_sector_is_revealed(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    roster.assign_markers(factory, unit_id=axis["U-552"], real=2, sector="D2")
    decoy, real = _markers(factory, axis["side"])
    with pytest.raises(InvalidInput, match="a decoy cannot attack"):
        roster.sub_attacks(factory, marker_id=decoy.id, same_sector=True)
    assert roster.sub_attacks(factory, marker_id=real.id, same_sector=False) == (
        "M-02 attacks from concealment and stays concealed"
    )
    assert roster.sub_attacks(factory, marker_id=real.id, same_sector=True) == (
        "M-02 is U-552: revealed by its attack"
    )
    assert [m.state for m in _markers(factory, axis["side"])] == ["concealed", "revealed"]


def test_the_hunt_and_the_minefield_are_journaled(
    factory: SessionFactory, axis: dict[str, int]
) -> None:
    roster.assign_markers(factory, unit_id=axis["U-66"], real=1, sector="C4")
    marker = _markers(factory, axis["side"])[0]
    assert roster.record_search(factory, marker_id=marker.id, target=4, roll=4) == (
        "M-01 found (d6 4 vs 4+): it may be attacked"
    )
    assert roster.record_search(factory, marker_id=marker.id, target=2, roll=1) == (
        "M-01 not found (d6 1 vs 2+)"
    )
    assert roster.mine_roll(factory, unit_id=axis["U-66"], roll=3) == (
        "U-66 passed the minefield (d6 3)"
    )
    assert roster.mine_roll(factory, unit_id=axis["U-66"], roll=1) == (
        "U-66 struck a mine (d6 1): 1 hull damage"
    )
    with pytest.raises(InvalidInput, match=r"1\.\.6"):
        roster.mine_roll(factory, unit_id=axis["U-66"], roll=7)
    owner = roster.roster(factory, side_id=axis["side"], owner=True)
    unit = next(u for u in owner.units if u.name == "U-66")
    assert (unit.damage, unit.crippled) == (1, True)
