"""A track's present value is never above its maximum, whichever way a ship's values arrive
(SMR2 §2; models.fleet.tracks_above_max): the form's service, an edit, a CSV file, a campaign
file, and a critical that changes a track."""

from __future__ import annotations

from typing import Any

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.models.fields import validate
from tracker.models.fleet import ShipCreate, ShipUpdate, tracks_above_max, within_bounds
from tracker.services import csv_import, damage, exchange, fleet, rule_tables, scenarios
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields

# (maximum, present value, kept): at the maximum and below it kept, above it refused.
CASES = [(9, 9, True), (9, 0, True), (9, 10, False), (1, 2, False), (9999, 9999, True)]


def _refusal(act: Any) -> str:
    """What the act refused about Structure now, or "" when it took the ship."""
    try:
        act()
    except InvalidInput as exc:
        return exc.errors.get("structure_now", "")
    return ""


@pytest.mark.parametrize(("top", "now", "kept"), CASES)
def test_smr2_2_a_ship_above_its_maximum_is_refused_on_every_way_in(
    world: World, factory: SessionFactory, top: int, now: int, kept: bool
) -> None:
    fields = ShipFields(name="Exeter", structure_max=top, structure_now=now, flotation_max=8)
    said = f"must not exceed structure max ({top}), got {now}"
    expected = "" if kept else said
    assert _refusal(lambda: validate(ShipCreate, fields)) == expected
    assert _refusal(lambda: validate(ShipUpdate, fields)) == expected
    assert tracks_above_max(fields) == ({} if kept else {"structure_now": said})
    # The form's service, and an edit of a ship already there.
    new = {"squadron_id": world.alpha_id, "fields": fields}
    assert _refusal(lambda: fleet.create_ship(factory, **new)) == expected
    ajax = fleet.create_ship(factory, squadron_id=world.bravo_id, fields=ShipFields(name="Ajax"))
    edit = {**fields, "name": "Ajax"}
    assert _refusal(lambda: fleet.update_ship(factory, ship_id=ajax, fields=edit)) == expected
    # A CSV file of ships: the same words, on its row and column.
    raw = f"name,structure_max,structure_now,flotation_max\nHood,{top},{now},8\n".encode()
    report = csv_import.import_csv(
        factory, kind="ships", raw=raw, target_id=world.raider_id, dry_run=True
    )
    assert report.problems == (() if kept else (f"row 2, structure_now: {said}",))
    # A campaign file: its ship row is checked as the form checks it.
    document = exchange.export_campaign(factory, campaign_id=world.campaign_id)
    index = next(i for i, r in enumerate(document["tables"]["ship"]) if r["id"] == ajax)
    document["tables"]["ship"][index].update(structure_max=top, structure_now=now)
    try:
        exchange.read_document(exchange.dumps(document).encode())
        problem = ""
    except InvalidInput as exc:
        problem = str(exc)
    assert problem == expected or f"ship row {index}, structure_now: {said}" in problem


@pytest.mark.parametrize(("amount", "structure"), [(3, 9), (5, 9), (-3, 3), (-20, 0)])
def test_smr2_2_a_critical_that_changes_a_track_keeps_it_within_its_maximum(
    world: World, factory: SessionFactory, amount: int, structure: int
) -> None:
    """A critical row typed as `structure_now +5` on a ship at 6 of 9 leaves her at 9."""
    fields = ShipFields(name="Exeter", structure_max=9, structure_now=6, flotation_max=8)
    exeter = fleet.create_ship(factory, squadron_id=world.alpha_id, fields=fields)
    rule_tables.save_table_row(
        factory,
        campaign_id=world.campaign_id,
        kind="structural",
        low=1,
        high=10,
        effect="Shored up",
        stat="structure_now",
        amount=amount,
    )
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=[exeter])
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    rolled = (damage.CriticalRequest(roll=4),)
    result = damage.record_hit(factory, request=damage.HitRequest(exeter, criticals=rolled))
    assert result.structure.after == structure


@settings(max_examples=examples(300), deadline=None)
@given(top=st.integers(1, 9999), now=st.integers(0, 12000), change=st.integers(-20000, 20000))
def test_the_model_family_says_now_above_max_once(top: int, now: int, change: int) -> None:
    values = {"name": "Exeter", "structure_max": top, "structure_now": now}
    problems = tracks_above_max(values)
    assert bool(problems) == (now > top)
    try:
        validate(ShipCreate, values)
        refused: dict[str, str] = {}
    except InvalidInput as exc:
        refused = dict(exc.errors)
    assert refused == problems
    ship = ShipCreate.model_construct(**{**values, "structure_now": min(now, top)})
    assert 0 <= within_bounds(ship, "structure_now", min(now, top) + change) <= top
