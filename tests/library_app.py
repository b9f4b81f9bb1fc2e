"""A campaign file whose library holds the shipped generated cards and classes, and one card of
every attack row whose ability text spans lines: the library screen's tests and snapshots."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import migrated_engine

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.services import campaigns, library

FILES = Path(__file__).resolve().parent / "library_files"
# Illustrative values, not a real card's; markup in its name, shown as typed.
FULL_CARD = (
    "name,nation,unit_type,year,points,armor,vital_armor,hull_points,speed,attack_main,"
    "attack_secondary,attack_tertiary,attack_anti_air,attack_asw,attack_torpedo,attack_bomb,"
    "abilities\n"
    "Kreuzer [b]K[/b],Germany,cruiser,1940,31,5,12,4,2,6 5 4 -,3 2 - -,2 - - -,4 - - -,"
    '1 - - -,4 3 - -,2 - - -,"Radar: reroll one miss\nat night as well\n\nFlagship: +1"\n'
)


def app_with_library(path: Path) -> TrackerApp:
    """The app on a new campaign file at `path`, its campaign open, its library filled."""
    factory = session_factory(migrated_engine(path))
    campaign_id = campaigns.create_campaign(factory, name="Pacific 1942").id
    for name in ("cards-300.csv", "classes-60.csv"):
        library.import_library(factory, raw=(FILES / name).read_bytes())
    library.import_library(factory, raw=FULL_CARD.encode())
    return TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
