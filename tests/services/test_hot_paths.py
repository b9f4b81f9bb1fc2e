"""The reads made cheap for a large campaign give what the plain reads gave."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from service_helpers import World
from sqlmodel import Session, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry, Scenario, Ship, Side
from tracker.services import campaigns, damage, history, journal, mines

STATUSES = ("planned", "in_play", "closed", "archived")


def _current_as_before(session: Session, campaign_id: int) -> Scenario | None:
    """journal.current_scenario as it was written first: every scenario loaded, then chosen."""
    scenarios = session.exec(
        select(Scenario).where(Scenario.campaign_id == campaign_id).order_by(col(Scenario.position))
    ).all()
    for status in ("in_play", "planned"):
        for scenario in scenarios:
            if scenario.status == status:
                return scenario
    return scenarios[-1] if scenarios else None


def test_the_current_scenario_is_chosen_as_before_for_every_mix_of_statuses(
    factory: SessionFactory,
) -> None:
    created = campaigns.create_campaign(factory, name="C")
    with session_scope(factory) as session:
        assert journal.current_scenario(session, created.id) is None
    for title in ("One", "Two", "Three"):
        campaigns.add_scenario(factory, campaign_id=created.id, title=title)
    with session_scope(factory) as session:
        scenarios = session.exec(select(Scenario).where(Scenario.campaign_id == created.id)).all()
        for statuses in itertools.product(STATUSES, repeat=len(scenarios)):
            for scenario, status in zip(scenarios, statuses, strict=True):
                scenario.status = status
            session.flush()
            expected = _current_as_before(session, created.id)
            found = journal.current_scenario(session, created.id)
            assert found is not None and expected is not None
            assert found.id == expected.id, statuses
        session.rollback()


def test_journal_filters_list_every_kind_once_and_the_ships_by_name(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    add_ship(world.alpha_id, "Exeter")
    add_ship(world.raider_id, "Admiral Graf Spee")
    other = campaigns.create_campaign(factory, name="Other")
    campaigns.create_side(factory, campaign_id=other.id, name="Green")
    filters = history.journal_filters(factory, campaign_id=world.campaign_id)
    with session_scope(factory) as session:
        kinds = session.exec(
            select(JournalEntry.kind).where(JournalEntry.campaign_id == world.campaign_id)
        ).all()
        ships = session.exec(
            select(Ship).join(Side, col(Ship.side_id) == col(Side.id))
            .where(Side.campaign_id == world.campaign_id).order_by(col(Ship.name))
        ).all()  # fmt: skip
        expected_ships = tuple((ship.name, ship.id) for ship in ships)
    assert filters.kinds == tuple(sorted(set(kinds)))
    assert len(filters.kinds) > 2
    assert filters.ships == expected_ships
    assert [name for name, _ in filters.ships] == ["Admiral Graf Spee", "Exeter"]
    empty = campaigns.create_campaign(factory, name="Empty")
    with session_scope(factory) as session:  # a campaign with no journal at all
        for entry in session.exec(
            select(JournalEntry).where(JournalEntry.campaign_id == empty.id)
        ).all():
            session.delete(entry)
    assert history.journal_filters(factory, campaign_id=empty.id).kinds == ()


def test_ship_picks_carry_side_squadron_and_sunk(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    exeter = add_ship(world.alpha_id, "Exeter")
    add_ship(world.raider_id, "Exmouth")
    with session_scope(factory) as session:
        ship = session.get(Ship, exeter)
        assert ship is not None
        ship.sunk = True
    picks = damage.find_ships(factory, campaign_id=world.campaign_id, query="ex")
    assert [(p.name, p.side, p.sunk) for p in picks] == [
        ("Exmouth", "Red", False),
        ("Exeter", "Blue", True),
    ]
    assert picks[1].id == exeter


def test_the_ledger_names_each_boundary_and_counts_what_each_ship_laid(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    sub = add_ship(world.raider_id, "U-47", type_abbrev="SS")
    mines.save_counter(factory, ship_id=sub, counter_size="small", speed_rating=2,
                       torpedo_factors=3, mines_loaded=2)  # fmt: skip
    first = mines.add_boundary(factory, campaign_id=world.campaign_id, area_a="North Sea",
                               area_b="Skagerrak")  # fmt: skip
    mines.add_boundary(factory, campaign_id=world.campaign_id, area_a="Kattegat", area_b="Belt")
    mines.sow_minefield(factory, side_id=world.red_id, boundary_id=first, sector="",
                        laid_by="submarine", layer_ship_id=sub, complete=True)  # fmt: skip
    mines.sow_minefield(factory, side_id=world.red_id, boundary_id=first, sector="",
                        laid_by="submarine", layer_ship_id=sub)  # fmt: skip
    mines.sow_minefield(factory, side_id=world.blue_id, boundary_id=None, sector="K7",
                        laid_by="surface", layer_name="Teviot Bank")  # fmt: skip
    # The owner's view: the opponent's hides how many torpedo factors carry mines.
    assert mines.ledger(factory, campaign_id=world.campaign_id).counters[0].mines_hidden
    ledger = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.red_id)
    assert [view.where for view in ledger.minefields] == [
        "North Sea | Skagerrak", "North Sea | Skagerrak", "sector K7",
    ]  # fmt: skip
    assert [b.label for b in ledger.boundaries] == ["Belt | Kattegat", "North Sea | Skagerrak"]
    [counter] = ledger.counters
    assert (counter.name, counter.mines_laid, counter.mines_aboard) == ("U-47", 2, 0)
    assert counter.sowing_id == ledger.minefields[1].id
    assert mines.counter(factory, ship_id=sub) == counter
    assert [c for c in mines.counter_ships(factory, campaign_id=world.campaign_id)
            if c.ship_id == sub] == [counter]  # fmt: skip
    assert campaigns.side_names(factory, campaign_id=world.campaign_id) == (
        campaigns.get_overview(factory, campaign_id=world.campaign_id).campaign.name,
        tuple(
            (side.name, side.id)
            for side in campaigns.get_overview(factory, campaign_id=world.campaign_id).sides
        ),
    )
