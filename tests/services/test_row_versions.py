"""Every edit form sends the version of the row it was opened with: an edit made on a form
that another player's change has made stale is refused, and nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Refused, World
from sqlmodel import SQLModel

from tracker import models
from tracker.db import SessionFactory, session_scope
from tracker.services import campaigns, command, fleet, markers, mines, roster
from tracker.services.errors import ChangedElsewhere

# Nothing is written by a refused edit, so one database serves every example.
STALE = settings(
    max_examples=examples(15), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip
_notes = st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs")), max_size=30)


def _version(factory: SessionFactory, model: type[SQLModel], row_id: int) -> int:
    with session_scope(factory) as session:
        row = session.get(model, row_id)
        assert row is not None
        version: int = row.version  # type: ignore[attr-defined]
        return version


def _squadron(factory: SessionFactory, squadron_id: int) -> models.Squadron:
    with session_scope(factory) as session:
        squadron = session.get(models.Squadron, squadron_id)
        assert squadron is not None
        return squadron


def _stale(current: int) -> st.SearchStrategy[int]:
    """A version the form could have shown: any earlier one (or one from a row since lost)."""
    return st.integers(1, 2**31 - 1).filter(lambda version: version != current)


def _assert_stale_refused(refused: Refused, edit: Callable[[], object], name: str) -> None:
    error = refused(edit, "database")
    assert isinstance(error, ChangedElsewhere)
    assert (
        f"{name} was changed by another player while your form was open"
        in (error.errors["database"])
    )


HARWOOD: dict[str, Any] = {"name": "Harwood", "training": 4, "acquisition": "random", "roll": 5}
U47 = {"name": "U-47", "unit_type": "submarine", "points": 10, "hull_points": 2}


@pytest.fixture
def u47(factory: SessionFactory, world: World) -> int:
    return roster.save_unit(factory, side_id=world.red_id, fields=dict(U47))


@pytest.fixture
def edited_twice(
    factory: SessionFactory, world: World, ajax: int, u47: int, ids: dict[str, int]
) -> dict[str, int]:
    """The versions of rows another player has just changed (each is beyond version 1)."""
    fleet.add_fire_markers(factory, ship_id=ajax, delta=1)
    fleet.update_squadron(factory, squadron_id=world.alpha_id, name="Alpha", air=False, notes="x")
    roster.save_unit(factory, side_id=world.red_id, unit_id=u47, fields={**U47, "damage": 1})
    campaigns.update_side(factory, side_id=world.blue_id, name="Blue", nation="Britain")
    for _ in range(2):  # generated, then rolled again
        command.set_commander(factory, squadron_id=world.alpha_id, **HARWOOD)
        command.set_crew(factory, squadron_id=world.alpha_id, training=3, acquisition="direct")
    campaigns.update_scenario(factory, scenario_id=world.scenario_id, title="Plate", date="1939")
    fleet.save_battery(factory, ship_id=ajax, battery_id=ids["battery"], mount="turret", guns=3)
    campaigns.update_campaign(factory, campaign_id=world.campaign_id, name="C", notes="",
                              model_scale="1/2400", crew_roll_adds_commander=True)  # fmt: skip
    mines.set_status(factory, minefield_id=ids["minefield"], status="swept")
    markers.move_marker(factory, marker_id=ids["marker"], sector="B2")
    roster.save_unit(factory, side_id=world.red_id, unit_id=ids["sub"], fields={**U99, "points": 9})
    return _versions(factory, world, ids)


U99 = {**U47, "name": "U-99"}


@pytest.fixture
def ids(factory: SessionFactory, world: World, ajax: int, u47: int) -> dict[str, int]:
    """The rows made for the test, by entity."""
    battery = fleet.save_battery(factory, ship_id=ajax, mount="turret", calibre="6in", guns=2)
    mines.save_counter(factory, ship_id=ajax, counter_size="long", speed_rating=3, fuel_full=5)
    minefield = mines.sow_minefield(factory, side_id=world.blue_id, laid_by="surface",
                                    sector="K7", complete=True)  # fmt: skip
    sowing = mines.sow_minefield(factory, side_id=world.blue_id, laid_by="surface", sector="K8",
                                 drifting=True)  # fmt: skip
    # Laid on turn 1 between scenarios: it may drift at that turn's end (RULES.md §Subs ¶13).
    loose = mines.sow_minefield(factory, side_id=world.blue_id, laid_by="surface", sector="K9",
                                drifting=True, complete=True, turn=1)  # fmt: skip
    markers.assign_markers(factory, unit_id=u47, real=1, sectors=["A1", "A2"])
    marker = roster.roster(factory, side_id=world.red_id).markers[0].id
    sub = roster.save_unit(factory, side_id=world.red_id, fields=dict(U99))
    return {"ship": ajax, "unit": u47, "battery": battery, "minefield": minefield,
            "sowing": sowing, "loose": loose, "marker": marker, "sub": sub}  # fmt: skip


@pytest.fixture
def marker_code(factory: SessionFactory, world: World, ids: dict[str, int]) -> str:
    """The public code the marker was given (drawn at random)."""
    return next(marker.code for marker in roster.roster(factory, side_id=world.red_id).markers
                if marker.id == ids["marker"])  # fmt: skip


def _versions(factory: SessionFactory, world: World, ids: dict[str, int]) -> dict[str, int]:
    squadron = _squadron(factory, world.alpha_id)
    return {
        "commander": _version(factory, models.Commander, squadron.commander_id or 0),
        "crew": _version(factory, models.Crew, squadron.crew_id or 0),
        "side": _version(factory, models.Side, world.blue_id),
        "scenario": _version(factory, models.Scenario, world.scenario_id),
        "ship": _version(factory, models.Ship, ids["ship"]),
        "squadron": _version(factory, models.Squadron, world.alpha_id),
        "unit": _version(factory, models.WasUnit, ids["unit"]),
        "battery": _version(factory, models.Battery, ids["battery"]),
        "campaign": _version(factory, models.Campaign, world.campaign_id),
        # A counter and its fuel are the ship's: the forms send the ship's version.
        "counter": _version(factory, models.Ship, ids["ship"]),
        "fuel": _version(factory, models.Ship, ids["ship"]),
        "minefield": _version(factory, models.Minefield, ids["minefield"]),
        "complete": _version(factory, models.Minefield, ids["sowing"]),
        "drift": _version(factory, models.Minefield, ids["loose"]),
        "move": _version(factory, models.SubMarker, ids["marker"]),
        # The decoy-note form counts the markers from the unit: it sends the unit's version.
        "markers": _version(factory, models.WasUnit, ids["sub"]),
    }


AJAX = {"name": "Ajax", "structure_max": 9, "flotation_max": 8}
RATING: dict[str, Any] = {"training": 3, "acquisition": "random", "roll": 5}
# Each edit form's call, as (the row's name in the message, the call given the world, the ids
# of the rows made for the test, the version the form showed, and a text the player typed).
Edit = Callable[[SessionFactory, World, dict[str, int], int, str], object]
EDITS: dict[str, tuple[str, Edit]] = {
    "ship": ("Ajax", lambda f, w, ids, version, text: fleet.update_ship(
        f, ship_id=ids["ship"], fields={**AJAX, "notes": text, "version": version})),
    "squadron": ("Alpha", lambda f, w, ids, version, text: fleet.update_squadron(
        f, squadron_id=w.alpha_id, name="Alpha", air=False, notes=text, version=version)),
    "unit": ("U-47", lambda f, w, ids, version, text: roster.save_unit(
        f, side_id=w.red_id, unit_id=ids["unit"], fields={**U47, "notes": text,
                                                          "version": version})),
    "side": ("Blue", lambda f, w, ids, version, text: campaigns.update_side(
        f, side_id=w.blue_id, name="Blue", nation=text, version=version)),
    "scenario": ("Plate", lambda f, w, ids, version, text: campaigns.update_scenario(
        f, scenario_id=w.scenario_id, title="Plate", date=text, version=version)),
    "commander": ("Harwood", lambda f, w, ids, version, text: command.set_commander(
        f, squadron_id=w.alpha_id, name="Harwood", **RATING, version=version)),
    "crew": ("Alpha's crew", lambda f, w, ids, version, text: command.set_crew(
        f, squadron_id=w.alpha_id, **RATING, version=version)),
    "campaign": ("C", lambda f, w, ids, version, text: campaigns.update_campaign(
        f, campaign_id=w.campaign_id, name="C", notes=text, model_scale="1/2400",
        crew_roll_adds_commander=False, version=version)),
    "battery": ("Ajax's turret", lambda f, w, ids, version, text: fleet.save_battery(
        f, ship_id=ids["ship"], battery_id=ids["battery"], mount="turret", notes=text,
        version=version)),
    "counter": ("Ajax", lambda f, w, ids, version, text: mines.save_counter(
        f, ship_id=ids["ship"], counter_size="long", speed_rating=len(text) % 20,
        version=version)),
    "fuel": ("Ajax", lambda f, w, ids, version, text: mines.use_fuel(
        f, ship_id=ids["ship"], factors=1, version=version)),
    "minefield": ("Minefield #{minefield}", lambda f, w, ids, version, text: mines.set_status(
        f, minefield_id=ids["minefield"], status="expended", version=version)),
    "complete": ("Minefield #{sowing}", lambda f, w, ids, version, text:
                 mines.complete_minefield(f, minefield_id=ids["sowing"], version=version)),
    "drift": ("Minefield #{loose}", lambda f, w, ids, version, text: mines.drift(
        f, minefield_id=ids["loose"], to_sector=f"K{len(text) % 9 + 1}", turn=1,
        version=version)),
    "move": ("{marker_code}", lambda f, w, ids, version, text: markers.move_marker(
        f, marker_id=ids["marker"], sector=f"C{len(text) % 9 + 1}", version=version)),
    "markers": ("U-99", lambda f, w, ids, version, text: markers.assign_markers(
        f, unit_id=ids["sub"], real=1, sectors=["D1", "D2"], version=version)),
}  # fmt: skip


@pytest.mark.parametrize("entity", EDITS)
@STALE
@given(data=st.data(), text=_notes)
def test_an_edit_on_a_stale_form_is_refused_and_nothing_is_written(
    entity: str,
    factory: SessionFactory,
    world: World,
    ids: dict[str, int],
    edited_twice: dict[str, int],
    refused: Refused,
    data: st.DataObject,
    text: str,
    marker_code: str,
) -> None:
    name, edit = EDITS[entity]
    version = data.draw(_stale(edited_twice[entity]), label="version")
    name = name.format(marker_code=marker_code, **ids)
    _assert_stale_refused(refused, lambda: edit(factory, world, ids, version, text), name)


# Placing markers changes no row of the unit whose version the form sent: said on its own below.
@pytest.mark.parametrize("entity", [entity for entity in EDITS if entity != "markers"])
def test_the_version_the_form_showed_lets_the_edit_through(
    entity: str,
    factory: SessionFactory,
    world: World,
    ids: dict[str, int],
    edited_twice: dict[str, int],
) -> None:
    _, edit = EDITS[entity]
    edit(factory, world, ids, edited_twice[entity], "kept")
    assert _versions(factory, world, ids)[entity] == edited_twice[entity] + 1


def test_the_unit_version_the_decoy_form_showed_places_its_markers(
    factory: SessionFactory, world: World, ids: dict[str, int], edited_twice: dict[str, int]
) -> None:
    _, edit = EDITS["markers"]
    assignment = edit(factory, world, ids, edited_twice["markers"], "kept")
    assert isinstance(assignment, markers.Assignment)
    placed = {
        marker.code: marker.sector
        for marker in roster.roster(factory, side_id=world.red_id).markers
    }
    assert [placed[code] for code in assignment.codes] == ["D1", "D2"]
