"""A game night's campaign for the tests outside tracker (imported as a plain module): the River
Plate sample in play, every ship with a Second World War at Sea counter, long names and classes,
a ship with two criticals in force and one Out of Command."""

from __future__ import annotations

from tracker.db import SessionFactory
from tracker.services import campaigns, damage, demo, fleet, mines, scenarios, sheet
from tracker.services.fleet import ShipFields

PRINZ_EUGEN = ShipFields(
    name="Prinz Eugen von Savoyen", class_name="Admiral Hipper", type_abbrev="CA",
    nation="Germany", size_modifier=1, speed_kn=32, armour_class="C", structure_max=14,
    flotation_max=10, points_base=620,
)  # fmt: skip
CUMBERLAND = ShipFields(
    name="HMS Cumberland", class_name="County (Kent)",
    type_abbrev="CA", nation="Great Britain", size_modifier=1, speed_kn=31, armour_class="C",
    structure_max=12, flotation_max=9, points_base=470,
)  # fmt: skip


def game_night_campaign(factory: SessionFactory) -> int:
    """The sample campaign, its battle in play at turn 2; returns the campaign's id.

    Force G: Exeter at 3/12 with a fire and two criticals in force (the newest "Magazine
    flooded"), and HMS Cumberland joined from another squadron in
    this turn (Out of Command, SMR2 §3.4); the Panzerschiff squadron gains Prinz Eugen von
    Savoyen. Every ship carries a counter, fuel and torpedoes."""
    campaign_id = demo.create_sample_campaign(factory)
    overview = campaigns.get_overview(factory, campaign_id=campaign_id)
    british, german = overview.sides
    force_g, raider = british.squadrons[0].id, german.squadrons[0].id
    detached = fleet.create_squadron(factory, side_id=british.id, name="South America Division")
    cumberland = fleet.create_ship(factory, squadron_id=detached, fields=CUMBERLAND)
    fleet.create_ship(factory, squadron_id=raider, fields=PRINZ_EUGEN)
    ships = [
        *sheet.load_record_sheet(factory, squadron_id=force_g).ships,
        *sheet.load_record_sheet(factory, squadron_id=raider).ships,
        *sheet.load_record_sheet(factory, squadron_id=detached).ships,
    ]
    for ship in ships:
        mines.save_counter(
            factory, ship_id=ship.id, counter_size="long", speed_rating=3, torpedo_factors=4,
            hull_boxes=3, fuel_full=5, fuel_empty=1,
        )  # fmt: skip
    battle = overview.scenarios[0].id
    scenarios.set_participants(factory, scenario_id=battle, ship_ids=[ship.id for ship in ships])
    scenarios.start_scenario(factory, scenario_id=battle)
    scenarios.advance_turn(factory, scenario_id=battle)
    exeter = next(ship.id for ship in ships if ship.name == "Exeter")
    criticals = (damage.CriticalRequest(effect="B turret out"),
                 damage.CriticalRequest(effect="Magazine flooded"))  # fmt: skip
    damage.record_hit(
        factory,
        request=damage.HitRequest(ship_id=exeter, structure=9, fire_delta=1, criticals=criticals),
    )
    fleet.transfer_ship(factory, ship_id=cumberland, to_squadron_id=force_g)
    return campaign_id
