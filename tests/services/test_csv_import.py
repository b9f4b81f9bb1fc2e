"""Ships, War at Sea units and Second World War at Sea counters from CSV files
(tracker.services.csv_import, docs/FILES.md "CSV columns"): every row through the real services, the
whole file written or none of it, every problem named by row and column."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Refused, Snapshot, World, count_rows
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry, Ship, WasUnit
from tracker.rules import was
from tracker.services import csv_import, fleet, history, library, mines, roster
from tracker.services.csv_cells import SEPARATORS
from tracker.services.csv_import import Report
from tracker.services.errors import InvalidInput
from tracker.services.problems import MAX_PROBLEMS, Problems

SHIP_HEADER = "name,structure_max,flotation_max"
UTF8_COMMAS = "CSV, UTF-8, comma-separated"
EXPECTED_SHIP_COLUMNS = (
    "header: the columns of ships are name, class_name, type_abbrev, nation, size_modifier, "
    "speed_kn, armour_class, structure_max, structure_now, flotation_max, flotation_now, "
    "fire_markers, points_base, torpedoes, sraa_dp, radar, notes"
)


def csv_file(*lines: str, encoding: str = "utf-8") -> bytes:
    """The bytes of a CSV file with these lines (line 1 is the header)."""
    return ("\n".join(lines) + "\n").encode(encoding)


def load(
    factory: SessionFactory, kind: str, raw: bytes, target_id: int, *, dry_run: bool = False
) -> Report:
    return csv_import.import_csv(factory, kind=kind, raw=raw, target_id=target_id, dry_run=dry_run)


Load = Callable[..., Report]


@pytest.fixture
def writes_nothing(factory: SessionFactory, db_state: Callable[[], Snapshot]) -> Load:
    """`writes_nothing(kind, raw, target_id, dry_run=False)`: load() of a file with problems (or a
    dry run), and its report, checking that every row of every table is as it was."""

    def call(kind: str, raw: bytes, target_id: int, *, dry_run: bool = False) -> Report:
        before = db_state()
        report = load(factory, kind, raw, target_id, dry_run=dry_run)
        assert db_state() == before
        return report

    return call


def ships_of(factory: SessionFactory, squadron_id: int) -> list[Ship]:
    with session_scope(factory) as session:
        return list(
            session.exec(
                select(Ship).where(Ship.squadron_id == squadron_id).order_by(col(Ship.id))
            ).all()
        )


def ship_named(factory: SessionFactory, name: str) -> Ship:
    with session_scope(factory) as session:
        found = session.exec(select(Ship).where(Ship.name == name)).one()
        return found


def journal_summaries(factory: SessionFactory, campaign_id: int) -> list[str]:
    with session_scope(factory) as session:
        return list(
            session.exec(
                select(JournalEntry.summary)
                .where(JournalEntry.campaign_id == campaign_id)
                .order_by(col(JournalEntry.id))
            ).all()
        )


def six_ships(bad_row: int | None = None) -> bytes:
    """Six ships of Force H; the ship on file row `bad_row` (2..7) has a Flotation max of 0."""
    names = ["Hood", "Renown", "Ark Royal", "Sheffield", "Faulknor", "Foresight"]
    lines = [SHIP_HEADER]
    for row, name in enumerate(names, start=2):
        lines.append(f"{name},12,{0 if row == bad_row else 10}")
    return csv_file(*lines)


# --- happy paths ---------------------------------------------------------------------------------


def test_ships_land_as_typed_with_blank_cells_at_their_defaults(
    factory: SessionFactory, world: World
) -> None:
    raw = csv_file(
        "name,class_name,type_abbrev,nation,size_modifier,speed_kn,armour_class,structure_max,"
        "structure_now,flotation_max,flotation_now,fire_markers,points_base,torpedoes,sraa_dp,"
        "radar,notes",
        'Exeter,York,CA,Great Britain,1,32,C,12,9,11,,2,420,"2x3 21in",4x1 4in,Type 79,'
        '"Damaged at the Plate, 1939"',
        "Ajax,Leander,CL,Great Britain,-1,32,C,10,,9,4,,380,,,,",
    )
    report = load(factory, "ships", raw, world.alpha_id)
    assert report == Report(
        kind="ships", source=UTF8_COMMAS, rows=2, valid=2, written=2, problems=(), dry_run=False
    )
    exeter, ajax = ships_of(factory, world.alpha_id)
    assert (exeter.name, exeter.class_name, exeter.type_abbrev, exeter.nation) == (
        "Exeter", "York", "CA", "Great Britain",
    )  # fmt: skip
    assert (exeter.size_modifier, exeter.speed_kn, exeter.armour_class) == (1, 32, "C")
    assert (exeter.structure_max, exeter.structure_now) == (12, 9)
    assert (exeter.flotation_max, exeter.flotation_now) == (11, 11)  # blank: full
    assert (exeter.fire_markers, exeter.points_base) == (2, 420)
    assert (exeter.torpedoes, exeter.sraa_dp, exeter.radar) == ("2x3 21in", "4x1 4in", "Type 79")
    assert exeter.notes == "Damaged at the Plate, 1939"
    assert (ajax.size_modifier, ajax.structure_now, ajax.flotation_now) == (-1, 10, 4)
    assert (ajax.fire_markers, ajax.torpedoes, ajax.notes) == (0, "", "")
    # An original member of the squadron, on its side, journaled as a form's ship would be.
    assert (ajax.side_id, ajax.original_squadron_id) == (world.blue_id, world.alpha_id)
    assert journal_summaries(factory, world.campaign_id)[-2:] == [
        "Added Exeter to Alpha", "Added Ajax to Alpha",
    ]  # fmt: skip


def test_columns_come_in_any_order_and_cells_are_trimmed(
    factory: SessionFactory, world: World
) -> None:
    raw = csv_file(" flotation_max , name ,structure_max", " 7 ,  Hardy  , 5 ")
    assert load(factory, "ships", raw, world.bravo_id).written == 1
    [hardy] = ships_of(factory, world.bravo_id)
    assert (hardy.name, hardy.structure_max, hardy.flotation_max) == ("Hardy", 5, 7)


def test_units_with_attack_dice_and_abilities(factory: SessionFactory, world: World) -> None:
    raw = csv_file(
        "name,unit_type,nation,points,year,speed,armor,vital_armor,hull_points,damage,"
        "attack_main,attack_anti_air,attack_torpedo,abilities,extra_decoys,notes",
        "Bismarck,battleship,Germany,70,1941,2,6,11,6,1,8 8 7 6,3 - - -,,Armor Piercing; "
        "Flagship,0,Rheinübung",
        "U-47,submarine,Germany,12,,1,3,6,2,0,,,3 3 2 -,Elusive Quarry;;  Wolfpack ,1,",
    )
    report = load(factory, "units", raw, world.red_id)
    assert (report.ok, report.rows, report.written) == (True, 2, 2), report.problems
    bismarck, u47 = roster.roster(factory, side_id=world.red_id).units
    assert (bismarck.name, bismarck.unit_type, bismarck.nation, bismarck.points) == (
        "Bismarck", "battleship", "Germany", 70,
    )  # fmt: skip
    assert (bismarck.year, bismarck.speed, bismarck.armor, bismarck.vital_armor) == (
        1941, "2", 6, 11,
    )  # fmt: skip
    assert (bismarck.hull_points, bismarck.damage, bismarck.notes) == (6, 1, "Rheinübung")
    assert bismarck.attacks == {"main": [8, 8, 7, 6], "anti_air": [3, None, None, None]}
    assert bismarck.abilities == ("Armor Piercing", "Flagship")
    assert u47.year is None  # blank
    assert u47.attacks == {"torpedo": [3, 3, 2, None]}
    assert u47.abilities == ("Elusive Quarry", "Wolfpack")
    assert u47.extra_decoys == 1
    # The roster's points count the extra decoy, as the form's would.
    assert roster.roster(factory, side_id=world.red_id).points == 70 + 12 + 5


def test_units_are_checked_against_the_fleet_budget_row_by_row(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    """Each row sees the rows above it: the third 40-point unit breaks the 100-point budget."""
    raw = csv_file("name,unit_type,points", "Ajax,cruiser,40", "Exeter,cruiser,40",
                   "Achilles,cruiser,40")  # fmt: skip
    report = writes_nothing("units", raw, world.blue_id)
    assert report.problems == ("row 4, points: the fleet would cost 120 points; the budget is 100",)
    assert (report.valid, report.written) == (2, 0)


@settings(
    max_examples=examples(15),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    units=st.lists(
        st.tuples(
            st.integers(0, 45),
            st.sampled_from(["cruiser", "submarine"]),
            st.integers(0, was.MAX_EXTRA_DECOYS),
        ),
        min_size=1,
        max_size=9,
    )
)
def test_subs_every_row_of_a_units_file_is_held_to_the_budget_with_the_rows_kept_above_it(
    factory: SessionFactory, world: World, units: list[tuple[int, str, int]]
) -> None:
    """RULES.md §Subs: a unit costs its points and its extra decoys. Each row's fleet is the
    side's roster, with every row above it that was kept (a refused row costs nothing), with
    its own; any points and decoys, a refused row anywhere (the import keeps the side's total
    from row to row: it must stay the sum a form's save reads)."""
    now = roster.roster(factory, side_id=world.red_id)
    budget, total = now.budget, now.points
    lines, expected = ["name,unit_type,points,extra_decoys"], []
    for number, (points, kind, decoys) in enumerate(units, start=2):
        decoys = decoys if kind == "submarine" else 0
        lines.append(f"Unit {number},{kind},{points},{decoys}")
        cost = points + was.extra_decoy_cost(decoys)
        if total + cost > budget:
            expected.append((number, f"the fleet would cost {total + cost} points; the budget "
                             f"is {budget}"))  # fmt: skip
        else:
            total += cost
    report = load(factory, "units", csv_file(*lines), world.red_id, dry_run=True)
    said = Problems()  # the report's wording: one message on many rows said once
    for number, message in expected:
        said.add(f"row {number}", "points", message)
    assert report.problems == said.lines()
    assert report.valid == len(units) - len(expected)


def test_counters_are_matched_by_ship_name_in_any_case(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    add_ship(world.alpha_id, "Ajax")
    add_ship(world.raider_id, "Admiral Graf Spee")
    raw = csv_file(
        "ship,counter_size,speed_rating,torpedo_factors,mines_loaded,hull_boxes,fuel_full,"
        "fuel_empty",
        "AJAX,small,3,2,1,4,6,1",
        "  admiral GRAF spee ,long,2,,,7,9,",
    )
    report = load(factory, "counters", raw, world.campaign_id)
    assert (report.ok, report.written) == (True, 2), report.problems
    ajax = ship_named(factory, "Ajax")
    assert (ajax.counter_size, ajax.speed_rating, ajax.torpedo_factors, ajax.mines_loaded) == (
        "small", 3, 2, 1,
    )  # fmt: skip
    assert (ajax.hull_boxes, ajax.fuel_full, ajax.fuel_empty) == (4, 6, 1)
    spee = ship_named(factory, "Admiral Graf Spee")
    assert (spee.counter_size, spee.speed_rating, spee.torpedo_factors) == ("long", 2, 0)
    assert (spee.hull_boxes, spee.fuel_full, spee.fuel_empty) == (7, 9, 0)


def test_counters_match_accented_ship_names_in_any_case(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    add_ship(world.alpha_id, "Émile Bertin")
    raw = csv_file("ship,counter_size,speed_rating", "ÉMILE BERTIN,small,4")
    assert load(factory, "counters", raw, world.campaign_id).problems == ()


def test_a_counter_for_a_ship_the_campaign_lacks_is_named(
    factory: SessionFactory, world: World, add_ship: Callable[..., int],
    writes_nothing: Load,
) -> None:  # fmt: skip
    add_ship(world.alpha_id, "Ajax")
    raw = csv_file("ship,counter_size,speed_rating", "Ajax,small,3", "Hood,long,2",
                   "Ajax,medium,3")  # fmt: skip
    report = writes_nothing("counters", raw, world.campaign_id)
    assert report.problems == (
        "row 3, ship: no ship named 'Hood' in this campaign",
        "row 4, counter_size: must be long or small (as printed on the counter)",
    )


# --- dry run and all-or-nothing ------------------------------------------------------------------


def test_a_dry_run_reports_the_valid_rows_and_writes_nothing(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    report = writes_nothing("ships", six_ships(), world.alpha_id, dry_run=True)
    assert report == Report(
        kind="ships", source=UTF8_COMMAS, rows=6, valid=6, written=0, problems=(), dry_run=True
    )
    # The same file for real writes all six.
    assert load(factory, "ships", six_ships(), world.alpha_id).written == 6
    assert len(ships_of(factory, world.alpha_id)) == 6


def test_five_good_rows_and_one_bad_write_nothing(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    ships_before = count_rows(factory, Ship)
    journal_before = count_rows(factory, JournalEntry)
    report = writes_nothing("ships", six_ships(bad_row=5), world.alpha_id)
    assert report.problems == ("row 5, flotation_max: must be 1..9999, got 0",)
    assert (report.rows, report.valid, report.written, report.ok) == (6, 5, 0, False)
    assert count_rows(factory, Ship) == ships_before
    assert count_rows(factory, JournalEntry) == journal_before
    # Nothing was left half-done on the connection: the fixed file goes in whole.
    assert load(factory, "ships", six_ships(), world.alpha_id).written == 6
    assert count_rows(factory, Ship) == ships_before + 6
    assert count_rows(factory, JournalEntry) == journal_before + 6


def test_the_last_row_bad_still_rolls_back_every_row_above_it(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    report = writes_nothing("ships", six_ships(bad_row=7), world.alpha_id)
    assert report.problems == ("row 7, flotation_max: must be 1..9999, got 0",)


def test_every_problem_is_listed_one_line_each_by_row_and_column(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    raw = csv_file(
        "name,size_modifier,speed_kn,structure_max,structure_now,flotation_max",
        "Hood,2,31,20,,18",  # row 2: good
        ",1,31,x,,18",  # row 3: two problems
        "Renown,0,29,15,16,12",  # row 4: above max
        "",  # row 5: a blank line is a row of the file, and no problem
        "Repulse,0,99,15,,1.5",  # row 6: two problems
        "Hood,0,30,12,,10",  # row 7: the name row 2 took
    )
    report = writes_nothing("ships", raw, world.alpha_id, dry_run=True)
    assert report.problems == (
        "row 3, name: is required",
        "row 3, structure_max: 'x' is not a whole number",
        "row 4, structure_now: must not exceed structure max (15), got 16",
        "row 6, flotation_max: '1.5' is not a whole number",
        "row 7, name: this side already has a ship named 'Hood': choose another name",
    )
    assert report.rows == 5  # the blank line is not a ship


def test_service_range_problems_of_one_row_each_get_a_line(
    factory: SessionFactory, world: World
) -> None:
    raw = csv_file(f"{SHIP_HEADER},size_modifier,speed_kn,fire_markers", "Hood,0,0,4,61,100")
    assert load(factory, "ships", raw, world.alpha_id).problems == (
        "row 2, size_modifier: must be -3..3, got 4",
        "row 2, speed_kn: must be 0..60, got 61",
        "row 2, structure_max: must be 1..9999, got 0",
        "row 2, flotation_max: must be 1..9999, got 0",
        "row 2, fire_markers: must be 0..99, got 100",
    )


def test_a_long_file_of_problems_is_cut_short_with_a_note(
    factory: SessionFactory, world: World
) -> None:
    # A different problem on every row: the same one on many rows is one line (below).
    raw = csv_file(f"{SHIP_HEADER},fire_markers", *(f"Ship {n},1,1,{100 + n}" for n in range(300)))
    problems = load(factory, "ships", raw, world.alpha_id).problems
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[0] == "row 2, fire_markers: must be 0..99, got 100"
    assert problems[-2] == f"row {MAX_PROBLEMS + 1}, fire_markers: must be 0..99, got 299"
    assert problems[-1] == "... and more: fix these first"
    assert ships_of(factory, world.alpha_id) == []


def test_the_same_problem_on_many_rows_is_said_once_with_its_rows(
    factory: SessionFactory, world: World
) -> None:
    raw = csv_file(SHIP_HEADER, *(f"Ship {n},{0 if n != 5 else 20},1" for n in range(300)))
    assert load(factory, "ships", raw, world.alpha_id).problems == (
        "rows 2-6, 8-301 (299 rows), structure_max: must be 1..9999, got 0",
    )
    assert ships_of(factory, world.alpha_id) == []


# --- the header ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "row", "expected"),
    [
        pytest.param(
            f"{SHIP_HEADER},armor", "Hood,20,18,7", ["header: unknown column 'armor'"],
            id="unknown",
        ),
        pytest.param(
            f"{SHIP_HEADER},name", "Hood,20,18,Hood", ["header: column 'name' twice"],
            id="duplicate",
        ),
        pytest.param(
            "name,structure_max", "Hood,20",
            ["header: the required column 'flotation_max' is missing"], id="missing",
        ),
        pytest.param(
            f"{SHIP_HEADER},armor,armor", "Hood,20,18,7,7",
            ["header: unknown column 'armor'", "header: column 'armor' twice"],
            id="unknown twice",
        ),
        pytest.param(
            "name;structure_max;armor", "Hood;20;7",
            ["header: unknown column 'armor'",
             "header: the required column 'flotation_max' is missing"],
            id="semicolons",
        ),
    ],
)  # fmt: skip
def test_a_wrong_header_is_reported_with_the_expected_columns_and_nothing_is_written(
    factory: SessionFactory, world: World, db_state: Callable[[], Snapshot],
    header: str, row: str, expected: list[str],
) -> None:  # fmt: skip
    before = db_state()
    for dry_run in (True, False):
        report = load(factory, "ships", csv_file(header, row), world.alpha_id, dry_run=dry_run)
        assert list(report.problems) == [*expected, EXPECTED_SHIP_COLUMNS]
        assert report.written == 0
    assert db_state() == before


@pytest.mark.parametrize(
    ("kind", "header", "row", "missing"),
    [
        ("ships", "structure_max,flotation_max", "20,18", "name"),
        ("units", "name,points", "Bismarck,70", "unit_type"),
        ("units", "unit_type,points", "battleship,70", "name"),
        ("counters", "counter_size,speed_rating", "long,2", "ship"),
        ("counters", "ship,counter_size", "Ajax,long", "speed_rating"),
    ],
)
def test_rows_under_a_header_without_a_required_column_are_reported_not_crashed_on(
    factory: SessionFactory, world: World, add_ship: Callable[..., int],
    writes_nothing: Load, kind: str, header: str, row: str, missing: str,
) -> None:  # fmt: skip
    add_ship(world.alpha_id, "Ajax")
    target = {"ships": world.alpha_id, "units": world.blue_id, "counters": world.campaign_id}
    report = writes_nothing(kind, csv_file(header, row, row.replace("70", "x")), target[kind])
    header_problems, row_problems = report.problems[:2], report.problems[2:]
    assert header_problems[0] == f"header: the required column {missing!r} is missing"
    assert header_problems[1].startswith(f"header: the columns of {kind} are ")
    # The cells are still checked, though no row can be saved.
    assert row_problems == (("row 3, points: 'x' is not a whole number",) if "70" in row else ())
    assert report.written == 0


def test_the_expected_columns_mark_the_required_ones() -> None:
    assert csv_import.column_names("counters") == (
        "ship*, side, counter_size*, speed_rating*, torpedo_factors, mines_loaded, hull_boxes, "
        "fuel_full, fuel_empty"
    )
    assert csv_import.column_names("ships").startswith("name*, class_name, ")


# --- cells ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("cell", ["ten", "1.5", "1,000", "12kt", "-", "1e3", "0x10"])
def test_a_bad_number_names_its_row_column_and_text(
    factory: SessionFactory, world: World, writes_nothing: Load, cell: str
) -> None:
    raw = csv_file(f"{SHIP_HEADER},speed_kn", f'Hood,20,18,"{cell}"')
    report = writes_nothing("ships", raw, world.alpha_id)
    assert report.problems == (f"row 2, speed_kn: {cell!r} is not a whole number",)


def test_bad_unit_cells_name_their_columns(factory: SessionFactory, world: World) -> None:
    raw = csv_file(
        "name,unit_type,year,attack_main,attack_torpedo",
        "Bismarck,Battleship,1941,,",  # row 2: a type in any case is fine
        "Tirpitz,battleship,,8 8 7,",  # row 3: three dice
        "Scharnhorst,battleship,,6 6 x -,",  # row 4: a letter among the dice
        "U-47,submarine,,,25 3 2 -",  # row 5: 25 dice
    )
    problems = load(factory, "units", raw, world.red_id).problems
    assert problems == (
        "row 3, attack_main: give four values for ranges 0 to 3, e.g. 3 2 1 -",
        "row 4, attack_main: dice counts are whole numbers or -",
        "row 5, attack_torpedo: four dice counts 0..20 (or - for none), ranges 0 to 3",
    )
    assert count_rows(factory, WasUnit) == 0


def test_a_year_out_of_range_is_named(factory: SessionFactory, world: World) -> None:
    raw = csv_file("name,unit_type,year", "Tirpitz,battleship,1960")
    assert load(factory, "units", raw, world.red_id).problems == (
        "row 2, year: must be 1900..1950, got 1960",
    )


def test_markup_in_names_is_stored_as_typed(factory: SessionFactory, world: World) -> None:
    raw = csv_file(
        "name,unit_type,notes",
        '[bold]x[/],destroyer,"<b>bold</b> & [red]red[/red]"',
        "<b>Hood</b>,cruiser,",
    )
    assert load(factory, "units", raw, world.blue_id).written == 2
    units = roster.roster(factory, side_id=world.blue_id).units
    assert [u.name for u in units] == ["[bold]x[/]", "<b>Hood</b>"]
    assert units[0].notes == "<b>bold</b> & [red]red[/red]"
    raw = csv_file(SHIP_HEADER, "[bold]x[/],3,3", "<b>Hood</b>,3,3", "[link=http://x]y[/link],3,3")
    assert load(factory, "ships", raw, world.alpha_id).written == 3
    assert [s.name for s in ships_of(factory, world.alpha_id)] == [
        "[bold]x[/]", "<b>Hood</b>", "[link=http://x]y[/link]",
    ]  # fmt: skip


def test_a_name_twice_in_the_file_is_refused_in_any_case(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    raw = csv_file(SHIP_HEADER, "Hood,20,18", "Renown,15,12", "HOOD,20,18")
    report = writes_nothing("ships", raw, world.alpha_id)
    assert report.problems == (
        "row 4, name: this side already has a ship named 'HOOD': choose another name",
    )


def test_a_name_the_side_already_has_is_refused(
    factory: SessionFactory, world: World, add_ship: Callable[..., int],
    writes_nothing: Load,
) -> None:  # fmt: skip
    add_ship(world.bravo_id, "Ajax")  # Blue's other squadron: ship names are the side's
    raw = csv_file(SHIP_HEADER, "Hood,20,18", "ajax,10,9")
    report = writes_nothing("ships", raw, world.alpha_id)
    assert report.problems == (
        "row 3, name: this side already has a ship named 'ajax': choose another name",
    )
    # The other side may have its own Ajax.
    assert load(factory, "ships", raw, world.raider_id).written == 2


def test_a_row_with_more_cells_than_columns_is_named(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    raw = csv_file(SHIP_HEADER, "Hood,20,18", "Renown,15,12,extra", "Repulse,15,12,,x")
    report = writes_nothing("ships", raw, world.alpha_id)
    assert report.problems == (
        "rows 3-4 (2 rows): more cells than columns: a separator inside a cell? put the cell "
        "in double quotes",
    )
    # Blank cells past the last column are a spreadsheet's empty column: nothing to say.
    raw = csv_file(SHIP_HEADER, "Hood,20,18", "Renown,15,12,", "Repulse,15,12,,")
    assert load(factory, "ships", raw, world.alpha_id).written == 3


def test_a_short_row_takes_defaults_but_still_needs_its_required_cells(
    factory: SessionFactory, world: World
) -> None:
    header = f"{SHIP_HEADER},points_base,notes"
    report = load(factory, "ships", csv_file(header, "Hood,20,18", "Renown,15"), world.alpha_id)
    assert report.problems == ("row 3, flotation_max: is required",)
    assert load(factory, "ships", csv_file(header, "Hood,20,18"), world.alpha_id).written == 1
    [hood] = ships_of(factory, world.alpha_id)
    assert (hood.points_base, hood.notes) == (0, "")


# --- the file as a whole -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "said"),
    [("cp1252", "cp1252 (Windows; the file is not UTF-8)"), ("utf-16", "UTF-16")],
)
def test_a_file_in_cp1252_or_utf16_with_its_mark_is_read_and_says_so(
    factory: SessionFactory, world: World, encoding: str, said: str
) -> None:
    raw = csv_file(SHIP_HEADER, "Émile Bertin,9,8", "Béarn,9,8", encoding=encoding)
    report = load(factory, "ships", raw, world.alpha_id)
    assert (report.problems, report.written) == ((), 2)
    assert report.source == f"CSV, {said}, comma-separated"
    assert [s.name for s in ships_of(factory, world.alpha_id)] == ["Émile Bertin", "Béarn"]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_or_32_without_a_byte_order_mark_is_refused_naming_its_nul_bytes(
    factory: SessionFactory, world: World, refused: Refused, encoding: str
) -> None:
    raw = csv_file(SHIP_HEADER, "Hood,20,18", encoding=encoding)
    error = refused(lambda: load(factory, "ships", raw, world.alpha_id), "file")
    assert error.errors["file"].startswith("holds NUL bytes: ")
    assert "save it as CSV UTF-8" in error.errors["file"]


def test_a_utf8_byte_order_mark_is_accepted(factory: SessionFactory, world: World) -> None:
    raw = csv_file(SHIP_HEADER, "Émile Bertin,9,8", encoding="utf-8-sig")
    assert raw.startswith(b"\xef\xbb\xbf")
    report = load(factory, "ships", raw, world.alpha_id)
    assert (report.problems, report.written) == ((), 1)
    assert [s.name for s in ships_of(factory, world.alpha_id)] == ["Émile Bertin"]


def test_windows_line_endings_are_accepted(factory: SessionFactory, world: World) -> None:
    raw = f"{SHIP_HEADER}\r\nHood,20,18\r\nRenown,15,12\r\n".encode()
    assert load(factory, "ships", raw, world.alpha_id).written == 2
    assert [s.name for s in ships_of(factory, world.alpha_id)] == ["Hood", "Renown"]


@pytest.mark.parametrize("raw", [b"", b"\n", b"\r\n\r\n", "\ufeff".encode()])
def test_an_empty_file_is_refused(
    factory: SessionFactory, world: World, refused: Refused, raw: bytes
) -> None:
    error = refused(lambda: load(factory, "ships", raw, world.alpha_id), "file")
    assert error.errors["file"] == "is empty: the first line names the columns"


@pytest.mark.parametrize(
    "raw", [csv_file(SHIP_HEADER), SHIP_HEADER.encode(), csv_file(SHIP_HEADER, "", "")]
)
def test_a_header_without_rows_is_a_problem_and_writes_nothing(
    factory: SessionFactory, world: World, writes_nothing: Load, raw: bytes
) -> None:
    report = writes_nothing("ships", raw, world.alpha_id)
    assert report == Report(
        kind="ships", source=UTF8_COMMAS, rows=0, valid=0, written=0,
        problems=("no rows below the header",), dry_run=False,
    )  # fmt: skip
    assert not report.ok


def test_broken_quoting_is_refused(factory: SessionFactory, world: World, refused: Refused) -> None:
    raw = csv_file(SHIP_HEADER, '"Hood,20,18')
    error = refused(lambda: load(factory, "ships", raw, world.alpha_id), "file")
    assert error.errors["file"].startswith("line 2 is not CSV: ")


def test_a_quoted_cell_may_hold_a_line_break_and_rows_count_records(
    factory: SessionFactory, world: World
) -> None:
    raw = csv_file(f"{SHIP_HEADER},notes", 'Hood,20,18,"Battlecruiser\nsunk 1941"', "Renown,0,1,")
    report = load(factory, "ships", raw, world.alpha_id)
    assert report.problems == ("row 3, structure_max: must be 1..9999, got 0",)


def test_a_file_over_the_limit_is_refused_unread(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    raw = csv_file(SHIP_HEADER) + b"x" * csv_import.MAX_BYTES
    error = refused(lambda: load(factory, "ships", raw, world.alpha_id), "file")
    assert error.errors["file"] == "is larger than 8 MB"


def test_an_unknown_kind_is_refused(
    factory: SessionFactory, world: World, refused: Refused
) -> None:
    raw = csv_file(SHIP_HEADER, "Hood,20,18")
    error = refused(lambda: load(factory, "boats", raw, world.alpha_id), "kind")
    assert error.errors["kind"] == "must be one of ships, units, counters"


def test_a_squadron_that_no_longer_exists_is_reported_per_row(
    factory: SessionFactory, world: World, writes_nothing: Load
) -> None:
    report = writes_nothing("ships", csv_file(SHIP_HEADER, "Hood,20,18"), 9999)
    assert report.problems == ("row 2, row: squadron 9999 no longer exists",)


def test_a_spreadsheets_capitalised_header_and_words_are_read_in_any_case(
    factory: SessionFactory, world: World
) -> None:
    raw = csv_file("Name,Unit_Type,Points", "Bismarck,Battleship,70", ",,")  # a blank row too
    report = load(factory, "units", raw, world.red_id)
    assert (report.problems, report.written) == ((), 1)
    assert [u.unit_type for u in roster.roster(factory, side_id=world.red_id).units] == [
        "battleship"
    ]


def test_a_counters_file_changes_only_its_own_columns_and_names_the_side_when_it_must(
    factory: SessionFactory, world: World
) -> None:
    blue = fleet.create_ship(factory, squadron_id=world.alpha_id, fields=fleet.ShipFields(
        name="Hardy"))  # fmt: skip
    red = fleet.create_ship(factory, squadron_id=world.raider_id, fields=fleet.ShipFields(
        name="Hardy"))  # fmt: skip
    mines.save_counter(factory, ship_id=blue, counter_size="small", speed_rating=3,
                       hull_boxes=2, fuel_full=4)  # fmt: skip
    both = load(factory, "counters", csv_file("ship,counter_size,speed_rating", "Hardy,small,2"),
                world.campaign_id)  # fmt: skip
    assert both.problems == ("row 2, ship: 'Hardy' is a ship of Blue, Red: say which in the side "
                             "column",)  # fmt: skip
    report = load(
        factory,
        "counters",
        csv_file("ship,side,counter_size,speed_rating", "Hardy,blue,small,2"),
        world.campaign_id,
    )
    assert report.written == 1
    view = mines.counter(factory, ship_id=blue)
    assert (view.speed_rating, view.hull_boxes, view.fuel.full) == (2, 2, 4)  # the rest kept
    assert mines.counter(factory, ship_id=red).speed_rating == 0


def test_a_ship_named_twice_in_a_counters_file_takes_each_row_in_turn_and_undoes_each(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    ajax = add_ship(world.alpha_id, "Ajax")
    raw = csv_file("ship,counter_size,speed_rating,fuel_full", "Ajax,small,2,4", "ajax,small,3,")
    report = load(factory, "counters", raw, world.campaign_id)
    assert (report.ok, report.written) == (True, 2), report.problems
    view = mines.counter(factory, ship_id=ajax)
    assert (view.counter_size, view.speed_rating, view.fuel.full) == ("small", 3, 4)
    # Each row is an entry of its own: undone in turn, the ship goes back row by row.
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert mines.counter(factory, ship_id=ajax).speed_rating == 2
    history.undo_last(factory, campaign_id=world.campaign_id)
    view = mines.counter(factory, ship_id=ajax)
    assert (view.counter_size, view.speed_rating, view.fuel.full) == ("", 0, 0)


def test_a_control_character_in_a_cell_is_refused(factory: SessionFactory, world: World) -> None:
    raw = csv_file(SHIP_HEADER, "Hero\x07,20,18")
    report = load(factory, "ships", raw, world.alpha_id)
    assert report.problems == (
        "row 2, name: holds a control character (U+0007): retype it without it",
    )


@pytest.mark.parametrize("separator", [",", ";", "\t"])
@pytest.mark.parametrize("kind", ["ships", "cards"])
def test_excels_sep_line_names_the_separator_for_every_csv_read(
    factory: SessionFactory, world: World, separator: str, kind: str
) -> None:
    """Excel's first line `sep=;` names the separator, for the ships (import-csv, the same for
    units and counters) and the library alike: the rows read are those of the file without it,
    and a problem is named by the file's own line."""
    header = "name,structure_max,flotation_max" if kind == "ships" else "name,unit_type,points"
    rows = (["Exeter,12,11", "Ajax,x,9"] if kind == "ships"
            else ["Exeter,cruiser,20", "Ajax,cruiser,x"])  # fmt: skip
    lines = [line.replace(",", separator) for line in [header, *rows]]
    raw = csv_file(f"sep={separator}", *lines)
    if kind == "ships":
        report = load(factory, "ships", raw, world.alpha_id, dry_run=True)
        problems, source = report.problems, report.source
    else:
        found = library.import_library(factory, raw=raw, dry_run=True)
        problems, source = found.problems, found.source
    assert SEPARATORS[separator] in source
    assert [problem.split(",")[0] for problem in problems] == ["row 4"]


@pytest.mark.parametrize("kind", ["ships", "units", "cards"])
def test_a_first_line_of_data_is_named_as_the_header_missing(
    factory: SessionFactory, world: World, kind: str
) -> None:
    """A file whose header line was left out is refused with one sentence that says so and
    names the columns, not a problem for each of its cells."""
    raw = csv_file("Exeter,12,11,C", "Ajax,10,9,C")
    with pytest.raises(InvalidInput) as refused:
        if kind == "cards":
            library.import_library(factory, raw=raw)
        else:
            load(factory, kind, raw, world.alpha_id if kind == "ships" else world.blue_id)
    said = refused.value.errors["file"]
    assert said.startswith("its first line ('exeter', '12', '11') names no column of ")
    assert "the header line looks missing" in said and "name" in said
