"""Damage entry opened again is drawn once, as a screen composed anew looks: its widgets keep
their styles unless what they follow changed (Textual worked every one out again on every d),
and it is shown once its opening's read is back, with what it shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from campaign_files import press_to, sample_app
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import OptionList, Static

from tracker.screens.damage_entry import DamageEntryScreen
from tracker.screens.record_sheet import RecordSheetScreen


def looks(screen: DamageEntryScreen) -> list[tuple[str, str | None, str, str]]:
    """Every widget's styles as drawn: its type, id, the rules it got and its colours."""
    return [
        (type(node).__name__, node.id, node.styles.css, str(node.rich_style))
        for node in screen.walk_children(Widget, with_self=True)
    ]


async def looks_new(pilot: Any, kept: DamageEntryScreen) -> list[tuple[str, str | None, str, str]]:
    """How a damage entry composed anew looks, opened over `kept` as it was (then closed)."""
    fresh = DamageEntryScreen(kept.campaign_id, kept.default_ship_id, kept.sheet)
    await pilot.app.push_screen(fresh)
    await pilot.pause()
    seen = looks(fresh)
    await press_to(pilot, "escape", screen=DamageEntryScreen)
    return seen


def restyled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many widgets of damage entry each restyle by the stylesheet reached."""
    real, counts = Stylesheet.update_nodes, []

    def update_nodes(self: Stylesheet, nodes: Any, animate: bool = False) -> None:
        nodes = list(nodes)
        counts.append(sum(isinstance(node.screen, DamageEntryScreen) for node in nodes))
        real(self, nodes, animate=animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", update_nodes)
    return counts


@pytest.mark.parametrize("theme", [None, "textual-light"])
async def test_opened_again_it_looks_as_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str | None
) -> None:
    """Opened again with nothing changed, no widget is restyled; after the theme changed while
    it was closed, every one is, and it shows the new theme."""
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "enter", screen=RecordSheetScreen)
        first = await press_to(pilot, "d", screen=DamageEntryScreen)
        before = looks(first)
        await press_to(pilot, "escape", screen=RecordSheetScreen)
        if theme is not None:
            app.theme = theme
            await pilot.pause()
        counts = restyled(monkeypatch)
        again = await press_to(pilot, "d", screen=DamageEntryScreen)
        assert again is first
        widgets = len(list(again.walk_children(Widget, with_self=True)))
        if theme is None:
            assert max(counts, default=0) < widgets / 2, counts  # a class or two at most
        else:
            assert max(counts) >= widgets, counts
            assert looks(again) != before
        seen = looks(again)
        monkeypatch.undo()
        assert seen == await looks_new(pilot, again)


def first_drawn(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What damage entry shows the first time the screen is drawn after the hook is set."""
    real, seen = Screen._compositor_refresh, {}

    def refresh(self: Screen[Any]) -> None:
        if isinstance(self, DamageEntryScreen) and self.is_current and not seen:
            seen.update(shown(self))
        real(self)

    monkeypatch.setattr(Screen, "_compositor_refresh", refresh)
    return seen


def shown(screen: DamageEntryScreen) -> dict[str, Any]:
    ships = screen.query_one("#ship-candidates", OptionList)
    return {
        "preview": str(screen.query_one("#damage-preview", Static).render()),
        "ships": [str(option.prompt) for option in ships.options],
        "turn": screen.sub_title,
    }


async def test_opened_again_it_is_drawn_with_what_it_shows_from_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its opening's read comes back before it is shown: never drawn with the last opening's
    ships and an empty preview first, then again (the finder, the preview) a moment later."""
    app = sample_app(tmp_path / "campaign.db", seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press_to(pilot, "enter", screen=RecordSheetScreen)
        first = await press_to(pilot, "d", screen=DamageEntryScreen)
        await pilot.press(*"s1", "enter")
        await pilot.pause()
        await press_to(pilot, "escape", "down", "down", screen=RecordSheetScreen)  # on Achilles
        seen = first_drawn(monkeypatch)
        again = await press_to(pilot, "d", screen=DamageEntryScreen)
        assert again is first
        assert seen == shown(again)
        assert seen["preview"].startswith("Achilles: now type what it took")
        assert seen["ships"][0].startswith("Achilles")
