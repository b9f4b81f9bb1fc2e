"""The sample campaign a first-time player can open: the River Plate, December 1939.

Its ship values are illustrative, not taken from the SMR2 data sheets (which our sources do not
have); the campaign notes say so, and the player replaces them with their rulebook's values.
"""

from __future__ import annotations

from sqlmodel import select

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign
from tracker.models.kinds import Acquisition
from tracker.services import campaigns, command, fleet
from tracker.services.fleet import ShipFields

SAMPLE_NAME = "River Plate, December 1939 (sample)"
SAMPLE_NOTES = (
    "Sample campaign. Ship values are ILLUSTRATIVE, not from the SMR2 data sheets: "
    "replace them with your rulebook's values before a real game."
)

_FORCE_G = (
    ShipFields(name="Exeter", class_name="York", type_abbrev="CA", nation="Great Britain",
               size_modifier=1, speed_kn=32, armour_class="C", structure_max=12,
               flotation_max=9, points_base=480),
    ShipFields(name="Ajax", class_name="Leander", type_abbrev="CL", nation="Great Britain",
               size_modifier=0, speed_kn=32, armour_class="D", structure_max=9,
               flotation_max=8, points_base=400),
    ShipFields(name="Achilles", class_name="Leander", type_abbrev="CL", nation="New Zealand",
               size_modifier=0, speed_kn=32, armour_class="D", structure_max=9,
               flotation_max=8, points_base=400),
)  # fmt: skip

_SPEE = ShipFields(
    name="Admiral Graf Spee", class_name="Deutschland", type_abbrev="BBL", nation="Germany",
    size_modifier=2, speed_kn=28, armour_class="B", structure_max=18, flotation_max=12,
    points_base=900,
)  # fmt: skip

_BATTERIES = {
    "Exeter": (("turret", "8in", 6, "8", "4"), ("shielded", "4in", 4, "2", "2")),
    "Ajax": (("turret", "6in", 8, "5", "3"), ("shielded", "4in", 8, "2", "2")),
    "Achilles": (("turret", "6in", 8, "5", "3"), ("shielded", "4in", 8, "2", "2")),
    "Admiral Graf Spee": (("turret", "11in", 6, "11", "5"), ("shielded", "5.9in", 8, "4", "3")),
}


def create_sample_campaign(factory: SessionFactory) -> int:
    """Create the sample campaign (or find it, if the file has it already); returns its id."""
    with session_scope(factory) as session:
        existing = session.exec(select(Campaign).where(Campaign.name == SAMPLE_NAME)).first()
        if existing is not None and existing.id is not None:
            return existing.id
    campaign = campaigns.create_campaign(factory, name=SAMPLE_NAME, notes=SAMPLE_NOTES)
    campaigns.add_scenario(
        factory, campaign_id=campaign.id, title="Battle of the River Plate", date="13 Dec 1939"
    )
    british = campaigns.create_side(factory, campaign_id=campaign.id, name="Royal Navy",
                                    nation="Great Britain")  # fmt: skip
    german = campaigns.create_side(factory, campaign_id=campaign.id, name="Kriegsmarine",
                                   nation="Germany")  # fmt: skip
    force_g = fleet.create_squadron(factory, side_id=british.id, name="Force G")
    rolled = Acquisition.RANDOM
    command.set_commander(factory, squadron_id=force_g, name="Cdre Harwood", training=4,
                          acquisition=rolled, roll=5)  # fmt: skip
    command.set_crew(factory, squadron_id=force_g, training=4, acquisition=rolled, roll=5)
    raider = fleet.create_squadron(factory, side_id=german.id, name="Panzerschiff")
    command.set_commander(factory, squadron_id=raider, name="Kpt Langsdorff", training=3,
                          acquisition=rolled, roll=6)  # fmt: skip
    command.set_crew(factory, squadron_id=raider, training=4, acquisition=rolled, roll=3)
    for squadron, ships in ((force_g, _FORCE_G), (raider, (_SPEE,))):
        for fields in ships:
            ship_id = fleet.create_ship(factory, squadron_id=squadron, fields=fields)
            for mount, calibre, guns, ip, bands in _BATTERIES[fields["name"]]:
                fleet.save_battery(factory, ship_id=ship_id, mount=mount, calibre=calibre,
                                   guns=guns, ip=ip, range_bands=bands)  # fmt: skip
    return campaign.id
