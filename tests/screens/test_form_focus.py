"""A form's field the keys go to is lit apart from every other field, whatever its kind (text,
number, tick box, choice), as tab moves through the form at a table's 80x24."""

from __future__ import annotations

from pathlib import Path

from campaign_files import press_to, sample_app
from textual.widgets import Checkbox, Input, Select

from tracker.screens.form import FormScreen
from tracker.screens.welcome import WelcomeScreen


async def test_tab_lights_each_field_in_turn_and_no_other(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await press_to(pilot, "escape", screen=WelcomeScreen)
        form = await press_to(pilot, "n", screen=FormScreen)  # the new campaign: every kind
        fields = list(form.query(".form-row > Input, .form-row > Select, .form-row > Checkbox"))
        assert all(any(isinstance(f, kind) for f in fields) for kind in (Input, Select, Checkbox))
        lit = set()
        for _ in fields:
            focused = app.focused
            assert focused in fields
            backgrounds = {field: field.styles.background for field in fields}
            others = {backgrounds[field] for field in fields if field is not focused}
            assert len(others) == 1 and backgrounds[focused] not in others, type(focused)
            lit.add(focused)
            await pilot.press("tab")
            await pilot.pause()
        assert lit == set(fields)
