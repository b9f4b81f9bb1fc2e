"""Sowing a minefield on the ledger: the minelayer is chosen from the owner's own ships and its
roster's War at Sea submarines, and the choices follow the owner picked."""

from __future__ import annotations

from pathlib import Path

from campaign_files import fill_form, press_to, sample_app
from textual.widgets import Select

from tracker.app import TrackerApp
from tracker.screens.form import FormScreen
from tracker.screens.ledger import LedgerScreen
from tracker.services import campaigns, mines, roster
from tracker.services.roster import UnitFields

SUBS = {"Royal Navy": "Seal", "Kriegsmarine": "U-47"}


def with_subs(path: Path) -> tuple[TrackerApp, dict[str, int]]:
    """The River Plate sample, each side with a War at Sea submarine."""
    app = sample_app(path, seed=3)
    _, sides = campaigns.side_names(app.factory, campaign_id=1)
    ids = dict(sides)
    for side, name in SUBS.items():
        roster.save_unit(app.factory, side_id=ids[side], fields=UnitFields(
            name=name, unit_type="submarine", points=10))  # fmt: skip
    return app, ids


def choices(form: FormScreen) -> dict[str, object]:
    """The minelayer select's choices: prompt to value."""
    return {str(prompt): value for prompt, value in form.query_one("#field-layer", Select)._options}


async def test_the_minelayer_is_one_of_the_owners_ships_or_war_at_sea_subs(tmp_path: Path) -> None:
    app, sides = with_subs(tmp_path / "campaign.db")
    ships: dict[str, list[str]] = {side: [] for side in sides}
    for pick in mines.counter_ships(app.factory, campaign_id=1):
        ships[pick.side_name].append(pick.name)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "m", screen=LedgerScreen)
        form = await press_to(pilot, "n", screen=FormScreen)
        for side, side_id in sides.items():
            form.query_one("#field-side_id", Select).value = side_id
            await pilot.pause()
            own = [*ships[side], f"{SUBS[side]} (War at Sea submarine)"]
            assert list(choices(form)) == ["(none: name it below)", *own], side
        # The sub is sown with: laid as a submarine, whatever "laid by" was left at.
        kms = sides["Kriegsmarine"]
        u47 = choices(form)["U-47 (War at Sea submarine)"]
        await fill_form(pilot, {"side_id": kms, "boundary": 0, "sector": "K7", "layer": u47})
        assert isinstance(app.screen, LedgerScreen)
    fields = mines.ledger(app.factory, campaign_id=1).minefields
    assert [(f.layer, f.laid_by, f.where) for f in fields] == [("U-47", "submarine", "sector K7")]
