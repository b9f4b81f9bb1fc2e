"""The first look at a campaign file (campaign_file.first_look): the campaign list read with the
standard library before the database is open, line for line what the services list once it is,
for any mix of names, sides, ships retired or not, and scenarios in any status; and nothing for
a file it must not read so."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from campaign_files import migrated_engine
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from tracker.campaign_file import first_look
from tracker.db import session_factory, session_scope
from tracker.rules import smr
from tracker.services import campaigns, fleet
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields

STATUSES = ("planned", "in_play", "closed", "archived")
# Names a player may type, markup and other scripts among them.
NAMES = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")), min_size=1,
                max_size=20)  # fmt: skip
SHIPS = st.lists(st.booleans(), max_size=3)  # each ship: retired or not
SIDES = st.lists(st.lists(SHIPS, max_size=2), max_size=2)  # each side: its squadrons' ships
CAMPAIGN = st.tuples(NAMES, st.sampled_from(smr.SCALES), SIDES,
                     st.lists(st.sampled_from(STATUSES), max_size=4))  # fmt: skip


@settings(max_examples=examples(16), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])  # fmt: skip
@given(drawn=st.lists(CAMPAIGN, min_size=1, max_size=3))
def test_the_first_look_lists_what_the_services_list(
    tmp_path: Path, drawn: list[tuple[str, str, list[list[list[bool]]], list[str]]]
) -> None:
    path = tmp_path / "look.db"
    path.unlink(missing_ok=True)
    engine = migrated_engine(path)
    factory = session_factory(engine)
    for n, (name, scale, sides, statuses) in enumerate(drawn):
        try:
            campaign = campaigns.create_campaign(factory, name=name, model_scale=scale)
        except InvalidInput:  # a name refused (taken, or a character a name may not hold)
            continue
        for s, squadrons in enumerate(sides):
            side = campaigns.create_side(factory, campaign_id=campaign.id, name=f"Side {s}")
            for q, ships in enumerate(squadrons):
                squadron = fleet.create_squadron(factory, side_id=side.id, name=f"Sq {q}")
                for k, retired in enumerate(ships):
                    ship = fleet.create_ship(factory, squadron_id=squadron, fields=ShipFields(
                        name=f"S{n}{s}{q}{k}", type_abbrev="CL", structure_max=9,
                        flotation_max=8, points_base=400))  # fmt: skip
                    with session_scope(factory) as session:
                        session.execute(text("UPDATE ship SET retired = :r WHERE id = :id"),
                                        {"r": retired, "id": ship})  # fmt: skip
        for t, status in enumerate(statuses):
            scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title=f"T{t}")
            with session_scope(factory) as session:
                session.execute(text("UPDATE scenario SET status = :s WHERE id = :id"),
                                {"s": status, "id": scenario.id})  # fmt: skip
    listed = [(c.id, c.name, c.current_scenario, c.sides, c.ships, c.model_scale)
              for c in campaigns.list_campaigns(factory)]  # fmt: skip
    engine.dispose()
    assert first_look(path) == listed


def test_a_file_to_upgrade_or_unreadable_gets_no_first_look(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    engine = migrated_engine(path)
    campaigns.create_campaign(session_factory(engine), name="Denmark Strait")
    engine.dispose()
    assert [line.name for line in first_look(path) or []] == ["Denmark Strait"]

    older = tmp_path / "older.db"
    shutil.copyfile(path, older)
    with sqlite3.connect(older) as conn:  # an earlier schema: its tables may differ
        conn.execute("UPDATE alembic_version SET version_num = 'an-earlier-revision'")
    conn.close()
    assert first_look(older) is None

    broken = tmp_path / "broken.db"
    shutil.copyfile(path, broken)
    with sqlite3.connect(broken) as conn:
        conn.execute("DROP TABLE side")
    conn.close()
    assert first_look(broken) is None
    assert first_look(tmp_path / "nothing-there.db") is None
