"""The story names the commander lost as he was when he was lost, never his replacement: the
after-action and campaign reports (read model, HTML, Markdown) read the loss's journal entry,
which keeps who was lost (docs/RULES.md §SMR2 "A ship lost, and the commander aboard")."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from service_helpers import World, appoint, begin_with_all
from sqlalchemy import update
from sqlmodel import col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Commander, JournalEntry, Ship, Side, Squadron
from tracker.publish import report_pages
from tracker.services import (
    campaign_story,
    command,
    damage,
    exchange,
    fleet,
    mines,
    reports,
    scenarios,
)
from tracker.services.damage import HitRequest
from tracker.services.reports import CommanderLost

AddShip = Callable[..., int]
# The key of a loss's journal entry that keeps who was lost: part of the campaign file's format.
LOST = "commanders_lost"
HIPPER, EUGEN = "Admiral Hipper", "Prinz Eugen"
LUETJENS = CommanderLost(squadron="Kampfgruppe", side="Red", name="Adm Luetjens", ship=HIPPER,
                         turn=1)  # fmt: skip
SAID = "Commander Adm Luetjens of Kampfgruppe (Red) lost with Admiral Hipper"
PAID = "Admiral Hipper (commander Adm Luetjens lost with her)"


def _sink_hipper(factory: SessionFactory, world: World, hipper: int, cause: str) -> None:
    if cause == "gunfire":
        damage.record_hit(factory, request=HitRequest(hipper, structure=99))
        damage.confirm_condition(factory, ship_id=hipper, outcome="Sunk")
        return
    mines.save_counter(factory, ship_id=hipper, counter_size="long", speed_rating=4)
    field = mines.sow_minefield(factory, side_id=world.blue_id, laid_by="surface", sector="B4",
                                complete=True)  # fmt: skip
    check_id = mines.start_check(factory, minefield_id=field, ship_ids=[hipper], speed=1, seed=1)
    mines.roll_mine(factory, check_id=check_id, roll=1, effects="sunk")


@pytest.fixture(params=["gunfire", "mine"])
def replaced(request: pytest.FixtureRequest, world: World, factory: SessionFactory,
             add_ship: AddShip) -> int:  # fmt: skip
    """Adm Luetjens aboard Admiral Hipper (g), Hipper sunk, Kpt Brinkmann typed as his
    replacement (r) and put aboard Prinz Eugen, the scenario closed; Red's side id."""
    fleet.update_squadron(factory, squadron_id=world.raider_id, name="Kampfgruppe", air=False,
                          notes="")  # fmt: skip
    hipper, eugen = add_ship(world.raider_id, HIPPER), add_ship(world.raider_id, EUGEN)
    appoint(factory, world.raider_id, name="Adm Luetjens", training=4, acquisition="direct")
    command.set_commander_ship(factory, squadron_id=world.raider_id, ship_id=hipper)
    begin_with_all(factory, world)
    _sink_hipper(factory, world, hipper, request.param)
    appoint(factory, world.raider_id, name="Kpt Brinkmann", training=2, acquisition="direct")
    command.set_commander_ship(factory, squadron_id=world.raider_id, ship_id=eugen)
    scenarios.close_scenario(factory, scenario_id=world.scenario_id)
    return world.red_id


def test_smr2_3_4_the_reports_name_the_commander_lost_not_his_replacement(
    world: World, factory: SessionFactory, replaced: int
) -> None:
    for side_id in (None, replaced):  # for everyone, and for his own side
        report = reports.after_action_report(factory, scenario_id=world.scenario_id,
                                             side_id=side_id)  # fmt: skip
        assert report.commanders_lost == (LUETJENS,)
        campaign = campaign_story.campaign_report(factory, campaign_id=world.campaign_id,
                                           side_id=side_id)  # fmt: skip
        assert [r.commanders_lost for r in campaign.after_actions] == [(LUETJENS,)]
        # What each side paid names him with the ship he was lost with; the other side, none.
        paid = {tally.side: [row.losses for row in tally.scenarios] for tally in campaign.sides}
        assert paid == {"Red": [PAID], "Blue": ["-"]}
        assert PAID in report_pages.render(campaign)
        assert PAID in report_pages.render(campaign, fmt="markdown")
        pages = (
            report_pages.render(report), report_pages.render(report, fmt="markdown"),
            report_pages.render(campaign), report_pages.render(campaign, fmt="markdown"),
        )  # fmt: skip
        for page in pages:
            assert SAID in page
            assert "Commander Kpt Brinkmann" not in page


def test_an_entry_written_before_the_loss_was_kept_still_names_him(
    world: World, factory: SessionFactory, replaced: int
) -> None:
    """A campaign file from before: the loss's entry holds only its row changes."""
    with session_scope(factory) as session:
        for entry in session.exec(select(JournalEntry)).all():
            detail = json.loads(entry.detail)
            if detail.pop(LOST, None) is not None:
                session.execute(update(JournalEntry).where(col(JournalEntry.id) == entry.id)
                                .values(detail=json.dumps(detail)))  # fmt: skip
    report = reports.after_action_report(factory, scenario_id=world.scenario_id)
    assert report.commanders_lost == (LUETJENS,)


def test_a_campaign_copied_keeps_who_was_lost_pointing_at_its_own_rows(
    world: World, factory: SessionFactory, replaced: int
) -> None:
    document = exchange.export_campaign(factory, campaign_id=world.campaign_id)
    copy_id = exchange.import_campaign(factory, document=document, name="Copy")

    def kept(campaign_id: int) -> list[dict[str, object]]:
        with session_scope(factory) as session:
            entries = session.exec(
                select(JournalEntry).where(JournalEntry.campaign_id == campaign_id)
            ).all()
            return [who for e in entries for who in json.loads(e.detail).get(LOST, ())]

    [source], [copied] = kept(world.campaign_id), kept(copy_id)
    names = ("name", "squadron", "side", "ship")
    assert {key: copied[key] for key in names} == {key: source[key] for key in names}
    with session_scope(factory) as session:  # each id names the copy's own row
        side = session.get(Side, copied["side_id"])
        commander = session.get(Commander, copied["commander_id"])
        squadron = session.get(Squadron, copied["squadron_id"])
        ship = session.get(Ship, copied["ship_id"])
        assert side is not None and side.campaign_id == copy_id
        assert commander is not None and commander.campaign_id == copy_id
        assert squadron is not None and squadron.side_id == side.id
        assert ship is not None and (ship.name, ship.side_id) == (HIPPER, side.id)
    copy = campaign_story.campaign_report(factory, campaign_id=copy_id)
    assert [r.commanders_lost for r in copy.after_actions] == [(LUETJENS,)]
