"""The scenario's ships searched and sorted: the cursor stays on its ship through a sort, a
filter, another player's hit and the next turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import press_to, sample_app

from tracker.screens.participants import ParticipantsScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import damage
from tracker.widgets.search_table import SearchTable


def _names(screen: ScenarioScreen, keys: list[str]) -> list[str]:
    assert screen.detail is not None
    names = {str(ship.ship_id): ship.name for ship in screen.detail.participants}
    return [names[key] for key in keys]


@pytest.mark.parametrize("chosen", ["Ajax", "Admiral Graf Spee"])
async def test_the_cursor_stays_on_its_ship_through_a_sort_a_filter_a_hit_and_a_turn(
    tmp_path: Path, chosen: str
) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await press_to(pilot, "tab", "enter", screen=ScenarioScreen)
        await press_to(pilot, "p", screen=ParticipantsScreen)
        await press_to(pilot, "ctrl+s", "b", screen=ScenarioScreen)
        await pilot.pause()
        assert screen.detail is not None and screen.detail.status == "in_play"
        table = screen.query_one("#participant-table", SearchTable)
        every = sorted(_names(screen, table.shown_keys))
        await pilot.press("S")  # by name (o reopens a closed scenario here)
        assert _names(screen, table.shown_keys) == every
        await pilot.press(*["up"] * len(every), *["down"] * every.index(chosen))
        assert _names(screen, [table.selected_key() or ""]) == [chosen]
        # Another player's hit leaves the ship 1 Structure: by Structure, it leads.
        ship = next(p for p in screen.detail.participants if p.name == chosen)
        left = int(ship.structure.split("/")[0])
        hit = damage.HitRequest(ship_id=ship.ship_id, structure=left - 1)
        damage.record_hit(app.factory, request=hit)
        screen.reload()
        await pilot.pause()
        assert _names(screen, [table.selected_key() or ""]) == [chosen]
        await pilot.press("right", "right", "right", "S")
        assert _names(screen, table.shown_keys)[0] == chosen
        await pilot.press("n")
        await pilot.pause()
        assert screen.detail.turn == 2
        assert _names(screen, [table.selected_key() or ""]) == [chosen]
        word = chosen.split()[-1][:4].lower()
        await pilot.press("slash", *word, "enter")
        shown = [name for name in every if word in name.lower()]
        assert sorted(_names(screen, table.shown_keys)) == shown
        assert str(table.border_title) == f"Ships taking part · {len(shown)} of {len(every)}"
        assert _names(screen, [table.selected_key() or ""]) == [chosen]
