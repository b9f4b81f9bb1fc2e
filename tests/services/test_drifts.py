"""Drifting minefields through the service (RULES.md §Subs ¶13; services/mines/drifts.py): a
drift is stamped with its scenario and turn, and refused before the minefield is laid, while it
is still being sown, and twice in one turn, whatever order the turns are typed in."""

from __future__ import annotations

import itertools
from functools import partial

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import attempt

from tracker.db import SessionFactory, session_scope
from tracker.models import Minefield
from tracker.services import campaigns, fleet, mines, scenarios
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields

LAST_TURN = 6  # the turn the scenario in play has reached
_sectors = itertools.count(1)


@pytest.fixture
def baltic(factory: SessionFactory) -> dict[str, int]:
    """Two campaigns: one with a scenario in play at turn 6, one between scenarios."""
    ids: dict[str, int] = {}
    for name, in_play in (("in play", True), ("between scenarios", False)):
        campaign = campaigns.create_campaign(factory, name=f"Baltic {name}").id
        side = campaigns.create_side(factory, campaign_id=campaign, name="Kriegsmarine").id
        ids[name] = side
        if in_play:
            scenario = campaigns.add_scenario(factory, campaign_id=campaign, title="Kattegat")
            squadron = fleet.create_squadron(factory, side_id=side, name="Minensucher")
            ship = fleet.create_ship(factory, squadron_id=squadron,
                                     fields=ShipFields(name="Brummer"))  # fmt: skip
            scenarios.set_participants(factory, scenario_id=scenario.id, ship_ids=[ship])
            scenarios.start_scenario(factory, scenario_id=scenario.id)
            for _ in range(LAST_TURN - 1):
                scenarios.advance_turn(factory, scenario_id=scenario.id)
    return ids


@settings(
    max_examples=examples(40),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(where=st.sampled_from(["in play", "between scenarios"]),
       begun=st.integers(1, LAST_TURN), later=st.integers(0, 2), complete_at_once=st.booleans(),
       turns=st.lists(st.none() | st.integers(1, LAST_TURN), max_size=8))  # fmt: skip
def test_par13_a_minefield_drifts_once_a_turn_from_the_end_of_the_turn_it_was_laid(
    factory: SessionFactory, baltic: dict[str, int], where: str, begun: int, later: int,
    complete_at_once: bool, turns: list[int | None],
) -> None:  # fmt: skip
    """A drifting minefield begun on a generated turn, laid then or a turn or two later, is
    drifted on generated turns (blank: the turn in play): each drift goes through exactly when
    it is after the last and not before the turn it was laid, and is kept with its turn."""
    sector = f"K{next(_sectors)}"
    field = mines.sow_minefield(factory, side_id=baltic[where], laid_by="surface", sector=sector,
                                drifting=True, turn=begun, complete=complete_at_once)  # fmt: skip
    laid = min(begun + later, LAST_TURN) if not complete_at_once else begun
    # Still being sown, it is no minefield yet: it does not drift.
    if not complete_at_once:
        assert isinstance(attempt(lambda: mines.drift(
            factory, minefield_id=field, to_sector="Z1", turn=laid)), InvalidInput)  # fmt: skip
        mines.complete_minefield(factory, minefield_id=field, turn=laid)
    drifted: list[int] = []
    for n, typed in enumerate(turns):
        turn = typed if typed is not None else (LAST_TURN if where == "in play" else None)
        may = turn is not None and turn >= laid and (not drifted or turn > drifted[-1])
        outcome = attempt(partial(mines.drift, factory, minefield_id=field,
                                  to_sector=f"Z{n}", turn=typed))  # fmt: skip
        assert (outcome is None) == may, (turn, laid, drifted, outcome)
        if may:
            assert turn is not None
            drifted.append(turn)
        else:
            assert isinstance(outcome, InvalidInput)
    (view,) = (row for row in mines.ledger(factory, campaign_id=_campaign(factory, field))
               .minefields if row.id == field)  # fmt: skip
    assert [int(step.split(":")[0].removeprefix("turn ")) for step in view.path] == drifted
    with session_scope(factory) as session:
        row = session.get(Minefield, field)
        assert row is not None
        assert row.drift_turn == (drifted[-1] if drifted else None)
        assert (row.drift_scenario_id is not None) == (bool(drifted) and where == "in play")


def _campaign(factory: SessionFactory, field: int) -> int:
    with session_scope(factory) as session:
        row = session.get(Minefield, field)
        assert row is not None
        return row.campaign_id


def test_par13_the_end_of_turn_asks_only_for_the_drifts_the_rule_allows(
    factory: SessionFactory, baltic: dict[str, int]
) -> None:
    side = baltic["in play"]
    campaign = _campaign(factory, mines.sow_minefield(
        factory, side_id=side, laid_by="surface", sector="A1", drifting=True, complete=True,
        turn=2))  # fmt: skip
    assert mines.not_drifted(factory, campaign_id=campaign) == 1
    mines.sow_minefield(factory, side_id=side, laid_by="surface", sector="A2", drifting=True)
    assert mines.not_drifted(factory, campaign_id=campaign) == 1  # one still being sown: none
