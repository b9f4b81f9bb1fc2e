"""The campaign list's cursor is on a squadron the moment the list is drawn, first and after
every reload, so Enter opens a record sheet at once: it is never left on a side (where Enter
does nothing) while the tree works out its lines."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from campaign_files import press_to, sample_app
from textual.widgets import Tree
from toasts import every_toast

from tracker.screens.campaign import SIDE_KEYS, CampaignScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services.views import SideView, SquadronRef


async def test_enter_straight_after_the_list_is_shown_opens_a_record_sheet(
    tmp_path: Path,
) -> None:
    shown: list[Any] = []
    real = CampaignScreen._show

    def show(self: CampaignScreen, overview: Any) -> None:
        real(self, overview)
        # Read at once, before any refresh: what Enter would open now.
        tree: Tree[Any] = self.query_one(Tree)
        node = tree.cursor_node
        shown.append(node.data if node is not None and node.tree is tree else None)

    CampaignScreen._show = show  # type: ignore[method-assign]
    try:
        app = sample_app(tmp_path / "campaign.db", seed=1)
        async with app.run_test(size=(120, 40)) as pilot:
            while not shown:
                await asyncio.sleep(0.01)
            assert isinstance(shown[0], SquadronRef), shown
            screen = app.screen
            assert isinstance(screen, CampaignScreen)
            # Down to the second squadron, then a reload keeps it, on the new tree's node.
            tree: Tree[Any] = screen.query_one(Tree)
            await pilot.press("down")
            while not isinstance(tree.cursor_node.data if tree.cursor_node else None, SquadronRef):
                await pilot.press("down")
            before = tree.cursor_node.data if tree.cursor_node else None
            assert isinstance(before, SquadronRef) and before.id != shown[0].id
            screen.reload()
            while len(shown) < 2:
                await asyncio.sleep(0.01)
            assert isinstance(shown[1], SquadronRef) and shown[1].id == before.id, shown
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, RecordSheetScreen)
            assert app.screen.squadron_id == before.id
    finally:
        CampaignScreen._show = real  # type: ignore[method-assign]


async def test_enter_on_a_side_says_the_keys_that_act_on_it(tmp_path: Path) -> None:
    """A side has no screen of its own: Enter on it says which keys act on it and where Enter
    opens a record sheet, never nothing."""
    app = sample_app(tmp_path / "campaign.db", seed=1)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await press_to(pilot, screen=CampaignScreen)
        tree: Tree[Any] = screen.query_one(Tree)
        while not isinstance(tree.cursor_node.data if tree.cursor_node else None, SideView):
            await pilot.press("up")
        side = tree.cursor_node.data if tree.cursor_node else None
        assert isinstance(side, SideView)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CampaignScreen)
        assert every_toast(app)[-1].message == SIDE_KEYS.format(side=side.name)
