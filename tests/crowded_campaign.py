"""A campaign as a long game night leaves it: the sample with rows in every table, long ship and
sea-area names, several minefields, repairs outstanding and some forty journal entries; built
through the services (imported as a plain module by the tests, and by hand for a look in a real
terminal: `python tests/crowded_campaign.py FILE`)."""

from __future__ import annotations

import atexit
import functools
import random
import shutil
import sys
import tempfile
from pathlib import Path
from unittest.mock import patch

from campaign_files import Filled, full_sample_campaign, migrated_engine, run_sql

from tracker.app import TrackerApp
from tracker.db import make_engine, migrate, session_factory
from tracker.services import (
    campaigns,
    damage,
    demo,
    markers,
    mines,
    repairs,
    scenarios,
    secrets,
    sheet,
)
from tracker.services import fleet as fleet_service

LONG_NAMES = ("HMS Achilles of the New Zealand Division", "Admiral Graf Spee (Panzerschiff)")
AREAS = (("Denmark Strait", "Norwegian Sea"), ("Rio de la Plata estuary", "South Atlantic"))


def crowded_campaign(factory) -> Filled:  # type: ignore[no-untyped-def]
    """The full sample campaign, then: a ship of long name on each side, two boundaries of long
    sea areas with a minefield each (notes and a layer named), hits left unrepaired on every
    ship, fuel used a turn at a time, the mine table's rows of every
    effect word."""
    filled = full_sample_campaign(factory)
    overview = campaigns.get_overview(factory, campaign_id=filled.campaign_id)
    sides = overview.sides
    for side, name in zip(sides, LONG_NAMES, strict=True):
        fields = {**(demo._FORCE_G[1] if side is sides[0] else demo._SPEE), "name": name}
        fleet_service.create_ship(factory, squadron_id=side.squadrons[0].id, fields=fields)
    ships = [
        ship
        for side in sides
        for squadron in side.squadrons
        for ship in sheet.load_record_sheet(factory, squadron_id=squadron.id).ships
    ]
    for (area_a, area_b), side in zip(AREAS, sides, strict=False):
        boundary = mines.add_boundary(
            factory, campaign_id=filled.campaign_id, area_a=area_a, area_b=area_b
        )
        mines.sow_minefield(
            factory, side_id=side.id, laid_by="surface", boundary_id=boundary, complete=True,
            layer_name="Teviot Bank, auxiliary minelayer",
            notes="Laid at dusk across the northern channel, two rows deep",
        )  # fmt: skip
    battle = campaigns.add_scenario(factory, campaign_id=filled.campaign_id,
                                   title="The pursuit to Montevideo, second night").id  # fmt: skip
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=[ship.id for ship in ships])
    scenarios.start_scenario(factory, scenario_id=battle)
    for ship in ships:
        damage.record_hit(
            factory, request=damage.HitRequest(ship_id=ship.id, structure=2, flotation=1)
        )
    scenarios.close_scenario(factory, scenario_id=battle)
    repairs.repair_ship(factory, ship_id=ships[0].id, structure=1)
    for _ in range(12):
        mines.save_counter(factory, ship_id=filled.ship_id, counter_size="long",
                           speed_rating=2, fuel_full=4, fuel_empty=0)  # fmt: skip
        mines.use_fuel(factory, ship_id=filled.ship_id, factors=1)
    table = mines.mine_table(factory, campaign_id=filled.campaign_id)
    for row in table.rows:
        mines.delete_mine_row(factory, row_id=row.id)
    for low, effects in ((1, "none"), (3, "speed-1 gunnery-1"), (5, "fuel-2 hull-2"),
                         (7, "crippled"), (9, "sunk")):  # fmt: skip
        mines.save_mine_row(factory, campaign_id=filled.campaign_id, low=low, high=low + 1,
                            effects=effects, note="as the rulebook's table says, the row "
                            "read aloud before the roll")  # fmt: skip
    return filled


@functools.cache
def _crowded_template() -> tuple[Path, int]:
    """One file holding the crowded campaign, built once per test process; with its id."""
    folder = Path(tempfile.mkdtemp(prefix="tracker-crowded-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "campaign.db"
    engine = migrated_engine(path)
    # Seals and markers' codes are drawn at random in play: fixed here, for the snapshots.
    salts = iter(f"{n:032x}" for n in range(1, 1000))
    with (
        patch.object(secrets, "new_salt", lambda: next(salts)),
        patch.object(markers.random, "SystemRandom", lambda: random.Random(2)),
    ):
        campaign_id = crowded_campaign(session_factory(engine)).campaign_id
    engine.dispose()
    run_sql(path, "PRAGMA wal_checkpoint(TRUNCATE)")
    return path, campaign_id


def crowded_app(path: Path, seed: int = 3) -> TrackerApp:
    """The app on a copy of the crowded campaign, opened on its campaign screen."""
    template, campaign_id = _crowded_template()
    shutil.copyfile(template, path)
    factory = session_factory(make_engine(str(path)))
    return TrackerApp(factory, rng=random.Random(seed), open_campaign_id=campaign_id)


if __name__ == "__main__":
    engine = make_engine(str(Path(sys.argv[1])))
    migrate(engine)
    print(crowded_campaign(session_factory(engine)))
