"""The story reads history, not today's state: what a report says of a scenario is what stood
then (its criticals in force, carried ones too; the ships afloat and their names; each side's
totals), whatever happened since; and every roll it shows reads as a roll, not as a die."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from depth import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Critical, Ship
from tracker.models.fleet import ShipCreate
from tracker.publish import report_pages, sheet_pages
from tracker.services import (
    campaign_story,
    campaigns,
    command,
    damage,
    fleet,
    history,
    repairs,
    reports,
    scenarios,
)
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.fleet import ShipFields

SETTINGS = settings(max_examples=examples(8), deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
NAMES = itertools.count(1)  # each example's campaign is a new one in the test's database
# A die written as its size ("d5") where a roll is meant; "roll 5" is how a roll reads.
DIE = re.compile(r"\bd\d+\b")


@dataclass
class Fleet:
    """A campaign of three scenarios, two sides: Blue's Alpha (Ajax, Exeter) and Bravo
    (Achilles), Red's Raider (Graf Spee)."""

    campaign_id: int
    scenarios: list[int]
    sides: dict[str, int]
    squadrons: dict[str, int]
    ships: dict[str, int]
    maxima: dict[str, tuple[int, int]] = field(default_factory=dict)


SHIPS = {"Ajax": ("Alpha", 9, 8), "Exeter": ("Alpha", 12, 10), "Achilles": ("Bravo", 9, 6),
         "Graf Spee": ("Raider", 14, 12)}  # fmt: skip
SIDE_OF = {"Alpha": "Blue", "Bravo": "Blue", "Raider": "Red"}


def new_fleet(factory: SessionFactory) -> Fleet:
    campaign = campaigns.create_campaign(factory, name=f"History {next(NAMES)}").id
    titles = ("First", "Second", "Third")
    ids = [campaigns.add_scenario(factory, campaign_id=campaign, title=t).id for t in titles]
    sides = {name: campaigns.create_side(factory, campaign_id=campaign, name=name).id
             for name in ("Blue", "Red")}  # fmt: skip
    squadrons = {name: fleet.create_squadron(factory, side_id=sides[side], name=name)
                 for name, side in SIDE_OF.items()}  # fmt: skip
    for squadron in squadrons.values():
        command.set_crew(factory, squadron_id=squadron, training=3, acquisition="direct")
    story = Fleet(campaign, ids, sides, squadrons, {})
    for name, (squadron, s, f) in SHIPS.items():
        fields = ShipFields(name=name, type_abbrev="CA", structure_max=s, flotation_max=f,
                            points_base=100 * s)  # fmt: skip
        story.ships[name] = fleet.create_ship(factory, squadron_id=squadrons[squadron],
                                              fields=fields)  # fmt: skip
        story.maxima[name] = (s, f)
    return story


def begin(factory: SessionFactory, scenario_id: int, ships: list[int]) -> None:
    scenarios.set_participants(factory, scenario_id=scenario_id, ship_ids=ships)
    scenarios.start_scenario(factory, scenario_id=scenario_id)


def afloat(factory: SessionFactory, ship_ids: list[int]) -> list[int]:
    with session_scope(factory) as session:
        rows = session.exec(select(Ship).where(col(Ship.id).in_(ship_ids))).all()
        return [row.id or 0 for row in rows if not row.sunk]


# --- SMR2 criticals carried from one linked scenario to the next -------------------------------


@dataclass(frozen=True)
class Step:
    """One scenario for one ship: criticals taken (their rolls), which of those in force are
    repaired in play (a mask over them, oldest first), and which cleared between scenarios."""

    rolls: tuple[int, ...]
    fixed: int
    cleared: int


STEPS = st.lists(
    st.builds(Step, st.lists(st.integers(1, 10), max_size=2).map(tuple), st.integers(0, 7),
              st.integers(0, 7)),
    min_size=3, max_size=3,
)  # fmt: skip


def _picked(mask: int, items: list[int]) -> list[int]:
    return [item for index, item in enumerate(items) if mask >> index & 1]


@SETTINGS
@given(steps=STEPS)
def test_smr2_2_6_each_report_shows_the_criticals_in_force_then_carried_ones_too(
    factory: SessionFactory, steps: list[Step]
) -> None:
    """A critical stays in force from one linked scenario to the next until repaired; each
    scenario's report lists every one in force in it: carried in (with the scenario it came
    from), taken in it (roll and turn), and those repaired in play (the turn)."""
    story = new_fleet(factory)
    ajax = story.ships["Ajax"]
    in_force: list[tuple[int, str, int, int]] = []  # (critical, effect, roll, scenario taken in)
    expected = []
    numbers = itertools.count(1)
    for position, (scenario_id, step) in enumerate(zip(story.scenarios, steps, strict=True), 1):
        begin(factory, scenario_id, [ajax, story.ships["Graf Spee"]])
        carried = list(in_force)
        taken = []
        if step.rolls:
            requests = tuple(CriticalRequest(effect=f"C{next(numbers)}", roll=roll)
                             for roll in step.rolls)  # fmt: skip
            damage.record_hit(factory, request=HitRequest(ship_id=ajax, criticals=requests))
            with session_scope(factory) as session:
                rows = session.exec(select(Critical).where(Critical.ship_id == ajax)
                                    .order_by(col(Critical.id))).all()  # fmt: skip
                taken = [
                    (c.id or 0, c.effect, c.roll or 0, position) for c in rows[-len(requests) :]
                ]
        in_force += taken
        scenarios.advance_turn(factory, scenario_id=scenario_id)
        fixes = _picked(step.fixed, list(range(1, len(in_force) + 1)))
        if fixes:
            damage.record_hit(factory, request=HitRequest(ship_id=ajax, fixes=tuple(fixes)))
        fixed = {in_force[n - 1][0] for n in fixes}
        expected.append([
            (f"structural: {effect} (roll {roll}), carried from scenario {came}", True, c in fixed)
            for c, effect, roll, came in carried
        ] + [(f"structural: {effect} (roll {roll}, turn 1)", False, c in fixed)
             for c, effect, roll, _ in taken])  # fmt: skip
        in_force = [c for c in in_force if c[0] not in fixed]
        scenarios.close_scenario(factory, scenario_id=scenario_id)
        cleared = _picked(step.cleared, [c[0] for c in in_force])
        if cleared:
            repairs.repair_ship(factory, ship_id=ajax, clear_criticals=cleared)
        in_force = [c for c in in_force if c[0] not in cleared]

    story_ = campaign_story.campaign_report(factory, campaign_id=story.campaign_id)
    for report, wanted in zip(story_.after_actions, expected, strict=True):
        assert reports.after_action_report(factory, scenario_id=report.scenario_id) == report
        (shown,) = [s for s in report.ships if s.ship_id == ajax]
        said = [(c.text.removesuffix(", repaired turn 2"), c.carried, c.repaired)
                for c in shown.criticals]  # fmt: skip
        assert said == wanted, report.title
        assert all(c.text.endswith(", repaired turn 2") == c.repaired for c in shown.criticals)
        assert shown.taken == sum(not carried for _, carried, _ in wanted)
        # Every page shows each one as the report has it.
        page = report_pages.render(report, fmt="markdown")
        assert all(c.text in page for c in shown.criticals)
    records = {r.name: r for r in story_.records}
    assert [line.criticals for line in records["Ajax"].lines] == [len(s.rolls) for s in steps]


# --- a side's totals in the plots ----------------------------------------------------------------


@dataclass(frozen=True)
class Battle:
    """One scenario: which of Blue's ships sit it out (a mask), the Structure each ship taking
    part loses (sunk at zero), and Structure repaired on each afterwards."""

    out: int
    hits: tuple[int, int, int, int]
    repairs: tuple[int, int, int, int]


# Graf Spee (14 Structure) loses at most 4 a battle: she sails into every scenario.
HITS = st.tuples(*[st.integers(0, 12)] * 3, st.integers(0, 4))
BATTLES = st.lists(
    st.builds(Battle, st.integers(0, 7), HITS, st.tuples(*[st.integers(0, 3)] * 4)),
    min_size=2, max_size=3,
)  # fmt: skip


@SETTINGS
@given(battles=BATTLES)
def test_a_sides_plot_counts_every_ship_all_along_sunk_ones_as_zero(
    factory: SessionFactory, battles: list[Battle]
) -> None:
    """At each scenario's start and end a side's plot sums all its ships as they stood: a ship
    sunk counts 0, one sitting the scenario out counts its carried state; its 1/3 lines are a
    third of their full Structure and Flotation (SMR2 §2). Read here from the ships' own rows
    at each begin and close."""
    story = new_fleet(factory)
    names = list(SHIPS)
    seen: dict[str, list[tuple[int, int, int, int]]] = {"Blue": [], "Red": []}

    def look() -> None:
        with session_scope(factory) as session:
            for side in seen:
                ships = [session.get(Ship, story.ships[n]) for n in names
                         if SIDE_OF[SHIPS[n][0]] == side]  # fmt: skip
                seen[side].append((
                    sum(s.structure_now for s in ships if s and not s.sunk),
                    sum(s.flotation_now for s in ships if s and not s.sunk),
                    sum(s.structure_max for s in ships if s),
                    sum(s.flotation_max for s in ships if s),
                ))  # fmt: skip

    for index, (scenario_id, battle) in enumerate(zip(story.scenarios, battles, strict=False)):
        # Every ship fights the first scenario: no ship joins its side's plot later.
        out = set() if index == 0 else set(_picked(battle.out, names[:3]))
        ships = afloat(factory, [story.ships[n] for n in names if n not in out])
        begin(factory, scenario_id, ships)
        look()
        for name, lost in zip(names, battle.hits, strict=True):
            ship = story.ships[name]
            if ship in ships and lost:
                result = damage.record_hit(factory, request=HitRequest(ship_id=ship,
                                                                       structure=lost))  # fmt: skip
                if result.structure.after == 0:
                    damage.confirm_condition(factory, ship_id=ship, outcome="Sunk")
        scenarios.close_scenario(factory, scenario_id=scenario_id)
        look()
        for name, repaired in zip(names, battle.repairs, strict=True):
            ship = story.ships[name]
            with session_scope(factory) as session:
                row = session.get(Ship, ship)
                room = 0 if row is None or row.sunk else row.structure_max - row.structure_now
            if min(repaired, room):
                repairs.repair_ship(factory, ship_id=ship, structure=min(repaired, room))

    story_ = campaign_story.campaign_report(factory, campaign_id=story.campaign_id)
    plots = {series.name: series for series in story_.side_series}
    for side, points in seen.items():
        series = plots[side]
        labels = [f"{n}{phase}" for n in range(1, len(battles) + 1) for phase in "se"]
        assert list(series.labels) == labels
        assert list(zip(series.structure, series.flotation, series.structure_full,
                        series.flotation_full, strict=True)) == points, side  # fmt: skip
        assert series.thirds == (tuple(p[2] / 3 for p in points), tuple(p[3] / 3 for p in points))
        assert "sunk counts 0" in series.note


# --- an earlier scenario's report after today's rows have moved on ------------------------------


Change = Callable[[SessionFactory, Fleet], None]


def _edit_ship(factory: SessionFactory, ship_id: int, **values: object) -> None:
    with session_scope(factory) as session:
        ship = session.get(Ship, ship_id)
        assert ship is not None
        fields = {key: getattr(ship, key) for key in ShipCreate.model_fields}
    fleet.update_ship(factory, ship_id=ship_id, fields={**fields, **values})


def _play_second(factory: SessionFactory, story: Fleet) -> None:
    """The next scenario: Graf Spee sunk in it, the critical on Ajax repaired in play."""
    ships = afloat(factory, list(story.ships.values()))
    begin(factory, story.scenarios[1], ships)
    spee = story.ships["Graf Spee"]
    damage.record_hit(factory, request=HitRequest(ship_id=spee, structure=14))
    damage.confirm_condition(factory, ship_id=spee, outcome="Sunk")
    damage.record_hit(factory, request=HitRequest(ship_id=story.ships["Ajax"], fixes=(1,)))
    scenarios.close_scenario(factory, scenario_id=story.scenarios[1])


CHANGES: dict[str, Change] = {
    "rename a ship": lambda f, s: _edit_ship(f, s.ships["Ajax"], name="Ajax (renamed)"),
    "give a ship new values": lambda f, s: _edit_ship(
        f, s.ships["Ajax"], structure_max=20, flotation_max=16, points_base=5, type_abbrev="CL"
    ),
    "rename a side": lambda f, s: campaigns.update_side(
        f, side_id=s.sides["Blue"], name="RN", nation=""
    ),
    "rename a squadron": lambda f, s: fleet.update_squadron(
        f, squadron_id=s.squadrons["Alpha"], name="Force G", air=False, notes=""
    ),
    "re-roll a crew": lambda f, s: command.set_crew(
        f, squadron_id=s.squadrons["Alpha"], training=5, acquisition="direct"
    ),
    "transfer a ship": lambda f, s: fleet.transfer_ship(
        f, ship_id=s.ships["Achilles"], to_squadron_id=s.squadrons["Alpha"]
    ),
    "repair between": lambda f, s: repairs.repair_ship(f, ship_id=s.ships["Ajax"], structure=2),
    "play the next, sinking a ship": _play_second,
}


def _first(factory: SessionFactory) -> Fleet:
    """The first scenario played and closed: Ajax takes a critical (roll 5) and damage, Exeter
    is sunk."""
    story = new_fleet(factory)
    begin(factory, story.scenarios[0], list(story.ships.values()))
    ajax, exeter = story.ships["Ajax"], story.ships["Exeter"]
    engine_room = (CriticalRequest(effect="Engine room hit", roll=5),)
    damage.record_hit(factory, request=HitRequest(ship_id=ajax, structure=4, criticals=engine_room))
    damage.record_hit(factory, request=HitRequest(ship_id=exeter, structure=12))
    damage.confirm_condition(factory, ship_id=exeter, outcome="Sunk")
    scenarios.close_scenario(factory, scenario_id=story.scenarios[0], outcome="Won")
    return story


def _pages(factory: SessionFactory, story: Fleet) -> tuple[object, ...]:
    """The first scenario's report and every page of it, and its part of the campaign report."""
    report = reports.after_action_report(factory, scenario_id=story.scenarios[0])
    whole = campaign_story.campaign_report(factory, campaign_id=story.campaign_id)
    side_rows = tuple((t.scenarios[0].ships_lost, t.scenarios[0].points_lost,
                       t.scenarios[0].carried) for t in whole.sides)  # fmt: skip
    plots = tuple((s.labels[:2], s.structure[:2], s.flotation[:2], s.structure_full[:2])
                  for s in whole.side_series)  # fmt: skip
    html = re.sub(r"chart-[0-9a-f-]+", "chart", report_pages.render(report))
    return (report, whole.after_actions[0], side_rows, plots, html,
            report_pages.render(report, fmt="markdown"))  # fmt: skip


@SETTINGS
@given(changes=st.lists(st.sampled_from(sorted(CHANGES)), unique=True, min_size=1))
@example(changes=sorted(CHANGES))
def test_a_closed_scenarios_report_is_unchanged_by_anything_done_since(
    factory: SessionFactory, changes: list[str]
) -> None:
    """Renames, new values, a crew re-rolled, a transfer, repairs and the next battle (a ship
    sunk there, a critical repaired) change today's rows; the earlier report reads then."""
    story = _first(factory)
    before = _pages(factory, story)
    for change in changes:
        CHANGES[change](factory, story)
    assert _pages(factory, story) == before
    report = before[0]
    assert isinstance(report, reports.AfterActionReport)
    assert [(s.name, s.side, s.squadron, s.sunk) for s in report.ships] == [
        ("Ajax", "Blue", "Alpha", False), ("Exeter", "Blue", "Alpha", True),
        ("Achilles", "Blue", "Bravo", False), ("Graf Spee", "Red", "Raider", False)]  # fmt: skip


def test_names_of_the_time_read_through_the_journal_and_today_after_the_last(
    factory: SessionFactory,
) -> None:
    """The campaign report's after-action reports each name ships, sides and squadrons as they
    were named when that scenario closed; its service records name them as today."""
    story = _first(factory)
    CHANGES["rename a ship"](factory, story)
    CHANGES["rename a side"](factory, story)
    CHANGES["rename a squadron"](factory, story)
    CHANGES["play the next, sinking a ship"](factory, story)
    first, second = campaign_story.campaign_report(
        factory, campaign_id=story.campaign_id
    ).after_actions
    ajax = story.ships["Ajax"]
    then, now = (next(s for s in report.ships if s.ship_id == ajax) for report in (first, second))
    assert (then.name, then.side, then.squadron) == ("Ajax", "Blue", "Alpha")
    assert (now.name, now.side, now.squadron) == ("Ajax (renamed)", "RN", "Force G")
    assert next(line.ship for line in first.journal if line.ship) == "Ajax"
    assert first.sides[0][0] == "Blue" and second.sides[0][0] == "RN"


# --- rolls read as rolls -----------------------------------------------------------------------


def test_every_roll_the_story_shows_reads_as_a_roll(factory: SessionFactory) -> None:
    """A critical's roll, a crew test's d10, the criticals' dice: "roll 5", never "d5" (a die
    of five sides), in the reports, their pages and the printed record sheet."""
    story = _first(factory)
    command.record_test(factory, squadron_id=story.squadrons["Alpha"], subject="crew", roll=7)
    report = reports.after_action_report(factory, scenario_id=story.scenarios[0])
    (ajax,) = [s for s in report.ships if s.name == "Ajax"]
    assert ajax.criticals[0].text == "structural: Engine room hit (roll 5, turn 1)"
    dice = [line.dice for line in report.journal if line.dice]
    assert "structural critical roll 5" in dice
    entries = history.list_entries(factory, campaign_id=story.campaign_id)
    assert any(e.dice.startswith("roll 7 ") for e in entries)
    printed = sheet_pages.squadron_page(
        factory, squadron_id=story.squadrons["Alpha"], fmt="markdown"
    )
    assert "Engine room hit (roll 5, turn 1)" in printed
    texts = [*dice, *(e.dice for e in entries), *(c.text for c in ajax.criticals), printed,
             report_pages.render(report, fmt="markdown")]  # fmt: skip
    assert not [found for text in texts for found in DIE.findall(text)]
