"""Building an SMR2 squadron from a class of the library in the app (b on the record sheet): the
search finds the class, "3 x Class" asks for three names, and the ships take the class's values;
a count that does not match the names typed is refused with nothing written."""

from __future__ import annotations

from pathlib import Path

from campaign_files import fill_form, open_sheet, press_to, sample_app
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Label

from tracker.screens.class_picker import ClassPickerScreen, ship_names
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import library, sheet

CLASSES = Path(__file__).parents[1] / "library_files" / "classes-60.csv"
NAMES = ["Orion", "Neptune", "Sydney"]


async def test_a_squadron_of_three_ships_from_a_class(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=1)
    assert app.factory is not None
    library.import_library(app.factory, raw=CLASSES.read_bytes())
    wanted = library.classes(app.factory)[-1]  # the last by nation and name
    async with app.run_test(size=(120, 40)) as pilot:
        record_sheet = await open_sheet(pilot)
        before = [ship.id for ship in record_sheet.record.ships] if record_sheet.record else []
        picker = await press_to(pilot, "b", screen=ClassPickerScreen)
        await pilot.press(*f"{wanted.name} {wanted.nation}".lower())
        assert wanted in picker.shown
        await pilot.press(*["down"] * picker.shown.index(wanted), "enter")
        form = app.screen
        assert isinstance(form, FormScreen)
        await fill_form(pilot, {"count": "3", "names": "Orion, Neptune"})
        assert app.screen is form, "two names for three ships: the form stays open"
        error = str(form.query_one("#error-names", Label).render())
        assert "3 ships, 2 names typed" in error
        # Ajax already sails with the sample's Force G: refused, and none of the three added.
        await fill_form(pilot, {"count": "3", "names": "Orion, Neptune, Ajax"})
        assert app.screen is form
        assert "Ajax: " in str(form.query_one("#error-form", Label).render())
        await fill_form(pilot, {"count": "3", "names": ", ".join(NAMES)})
        assert isinstance(app.screen, RecordSheetScreen)
        squadron_id = app.screen.squadron_id
    ships = sheet.load_record_sheet(app.factory, squadron_id=squadron_id).ships
    new = [ship for ship in ships if ship.id not in before]
    assert [(s.name, s.class_name, s.type_abbrev, s.nation, s.size_modifier, s.speed_kn,
             s.armour_class, s.structure_max, s.structure_now, s.flotation_max,
             s.flotation_now, s.points_base) for s in new] == [
        (name, wanted.name, wanted.type_abbrev, wanted.nation, wanted.size_modifier,
         wanted.speed_kn, wanted.armour_class, wanted.structure, wanted.structure,
         wanted.flotation, wanted.flotation, wanted.points) for name in NAMES
    ]  # fmt: skip


@given(names=st.lists(st.text(alphabet=st.characters(blacklist_characters=","), max_size=12),
                      max_size=6))  # fmt: skip
def test_the_names_typed_are_split_at_commas_blanks_left_out(names: list[str]) -> None:
    assert ship_names(", ".join(names)) == [name.strip() for name in names if name.strip()]
