"""The library browser: l from the campaign, both tables searched and sorted, enter opens the
entry under the cursor (by its row, whatever the filter and sort), whole, in the card's order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from library_app import app_with_library
from textual.widgets import Static

from tracker.app import TrackerApp
from tracker.screens.card_detail import CardDetailScreen, abilities_text, attacks_text
from tracker.screens.help import HelpScreen
from tracker.screens.library import LibraryScreen
from tracker.services.roster import ATTACK_LABELS
from tracker.widgets.search_table import SearchTable


@pytest.fixture
def library_app(tmp_path: Path) -> TrackerApp:
    return app_with_library(tmp_path / "campaign.db")


def _detail_text(app: TrackerApp) -> str:
    return "\n".join(str(static.render()) for static in app.screen.query(Static))


async def test_enter_opens_the_card_under_the_cursor_after_a_filter_and_a_sort(
    library_app: TrackerApp,
) -> None:
    async with library_app.run_test(size=(120, 40)) as pilot:
        await pilot.press("l")
        assert isinstance(pilot.app.screen, LibraryScreen)
        cards = pilot.app.screen.query_one("#card-table", SearchTable)
        assert cards.total == 301
        await pilot.press("slash", *"japan", "enter")
        japanese = [
            c for c in pilot.app.screen.entries["card-table"].values() if c.nation == "Japan"
        ]
        assert len(cards.shown_keys) == len(japanese)
        assert str(cards.border_title) == f"War at Sea unit cards · {len(japanese)} of 301"
        first = cards.selected_key()
        await pilot.press(*["right"] * 4, "o", "o")  # Pts, highest first
        points = [pilot.app.screen.entries["card-table"][key].points for key in cards.shown_keys]
        assert points == sorted(points, reverse=True)
        assert cards.selected_key() == first  # the cursor went with its card
        row = cards.shown_keys.index(first) + 2
        await pilot.press("down", "down", "enter")
        chosen = pilot.app.screen
        assert isinstance(chosen, CardDetailScreen)
        assert chosen.entry.id == int(cards.shown_keys[row])
        assert f"Unit card: {chosen.entry.name} (Japan)" == chosen.title


async def test_a_card_shows_every_field_its_dice_in_the_cards_order_and_its_abilities(
    library_app: TrackerApp,
) -> None:
    async with library_app.run_test(size=(120, 40)) as pilot:
        await pilot.press("l", "slash", *"kreuzer", "enter", "enter")
        assert isinstance(pilot.app.screen, CardDetailScreen)
        shown = _detail_text(pilot.app)
    assert "Kreuzer [b]K[/b]" in shown  # as typed, never read as markup
    labels = set(ATTACK_LABELS.values())
    rows = [line.split("  ")[0] for line in shown.splitlines() if line.split("  ")[0] in labels]
    assert rows == list(ATTACK_LABELS.values())
    assert re.search(r"^Torpedo +4 +3 +- +-$", shown, re.MULTILINE)
    assert "Radar\n  reroll one miss\n  at night as well\nFlagship\n  +1" in shown
    for label in ("Vital armor", "Flagship rating", "Back of the card", "Rarity"):
        assert label in shown


async def test_enter_on_a_class_opens_the_class_and_escape_goes_back(
    library_app: TrackerApp,
) -> None:
    async with library_app.run_test(size=(120, 40)) as pilot:
        await pilot.press("l", "tab", "slash", *"class 7", "enter", "enter")
        screen = pilot.app.screen
        assert isinstance(screen, CardDetailScreen)
        assert screen.entry.name.startswith("Class 7")
        assert "Batteries (one per line)" in _detail_text(pilot.app)
        await pilot.press("escape")
        assert isinstance(pilot.app.screen, LibraryScreen)


async def test_the_library_key_is_in_the_campaigns_help(library_app: TrackerApp) -> None:
    async with library_app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(pilot.app.screen, HelpScreen)
        assert ("l", "The library: ship classes and unit cards, searched and opened") in (
            pilot.app.screen.keys
        )
        await pilot.press("escape", "l", "question_mark")
        keys = dict(pilot.app.screen.keys)
        assert keys["/"].startswith("Filter the table") and keys["o"].startswith("Sort by")
        assert keys["end"].startswith("The last row")


DICE = st.lists(st.one_of(st.none(), st.integers(0, 12)), min_size=4, max_size=4)


@settings(max_examples=examples(40))
@given(attacks=st.dictionaries(st.sampled_from(list(ATTACK_LABELS)), DICE, min_size=1))
def test_attack_rows_come_in_the_cards_order_with_each_die(attacks: dict[str, list]) -> None:
    lines = attacks_text(attacks).plain.splitlines()[1:]
    assert [line.rsplit(maxsplit=4)[0] for line in lines] == [
        ATTACK_LABELS[row] for row in ATTACK_LABELS if row in attacks
    ]
    for line, row in zip(lines, [r for r in ATTACK_LABELS if r in attacks], strict=True):
        assert line.split()[-4:] == ["-" if d is None else str(d) for d in attacks[row]]


@settings(max_examples=examples(40))
@given(texts=st.lists(st.lists(st.text("ab [/]%", min_size=1), max_size=3), min_size=1))
def test_every_line_of_an_abilitys_text_is_shown_under_its_name(texts: list[list[str]]) -> None:
    abilities = [{"name": f"A{n}", "text": "\n".join(lines)} for n, lines in enumerate(texts)]
    shown = abilities_text(abilities).plain.splitlines()
    expected = [
        line for n, lines in enumerate(texts) for line in
        (f"A{n}", *(f"  {text}" for text in "\n".join(lines).splitlines()))
    ]  # fmt: skip
    assert shown == expected
