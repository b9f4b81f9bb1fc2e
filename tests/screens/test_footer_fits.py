"""Every screen's footer ends with a whole key before the palette's, at 80 and at 120 columns:
keys that do not fit are left to help (?) and the palette, never cut in the middle."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_files import sample_app
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tracker.screens.base import TrackerScreen

# From the sample's campaign screen, the keys that reach each screen with a footer.
SCREENS = {
    "campaign": (),
    "record sheet": ("enter",),
    "damage entry": ("enter", "d"),
    "ship": ("enter", "enter"),
    "roster": ("f",),
    "ledger": ("m",),
    "repairs": ("r",),
    "journal": ("j",),
    "scenario": ("tab", "enter"),
    "library": ("l",),
}


def _cut_keys(screen: TrackerScreen) -> list[str]:
    """The footer's keys that run into the palette's key, as the player reads them."""
    keys = list(screen.query_one(Footer).query(FooterKey))
    [palette] = [key for key in keys if key.has_class("-command-palette")]
    others = [key for key in keys if key is not palette]
    assert others, f"{type(screen).__name__}: no key in the footer"
    backs = [b for b in type(screen).BINDINGS if isinstance(b, Binding) and b.action == "back"]
    if backs and backs[0].show:
        assert "back" in {key.action for key in others}, "Back left out of the footer"
    return [f"{key.key_display} {key.description}" for key in others
            if key.region.right > palette.region.x]  # fmt: skip


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)], ids=str)
async def test_every_screens_footer_ends_with_a_whole_key(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = sample_app(tmp_path / "campaign.db", seed=1)
    cut: dict[str, list[str]] = {}
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        campaign = app.screen
        for name, keys in SCREENS.items():
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            shown = app.screen
            assert isinstance(shown, TrackerScreen), f"{name}: reached {type(shown).__name__}"
            for _ in range(100):  # a footer refreshing its keys has none for a moment
                if shown.query_one(Footer).query(FooterKey).filter(".-command-palette"):
                    break
                await pilot.pause()
            if _cut_keys(shown):
                cut[name] = _cut_keys(shown)
            while app.screen is not campaign:
                await pilot.press("escape")
                await pilot.pause()
    assert not cut, f"cut by the palette's key at {size}: {cut}"
