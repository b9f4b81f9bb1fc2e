"""Two copies of a campaign played apart and merged back (services.sync_pack, sync_merge): the
other copy's play arrives whole, a value both changed is held for the player, a packet merged
twice changes nothing, and a packet of another campaign or altered by hand is refused."""

from __future__ import annotations

import json
import random
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from campaign_files import migrated_engine
from depth import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from service_helpers import ctrl_z, get_row
from sqlalchemy import select

from tracker.db import SessionFactory, make_engine, read_scope, session_factory
from tracker.models import (
    Commander,
    JournalEntry,
    Scenario,
    Ship,
    ShipSnapshot,
    Side,
    Squadron,
    SubMarker,
    WasUnit,
)
from tracker.services import (
    campaigns,
    command,
    damage,
    demo,
    documents,
    exchange,
    fleet,
    history,
    markers,
    repairs,
    reports,
    roster,
    scenarios,
    sealing,
    secrets,
    sync_decide,
    sync_merge,
    sync_pack,
)
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.errors import InvalidInput
from tracker.services.visibility import Viewer


@pytest.fixture
def copy_b(tmp_path: Path) -> Iterator[SessionFactory]:
    engine = migrated_engine(tmp_path / "b.db")
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def copy_c(tmp_path: Path) -> Iterator[SessionFactory]:
    engine = migrated_engine(tmp_path / "c.db")
    yield session_factory(engine)
    engine.dispose()


def _copy(source: SessionFactory, campaign_id: int, target: SessionFactory) -> int:
    """A second copy of the campaign: exported and imported into another file."""
    document = exchange.export_campaign(source, campaign_id=campaign_id)
    return exchange.import_campaign(target, document=json.loads(json.dumps(document)))


def _by_name(factory: SessionFactory) -> dict[str, int]:
    with read_scope(factory) as session:
        ships = {ship.name: ship.id or 0 for ship in session.exec(select(Ship)).scalars()}
        found = {row.name: row.id or 0 for row in session.exec(select(Squadron)).scalars()}
        scenario = session.exec(select(Scenario)).scalars().one()
        return {**ships, **found, "scenario": scenario.id or 0}


def _ships(factory: SessionFactory) -> dict[str, dict[str, Any]]:
    """Every ship by identity, as a copy holds her (her number and version are the file's)."""
    with read_scope(factory) as session:
        return {
            ship.uid: ship.model_dump(exclude={"id", "version", "squadron_id", "side_id",
                                               "original_squadron_id", "crew_id"})
            for ship in session.exec(select(Ship)).scalars()
        }  # fmt: skip


def _commanders(factory: SessionFactory) -> dict[str, dict[str, Any]]:
    with read_scope(factory) as session:
        return {row.uid: row.model_dump(exclude={"id", "version"})
                for row in session.exec(select(Commander)).scalars()}  # fmt: skip


def _entries(factory: SessionFactory) -> dict[str, JournalEntry]:
    """The journal by identity, but for the copy's own lines that it merged a packet."""
    with read_scope(factory) as session:
        return {row.uid: row for row in session.exec(select(JournalEntry)).scalars()
                if not (row.kind == "sync" and '"have"' in row.detail)}  # fmt: skip


def _count(factory: SessionFactory, model: Any) -> int:
    with read_scope(factory) as session:
        return len(session.exec(select(model)).scalars().all())


def _fight(factory: SessionFactory) -> None:
    """A scenario fought on one copy: begun, ten hits with criticals, a crew test, the
    flagship sunk, closed."""
    ids = _by_name(factory)
    exeter, ajax, spee = ids["Exeter"], ids["Ajax"], ids["Admiral Graf Spee"]
    command.set_commander_ship(factory, squadron_id=ids["Force G"], ship_id=ajax)  # his flagship
    scenarios.set_participants(factory, scenario_id=ids["scenario"], ship_ids=[exeter, ajax, spee])
    scenarios.start_scenario(factory, scenario_id=ids["scenario"])
    fire = (CriticalRequest(effect="Fire"),)
    damage.record_hit(factory, request=HitRequest(exeter, structure=4, criticals=fire))
    damage.record_hit(factory, request=HitRequest(ajax, structure=2, flotation=1))
    damage.record_hit(factory, request=HitRequest(spee, structure=3))
    for ship, hit, crit in (
        (spee, {"structure": 1}, "Rangefinder"),
        (spee, {"structure": 2}, ""),
        (spee, {"structure": 1, "fire_delta": 1}, ""),
        (ajax, {"structure": 1}, ""),
        (ajax, {"structure": 1}, "Boiler room"),
        (spee, {"structure": 1}, ""),
    ):  # ten hits in all, with the sinking
        criticals = (CriticalRequest(effect=crit),) if crit else ()
        damage.record_hit(factory, request=HitRequest(ship, criticals=criticals, **hit))
    command.record_test(factory, squadron_id=ids["Force G"], subject="crew", roll=7)
    fleet.update_ship(factory, ship_id=exeter, fields={"speed_kn": 28})
    # The flagship sunk: the commodore is lost with her.
    damage.record_hit(factory, request=HitRequest(ajax, structure=20, flotation=20))
    damage.confirm_condition(factory, ship_id=ajax, outcome="Sunk")
    scenarios.close_scenario(factory, scenario_id=ids["scenario"], outcome="Spee scuttled")


def test_a_copy_merges_the_others_play_and_holds_what_both_changed(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a = demo.create_sample_campaign(factory)
    campaign_b = _copy(factory, campaign_a, copy_b)
    _commanders_before = _commanders(factory)
    # Copy B fights the scenario; meanwhile copy A edits Exeter's speed and Ajax's notes.
    _fight(copy_b)
    ids_a = _by_name(factory)
    fleet.update_ship(factory, ship_id=ids_a["Exeter"], fields={"speed_kn": 30})
    edited_here = max(_entries(factory).values(), key=lambda row: row.id or 0).uid
    fleet.update_ship(factory, ship_id=ids_a["Ajax"], fields={"notes": "refit at Simonstown"})

    packet = sync_pack.pack(copy_b, campaign_id=campaign_b)
    merged = sync_merge.merge(factory, packet=packet)

    # Every entry of B is in A's journal, by identity.
    assert set(_entries(copy_b)) <= set(_entries(factory))
    # A shows B's play: the tracks, criticals, the closed scenario and its snapshots ...
    ships_a, ships_b = _ships(factory), _ships(copy_b)
    exeter = next(uid for uid, ship in ships_b.items() if ship["name"] == "Exeter")
    ajax = next(uid for uid, ship in ships_b.items() if ship["name"] == "Ajax")
    for uid, ship in ships_b.items():
        mine = dict(ships_a[uid])
        expected = dict(ship)
        if uid == exeter:  # ... but Exeter's speed, which both copies changed, stays A's
            assert (mine.pop("speed_kn"), expected.pop("speed_kn")) == (30, 28)
        if uid == ajax:  # ... and A's own edit of Ajax stays
            assert (mine.pop("notes"), expected.pop("notes")) == ("refit at Simonstown", "")
        assert mine == expected, ship["name"]
    assert _count(factory, ShipSnapshot) == _count(copy_b, ShipSnapshot) == 6
    assert ships_a[ajax]["sunk"]
    assert _commanders(factory) == _commanders(copy_b)
    assert _commanders(factory) != _commanders_before
    with read_scope(factory) as session:
        scenario = session.exec(select(Scenario)).scalars().one()
        assert (scenario.status, scenario.outcome) == ("closed", "Spee scuttled")
    # The scenario's report says which copy recorded each of its lines.
    story = reports.after_action_report(factory, scenario_id=scenario.id or 0).journal
    there = f" · recorded in {sync_pack.copy_name(copy_b)}"
    assert story and all(line.summary.endswith(there) for line in story)
    # One conflict, held with what each copy says, nothing of it written.
    assert len(merged.held) == 1 and "speed_kn" in merged.held[0]
    held = [json.loads(row.detail)["held"] for row in _entries(factory).values()
            if "held" in json.loads(row.detail)]  # fmt: skip
    assert [conflict for entry in held for conflict in entry["conflicts"]] == [
        {
            "table": "ship",
            "row": exeter,
            "field": "speed_kn",
            "name": "ship Exeter",
            "was": 32,
            "ours": 30,
            "theirs": 28,
            "writers": [edited_here],
        }
    ]
    # The journal says which entry is held, and why.
    lines = [view.summary for view in history.list_entries(factory, campaign_id=campaign_a)]
    assert (
        f"Edited Exeter · recorded in {sync_pack.copy_name(copy_b)} · held, not written: this "
        "copy changed ship Exeter speed_kn too (k decides it)" in lines
    )
    # The same packet again changes nothing.
    before = (_ships(factory), len(_entries(factory)))
    again = sync_merge.merge(factory, packet=packet)
    assert (again.added, again.held, again.backup) == (0, [], None)
    assert (_ships(factory), len(_entries(factory))) == before
    # A's next packet to B holds what B lacks, not what it sent.
    back = sync_pack.pack(factory, campaign_id=campaign_a)
    assert {entry["uid"] for entry in back["entries"]} == set(_entries(factory)) - set(
        _entries(copy_b)
    )

    # A decides (this copy's speed stays), packs, and B merges: the copies agree.
    [held] = [row for row in _entries(factory).values() if "held" in json.loads(row.detail)]
    held_id, edited_there = held.id, held.uid
    assert "30" in sync_decide.decide(factory, entry_id=held_id or 0, keep="ours")
    merged_b = sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))
    lines = [view.summary for view in history.list_entries(copy_b, campaign_id=campaign_b)]
    assert lines.count("Edited Exeter · a conflict, decided") == 1  # B's own
    there = f"Edited Exeter · recorded in {sync_pack.copy_name(factory)} · a conflict, decided"
    assert lines.count(there) == 1
    assert merged_b.held == []
    assert _ships(factory) == _ships(copy_b)
    assert _ships(copy_b)[exeter]["speed_kn"] == 30
    assert set(_entries(factory)) == set(_entries(copy_b))
    for copy in (factory, copy_b):
        details = {uid: json.loads(row.detail) for uid, row in _entries(copy).items()}
        assert not [uid for uid, detail in details.items() if "held" in detail]
        marks = {uid: detail.get("decided") for uid, detail in details.items()}
        assert {uid for uid, decided in marks.items() if decided} == {edited_here, edited_there}


def _export(factory: SessionFactory, campaign_id: int) -> bytes:
    """A copy's export, as the file holds it."""
    return documents.dumps(exchange.export_campaign(factory, campaign_id=campaign_id))


def _damaged_copies(
    factory: SessionFactory, copy_b: SessionFactory, *hits: tuple[str, int, int]
) -> tuple[int, int, dict[str, int]]:
    """The sample campaign with ships hit (name, Structure, Flotation), then copied."""
    campaign_a = demo.create_sample_campaign(factory)
    ids = _by_name(factory)
    for name, structure, flotation in hits:
        damage.record_hit(factory, request=HitRequest(ids[name], structure, flotation))
    return campaign_a, _copy(factory, campaign_a, copy_b), ids


def test_a_night_apart_a_fought_scenario_and_repairs_merge_into_one_campaign(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    # Damage brought from before: Exeter and Achilles are repaired on A while B fights.
    campaign_a, campaign_b, ids = _damaged_copies(
        factory, copy_b, ("Exeter", 4, 0), ("Achilles", 3, 1)
    )
    _fight(copy_b)  # hits with criticals, the flagship sunk, a crew test, speed 28, closed
    repairs.repair_ship(factory, ship_id=ids["Exeter"], structure=3)
    repairs.repair_ship(factory, ship_id=ids["Achilles"], structure=2, flotation=1)
    fleet.update_ship(factory, ship_id=ids["Exeter"], fields={"speed_kn": 30})

    merged = sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))

    # A shows all of B's play, its repairs kept, and one conflict: Exeter's speed.
    assert set(_entries(copy_b)) <= set(_entries(factory))
    exeter, achilles = (
        get_row(factory, Ship, ids["Exeter"]),
        get_row(factory, Ship, ids["Achilles"]),
    )
    assert exeter.structure_now == 12 - 4 - 4 + 3  # B's hit of 4 and A's repair of 3, both
    assert (achilles.structure_now, achilles.flotation_now) == (
        achilles.structure_max - 3 + 2, achilles.flotation_max - 1 + 1)  # fmt: skip
    assert get_row(factory, Ship, ids["Ajax"]).sunk
    [conflict] = merged.held
    assert conflict.endswith(": this copy changed ship Exeter speed_kn too")
    [held] = [row.id for row in _entries(factory).values() if "held" in json.loads(row.detail)]
    sync_decide.decide(factory, entry_id=held or 0, keep="ours")
    sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))

    # Both copies export the same campaign, and the same journal entries.
    assert _export(factory, campaign_a) == _export(copy_b, campaign_b)
    assert get_row(copy_b, Ship, _by_name(copy_b)["Exeter"]).speed_kn == 30
    assert sync_merge.held(copy_b, campaign_id=campaign_b) == []


def test_a_ship_repaired_in_one_copy_and_sunk_in_the_other_stands_alike_and_is_named(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a, campaign_b, ids = _damaged_copies(factory, copy_b, ("Exeter", 4, 0))
    exeter_b = _by_name(copy_b)["Exeter"]
    scenarios.set_participants(copy_b, scenario_id=ids["scenario"], ship_ids=[exeter_b])
    scenarios.start_scenario(copy_b, scenario_id=ids["scenario"])
    damage.record_hit(copy_b, request=HitRequest(exeter_b, structure=8))
    damage.confirm_condition(copy_b, ship_id=exeter_b, outcome="Sunk")
    repairs.repair_ship(factory, ship_id=ids["Exeter"], structure=3)

    there = sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    here = sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))

    # A repair of a sunk ship is refused in one copy; made apart, both copies' play stands
    # alike in both, and the copy where she was sunk names her.
    assert _ships(factory) == _ships(copy_b)
    exeter = get_row(copy_b, Ship, exeter_b)
    assert (exeter.sunk, exeter.structure_now) == (True, 3)
    assert there.notes == [
        "Exeter was sunk in the other copy while above zero here (Structure 3, Flotation 9): "
        "check her on the record sheet"
    ]
    assert here.notes == [
        "Exeter is sunk in this copy and was repaired in the other: check her on the record sheet"
    ]
    assert _export(factory, campaign_a) == _export(copy_b, campaign_b)


def test_a_copy_made_from_a_merged_copys_export_is_the_same_campaign(
    factory: SessionFactory, copy_b: SessionFactory, copy_c: SessionFactory
) -> None:
    campaign_a, campaign_b, _ = _hit_apart(factory, copy_b)  # Exeter hit for 2 on A, 3 on B
    sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))
    assert _export(factory, campaign_a) == _export(copy_b, campaign_b)

    campaign_c = _copy(factory, campaign_a, copy_c)

    assert _export(copy_c, campaign_c) == _export(factory, campaign_a)
    # Its journal holds each hit as the copy that made it recorded it (B's: 12 to 9), yet
    # undo takes back each hit's own damage from what the ship has now: 3, then 2.
    exeter = _by_name(copy_c)["Exeter"]
    assert get_row(copy_c, Ship, exeter).structure_now == 12 - 5
    ctrl_z(copy_c, campaign_c)
    assert get_row(copy_c, Ship, exeter).structure_now == 12 - 2
    ctrl_z(copy_c, campaign_c)
    assert get_row(copy_c, Ship, exeter).structure_now == 12


def _hit_apart(factory: SessionFactory, copy_b: SessionFactory) -> tuple[int, int, dict[str, int]]:
    """Exeter in play, copied; then hit for 2 on the first copy and for 3 on the other."""
    campaign_a = demo.create_sample_campaign(factory)
    ids = _by_name(factory)
    scenarios.set_participants(factory, scenario_id=ids["scenario"], ship_ids=[ids["Exeter"]])
    scenarios.start_scenario(factory, scenario_id=ids["scenario"])
    campaign_b = _copy(factory, campaign_a, copy_b)
    damage.record_hit(factory, request=HitRequest(ids["Exeter"], structure=2))
    damage.record_hit(copy_b, request=HitRequest(_by_name(copy_b)["Exeter"], structure=3))
    return campaign_a, campaign_b, ids


def test_hits_on_one_ship_in_both_copies_add_up(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a, campaign_b, ids = _hit_apart(factory, copy_b)

    sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))

    assert _ships(factory) == _ships(copy_b)
    assert {
        ship["structure_now"] for ship in _ships(factory).values() if ship["name"] == "Exeter"
    } == {12 - 5}
    # Undone here, the other copy's hit takes back what it did here: 3 of Structure.
    ctrl_z(copy_b, campaign_b)
    assert get_row(copy_b, Ship, _by_name(copy_b)["Exeter"]).structure_now == 12 - 3
    history.redo_last(copy_b, campaign_id=campaign_b)
    # Both copies' hits together bring her to zero: her condition is the player's to confirm.
    damage.record_hit(factory, request=HitRequest(ids["Exeter"], structure=4))
    damage.record_hit(copy_b, request=HitRequest(_by_name(copy_b)["Exeter"], structure=4))
    merged = sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    assert merged.notes == [
        "Exeter reached zero Structure with both copies' hits: confirm her condition on the "
        "record sheet (z)"
    ]
    assert damage.zero_outcomes(factory, ship_id=ids["Exeter"])


def test_a_hit_undone_apart_takes_back_only_its_own_damage_in_both_copies(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a, campaign_b, ids = _hit_apart(factory, copy_b)
    ctrl_z(copy_b, campaign_b)  # B takes its hit back before packing

    merged_a = sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    merged_b = sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))

    assert merged_a.held == merged_b.held == []
    assert _ships(factory) == _ships(copy_b)
    assert get_row(factory, Ship, ids["Exeter"]).structure_now == 12 - 2


def test_hits_undone_apart_take_back_what_they_took_in_each_copy(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a, campaign_b, ids = _hit_apart(factory, copy_b)  # Exeter hit for 2 on A, 3 on B
    damage.record_hit(factory, request=HitRequest(ids["Exeter"], structure=12))  # 10 to take
    ctrl_z(factory, campaign_a)
    ctrl_z(factory, campaign_a)

    sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))
    sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))

    # Merged on B (9 left), the hit of 12 took 9, and its undo gives back those 9, not 10.
    assert _ships(factory) == _ships(copy_b)
    assert get_row(copy_b, Ship, _by_name(copy_b)["Exeter"]).structure_now == 12 - 3
    assert _export(factory, campaign_a) == _export(copy_b, campaign_b)


def test_two_decisions_of_one_value_made_apart_settle_alike_in_both_copies(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a = demo.create_sample_campaign(factory)
    campaign_b = _copy(factory, campaign_a, copy_b)
    exeter_a, exeter_b = _by_name(factory)["Exeter"], _by_name(copy_b)["Exeter"]
    fleet.update_ship(factory, ship_id=exeter_a, fields={"speed_kn": 28})
    fleet.update_ship(copy_b, ship_id=exeter_b, fields={"speed_kn": 30})
    ctrl_z(copy_b, campaign_b)  # B's speed back to the sample's 32
    packet_a = sync_pack.pack(factory, campaign_id=campaign_a)
    sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    sync_merge.merge(copy_b, packet=packet_a)
    # Each copy holds the other's speed, and each keeps its own: two decisions made apart.
    for copy in (factory, copy_b):
        held = [row.id or 0 for row in _entries(copy).values() if "held" in json.loads(row.detail)]
        assert held
        sync_decide.decide(copy, entry_id=held[0], keep="ours")
        assert not [row for row in _entries(copy).values() if "held" in json.loads(row.detail)]
    decisions = {copy: sync_pack.pack(copy, campaign_id=campaign) for copy, campaign in
                 ((factory, campaign_a), (copy_b, campaign_b))}  # fmt: skip
    sync_merge.merge(factory, packet=decisions[copy_b])
    sync_merge.merge(copy_b, packet=decisions[factory])

    # The decision of the greater identity stands in both copies, whichever merged first.
    def decision(packet: dict[str, Any]) -> str:
        return max(entry["uid"] for entry in packet["entries"] if "decides" in entry["detail"])

    greater = max(decisions, key=lambda copy: decision(decisions[copy]))
    speed = get_row(factory, Ship, exeter_a).speed_kn
    assert speed == (28 if greater is factory else 32)
    assert _ships(factory) == _ships(copy_b)
    assert sync_merge.held(factory, campaign_id=campaign_a) == []
    assert sync_merge.held(copy_b, campaign_id=campaign_b) == []


def _names(factory: SessionFactory) -> dict[str, list[str]]:
    with read_scope(factory) as session:
        return {model.__name__: sorted(row.name for row in session.exec(select(model)).scalars())
                for model in (Side, Squadron)}  # fmt: skip


def test_renames_made_apart_travel_are_held_when_both_copies_renamed_and_undo_alike(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a = demo.create_sample_campaign(factory)
    campaign_b = _copy(factory, campaign_a, copy_b)
    with read_scope(factory) as session:
        side = session.exec(select(Side)).scalars().first()
        assert side is not None
    [squadron, *_] = _names(factory)["Squadron"]
    # A renames a squadron and a side; B renames the same squadron otherwise, and the scenario.
    fleet.update_squadron(factory, squadron_id=_by_name(factory)[squadron], name="Force H")
    campaigns.update_side(factory, side_id=side.id or 0, name="Allies", nation=side.nation)
    fleet.update_squadron(copy_b, squadron_id=_by_name(copy_b)[squadron], name="Force K")
    campaigns.update_scenario(copy_b, scenario_id=_by_name(copy_b)["scenario"], title="Dawn")
    ctrl_z(copy_b, campaign_b)  # the scenario's title taken back
    campaigns.update_scenario(copy_b, scenario_id=_by_name(copy_b)["scenario"], title="Dusk")

    merged = sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    [conflict] = merged.held
    assert "name" in conflict and squadron in conflict
    [held] = [row.id or 0 for row in _entries(factory).values() if "held" in json.loads(row.detail)]
    sync_decide.decide(factory, entry_id=held, keep="theirs")
    sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))

    for copy in (factory, copy_b):
        assert "Force K" in _names(copy)["Squadron"] and "Allies" in _names(copy)["Side"]
        assert get_row(copy, Scenario, _by_name(copy)["scenario"]).title == "Dusk"
    assert _export(factory, campaign_a) == _export(copy_b, campaign_b)


def test_a_value_changed_again_after_its_conflict_leaves_nothing_to_decide(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a = demo.create_sample_campaign(factory)
    campaign_b = _copy(factory, campaign_a, copy_b)
    exeter = _by_name(factory)["Exeter"]
    fleet.update_ship(factory, ship_id=exeter, fields={"speed_kn": 30})
    fleet.update_ship(copy_b, ship_id=_by_name(copy_b)["Exeter"], fields={"speed_kn": 28})
    sync_merge.merge(factory, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    [held] = [row.id or 0 for row in _entries(factory).values() if "held" in json.loads(row.detail)]
    # The player sets the speed again, knowing both: the conflict is settled by that edit.
    fleet.update_ship(factory, ship_id=exeter, fields={"speed_kn": 29})
    entries = len(_entries(factory))

    said = sync_decide.decide(factory, entry_id=held, keep="theirs")

    assert said == f"#{held} was settled since it was merged: nothing to decide"
    assert get_row(factory, Ship, exeter).speed_kn == 29
    assert len(_entries(factory)) == entries  # no decision written
    assert sync_merge.held(factory, campaign_id=campaign_a) == []
    # The other copy takes the later edit as any change made after what it holds.
    sync_merge.merge(copy_b, packet=sync_pack.pack(factory, campaign_id=campaign_a))
    assert _ships(copy_b) == _ships(factory)


def test_a_packet_of_another_campaign_or_altered_is_refused_and_nothing_written(
    factory: SessionFactory, copy_b: SessionFactory
) -> None:
    campaign_a = demo.create_sample_campaign(factory)
    campaign_b = _copy(factory, campaign_a, copy_b)
    fleet.update_ship(copy_b, ship_id=_by_name(copy_b)["Ajax"], fields={"speed_kn": 20})
    packet = sync_pack.pack(copy_b, campaign_id=campaign_b)
    other = campaigns.create_campaign(copy_b, name="Another")
    refusals = {
        "altered": {**packet, "entries": [{**packet["entries"][-1], "summary": "x"}]},
        "cut": {**packet, "entries": packet["entries"][1:]},
        "newer": {**packet, "version": sync_pack.VERSION + 1},
        "another": sync_pack.pack(copy_b, campaign_id=other.id),
        "not one": {"format": "tracker-campaign"},
    }
    before = (_ships(factory), len(_entries(factory)))
    said = {}
    for name, refused in refusals.items():
        with pytest.raises(InvalidInput) as caught:
            sync_merge.merge(factory, packet=refused)
        said[name] = caught.value.errors["packet"]
    assert (_ships(factory), len(_entries(factory))) == before
    assert "by hand" in said["altered"] and "by hand" in said["cut"]
    assert "newer tracker" in said["newer"]
    assert "does not hold the campaign 'Another'" in said["another"]
    assert "not a tracker packet" in said["not one"]


# --- property: two copies played apart and merged in any order converge --------------------------

_SHIP = st.integers(0, 2)
_COPY = st.sampled_from("ab")
_ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("hit"), _COPY, _SHIP, st.integers(1, 4)),
        # Edits of few values, so that both copies often change one value apart.
        st.tuples(st.just("speed"), _COPY, st.integers(0, 1), st.sampled_from([28, 30])),
        st.tuples(st.just("notes"), _COPY, st.just(0), st.sampled_from(["low on fuel", "refit"])),
        st.tuples(st.just("undo"), _COPY),
        st.tuples(st.just("pack"), _COPY),
        st.tuples(st.just("merge"), st.integers(0, 7)),  # a packet made so far, repeats allowed
    ),
    min_size=3,
    max_size=14,
)
_NAMES = ("Exeter", "Ajax", "Achilles")


def _held_ids(factory: SessionFactory) -> list[int]:
    return [row.id or 0 for row in _entries(factory).values() if "held" in json.loads(row.detail)]


@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    actions=_ACTIONS,
    keep=st.lists(st.sampled_from(sync_decide.CHOICES), min_size=8, max_size=8),
    seed=st.integers(0, 2**32 - 1),
)
def test_copies_played_apart_converge_whatever_the_order_of_their_packets(
    tmp_path_factory: pytest.TempPathFactory,
    actions: list[Any],
    keep: list[str],
    seed: int,
) -> None:
    # The identities are generated too: which of two decisions made apart stands goes by them.
    identities = random.Random(seed)
    with mock.patch("uuid.uuid4", lambda: uuid.UUID(int=identities.getrandbits(128), version=4)):
        _play_apart_and_converge(tmp_path_factory, actions, keep)


def _play_apart_and_converge(
    tmp_path_factory: pytest.TempPathFactory, actions: list[Any], keep: list[str]
) -> None:
    folder = tmp_path_factory.mktemp("copies")
    engines = [migrated_engine(folder / f"{name}.db") for name in "ab"]
    try:
        a, b = (session_factory(engine) for engine in engines)
        campaign = demo.create_sample_campaign(a)
        ids = _by_name(a)
        scenarios.set_participants(a, scenario_id=ids["scenario"],
                                   ship_ids=[ids[name] for name in _NAMES])  # fmt: skip
        scenarios.start_scenario(a, scenario_id=ids["scenario"])
        copies = {"a": (a, campaign), "b": (b, _copy(a, campaign, b))}
        made: set[str] = set()
        packets: list[tuple[str, dict[str, Any]]] = []
        for action in actions:
            kind = action[0]
            if kind == "pack":
                factory, campaign_id = copies[action[1]]
                packets.append((action[1], sync_pack.pack(factory, campaign_id=campaign_id)))
                continue
            if kind == "merge":
                if packets:
                    source, packet = packets[action[1] % len(packets)]
                    sync_merge.merge(copies["b" if source == "a" else "a"][0], packet=packet)
                continue
            factory, campaign_id = copies[action[1]]
            try:
                if kind == "undo":
                    ctrl_z(factory, campaign_id)
                    made |= set(_entries(factory))
                    continue
                ship = _by_name(factory)[_NAMES[action[2]]]
                if kind == "hit":
                    damage.record_hit(factory, request=HitRequest(ship, structure=action[3]))
                else:
                    fleet.update_ship(factory, ship_id=ship, fields={
                        "speed_kn" if kind == "speed" else "notes": action[3]})  # fmt: skip
            except InvalidInput:
                continue
            made |= set(_entries(factory))
        event(f"held before deciding: {bool(_held_ids(a) or _held_ids(b))}")
        # Each side decides what it holds, and the copies exchange packets until both agree.
        for round_ in range(8):
            for factory, _ in copies.values():
                # One decision settles every entry held on the values it decides.
                while held := _held_ids(factory):
                    sync_decide.decide(factory, entry_id=held[0], keep=keep[round_])
            for name, (factory, campaign_id) in copies.items():
                other = copies["b" if name == "a" else "a"][0]
                sync_merge.merge(other, packet=sync_pack.pack(factory, campaign_id=campaign_id))
            if not (_held_ids(a) or _held_ids(b)) and set(_entries(a)) == set(_entries(b)):
                event(f"agreed after {round_ + 1} rounds")
                break
        assert _held_ids(a) == _held_ids(b) == []
        assert set(_entries(a)) == set(_entries(b)) >= made  # no entry made is missing
        assert _ships(a) == _ships(b), (actions, keep)
        assert _export(a, copies["a"][1]) == _export(b, copies["b"][1])
    finally:
        for engine in engines:
            engine.dispose()


def test_a_sides_secrets_travel_as_its_rows_keep_them_sealed_under_its_passphrase(
    factory: SessionFactory, copy_b: SessionFactory, copy_c: SessionFactory
) -> None:
    campaign_a = demo.create_sample_campaign(factory)
    campaign_b = _copy(factory, campaign_a, copy_b)
    with read_scope(copy_b) as session:
        side = session.exec(select(Side).where(Side.name == "Kriegsmarine")).scalars().one()
    boat = roster.save_unit(copy_b, side_id=side.id or 0, fields=roster.UnitFields(
        name="U-47", unit_type="submarine", points=10))  # fmt: skip
    markers.assign_markers(copy_b, unit_id=boat, real=2, sectors=["C3", "D4"])
    sealing.set_passphrase(copy_b, side_id=side.id or 0, passphrase="scapa flow")
    packet = sync_pack.pack(copy_b, campaign_id=campaign_b)
    # No plain note in the packet: which marker is real travels sealed, as the rows keep it.
    text = json.dumps(packet)
    assert secrets.PLAIN not in text and secrets.SEALED in text

    # Made for the opponent, a packet holds no secret: a merge holds what needs one.
    for_them = sync_pack.pack(copy_b, campaign_id=campaign_b, viewer=Viewer.OPPONENT)
    text = json.dumps(for_them)
    assert secrets.PLAIN not in text and secrets.SEALED not in text and for_them["secrets"] == {}
    _copy(factory, campaign_a, copy_c)
    held = sync_merge.merge(copy_c, packet=for_them).held
    assert held and all("a packet for the opponent" in line for line in held)
    assert _count(copy_c, SubMarker) == 0 and _count(copy_c, WasUnit) == 0
    again = sync_merge.merge(copy_c, packet=for_them)  # the same packet: nothing to write
    assert (again.added, again.held, again.backup) == (0, [], None)
    # The owner's packet brings what they lacked: the entries held are written now.
    owners = sync_merge.merge(copy_c, packet=sync_pack.pack(copy_b, campaign_id=campaign_b))
    assert owners.held == [] and owners.added == len(held)
    assert (_count(copy_c, SubMarker), _count(copy_c, WasUnit)) == (2, 1)
    assert not [row for row in _entries(copy_c).values() if "held" in json.loads(row.detail)]

    sync_merge.merge(factory, packet=packet)

    def placed(factory: SessionFactory) -> dict[str, tuple[str, str, str]]:
        with read_scope(factory) as session:
            units = {row.id: row.name for row in session.exec(select(WasUnit)).scalars()}
            return {marker.uid: (marker.sector, units[marker.unit_id], marker.secret)
                    for marker in session.exec(select(SubMarker)).scalars()}  # fmt: skip

    assert placed(factory) == placed(copy_b)
    # The passphrase opens them in either copy: its check came with them.
    for copy in (factory, copy_b):
        with read_scope(copy) as session:
            here = session.exec(select(Side).where(Side.uid == side.uid)).scalars().one()
            assert sealing.side_key(session, here.id or 0, "scapa flow") is not None
    assert sorted(sector for sector, _, _ in placed(factory).values()) == ["C3", "D4"]


# --- property: a packet made by hand is merged or refused with a sentence, never half -----------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _rechained(packet: Any) -> Any:
    """The packet's hashes made again, as a hand that changed it would."""
    if not isinstance(packet, dict) or not isinstance(packet.get("entries"), list):
        return packet
    campaign = packet.get("campaign")
    previous = campaign.get("uid") if isinstance(campaign, dict) else None
    for entry in packet["entries"]:
        if isinstance(entry, dict):
            said = {key: value for key, value in entry.items() if key != "hash"}
            entry["hash"] = previous = sync_pack.chained(str(previous), said)
    packet["secrets_hash"] = sync_pack.chained(str(previous), {"secrets": packet.get("secrets")})
    return packet


@pytest.fixture(scope="module")
def hand_made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A campaign file, and a packet of a copy of it that fought a scenario and placed markers."""
    folder = tmp_path_factory.mktemp("hand")
    engines = [migrated_engine(folder / name) for name in ("a.db", "b.db")]
    a, b = (session_factory(engine) for engine in engines)
    campaign_b = _copy(a, demo.create_sample_campaign(a), b)
    _fight(b)
    with read_scope(b) as session:
        side = session.exec(select(Side).where(Side.name == "Kriegsmarine")).scalars().one()
    boat = roster.save_unit(b, side_id=side.id or 0, fields=roster.UnitFields(
        name="U-47", unit_type="submarine", points=10))  # fmt: skip
    markers.assign_markers(b, unit_id=boat, real=1, sectors=["C3", "D4"])
    packet = sync_pack.pack(b, campaign_id=campaign_b)
    for engine in engines:
        engine.dispose()
    return folder / "a.db", packet


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_packet_changed_by_hand_is_merged_whole_or_refused_with_nothing_written(
    hand_made: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory, data: Any
) -> None:
    source, packet = hand_made
    changed = json.loads(json.dumps(packet))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(changed)[1:]
        values = [path for path in paths if "after" in path[:-1]]  # a row's values, half the time
        path = data.draw(st.sampled_from(values if values and data.draw(st.booleans()) else paths))
        *parents, last = path
        holder = changed
        for key in parents:
            holder = holder[key]
        if isinstance(holder, dict) and data.draw(st.booleans()):
            del holder[last]
        else:
            holder[last] = data.draw(_JSON)
    _rechained(changed)
    target = tmp_path_factory.mktemp("target") / "a.db"
    shutil.copyfile(source, target)
    engine = make_engine(str(target))
    try:
        factory = session_factory(engine)
        before = (_ships(factory), len(_entries(factory)), _count(factory, SubMarker))
        try:
            sync_merge.merge(factory, packet=changed)
        except InvalidInput as refused:
            assert set(refused.errors) == {"packet"} and refused.errors["packet"]
            assert (_ships(factory), len(_entries(factory)), _count(factory, SubMarker)) == before
            event("refused")
        else:
            # What it wrote is a campaign a file may hold: its export reads back, every check kept.
            document = exchange.export_campaign(factory, campaign_id=1)
            exchange.read_document(exchange.dumps(document).encode())
            event("merged")
    finally:
        engine.dispose()
