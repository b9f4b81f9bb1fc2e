"""Generated junk into every service that takes a player's input, the CSV importer and the campaign
file importer (hypothesis).

The property, for each call: it either succeeds, and then every campaign in the database still
exports to a document the importer accepts (every number within its model's bounds and the
32-bit integers PostgreSQL keeps, every text within its column and free of control characters,
every word one of its choices) and still reads back through the screens' services; or it
raises the tracker's own InvalidInput or NotFound and the database is exactly as it was. Any
other exception is a defect of the product.

Each test builds its campaign once (a copy of a template file on SQLite, built through the
services on PostgreSQL) and its examples run one after another on it, so later examples meet
the state earlier ones left. Arguments are plausible (what a form would send) with junk mixed
in: none, one or several of them junk. Examples are derandomized, so CI sees the same inputs
every run; PostgreSQL runs half as many as SQLite, and TRACKER_FUZZ_SCALE=N runs N times as
many for a deeper search by hand.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from campaign_files import PASSPHRASE, full_sample_campaign
from depth import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from service_helpers import Snapshot, pg_copied, pg_copy
from sqlalchemy import Engine
from sqlmodel import SQLModel

from tracker.db import SessionFactory, make_engine, migrate, session_factory
from tracker.models.fleet import MOUNTS
from tracker.models.mines import APPLIES_TO, COUNTER_SIZES, LAYERS
from tracker.models.roster import UNIT_TYPES
from tracker.rules import smr, was
from tracker.rules.was import ConcealCause
from tracker.services import (
    campaigns,
    command,
    continuity,
    csv_import,
    damage,
    exchange,
    fleet,
    history,
    hunt,
    markers,
    mines,
    printing,
    repairs,
    roster,
    rule_tables,
    scenarios,
    sealing,
    sheet,
)
from tracker.services.errors import ChangedElsewhere, InvalidInput, NotFound

# --- junk and plausible input ------------------------------------------------------------------

INT32 = 2**31 - 1
# Any code point: control characters and halves of surrogate pairs too.
_ANY_CHAR = st.characters(codec=None) | st.characters(categories=("Cs", "Cc"))
_ODD_TEXTS = [
    "", " ", " Exeter ", "[bold]Ajax[/]", "<b>x</b>", "[red", "x\x00y", "a\x07b", "\ud800",
    "tab\there", "line\nbreak", "🚢", "Émile", "sunk", "long", "small", "none", "%", "_",
    "'; DROP TABLE ship; --", "fuel-99 fuel-99", "1e9", "-0", "\u0663", "\uff10",
]  # fmt: skip
TEXT = st.one_of(
    st.text(max_size=12),
    st.text(_ANY_CHAR, max_size=8),
    st.sampled_from(_ODD_TEXTS),
    # Very long: far past every column's limit.
    st.builds(str.__mul__, st.sampled_from(["x", "é", "\x00", "🚢", " "]), st.integers(0, 5000)),
)
HUGE = st.sampled_from(
    [INT32, INT32 + 1, -INT32 - 2, 2**53, 2**63 - 1, 2**63, -(2**63) - 1, 2**70, -(2**70)]
)
INTS = st.one_of(st.integers(-3, 25), st.integers(-(2**70), 2**70), HUGE)
BOOLS = st.booleans()


@dataclass(frozen=True)
class Arg:
    """An argument's plausible values (what a form would send) and its junk."""

    plausible: st.SearchStrategy[Any]
    junk: st.SearchStrategy[Any]


def text(*words: str) -> Arg:
    """Text: one of the words or short letters and digits, or any junk."""
    letters = st.text(st.characters(categories=("L", "N", "P", "Zs")), min_size=1, max_size=10)
    return Arg(st.sampled_from(words) | letters if words else letters, TEXT)


def choice(*words: str) -> Arg:
    """One of a few words; junk is any text (a wrong choice)."""
    return Arg(st.sampled_from(words), TEXT)


def number(low: int, high: int) -> Arg:
    return Arg(st.integers(low, high), INTS)


def maybe(arg: Arg) -> Arg:
    """None where the type allows it."""
    return Arg(st.none() | arg.plausible, st.none() | arg.junk)


def ids(pool: tuple[int, ...]) -> Arg:
    """An id of the right kind; junk is one of another kind, of no row, or far out of range."""
    return Arg(st.sampled_from(pool), st.integers(-2, 80) | HUGE)


def many(arg: Arg, max_size: int = 4, *, unique: bool = False) -> Arg:
    """A list: plausible, or holding junk (or none at all, or one twice)."""
    plausible = st.lists(arg.plausible, min_size=1, max_size=max_size, unique=unique)
    return Arg(plausible, st.lists(arg.plausible | arg.junk, max_size=max_size))


FLAG = Arg(BOOLS, BOOLS)
# The hunters a search form sends (RULES.md §Subs ¶4); junk counts and searchers are refused.
SEARCH_PARTY = Arg(
    st.builds(hunt.SearchParty, st.sampled_from(was.SEARCHERS), *[st.integers(0, 5)] * 3,
              BOOLS),
    st.builds(hunt.SearchParty, TEXT, *[INTS] * 3, BOOLS),
)  # fmt: skip
PASSWORDS = Arg(st.sampled_from([None, PASSPHRASE]), st.sampled_from([None, "wrong-one"]) | TEXT)


def kw(**arguments: Arg) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments: all plausible, or one of them junk, or any of them junk."""
    keys = sorted(arguments)

    def build(junked: frozenset[str]) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {key: arguments[key].junk if key in junked else arguments[key].plausible
             for key in keys}
        )  # fmt: skip

    junked = st.one_of(
        st.just(frozenset[str]()),
        st.sampled_from(keys).map(lambda key: frozenset({key})),
        st.frozensets(st.sampled_from(keys)),
    )
    return junked.flatmap(build)


def made(build: Callable[..., Any], **arguments: Arg) -> Arg:
    """A value built from keyword arguments (ShipFields, a HitRequest): junk inside it."""
    built = kw(**arguments).map(lambda values: build(**values))
    return Arg(built, built)


# --- the campaign the calls work on ----------------------------------------------------------


@dataclass(frozen=True)
class Fuzz:
    """One campaign with a little of everything, and the ids a generated call may aim at."""

    campaigns: tuple[int, ...]
    scenarios: tuple[int, ...]
    sides: tuple[int, ...]
    squadrons: tuple[int, ...]
    ships: tuple[int, ...]
    batteries: tuple[int, ...]
    criticals: tuple[int, ...]
    table_rows: tuple[int, ...]
    units: tuple[int, ...]
    markers: tuple[int, ...]
    seals: tuple[str, ...]
    boundaries: tuple[int, ...]
    minefields: tuple[int, ...]
    mine_rows: tuple[int, ...]
    checks: tuple[int, ...]
    entries: tuple[int, ...]


def build_fuzz(factory: SessionFactory) -> Fuzz:
    """Blue (no passphrase) and Red (PASSPHRASE) with squadrons, ships with counters and fuel,
    a critical, the campaign's tables, submarines (one with a marker revealed, one without
    markers), boundaries, minefields (one drifting, one being sown by a submarine, one
    secret), the first scenario in play with every ship, the second planned with two, a mine
    check in progress and an undo to redo."""
    campaign = campaigns.create_campaign(factory, name="Fuzz")
    first = campaigns.add_scenario(factory, campaign_id=campaign.id, title="First")
    second = campaigns.add_scenario(factory, campaign_id=campaign.id, title="Second")
    blue = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue")
    red = campaigns.create_side(factory, campaign_id=campaign.id, name="Red")
    alpha = fleet.create_squadron(factory, side_id=blue.id, name="Alpha")
    bravo = fleet.create_squadron(factory, side_id=blue.id, name="Bravo")
    raider = fleet.create_squadron(factory, side_id=red.id, name="Raider")
    command.set_commander(factory, squadron_id=alpha, name="Harwood", training=3,
                          acquisition="random", roll=5)  # fmt: skip
    command.set_crew(factory, squadron_id=alpha, training=3, acquisition="direct")

    def ship(squadron: int, name: str) -> int:
        fields = fleet.ShipFields(name=name, structure_max=9, flotation_max=8, speed_kn=30,
                                  type_abbrev="SS" if name == "Seal" else "CL")  # fmt: skip
        return fleet.create_ship(factory, squadron_id=squadron, fields=fields)

    exeter, ajax, seal, spee = (ship(alpha, "Exeter"), ship(alpha, "Ajax"),
                                ship(bravo, "Seal"), ship(raider, "Spee"))  # fmt: skip
    ships = (exeter, ajax, seal, spee)
    battery = fleet.save_battery(factory, ship_id=exeter, mount="turret", calibre="8in", guns=6)
    table = rule_tables.save_table_row(
        factory, campaign_id=campaign.id, kind="structural", low=1, high=10, effect="Fire",
        stat="fire_markers", amount=1,
    )  # fmt: skip
    crit = damage.CriticalRequest(effect="B turret")
    damage.record_hit(factory, request=damage.HitRequest(ship_id=exeter, structure=1,
                                                         criticals=(crit,)))  # fmt: skip
    criticals = tuple(view.id for view in damage.list_criticals(factory, ship_id=exeter))
    for ship_id, size, speed, torpedoes, loaded in ((exeter, "long", 2, 0, 0),
                                                    (ajax, "small", 3, 4, 0),
                                                    (seal, "small", 1, 4, 2),
                                                    (spee, "long", 2, 0, 0)):  # fmt: skip
        mines.save_counter(factory, ship_id=ship_id, counter_size=size, speed_rating=speed,
                           torpedo_factors=torpedoes, mines_loaded=loaded, fuel_full=5,
                           hull_boxes=3)  # fmt: skip
    mines.use_fuel(factory, ship_id=exeter, factors=3)  # empty factors to refuel
    mine_rows = (
        mines.save_mine_row(factory, campaign_id=campaign.id, low=1, high=6, effects="none"),
        mines.save_mine_row(
            factory, campaign_id=campaign.id, low=7, high=11, effects="fuel-1", applies_to="long"
        ),
    )
    units = tuple(
        roster.save_unit(factory, side_id=side, fields=roster.UnitFields(
            name=name, unit_type=kind, points=10, hull_points=2))
        for side, name, kind in ((blue.id, "U-47", "submarine"), (blue.id, "Dido", "cruiser"),
                                 (red.id, "U-32", "submarine"), (blue.id, "U-99", "submarine"))
    )  # fmt: skip
    seals = tuple(
        seal
        for unit, sectors in ((units[0], ("A1", "A2")), (units[2], ("B2", "B3")))
        for seal in markers.assign_markers(factory, unit_id=unit, real=1, sectors=sectors).seals
    )
    sealing.set_passphrase(factory, side_id=red.id, passphrase=PASSPHRASE)
    marker_ids = tuple(marker.id for side in (blue.id, red.id)
                       for marker in roster.roster(factory, side_id=side).markers)  # fmt: skip
    boundary = mines.add_boundary(factory, campaign_id=campaign.id, area_a="North", area_b="South")
    other = mines.add_boundary(factory, campaign_id=campaign.id, area_a="East", area_b="West")
    minefields = (
        mines.sow_minefield(factory, side_id=blue.id, laid_by="surface", boundary_id=boundary,
                            complete=True, drifting=True, notes="off Lobos"),
        mines.sow_minefield(factory, side_id=blue.id, laid_by="submarine", layer_ship_id=seal,
                            sector="C3"),
        mines.sow_minefield(factory, side_id=red.id, laid_by="surface", sector="D4",
                            complete=True, drifting=True, secret=True, passphrase=PASSPHRASE),
    )  # fmt: skip
    scenarios.set_participants(factory, scenario_id=second.id, ship_ids=[exeter, spee])
    scenarios.set_participants(factory, scenario_id=first.id, ship_ids=list(ships))
    scenarios.start_scenario(factory, scenario_id=first.id)
    u47 = next(m.id for m in roster.roster(factory, side_id=blue.id, owner=True).markers if m.real)
    hunt.record_search(factory, marker_id=u47, party=hunt.SearchParty("aircraft"), roll=6)
    hunt.attack_marker(factory, marker_id=u47, success=True)  # U-47 revealed
    # A task force is one side's ships (RULES.md §Mines): Blue's three.
    check = mines.start_check(factory, minefield_id=minefields[0], ship_ids=[exeter, ajax, seal],
                              speed=1, seed=1)  # fmt: skip
    damage.record_hit(factory, request=damage.HitRequest(ship_id=ajax, structure=1))
    fleet.add_fire_markers(factory, ship_id=ajax, delta=2)
    history.undo_last(factory, campaign_id=campaign.id)  # so that there is a redo
    entries = tuple(entry.id for entry in history.list_entries(factory, campaign_id=campaign.id))
    return Fuzz(
        campaigns=(campaign.id,), scenarios=(first.id, second.id), sides=(blue.id, red.id),
        squadrons=(alpha, bravo, raider), ships=ships, batteries=(battery,),
        criticals=criticals, table_rows=(table,), units=units, markers=marker_ids,
        seals=seals, boundaries=(boundary, other), minefields=minefields, mine_rows=mine_rows,
        checks=(check,), entries=entries,
    )  # fmt: skip


def close_in_play(factory: SessionFactory, fuzz: Fuzz) -> None:
    """Before an example that needs no scenario in play (start, reopen): close the one that is."""
    for view in campaigns.get_overview(factory, campaign_id=fuzz.campaigns[0]).scenarios:
        if view.status == "in_play":
            scenarios.close_scenario(factory, scenario_id=view.id)


def no_check_running(factory: SessionFactory, fuzz: Fuzz) -> None:
    """Before an example of start_check: abandon the mine check in progress."""
    running = mines.current_check(factory, campaign_id=fuzz.campaigns[0])
    if running is not None:
        mines.abandon_check(factory, check_id=running)


@pytest.fixture(scope="session")
def fuzz_template(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> tuple[Path, Fuzz]:
    """The fuzz campaign built once in a file; each SQLite test gets its own copy."""
    path = tmp_path_factory.mktemp("fuzz") / "campaign.db"
    shutil.copyfile(migrated_template, path)
    engine = make_engine(str(path))
    built = build_fuzz(session_factory(engine))
    assert_reads_back(session_factory(engine))  # where every test starts reads back valid
    engine.dispose()
    return path, built


@pytest.fixture
def engine(
    request: pytest.FixtureRequest, backend: str, db_path: Path, fuzz_template: tuple[Path, Fuzz]
) -> Iterator[Engine]:
    """This test's database with the fuzz campaign in it (see `fuzz`)."""
    if backend == "postgresql":
        pg: Engine = request.getfixturevalue("pg_engine")
        pg_copy(pg, "fuzz", build_fuzz)
        yield pg
        return
    shutil.copyfile(fuzz_template[0], db_path)
    engine = make_engine(str(db_path))
    assert migrate(engine) is None
    yield engine
    engine.dispose()


@pytest.fixture
def fuzz(backend: str, engine: Engine, fuzz_template: tuple[Path, Fuzz]) -> Fuzz:
    """The ids of the fuzz campaign in this test's database."""
    if backend == "postgresql":
        return cast(Fuzz, pg_copied(engine, "fuzz"))  # put back by `engine`
    return fuzz_template[1]


# --- what "reads back valid" means ---------------------------------------------------------------


def assert_reads_back(factory: SessionFactory, only: int | None = None) -> None:
    """Every campaign exports to a document the importer accepts (numbers within their bounds
    and 32 bits, text within its column and free of control characters, words among their
    choices), and the screens' services read it, in the owner's view too where no passphrase
    locks it."""
    for summary in campaigns.list_campaigns(factory):
        if only is not None and summary.id != only:
            continue
        document = exchange.export_campaign(factory, campaign_id=summary.id)
        exchange.read_document(exchange.dumps(document).encode())
        overview = campaigns.get_overview(factory, campaign_id=summary.id)
        for side in overview.sides:
            if not roster.roster(factory, side_id=side.id).encrypted:
                roster.roster(factory, side_id=side.id, owner=True)
                mines.ledger(factory, campaign_id=summary.id, owner_side_id=side.id)
            for squadron in side.squadrons:
                sheet.load_record_sheet(factory, squadron_id=squadron.id)
        mines.ledger(factory, campaign_id=summary.id)
        continuity.since_last_battle(factory, campaign_id=summary.id)
        continuity.check_continuity(factory, campaign_id=summary.id)
        history.list_entries(factory, campaign_id=summary.id)


def run_junk(
    factory: SessionFactory, db_state: Callable[[], Snapshot], call: Callable[[], object]
) -> bool:
    """The property: the call succeeds and all reads back valid, or it is refused with the
    tracker's own error and writes nothing. True when it succeeded.

    A call that succeeded and left every row as it was (a read, an edit to the same values)
    left the database that read back valid before it: only a change is read back again."""
    before = db_state()
    try:
        call()
    except InvalidInput as exc:
        assert exc.errors and all(isinstance(m, str) and m for m in exc.errors.values()), exc
        assert db_state() == before
        return False
    except (NotFound, ChangedElsewhere) as exc:  # a gone row; a version the row no longer has
        assert str(exc)
        assert db_state() == before
        return False
    if db_state() != before:
        assert_reads_back(factory)
    return True


# --- every call that takes a player's input ---------------------------------------------------


@dataclass(frozen=True)
class Call:
    """A service function and the arguments its examples are drawn from."""

    name: str
    service: Callable[..., object]
    args: Callable[[Fuzz], st.SearchStrategy[dict[str, Any]]]
    factory: bool = True  # False: a pure helper, called without the session factory
    # Run before each example, outside the property: a state the call can succeed in.
    prepare: Callable[[SessionFactory, Fuzz], None] | None = None

    def __str__(self) -> str:
        return self.name

    def run(self, factory: SessionFactory, arguments: dict[str, Any]) -> object:
        if self.factory:
            return self.service(factory, **arguments)
        return self.service(**arguments)


def as_tuple(arg: Arg) -> Arg:
    return Arg(arg.plausible.map(tuple), arg.junk.map(tuple))


SHIP_FIELDS = made(
    fleet.ShipFields, name=text("Ajax", "Hood", "exeter"), class_name=text("Leander"),
    type_abbrev=choice(*smr.TYPE_ABBREVIATIONS), nation=text("Britain"),
    size_modifier=number(-3, 3), speed_kn=number(0, 60), armour_class=text("C"),
    structure_max=number(1, 20), structure_now=maybe(number(0, 20)),
    flotation_max=number(1, 20), flotation_now=maybe(number(0, 20)),
    fire_markers=number(0, 5), points_base=number(0, 900), torpedoes=text("2x4 21in"),
    sraa_dp=text("4in DP"), radar=text("Type 79"), notes=text("Damaged at the Plate"),
)  # fmt: skip
DICE_ROW = st.lists(st.none() | st.integers(0, 5), min_size=4, max_size=4)
ATTACKS = Arg(
    st.none() | st.dictionaries(st.sampled_from(roster.ATTACK_ROWS), DICE_ROW, max_size=3),
    st.none() | st.dictionaries(st.sampled_from(roster.ATTACK_ROWS) | TEXT,
                                st.lists(st.none() | INTS, max_size=6), max_size=3),
)  # fmt: skip
UNIT_FIELDS = made(
    roster.UnitFields, name=text("U-99", "Dido"), unit_type=choice(*UNIT_TYPES),
    nation=text("Germany"), points=number(0, 30), year=maybe(number(1900, 1950)),
    speed=choice("1", "2", "3", "A"), armor=number(0, 5), vital_armor=number(0, 5),
    hull_points=number(1, 5), damage=number(0, 3), attacks=ATTACKS,
    abilities=text("Sub Hunter"), extra_decoys=number(0, 2), notes=text(),
)  # fmt: skip
DICE_TEXT = Arg(
    st.sampled_from(["3 2 1 -", "", "- - - -", "1,1,1,1"]),
    TEXT | st.sampled_from(["2 2 2", "1 2 3 4 5", "a b c d", "-1 0 0 0"]),
)
CRITICAL = made(damage.CriticalRequest, kind=choice("structural", "underwater"),
                effect=text("B turret out"), roll=maybe(number(1, 12)))  # fmt: skip


def hit(f: Fuzz) -> Arg:
    return made(
        damage.HitRequest, ship_id=ids(f.ships), structure=number(0, 4),
        flotation=number(0, 4), repair_structure=number(0, 2), repair_flotation=number(0, 2),
        fire_delta=number(-1, 2), criticals=as_tuple(many(CRITICAL, 2)),
        fixes=as_tuple(many(number(1, 3), 2)),
    )  # fmt: skip


def campaign_options(*, update: bool) -> dict[str, Arg]:
    """The rule options; an edit may leave each out (None, or ... for the repair limits)."""
    kept = (lambda arg: Arg(st.none() | arg.plausible, arg.junk)) if update else (lambda a: a)
    limit = Arg(st.none() | st.integers(0, 20) | (st.just(...) if update else st.nothing()),
                st.none() | INTS)  # fmt: skip
    return {
        "notes": text("Norway 1940"), "model_scale": choice(*smr.SCALES),
        "crew_roll_adds_commander": FLAG,
        "zero_outcomes": kept(text("Sunk; Dead in the water", "Sunk")),
        "repair_limit_structure": limit, "repair_limit_flotation": limit,
        "clear_fire_each_turn": kept(FLAG), "was_fleet_points": kept(number(1, 500)),
        "extra_decoys_allowed": kept(FLAG), "any_attack_reveals": kept(FLAG),
        "mine_halt_rule": kept(choice("struck", "drawn")),
    }  # fmt: skip


# fmt: off
CALLS = [
    # campaigns, scenarios and sides
    Call("create_campaign", campaigns.create_campaign,
         lambda f: kw(name=text("Norway", "Fuzz"), **campaign_options(update=False))),
    Call("update_campaign", campaigns.update_campaign,
         lambda f: kw(campaign_id=ids(f.campaigns), name=text("Fuzz", "Norway"),
                      **campaign_options(update=True))),
    Call("add_scenario", campaigns.add_scenario,
         lambda f: kw(campaign_id=ids(f.campaigns), title=text("Third"),
                      date=text("13 Dec 1939"))),
    Call("update_scenario", campaigns.update_scenario,
         lambda f: kw(scenario_id=ids(f.scenarios), title=text("First"), date=text("1940"))),
    Call("delete_scenario", campaigns.delete_scenario, lambda f: kw(scenario_id=ids(f.scenarios))),
    Call("create_side", campaigns.create_side,
         lambda f: kw(campaign_id=ids(f.campaigns), name=text("Green", "Blue"),
                      nation=text("France"))),
    Call("update_side", campaigns.update_side,
         lambda f: kw(side_id=ids(f.sides), name=text("Blue", "Azure"), nation=text("Britain"))),
    # squadrons, ships, batteries, commanders, crews and their tests
    Call("create_squadron", fleet.create_squadron,
         lambda f: kw(side_id=ids(f.sides), name=text("Delta", "Alpha"), air=FLAG,
                      notes=text())),
    Call("update_squadron", fleet.update_squadron,
         lambda f: kw(squadron_id=ids(f.squadrons), name=text("Alpha", "Echo"), air=FLAG,
                      notes=text())),
    Call("create_ship", fleet.create_ship,
         lambda f: kw(squadron_id=ids(f.squadrons), fields=SHIP_FIELDS)),
    Call("update_ship", fleet.update_ship,
         lambda f: kw(ship_id=ids(f.ships), fields=SHIP_FIELDS,
                      expected_version=maybe(number(1, 3)))),
    Call("copy_ship", fleet.copy_ship, lambda f: kw(ship_id=ids(f.ships), name=text("Sister"))),
    Call("transfer_ship", fleet.transfer_ship,
         lambda f: kw(ship_id=ids(f.ships), to_squadron_id=ids(f.squadrons))),
    Call("add_fire_markers", fleet.add_fire_markers,
         lambda f: kw(ship_id=ids(f.ships), delta=number(-3, 5))),
    Call("save_battery", fleet.save_battery,
         lambda f: kw(ship_id=ids(f.ships), battery_id=maybe(ids(f.batteries)),
                      mount=choice(*MOUNTS), calibre=text("8in"), guns=number(0, 8),
                      ip=text("8"), range_bands=text("4"), notes=text())),
    Call("delete_battery", fleet.delete_battery, lambda f: kw(battery_id=ids(f.batteries))),
    Call("set_commander", command.set_commander,
         lambda f: kw(squadron_id=ids(f.squadrons), name=text("Harwood"), training=number(1, 5),
                      acquisition=choice("random", "direct"), roll=maybe(number(1, 10)))),
    Call("set_crew", command.set_crew,
         lambda f: kw(squadron_id=ids(f.squadrons), training=number(1, 5),
                      acquisition=choice("random", "direct"), roll=maybe(number(1, 10)))),
    Call("reduce_command", command.reduce_command,
         lambda f: kw(squadron_id=ids(f.squadrons), modifier_by=number(0, 3),
                      radius_by_cm=number(0, 20), crew_by=number(0, 3))),
    Call("record_test", command.record_test,
         lambda f: kw(squadron_id=ids(f.squadrons), subject=choice("commander", "crew"),
                      roll=number(1, 10), under_fire=FLAG, extra=number(-3, 3))),
    Call("named", printing.named, lambda f: kw(depth=number(1, 3))),
    # damage entry and the critical tables
    Call("record_hit", damage.record_hit, lambda f: kw(request=hit(f))),
    Call("preview_hit", damage.preview_hit, lambda f: kw(request=hit(f))),
    Call("find_ships", damage.find_ships,
         lambda f: kw(campaign_id=ids(f.campaigns), query=text("ex", "Ajax"),
                      limit=Arg(st.integers(0, 10), st.integers(0, 10)))),
    Call("confirm_condition", damage.confirm_condition,
         lambda f: kw(ship_id=ids(f.ships), outcome=text("Sunk", "Dead in the water"))),
    Call("save_table_row", rule_tables.save_table_row,
         lambda f: kw(campaign_id=ids(f.campaigns), row_id=maybe(ids(f.table_rows)),
                      kind=choice("structural", "underwater"), low=number(1, 12),
                      high=number(1, 12), effect=text("Fire"),
                      stat=choice("", *rule_tables.CRITICAL_STATS), amount=number(-3, 3))),
    Call("delete_table_row", rule_tables.delete_table_row, lambda f: kw(row_id=ids(f.table_rows))),
    Call("critical_table", rule_tables.critical_table,
         lambda f: kw(campaign_id=ids(f.campaigns), kind=choice("structural", "underwater"))),
    # linked scenarios and repairs
    Call("set_participants", scenarios.set_participants,
         lambda f: kw(scenario_id=ids(f.scenarios), ship_ids=many(ids(f.ships), unique=True))),
    Call("set_correction_factor", scenarios.set_correction_factor,
         lambda f: kw(scenario_id=ids(f.scenarios), side_id=ids(f.sides), value=text("+1"))),
    Call("start_scenario", scenarios.start_scenario, lambda f: kw(scenario_id=ids(f.scenarios)),
         prepare=close_in_play),
    Call("advance_turn", scenarios.advance_turn, lambda f: kw(scenario_id=ids(f.scenarios))),
    Call("close_scenario", scenarios.close_scenario,
         lambda f: kw(scenario_id=ids(f.scenarios), outcome=text("British victory"),
                      notes=text())),
    Call("reopen_scenario", scenarios.reopen_scenario,
         lambda f: kw(scenario_id=ids(f.scenarios), reason=text("a hit was missed")),
         prepare=close_in_play),
    Call("archive_scenario", scenarios.archive_scenario,
         lambda f: kw(scenario_id=ids(f.scenarios))),
    Call("repair_ship", repairs.repair_ship,
         lambda f: kw(ship_id=ids(f.ships), structure=number(0, 3), flotation=number(0, 3),
                      clear_criticals=many(ids(f.criticals), unique=True), in_port=FLAG,
                      notes=text(), fuel=FLAG),
         prepare=close_in_play),
    # the fleet roster: units, markers, passphrases, the hunt
    Call("save_unit", roster.save_unit,
         lambda f: kw(side_id=ids(f.sides), fields=UNIT_FIELDS, unit_id=maybe(ids(f.units)))),
    Call("unit_fields_from", roster.unit_fields_from,
         lambda f: kw(values=Arg(*(kw(name=text("U-99"), unit_type=choice(*UNIT_TYPES),
                                     abilities=text("Sub Hunter; Elusive Quarry"),
                                     **{f"attack_{row}": DICE_TEXT
                                        for row in roster.ATTACK_ROWS}),) * 2)),
         factory=False),
    Call("set_passphrase", sealing.set_passphrase,
         lambda f: kw(side_id=ids(f.sides), passphrase=text("new-secret"),
                      old_passphrase=PASSWORDS)),
    Call("assign_markers", markers.assign_markers,
         lambda f: kw(unit_id=ids(f.units), real=number(1, 3),
                      sectors=many(text("C1", "C2", "C3"), 3, unique=True),
                      turn=maybe(number(1, 9)), passphrase=PASSWORDS)),
    Call("roster", roster.roster,
         lambda f: kw(side_id=ids(f.sides), owner=FLAG, passphrase=PASSWORDS)),
    Call("move_marker", markers.move_marker,
         lambda f: kw(marker_id=ids(f.markers), sector=text("B3"), turn=maybe(number(1, 9)))),
    Call("attack_marker", hunt.attack_marker,
         lambda f: kw(marker_id=ids(f.markers), success=FLAG, damage=number(0, 3),
                      passphrase=PASSWORDS)),
    Call("reconceal", markers.reconceal,
         lambda f: kw(unit_id=ids(f.units), real=number(1, 2), cause=choice(*ConcealCause),
                      sectors=many(text("E1", "E2"), 2, unique=True), passphrase=PASSWORDS)),
    Call("sub_attacks", hunt.sub_attacks,
         lambda f: kw(marker_id=ids(f.markers), same_sector=FLAG,
                      torpedo_dice=many(number(1, 6)), night=FLAG, target_hit_earlier=FLAG,
                      passphrase=PASSWORDS)),
    Call("record_search", hunt.record_search,
         lambda f: kw(marker_id=ids(f.markers), party=SEARCH_PARTY, roll=number(1, 6))),
    Call("mine_roll", hunt.mine_roll,
         lambda f: kw(unit_id=ids(f.units), roll=number(1, 6), sector=text("C3", "D4"),
                      secret_minefield=FLAG, passphrase=PASSWORDS)),
    Call("delete_unit", roster.delete_unit, lambda f: kw(unit_id=ids(f.units))),
    # counters and fuel
    Call("save_counter", mines.save_counter,
         lambda f: kw(ship_id=ids(f.ships), counter_size=choice("", *COUNTER_SIZES),
                      speed_rating=number(0, 5), torpedo_factors=number(0, 4),
                      mines_loaded=number(0, 2), hull_boxes=number(0, 5), fuel_full=number(0, 6),
                      fuel_empty=number(0, 3), speed_lost=maybe(number(0, 2)),
                      gunnery_lost=maybe(number(0, 2)), hull_damage=maybe(number(0, 2)),
                      crippled=maybe(FLAG))),
    Call("use_fuel", mines.use_fuel, lambda f: kw(ship_id=ids(f.ships), factors=number(1, 3))),
    Call("refuel_ship", mines.refuel_ship,
         lambda f: kw(ship_id=ids(f.ships), factors=maybe(number(1, 3)))),
    Call("torpedo_attack", mines.torpedo_attack,
         lambda f: kw(ship_id=ids(f.ships), factors=number(1, 4), target=text("Spee"))),
    # boundaries, minefields, the mine table and the mine check
    Call("add_boundary", mines.add_boundary,
         lambda f: kw(campaign_id=ids(f.campaigns), area_a=text("Skagerrak", "North"),
                      area_b=text("Kattegat", "south"))),
    Call("sow_minefield", mines.sow_minefield,
         lambda f: kw(side_id=ids(f.sides), laid_by=choice(*LAYERS),
                      boundary_id=maybe(ids(f.boundaries)), sector=text("C3", ""),
                      layer_ship_id=maybe(ids(f.ships)), layer_name=text("Teviot"),
                      turn=maybe(number(1, 2)), complete=FLAG, drifting=FLAG, secret=FLAG,
                      notes=text(), passphrase=PASSWORDS)),
    Call("complete_minefield", mines.complete_minefield,
         lambda f: kw(minefield_id=ids(f.minefields), turn=maybe(number(1, 2)))),
    Call("set_status", mines.set_status,
         lambda f: kw(minefield_id=ids(f.minefields),
                      status=choice("active", "swept", "expended"))),
    Call("aerial_drop", mines.aerial_drop,
         lambda f: kw(side_id=ids(f.sides), aircraft=text("Swordfish"),
                      naval_attack=number(0, 3), land_attack=number(0, 3), circled=FLAG,
                      rolls=many(number(1, 6), 3), boundary_id=maybe(ids(f.boundaries)),
                      sector=text("E5", ""), turn=maybe(number(1, 2)), drifting=FLAG,
                      secret=FLAG, passphrase=PASSWORDS)),
    Call("drift", mines.drift,
         lambda f: kw(minefield_id=ids(f.minefields), to_boundary_id=maybe(ids(f.boundaries)),
                      to_sector=text("F6", ""), d6=maybe(number(1, 6)), turn=maybe(number(1, 2)),
                      passphrase=PASSWORDS)),
    Call("reveal", mines.reveal,
         lambda f: kw(minefield_id=ids(f.minefields), passphrase=PASSWORDS)),
    Call("ledger", mines.ledger,
         lambda f: kw(campaign_id=ids(f.campaigns), owner_side_id=maybe(ids(f.sides)),
                      passphrase=PASSWORDS)),
    Call("ship_finder", lambda factory, *, campaign_id, name, side: mines.ship_finder(
        factory, campaign_id=campaign_id)(name, side),
         lambda f: kw(campaign_id=ids(f.campaigns), name=text("Exeter", "SPEE"),
                      side=maybe(text("Blue", "red")))),
    Call("save_mine_row", mines.save_mine_row,
         lambda f: kw(campaign_id=ids(f.campaigns), low=number(1, 11), high=number(1, 11),
                      effects=text("none", "fuel-1", "speed-1 hull-1", "sunk", "crippled"),
                      applies_to=choice(*APPLIES_TO), note=text(),
                      row_id=maybe(ids(f.mine_rows)))),
    Call("delete_mine_row", mines.delete_mine_row, lambda f: kw(row_id=ids(f.mine_rows))),
    Call("start_check", mines.start_check,
         lambda f: kw(minefield_id=ids(f.minefields), ship_ids=many(ids(f.ships), unique=True),
                      speed=number(0, 3), first_cup=choice(*COUNTER_SIZES),
                      minefields=maybe(number(1, 3)), leaving_board=FLAG,
                      seed=maybe(number(0, 1000))),
         prepare=no_check_running),
    Call("table_effect", mines.table_effect,
         lambda f: kw(check_id=ids(f.checks), roll=number(1, 6))),
    Call("roll_mine", mines.roll_mine,
         lambda f: kw(check_id=ids(f.checks), roll=number(1, 6),
                      effects=maybe(text("none", "fuel-1", "sunk")))),
    Call("abandon_check", mines.abandon_check, lambda f: kw(check_id=ids(f.checks))),
    # the journal
    Call("undo_entry", history.undo_entry, lambda f: kw(entry_id=ids(f.entries))),
    Call("undo_last", history.undo_last, lambda f: kw(campaign_id=ids(f.campaigns))),
    Call("redo_last", history.redo_last, lambda f: kw(campaign_id=ids(f.campaigns))),
    Call("list_entries", history.list_entries,
         lambda f: kw(campaign_id=ids(f.campaigns), scenario_id=maybe(ids(f.scenarios)),
                      side_id=maybe(ids(f.sides)), ship_id=maybe(ids(f.ships)),
                      kind=maybe(choice("damage", "ship")), search=text("Exeter"),
                      limit=Arg(st.integers(0, 600), st.integers(0, 600)))),
]
# fmt: on

# Examples per test on SQLite at depth 1 (tests/depth.py); PostgreSQL runs half as many (its
# round trips are slower).
# Deriving a key from a passphrase (scrypt) takes a noticeable moment: fewer examples there.
# TRACKER_FUZZ_SCALE=20 runs twenty times as many, for a deeper search by hand.
SCALE = int(os.environ.get("TRACKER_FUZZ_SCALE", "1"))
EXAMPLES, SLOW_EXAMPLES, CSV_EXAMPLES, FILE_EXAMPLES = 16, 6, 40, 120
SLOW = {"set_passphrase", "roster", "ledger", "reveal", "sub_attacks"}


def run_examples(body: Callable[[st.DataObject], None], base: int, backend: str) -> None:
    """Run body as a hypothesis test of its own, drawing its input from `data`.

    Its settings are chosen here, per backend; and the calling test's fixtures are made once
    for all of its examples: the campaign is built once, the examples run one after another.
    """

    @settings(
        max_examples=max(1, examples(base * SCALE) // (2 if backend == "postgresql" else 1)),
        deadline=None, derandomize=True, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )  # fmt: skip
    @given(data=st.data())
    def example(data: st.DataObject) -> None:
        body(data)

    example()


@pytest.mark.parametrize("call", CALLS, ids=str)
def test_junk_into_a_service_is_refused_cleanly_or_stored_valid(
    call: Call,
    backend: str,
    fuzz: Fuzz,
    factory: SessionFactory,
    db_state: Callable[[], Snapshot],
) -> None:

    def example(data: st.DataObject) -> None:
        if call.prepare is not None:
            call.prepare(factory, fuzz)
        arguments = data.draw(call.args(fuzz), label="arguments")
        done = run_junk(factory, db_state, lambda: call.run(factory, arguments))
        event("succeeded" if done else "refused")

    run_examples(example, SLOW_EXAMPLES if call.name in SLOW else EXAMPLES, backend)


# --- CSV files --------------------------------------------------------------------------------

_NUMBER_TEXT = st.integers(-2, 20).map(str)
_CSV_JUNK = st.one_of(
    TEXT,
    INTS.map(str),
    st.sampled_from(["1_000", " 12 ", "1e3", "0x1F", "½", "\u0663", "9" * 5000, "-", "NaN"]),
)


def _numbers(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map(str)


# Plausible cells by column; a column not named here takes a small number.
_CSV_CELLS: dict[str, st.SearchStrategy[str]] = {
    "name": st.sampled_from(["Hood", "Renown", "Exeter", "U-99", "[bold]Ajax[/]", "Émile"]),
    "size_modifier": _numbers(-3, 3),
    "speed_kn": _numbers(0, 35),
    "structure_max": _numbers(5, 12),
    "flotation_max": _numbers(5, 12),
    "structure_now": st.sampled_from(["", "3", "5"]),
    "flotation_now": st.sampled_from(["", "4"]),
    "fire_markers": _numbers(0, 2),
    "points_base": _numbers(0, 500),
    "points": _numbers(0, 15),
    "armor": _numbers(0, 5),
    "vital_armor": _numbers(0, 5),
    "hull_points": _numbers(1, 4),
    "damage": st.just("0"),
    "extra_decoys": st.just("0"),
    "speed_rating": _numbers(0, 5),
    "torpedo_factors": _numbers(0, 4),
    "mines_loaded": st.just("0"),
    "hull_boxes": _numbers(0, 5),
    "fuel_full": _numbers(0, 6),
    "fuel_empty": _numbers(0, 3),
    "unit_type": st.sampled_from([*UNIT_TYPES, "SUBMARINE", "Cruiser"]),
    "speed": st.sampled_from(["1", "2", "3", "A", ""]),
    "year": st.sampled_from(["", "1939", "1944"]),
    "abilities": st.sampled_from(["", "Sub Hunter", "Sub Hunter; Elusive Quarry"]),
    "ship": st.sampled_from(["Exeter", "ajax", "SEAL", "Spee", "Hood"]),
    "side": st.sampled_from(["", "Blue", "red", "Green"]),
    "counter_size": st.sampled_from(["long", "SMALL", "Small"]),
    **{f"attack_{row}": DICE_TEXT.plausible for row in roster.ATTACK_ROWS},
}


def _csv_line(cells: list[str], quoted: bool) -> str:
    if not quoted:
        return ",".join(cells)
    return ",".join('"' + cell.replace('"', '""') + '"' for cell in cells)


@st.composite
def csv_files(draw: st.DrawFn, kind: str) -> bytes:
    """A CSV file of the kind: the right columns in any order and case (or wrong ones), rows of
    plausible cells with junk among them, in UTF-8 or another encoding, or bytes that are no
    text at all."""
    # clean: what a spreadsheet writes (the right columns, sensible cells); else junk among it.
    mode = draw(st.sampled_from(["clean", "clean", "messy", "messy", "bytes"]))
    if mode == "bytes":
        return draw(st.binary(max_size=300))
    clean = mode == "clean"
    columns = [column.name for column in csv_import.COLUMNS[kind]]
    required = [column.name for column in csv_import.COLUMNS[kind] if column.required]
    header = draw(st.permutations(required + draw(st.lists(st.sampled_from(columns),
                                                           unique=True, max_size=5))))  # fmt: skip
    header = list(dict.fromkeys(header))
    if draw(st.booleans()):
        header = [name.upper() if draw(st.booleans()) else name for name in header]
    if not clean and draw(st.sampled_from([False, False, False, True])):
        header = draw(st.lists(st.sampled_from(columns) | TEXT, max_size=6))
    rows = []
    for number in range(draw(st.integers(1 if clean else 0, 4))):
        row = [
            draw(_CSV_JUNK) if not clean and draw(st.sampled_from([False, False, True]))
            else draw(_CSV_CELLS.get(name.lower(), _NUMBER_TEXT))
            for name in header
        ]  # fmt: skip
        if clean and kind != "counters" and "name" in [name.lower() for name in header]:
            unique = f" {number}-{draw(st.integers(0, 10**6))}"  # not in the file nor the side
            row[[name.lower() for name in header].index("name")] += unique
        rows.append(row[: draw(st.integers(0, len(row) + 1))]
                    if not clean and draw(st.sampled_from([False] * 5 + [True]))
                    else row)  # fmt: skip
    quoted = draw(st.booleans())
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(_csv_line(row, quoted) for row in [header, *rows]) + newline
    encoding = "utf-8" if clean else draw(
        st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1"]))  # fmt: skip
    return text.encode(encoding, "surrogatepass" if encoding.startswith("utf") else "replace")


@pytest.mark.parametrize("kind", csv_import.KINDS)
def test_a_generated_csv_file_is_imported_whole_or_refused_with_nothing_written(
    kind: str,
    backend: str,
    fuzz: Fuzz,
    factory: SessionFactory,
    db_state: Callable[[], Snapshot],
) -> None:
    run_examples(
        lambda data: _import_csv(kind, fuzz, factory, db_state, data), CSV_EXAMPLES, backend
    )


def _import_csv(
    kind: str,
    fuzz: Fuzz,
    factory: SessionFactory,
    db_state: Callable[[], Snapshot],
    data: st.DataObject,
) -> None:
    pool = {"ships": fuzz.squadrons, "units": fuzz.sides, "counters": fuzz.campaigns}[kind]
    junk_target = data.draw(st.sampled_from([False, False, False, True]))
    target = data.draw(ids(pool).junk if junk_target else ids(pool).plausible, label="target_id")
    raw = data.draw(csv_files(kind), label="raw")
    dry_run = data.draw(st.sampled_from([False, False, False, True]), label="dry_run")
    before = db_state()
    try:
        report = csv_import.import_csv(factory, kind=kind, raw=raw, target_id=target,
                                       dry_run=dry_run)  # fmt: skip
    except InvalidInput as exc:
        assert list(exc.errors) in (["file"], ["kind"]), exc
        assert db_state() == before
        event("refused: the file")
        return
    assert all(problem.startswith(("row ", "rows ", "header:", "no rows", "...")) for problem in
               report.problems), report.problems  # fmt: skip
    if report.problems or dry_run:
        assert report.written == 0
        assert db_state() == before
        event("refused: its rows" if report.problems else "dry run")
        return
    assert report.written == report.rows == report.valid
    assert_reads_back(factory)
    event("imported")


# --- campaign files -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sample_document(tmp_path_factory: pytest.TempPathFactory, migrated_template: Path) -> str:
    """The River Plate sample with rows in every table, exported (as JSON text)."""
    path = tmp_path_factory.mktemp("sample") / "campaign.db"
    shutil.copyfile(migrated_template, path)
    engine = make_engine(str(path))
    try:
        factory = session_factory(engine)
        filled = full_sample_campaign(factory)
        return exchange.dumps(exchange.export_campaign(factory, campaign_id=filled.campaign_id))
    finally:
        engine.dispose()


_JSON_JUNK = st.one_of(
    st.none(), st.booleans(), INTS, st.floats(allow_nan=True), TEXT,
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(-3, 3), max_size=2),
    st.sampled_from(["2026-11-30T12:00:00", "2026-13-01", "0001-01-01T00:00:00+01:00",
                     "plain:{}", "plain:[1]", "fernet:x", "[]", "{}", "null",
                     '{"changes": [{"table": "ship", "id": 1}]}']),
)  # fmt: skip
_MUTATIONS = (
    "set", "delete key", "add key", "swap keys", "swap rows", "dangling", "same id", "drop row",
    "copy row", "drop table", "add table", "top", "json", "bounds", "json column",
)  # fmt: skip
# The text columns that hold JSON (or a note: plain:{json} or fernet:token).
JSON_TEXT = {
    "journalentry": ("detail",), "shipsnapshot": ("criticals", "counter"),
    "submarker": ("secret",), "minefield": ("sealed", "path"), "wasunit": ("attacks",),
}  # fmt: skip
_JSON_KEYS = [
    "changes", "before", "after", "dice", "unit", "real", "salt", "id", "kind", "effect", "table",
    "boundary", "sector", "notes", "path", "turn", "from", "to", "d6", "main", "fuel_full", "d10",
    "total", "modifier", "criticals", "roll", "drm", "modified",
]  # fmt: skip
_INNER_JSON = st.recursive(
    _JSON_JUNK, lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(_JSON_KEYS) | st.text(max_size=3), inner, max_size=4),
    max_leaves=8,
)  # fmt: skip


def _bounds_of(table: str) -> dict[str, tuple[int | None, int | None, int | None]]:
    """A table's columns with their model's bounds (ge, le) or text length."""
    found: dict[str, tuple[int | None, int | None, int | None]] = {}
    for column in SQLModel.metadata.tables[table].columns:
        length = getattr(column.type, "length", None)
        found[column.name] = (None, None, length)
    for mapper in SQLModel._sa_registry.mappers:
        model = mapper.class_
        if model.__tablename__ == table:
            for key, info in model.model_fields.items():
                low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
                high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
                if key in found:
                    found[key] = (low, high, found[key][2])
    return found


def mutate(document: dict[str, Any], data: st.DataObject) -> None:
    """A hand-edit gone wrong: keys deleted or added, types changed, values swapped, numbers out
    of range, ids dangling or used twice, rows and tables dropped or copied."""
    tables: dict[str, list[dict[str, Any]]] = document["tables"]
    for mutation in data.draw(st.lists(st.sampled_from(_MUTATIONS), min_size=1, max_size=3),
                              label="mutations"):  # fmt: skip
        filled = sorted(
            name for name, rows in tables.items()
            if isinstance(rows, list) and rows
            and all(isinstance(row, dict) and row for row in rows)
        )  # fmt: skip
        if not filled:
            return
        if mutation == "top":
            key = data.draw(st.sampled_from(["format", "version", "schema", "tables"]))
            document[key] = data.draw(_JSON_JUNK | st.sampled_from([0, 2, 99, "tracker-campaign"]))
            return
        if mutation == "drop table":
            tables.pop(data.draw(st.sampled_from(sorted(tables))), None)
            continue
        if mutation == "add table":
            tables[data.draw(TEXT | st.just("ship"))] = data.draw(_JSON_JUNK)
            continue
        if mutation == "json column":
            if not set(JSON_TEXT) & set(filled):
                continue
            name = data.draw(st.sampled_from(sorted(set(JSON_TEXT) & set(filled))), label="table")
            row = data.draw(st.sampled_from(tables[name]), label="row")
            key = data.draw(st.sampled_from(JSON_TEXT[name]), label="column")
            inner = data.draw(_INNER_JSON, label="json")
            prefix = data.draw(st.sampled_from(["", "", "plain:", "fernet:"]), label="prefix")
            row[key] = prefix + json.dumps(inner) if data.draw(st.booleans()) else data.draw(TEXT)
            continue
        name = data.draw(st.sampled_from(filled), label="table")
        rows = tables[name]
        index = data.draw(st.integers(0, len(rows) - 1), label="row")
        row = rows[index]
        keys = sorted(row)
        key = data.draw(st.sampled_from(keys), label="key")
        if mutation == "set":
            row[key] = data.draw(_JSON_JUNK, label="value")
        elif mutation == "delete key":
            del row[key]
        elif mutation == "add key":
            row[data.draw(TEXT, label="new key")] = data.draw(_JSON_JUNK, label="value")
        elif mutation == "swap keys":
            second = data.draw(st.sampled_from(keys), label="other key")
            row[key], row[second] = row[second], row[key]
        elif mutation == "swap rows":
            other = rows[data.draw(st.integers(0, len(rows) - 1))]
            if key in other:
                row[key], other[key] = other[key], row[key]
        elif mutation == "dangling":
            refs = [k for k in keys if k.endswith("_id") or k == "id"] or keys
            row[data.draw(st.sampled_from(refs))] = data.draw(
                st.sampled_from([0, -1, 9999, INT32, INT32 + 1]) | st.integers(1, 40)
            )
        elif mutation == "same id":
            row["id"] = rows[data.draw(st.integers(0, len(rows) - 1))].get("id")
        elif mutation == "drop row":
            rows.pop(index)
        elif mutation == "copy row":
            rows.append(dict(row))
        elif mutation == "json":
            texts = [k for k in keys if isinstance(row[k], str)] or keys
            inner = data.draw(_JSON_JUNK | st.dictionaries(st.sampled_from(
                ["changes", "before", "after", "dice", "unit", "real", "salt", "id", "kind",
                 "effect", "table", "boundary", "sector", "notes", "path", "turn"]),
                _JSON_JUNK, max_size=4), label="json")  # fmt: skip
            prefix = data.draw(st.sampled_from(["", "", "plain:", "fernet:"]))
            row[data.draw(st.sampled_from(texts))] = prefix + json.dumps(inner)
        elif mutation == "bounds":
            low, high, length = _bounds_of(name).get(key, (None, None, None))
            if length is not None:
                row[key] = "x" * data.draw(st.sampled_from([length, length + 1]))
            else:
                edges = [edge + step for edge in (low, high) if edge is not None
                         for step in (-1, 0, 1)]  # fmt: skip
                row[key] = data.draw(st.sampled_from(edges or [-1, INT32 + 1]))


_COPIES = itertools.count(1)


@pytest.mark.usefixtures("fuzz")  # the import lands beside the fuzz campaign
def test_a_mutated_campaign_file_is_imported_valid_or_refused_with_nothing_written(
    sample_document: str, backend: str, factory: SessionFactory, db_state: Callable[[], Snapshot]
) -> None:
    run_examples(
        lambda data: _import_file(sample_document, factory, db_state, data), FILE_EXAMPLES, backend
    )


def _import_file(
    sample_document: str,
    factory: SessionFactory,
    db_state: Callable[[], Snapshot],
    data: st.DataObject,
) -> None:
    document = json.loads(sample_document)
    mutate(document, data)
    raw = json.dumps(document).encode()
    damage_ = data.draw(st.sampled_from(["none"] * 6 + ["cut", "byte", "bom", "deep"]))
    if damage_ == "cut":
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif damage_ == "byte":
        at = data.draw(st.integers(0, len(raw)))
        bad = data.draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"]))
        raw = raw[:at] + bad + raw[at:]
    elif damage_ == "bom":
        raw = b"\xef\xbb\xbf" + raw
    elif damage_ == "deep":
        raw = b"[" * 100_000 + b"]" * 100_000
    name = data.draw(st.sampled_from([None, "fresh", "fresh"]) | TEXT, label="name")
    if name == "fresh":
        name = f"Copy {next(_COPIES)}"
    before = db_state()
    try:
        campaign_id = exchange.import_campaign(
            factory, document=exchange.read_document(raw), name=name
        )
    except InvalidInput as exc:
        assert list(exc.errors) in (["file"], ["name"]), exc
        assert db_state() == before
        event("refused")
        return
    assert_reads_back(factory, only=campaign_id)
    event("imported")
