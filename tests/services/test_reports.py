"""The campaign's story: a three-scenario campaign played through the services, and every figure
of its after-action and campaign reports checked against what the journal recorded."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import Refused, World, fresh_factory
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Critical, JournalEntry
from tracker.rules import smr
from tracker.services import (
    campaign_story,
    campaigns,
    command,
    continuity,
    damage,
    fleet,
    history,
    mines,
    repairs,
    reports,
    scenarios,
    sealing,
)
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields

TITLES = ("First clash", "Second", "Third")
CREW_TRAINING = 4  # Alpha's crew: +10% on its ships' points (SMR2 §3.2)


@dataclass(frozen=True)
class Played:
    """The campaign as played: its scenarios in order and the ships by name."""

    campaign_id: int
    scenario_ids: tuple[int, int, int]
    ships: dict[str, int]


def _ship(factory: SessionFactory, squadron_id: int, name: str, s: int, f: int, pts: int) -> int:
    fields = ShipFields(name=name, type_abbrev="CA", structure_max=s, flotation_max=f,
                        points_base=pts)  # fmt: skip
    return fleet.create_ship(factory, squadron_id=squadron_id, fields=fields)


def _play(factory: SessionFactory, scenario_id: int, ship_ids: list[int]) -> None:
    scenarios.set_participants(factory, scenario_id=scenario_id, ship_ids=ship_ids)
    scenarios.start_scenario(factory, scenario_id=scenario_id)


def play_campaign(factory: SessionFactory, world: World) -> Played:
    """Three scenarios: hits, a critical, fire and an undone hit in the first; Exeter sunk with
    the commander aboard in the second; Ajax strikes a mine in the third; repairs between."""
    ajax = _ship(factory, world.alpha_id, "Ajax", 9, 8, 400)
    exeter = _ship(factory, world.alpha_id, "Exeter", 12, 10, 900)
    spee = _ship(factory, world.raider_id, "Graf Spee", 14, 12, 1500)
    command.set_crew(factory, squadron_id=world.alpha_id, training=CREW_TRAINING,
                     acquisition="direct")  # fmt: skip
    command.set_commander(factory, squadron_id=world.alpha_id, name="Harwood", training=3,
                          acquisition="direct")  # fmt: skip
    command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=exeter)
    mines.save_counter(factory, ship_id=ajax, counter_size="small", speed_rating=4, fuel_full=3,
                       fuel_empty=1)  # fmt: skip
    first = world.scenario_id
    second = campaigns.add_scenario(factory, campaign_id=world.campaign_id, title="Second").id
    third = campaigns.add_scenario(factory, campaign_id=world.campaign_id, title="Third").id
    scenarios.set_correction_factor(factory, scenario_id=first, side_id=world.blue_id, value="+2")

    _play(factory, first, [ajax, exeter, spee])
    boiler = (CriticalRequest(effect="Boiler room"),)
    damage.record_hit(factory, request=HitRequest(ship_id=ajax, structure=3, flotation=1,
                                                  fire_delta=2, criticals=boiler))  # fmt: skip
    scenarios.advance_turn(factory, scenario_id=first)
    damage.record_hit(factory, request=HitRequest(ship_id=spee, structure=5, fire_delta=1))
    damage.record_hit(factory, request=HitRequest(ship_id=exeter, structure=4))
    history.undo_last(factory, campaign_id=world.campaign_id)  # the hit on Exeter never happened
    scenarios.close_scenario(factory, scenario_id=first, outcome="Red withdraws", notes="Fog")
    repairs.repair_ship(factory, ship_id=ajax, structure=2)

    _play(factory, second, [ajax, exeter, spee])
    damage.record_hit(factory, request=HitRequest(ship_id=exeter, structure=12))
    damage.confirm_condition(factory, ship_id=exeter, outcome="Sunk")
    damage.record_hit(factory, request=HitRequest(ship_id=spee, flotation=4))
    scenarios.close_scenario(factory, scenario_id=second, outcome="Exeter lost")
    repairs.repair_ship(factory, ship_id=spee, structure=3)
    repairs.repair_ship(factory, ship_id=ajax, flotation=1)

    _play(factory, third, [ajax, spee])
    field = mines.sow_minefield(factory, side_id=world.red_id, laid_by="surface", sector="B4",
                                complete=True)  # fmt: skip
    check_id = mines.start_check(factory, minefield_id=field, ship_ids=[ajax], speed=1, seed=3)
    mines.roll_mine(factory, check_id=check_id, roll=5, effects="fuel-2")
    scenarios.close_scenario(factory, scenario_id=third, outcome="Draw")
    return Played(world.campaign_id, (first, second, third),
                  {"Ajax": ajax, "Exeter": exeter, "Graf Spee": spee})  # fmt: skip


# --- what the journal says, read independently of the reports --------------------------------


@dataclass
class JournalReading:
    """Each ship's tracks when each scenario began and closed, replayed from the journal."""

    start: dict[tuple[str, str], tuple[int, int]]  # (scenario, ship) -> (S, F)
    end: dict[tuple[str, str], tuple[int, int]]
    entries: list[JournalEntry]


def read_journal(
    factory: SessionFactory, names: dict[int, str], titles: list[str]
) -> JournalReading:
    with session_scope(factory) as session:
        entries = list(session.exec(select(JournalEntry).order_by(col(JournalEntry.id))).all())
        for entry in entries:
            session.expunge(entry)
    tracks: dict[int, dict[str, Any]] = {}
    taking_part: set[str] = set()
    reading = JournalReading({}, {}, entries)
    for entry in entries:
        detail = json.loads(entry.detail)
        if entry.kind == "ship" and entry.ship_id not in tracks:
            tracks[entry.ship_id or 0] = dict(detail["after"])
        for change in detail.get("changes") or []:
            if change["table"] == "ship":
                tracks[change["id"]].update(change["after"])
        if entry.kind == "scenario" and "ships" in (detail["after"] or {}):
            taking_part = set(detail["after"]["ships"])  # the ships chosen for the next one
        title = next((t for t in titles if entry.summary.startswith(f"{t} ")), None)
        if title is None or entry.kind not in ("begin", "close"):
            continue
        into = reading.start if entry.kind == "begin" else reading.end
        for ship_id, track in tracks.items():
            if names[ship_id] in taking_part:
                into[(title, names[ship_id])] = (track["structure_now"], track["flotation_now"])
    return reading


def _in_force(entries: list[JournalEntry], kind: str) -> list[JournalEntry]:
    return [e for e in entries if e.kind == kind and e.reverted_by_id is None]


# --- the tests ---------------------------------------------------------------------------------


@pytest.fixture
def story(factory: SessionFactory, world: World) -> tuple[Played, dict[int, str], JournalReading]:
    """The campaign played, its ships' names by id, and what its journal says."""
    played = play_campaign(factory, world)
    names = {ship_id: name for name, ship_id in played.ships.items()}
    return played, names, read_journal(factory, names, list(TITLES))


def test_every_figure_of_the_after_action_reports_is_the_journals(
    factory: SessionFactory, story: tuple[Played, dict[int, str], JournalReading]
) -> None:
    played, _, journal = story
    titles = list(TITLES)
    reports_ = [reports.after_action_report(factory, scenario_id=i) for i in played.scenario_ids]
    for report, title in zip(reports_, titles, strict=True):
        assert report.title == title
        for ship in report.ships:
            assert ship.start == journal.start[(title, ship.name)], (title, ship.name)
            assert ship.end == journal.end[(title, ship.name)], (title, ship.name)
    first, second, third = reports_
    assert [(s.name, s.side) for s in first.ships] == [
        ("Ajax", "Blue"), ("Exeter", "Blue"), ("Graf Spee", "Red")]  # fmt: skip
    assert [s.name for s in third.ships] == ["Ajax", "Graf Spee"]
    assert (first.outcome, first.notes, second.outcome, third.outcome) == (
        "Red withdraws", "Fog", "Exeter lost", "Draw")  # fmt: skip
    assert first.sides == (("Blue", "+2"), ("Red", ""))
    assert first.turns == 2

    # The undone hit on Exeter is not in the story: its tracks are untouched and no line says it.
    ajax, exeter, spee = first.ships
    assert exeter.end == exeter.start == (12, 10)
    undone = [e for e in journal.entries if e.reverted_by_id is not None]
    assert len(undone) == 1
    assert undone[0].id not in {line.entry_id for line in first.journal}
    # Criticals taken: the journal's entry that made it active, with the row's words.
    with session_scope(factory) as session:
        crits = session.exec(select(Critical).where(Critical.ship_id == played.ships["Ajax"])).all()
    assert [c.effect for c in crits] == ["Boiler room"]
    assert ajax.criticals == (
        reports.CriticalInForce(f"structural: Boiler room (turn {crits[0].turn})", False, False),
    )  # fmt: skip
    assert (exeter.criticals, spee.criticals) == ((), ())
    # Fire markers placed, from the journal's before and after (the close cleared them).
    assert (ajax.fire_markers, spee.fire_markers, exeter.fire_markers) == (2, 1, 0)

    # The second: Exeter sunk (its fate as confirmed), its commander lost with it.
    s_ajax, s_exeter, s_spee = second.ships
    assert (s_exeter.sunk, s_exeter.fate, s_exeter.end) == (True, "Sunk", (0, 10))
    assert not s_ajax.sunk and not s_spee.sunk and s_spee.end == (9, 8)
    condition = _in_force(journal.entries, "condition")
    assert len(condition) == 1 and "Harwood" in condition[0].summary
    assert second.commanders_lost == (
        reports.CommanderLost(squadron="Alpha", side="Blue", name="Harwood", ship="Exeter",
                              turn=condition[0].turn),
    )  # fmt: skip
    assert first.commanders_lost == third.commanders_lost == ()
    # Repairs between carry over: Ajax began the second at its first end + 2 Structure, with the
    # critical of the first still in force.
    assert s_ajax.start == (ajax.end[0] + 2, ajax.end[1])
    boiler = "structural: Boiler room, carried from scenario 1"
    carried = reports.CriticalInForce(boiler, carried=True, repaired=False)
    assert s_ajax.criticals == third.ships[0].criticals == (carried,)

    # The third: Ajax struck the mine; the journal's mine entry has the roll and the fuel lost.
    (mine_entry,) = _in_force(journal.entries, "mine")
    dice = json.loads(mine_entry.detail)["dice"]
    assert third.mines == (
        reports.MineStruck(ship="Ajax", side="Blue", turn=1,
                           dice=f"roll {dice['d6']} {dice['drm']:+d} = {dice['modified']}",
                           effects="fuel-2", fuel_lost=2),
    )  # fmt: skip
    assert (third.ships[0].mines_struck, third.ships[0].fuel_lost) == (1, 2)
    assert first.mines == second.mines == ()
    # The turn-by-turn journal: every entry in force from the begin to the close, with its dice.
    for report in reports_:
        lines = report.journal
        assert lines[0].kind == "begin" and lines[-1].kind == "close"
        assert [line.entry_id for line in lines] == sorted(line.entry_id for line in lines)
        by_id = {e.id: e for e in journal.entries}
        for line in lines:
            entry = by_id[line.entry_id]
            assert entry.reverted_by_id is None and entry.kind != "undo"
            # Every line is the scenario's own, the close too, at its last turn.
            assert entry.scenario_id == report.scenario_id and entry.turn is not None
            assert (line.summary, line.turn) == (entry.summary, entry.turn)
            assert line.dice == history.dice_text(json.loads(entry.detail))
    span = [e.id for e in journal.entries
            if third.journal[0].entry_id <= (e.id or 0) <= third.journal[-1].entry_id]  # fmt: skip
    assert [line.entry_id for line in third.journal] == span


def test_every_figure_of_the_campaign_report_is_the_journals(
    factory: SessionFactory, story: tuple[Played, dict[int, str], JournalReading]
) -> None:
    played, names, journal = story
    titles = list(TITLES)
    report = campaign_story.campaign_report(factory, campaign_id=played.campaign_id)
    assert [(s.position, s.title, s.status, s.outcome) for s in report.scenarios] == [
        (1, "First clash", "closed", "Red withdraws"), (2, "Second", "closed", "Exeter lost"),
        (3, "Third", "closed", "Draw"),
    ]  # fmt: skip
    assert [r.title for r in report.after_actions] == titles

    repairs = [json.loads(e.detail)["changes"][0] for e in _in_force(journal.entries, "repair")]
    repaired = {  # (ship, after scenario) -> (S, F), from the repair entries' before and after
        (names[c["id"]], position): (
            c["after"].get("structure_now", 0) - c["before"].get("structure_now", 0),
            c["after"].get("flotation_now", 0) - c["before"].get("flotation_now", 0))
        for c, position in zip(repairs, (1, 2, 2), strict=True)
    }  # fmt: skip
    records = {record.name: record for record in report.records}
    for name, record in records.items():
        fought = [t for t in titles if (t, name) in journal.start]
        assert [line.scenario for line in record.lines] == fought
        for line in record.lines:
            assert line.start == journal.start[(line.scenario, name)]
            assert line.end == journal.end[(line.scenario, name)]
            assert line.repaired == repaired.get((name, line.position), (0, 0))
    assert [line.criticals for line in records["Ajax"].lines] == [1, 0, 0]
    assert [line.fate for line in records["Exeter"].lines] == ["", "sunk"]
    assert records["Exeter"].sunk and not records["Ajax"].sunk
    # SMR2 points with the crew percentage: Alpha's crew is at training 4.
    percent = smr.crew_cost_percent(CREW_TRAINING)
    assert records["Exeter"].crew_percent == percent
    assert records["Exeter"].points == smr.points_with_crew(900, percent)
    assert (records["Graf Spee"].crew_percent, records["Graf Spee"].points) == (0, 1500)

    blue, red = report.sides
    assert (blue.side, red.side) == ("Blue", "Red")
    assert [row.ships_lost for row in blue.scenarios] == [(), ("Exeter",), ()]
    assert [row.points_lost for row in blue.scenarios] == [0, records["Exeter"].points, 0]
    assert (blue.ships_lost, blue.points_lost, red.ships_lost, red.points_lost) == (
        1, records["Exeter"].points, 0, 0)  # fmt: skip
    # Damage carried out of each scenario: what its ships afloat lacked of their maximum.
    for tally in report.sides:
        for row, title in zip(tally.scenarios, titles, strict=True):
            afloat = [
                r
                for r in records.values()
                if r.side == tally.side
                and (title, r.name) in journal.end
                and not (r.name == "Exeter" and title != "First clash")
            ]
            assert row.carried == (
                sum(r.structure_max - journal.end[(title, r.name)][0] for r in afloat),
                sum(r.flotation_max - journal.end[(title, r.name)][1] for r in afloat),
            ), (tally.side, title)  # fmt: skip
    assert [row.repaired for row in blue.scenarios] == [(2, 0), (0, 1), (0, 0)]
    assert [row.repaired for row in red.scenarios] == [(0, 0), (3, 0), (0, 0)]

    # The plots: each ship's start and end of each scenario it fought, as `h` shows them; each
    # side's sums over its ships taking part.
    series = {s.name: s for s in report.ship_series}
    assert series["Exeter"].labels == ("1s", "1e", "2s", "2e")
    assert series["Ajax"].structure == tuple(
        journal.start[(t, "Ajax")][0] if phase == "s" else journal.end[(t, "Ajax")][0]
        for t in titles for phase in "se"
    )  # fmt: skip
    for line in continuity.ship_history(factory, ship_id=played.ships["Ajax"]):
        index = series["Ajax"].labels.index(f"{line.position}e")
        assert (series["Ajax"].structure[index], series["Ajax"].flotation[index]) == line.end
    sides = {s.name: s for s in report.side_series}
    assert sides["Blue"].labels == ("1s", "1e", "2s", "2e", "3s", "3e")
    assert sides["Blue"].structure[1] == sum(journal.end[("First clash", n)][0]
                                             for n in ("Ajax", "Exeter"))  # fmt: skip
    assert sides["Red"].flotation[3] == journal.end[("Second", "Graf Spee")][1]


def test_a_scenario_not_closed_has_no_after_action_report(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    error = refused(lambda: reports.after_action_report(factory, scenario_id=world.scenario_id),
                    "scenario")  # fmt: skip
    assert "planned" in str(error) and "closed" in str(error)


def test_a_side_of_another_campaign_is_refused(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    other = campaigns.create_campaign(factory, name="Elsewhere")
    stranger = campaigns.create_side(factory, campaign_id=other.id, name="Green").id
    error = refused(lambda: campaign_story.campaign_report(
        factory, campaign_id=world.campaign_id, side_id=stranger), "side")  # fmt: skip
    assert "another campaign" in str(error)


# --- secrets ----------------------------------------------------------------------------------


SECRET = st.from_regex(r"[A-Z]{4}[0-9]{4}", fullmatch=True)
Pair = tuple[tuple[str, str], tuple[str, str]]
# Two secrets for Red, two for Blue, all different: (Red's, Blue's).
SIDES_SECRETS = st.lists(SECRET, min_size=4, max_size=4, unique=True).map(
    lambda s: ((s[0], s[1]), (s[2], s[3]))
)
PASSPHRASE = "tide tables"


def sow_secret(factory: SessionFactory, side_id: int, sector: str, layer: str) -> None:
    mines.sow_minefield(factory, side_id=side_id, laid_by="surface", sector=sector,
                        layer_name=layer, complete=True, secret=True,
                        passphrase=PASSPHRASE)  # fmt: skip


def secret_campaign(
    factory: SessionFactory, red: tuple[str, str], blue: tuple[str, str]
) -> tuple[int, int, int, int]:
    """A scenario in which each side sows a secret minefield, then closed; (campaign, scenario,
    Blue, Red), each side under a passphrase."""
    campaign = campaigns.create_campaign(factory, name="Secrets").id
    scenario = campaigns.add_scenario(factory, campaign_id=campaign, title="Night").id
    blue_id = campaigns.create_side(factory, campaign_id=campaign, name="Blue").id
    red_id = campaigns.create_side(factory, campaign_id=campaign, name="Red").id
    squadron = fleet.create_squadron(factory, side_id=blue_id, name="Alpha")
    ship = _ship(factory, squadron, "Ajax", 9, 8, 400)
    for side_id in (blue_id, red_id):
        sealing.set_passphrase(factory, side_id=side_id, passphrase=PASSPHRASE)
    _play(factory, scenario, [ship])
    sow_secret(factory, red_id, *red)
    sow_secret(factory, blue_id, *blue)
    scenarios.close_scenario(factory, scenario_id=scenario)
    return campaign, scenario, blue_id, red_id


def assert_secrets(secrets: Sequence[str], *, owned: Sequence[str], others: Sequence[str]) -> None:
    """Each secret is in every text its owner reads, and in none of the others."""
    for secret in secrets:
        assert all(secret in text for text in owned), secret
        assert not any(secret in text for text in others), secret


@settings(max_examples=examples(6))
@given(sides=SIDES_SECRETS)
def test_a_sides_report_holds_its_own_secrets_and_none_of_the_other_sides(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, sides: Pair
) -> None:
    red, blue = sides
    with fresh_factory(tmp_path_factory, migrated_template, "secrets") as factory:
        campaign, scenario, blue_id, red_id = secret_campaign(factory, red, blue)
        for_blue = repr(campaign_story.campaign_report(
            factory, campaign_id=campaign, side_id=blue_id, passphrase=PASSPHRASE))  # fmt: skip
        for_all = repr(reports.after_action_report(factory, scenario_id=scenario))
        for_red = repr(reports.after_action_report(
            factory, scenario_id=scenario, side_id=red_id, passphrase=PASSPHRASE))  # fmt: skip
    assert_secrets(red, owned=[for_red], others=[for_blue, for_all])
    assert_secrets(blue, owned=[for_blue], others=[for_red, for_all])


def test_a_sides_report_needs_its_passphrase(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> None:
    with fresh_factory(tmp_path_factory, migrated_template, "locked") as factory:
        campaign, _, blue_id, _ = secret_campaign(factory, ("AAAA0000", "BBBB0000"),
                                                  ("CCCC0000", "DDDD0000"))  # fmt: skip
        for passphrase in (None, "not the one"):
            with pytest.raises(InvalidInput) as caught:
                campaign_story.campaign_report(factory, campaign_id=campaign, side_id=blue_id,
                                               passphrase=passphrase)  # fmt: skip
            assert "passphrase" in caught.value.errors
