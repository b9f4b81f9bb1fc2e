"""A command or crew test names the ship tested, in its result and its journal line: the ship the
commander is aboard, or the ship whose crew tests (SMR2 §3.6, docs/RULES.md §SMR2 "Command and
crew tests")."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Journaled, World, appoint

from tracker.db import SessionFactory
from tracker.services import command, damage, fleet, history
from tracker.services.errors import InvalidInput

AddShip = Callable[..., int]


@pytest.mark.parametrize(
    ("subject", "aboard", "selected", "who", "ship"),
    [
        ("commander", "Admiral Hipper", None,
         "Alpha's commander Luetjens aboard Admiral Hipper", "Admiral Hipper"),
        # The commander tests aboard his own ship, whichever ship the sheet has selected.
        ("commander", "Admiral Hipper", "Prinz Eugen",
         "Alpha's commander Luetjens aboard Admiral Hipper", "Admiral Hipper"),
        ("commander", None, None, "Alpha's commander Luetjens, aboard no ship", None),
        ("crew", "Admiral Hipper", "Prinz Eugen", "Prinz Eugen's crew", "Prinz Eugen"),
        ("crew", "Admiral Hipper", "Z 23", "Z 23's own crew", "Z 23"),
        ("crew", "Admiral Hipper", None, "Alpha's crew", None),
    ],
)  # fmt: skip
def test_smr2_3_6_a_test_names_the_ship_tested(
    world: World, factory: SessionFactory, add_ship: AddShip, journaled: Journaled,
    subject: str, aboard: str | None, selected: str | None, who: str, ship: str | None,
) -> None:  # fmt: skip
    ships = {name: add_ship(world.alpha_id, name) for name in ("Admiral Hipper", "Prinz Eugen")}
    ships["Z 23"] = add_ship(world.bravo_id, "Z 23")
    for squadron in (world.alpha_id, world.bravo_id):
        command.set_crew(factory, squadron_id=squadron, training=3, acquisition="direct")
    fleet.transfer_ship(factory, ship_id=ships["Z 23"], to_squadron_id=world.alpha_id)
    appoint(factory, world.alpha_id, name="Luetjens", training=3, acquisition="direct")
    if aboard is not None:
        command.set_commander_ship(factory, squadron_id=world.alpha_id, ship_id=ships[aboard])
    with journaled(world.campaign_id) as new:
        result = command.record_test(
            factory, squadron_id=world.alpha_id, subject=subject, roll=3,
            ship_id=ships[selected] if selected else None,
        )  # fmt: skip
    assert (result.who, result.ship, result.passed) == (who, ship or "", False)
    kind = "Command" if subject == "commander" else "Crew"
    assert new.only.summary == f"{kind} test of {who} failed (roll 3 +0 = 3)"
    assert new.only.ship_id == (ships[ship] if ship else None)
    assert new.only.side_id == world.blue_id


@settings(max_examples=examples(20), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(subject=st.sampled_from(["commander", "crew"]), roll=st.integers(1, 10),
       training=st.integers(1, 5), under_fire=st.booleans(), extra=st.integers(-3, 3))  # fmt: skip
def test_smr2_3_6_a_tests_line_writes_its_dice_as_the_dice_column_does(
    world: World, factory: SessionFactory, journaled: Journaled, subject: str, roll: int,
    training: int, under_fire: bool, extra: int,
) -> None:  # fmt: skip
    """Every test, over generated dice: its journal line says "roll n", never "d10 n" (a die of
    n sides), in the very words the journal's dice column gives the same entry."""
    command.set_crew(factory, squadron_id=world.alpha_id, training=training, acquisition="direct")
    appoint(factory, world.alpha_id, name="Luetjens", training=training, acquisition="direct")
    with journaled(world.campaign_id) as new:
        command.record_test(factory, squadron_id=world.alpha_id, subject=subject, roll=roll,
                            under_fire=under_fire, extra=extra)  # fmt: skip
    words = history.dice_text(new.detail)
    assert words.startswith(f"roll {roll} ") and "d10" not in new.only.summary
    assert new.only.summary.endswith(f"({words})")


@pytest.mark.parametrize("own_crew", [False, True], ids=["squadron's crew", "her own crew"])
def test_smr2_3_6_a_sunk_ships_crew_neither_tests_nor_is_reduced(
    world: World, factory: SessionFactory, add_ship: AddShip, own_crew: bool
) -> None:
    """A crew test or a crew reduction of a sunk ship is refused, whichever crew she sailed
    with: her crew went down with her."""
    ship = add_ship(world.bravo_id if own_crew else world.alpha_id, "Admiral Hipper")
    for squadron in (world.alpha_id, world.bravo_id):
        command.set_crew(factory, squadron_id=squadron, training=3, acquisition="direct")
    if own_crew:  # she keeps the crew she served with in Bravo (SMR2 §3.2)
        fleet.transfer_ship(factory, ship_id=ship, to_squadron_id=world.alpha_id)
    damage.record_hit(factory, request=damage.HitRequest(ship, structure=99))
    damage.confirm_condition(factory, ship_id=ship, outcome="Sunk")
    sunk = "Admiral Hipper is sunk: choose a ship afloat"
    with pytest.raises(InvalidInput, match=sunk):
        command.record_test(factory, squadron_id=world.alpha_id, subject="crew", roll=5,
                            ship_id=ship)  # fmt: skip
    with pytest.raises(InvalidInput, match=sunk):
        command.reduce_command(factory, squadron_id=world.alpha_id, crew_by=1, ship_id=ship)
