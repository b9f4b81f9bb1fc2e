"""The journal searched and sorted: undo and the service record act on the entry under the
cursor whatever the filter and sort, and the cursor stays on it when the journal is read again."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import press_to, sample_app
from textual.widgets import Select

from tracker.screens.journal import JournalScreen
from tracker.services import campaigns, damage, history, sheet
from tracker.widgets.search_table import SearchTable

# Each hit's ship by the sample's order (Exeter, Ajax, Achilles), so that two entries name it.
HITS = (0, 1, 2, 0, 1)


@pytest.mark.parametrize("chosen", [0, 1, 2])
async def test_undo_on_a_filtered_sorted_journal_undoes_the_entry_under_the_cursor(
    tmp_path: Path, chosen: int
) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    overview = campaigns.get_overview(app.factory, campaign_id=1)
    squadron = overview.sides[0].squadrons[0].id
    ships = sheet.load_record_sheet(app.factory, squadron_id=squadron).ships
    before = {str(entry.id) for entry in history.list_entries(app.factory, campaign_id=1)}
    for n in HITS:
        damage.record_hit(app.factory, request=damage.HitRequest(ship_id=ships[n].id, structure=1))
    name = ships[chosen].name
    async with app.run_test(size=(120, 40)) as pilot:
        journal = await press_to(pilot, "j", screen=JournalScreen)
        table = journal.query_one("#journal-table", SearchTable)
        every = [str(entry.id) for entry in journal.entries]
        await pilot.press("slash", *name.lower(), "enter")
        await pilot.pause()
        named = [str(e.id) for e in journal.entries if name.casefold() in e.summary.casefold()]
        assert table.shown_keys == named
        assert str(table.border_title) == f"Entries · {len(named)} of {len(every)}"
        # Oldest first, the cursor on the ship's last hit (u undoes one no later hit changed).
        await pilot.press("o")
        oldest = sorted(named, key=int)
        hit = [key for key in oldest if key not in before][-1]
        assert table.shown_keys == oldest
        await pilot.press(*["up"] * len(oldest), *["down"] * oldest.index(hit))
        assert table.selected_key() == hit
        await pilot.press("u")
        await pilot.pause()
        undone = [e for e in history.list_entries(app.factory, campaign_id=1) if e.undone]
        assert [str(entry.id) for entry in undone] == [hit]
        # The reload brought the undo's own entry in; the cursor is still on the hit undone.
        assert len(journal.entries) == len(every) + 1
        assert table.selected_key() == hit
        await pilot.press("slash", "escape")
        assert len(table.shown_keys) == len(every) + 1
        assert table.selected_key() == hit
        await pilot.press("enter")  # the service record of the ship under the cursor
        await pilot.pause()
        assert journal.query_one("#filter-ship", Select).value == ships[chosen].id
        assert {entry.ship for entry in journal.entries} == {name}
        assert table.selected_key() == hit


async def test_slash_from_a_filter_above_opens_the_tables_filter_line(tmp_path: Path) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        journal = await press_to(pilot, "j", screen=JournalScreen)
        table = journal.query_one("#journal-table", SearchTable)
        journal.query_one("#filter-kind", Select).focus()
        await pilot.press("slash", "x", "y", "z")
        await pilot.pause()
        assert table.has_focus and table.query_text == "xyz"
        assert table.shown_keys == []
        await pilot.press("escape", "c")
        await pilot.pause()
        assert len(table.shown_keys) == len(journal.entries) > 0
