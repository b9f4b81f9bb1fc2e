"""Building a War at Sea fleet from the library's cards in the app (b on the roster): the search
finds cards as typed, each pick adds a unit with the card's values, the heading follows the
budget, and a card over the budget is refused with nothing written."""

from __future__ import annotations

import json
import random
from pathlib import Path

from campaign_files import open_or_create, press_to
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import DataTable, Input, Static

from tracker.app import TrackerApp
from tracker.db import SessionFactory
from tracker.screens.card_picker import CardPickerScreen, free_name
from tracker.screens.confirm import ConfirmScreen
from tracker.screens.picker import matches, search_words
from tracker.screens.roster import RosterScreen
from tracker.services import campaigns, library, roster
from tracker.services.library import UnitCardRead

CARDS = Path(__file__).parents[1] / "library_files" / "cards-300.csv"
BUDGET = 100


def _campaign_with_library(factory: SessionFactory) -> int:
    campaign_id = campaigns.create_campaign(factory, name="Pacific 1942").id
    campaigns.create_side(factory, campaign_id=campaign_id, name="Kido Butai")
    library.import_library(factory, raw=CARDS.read_bytes())
    return campaign_id


def _fleet_of(cards: tuple[UnitCardRead, ...], total: int) -> list[UnitCardRead]:
    """Cards of different names whose points add up to `total` exactly (found, not chosen)."""
    reach: dict[int, list[UnitCardRead]] = {0: []}
    for card in cards:
        for points, picked in list(reach.items()):
            if card.points and points + card.points <= total and len(picked) < 4:
                reach.setdefault(points + card.points, [*picked, card])
    assert total in reach, "the shipped library holds no fleet of that many points"
    return reach[total]


def _app(tmp_path: Path) -> tuple[SessionFactory, TrackerApp]:
    """The app on a campaign whose file holds the shipped library."""
    factory, campaign_id = open_or_create(tmp_path / "campaign.db", _campaign_with_library)
    return factory, TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)


async def _open_picker(pilot) -> tuple[RosterScreen, CardPickerScreen]:  # type: ignore[no-untyped-def]
    """From the campaign screen: the side's roster (f), then its card picker (b)."""
    await pilot.pause()
    roster_screen = await press_to(pilot, "f", screen=RosterScreen)
    return roster_screen, await press_to(pilot, "b", screen=CardPickerScreen)


async def test_a_100_point_fleet_built_by_searching_and_picking(tmp_path: Path) -> None:
    factory, app = _app(tmp_path)
    fleet = _fleet_of(library.cards(factory), BUDGET)
    async with app.run_test(size=(120, 40)) as pilot:
        roster_screen, picker = await _open_picker(pilot)
        search = picker.query_one("#picker-search", Input)
        assert len(picker.query_one("#picker-rows", DataTable).columns) == len(picker.COLUMNS)
        for card in fleet:
            search.value = ""
            await pilot.press(*f"{card.name} {card.nation}".lower())
            assert card in picker.shown
            assert all(matches(search_words(search.value), c.name, c.nation) for c in picker.shown)
            await pilot.press(*["down"] * picker.shown.index(card), "enter")
        heading = str(picker.query_one("#picker-heading", Static).render())
        assert f"Fleet: {BUDGET} of {BUDGET} points, 0 left" in heading
        # One more card is over the budget: refused, and said so, with nothing written.
        search.value = ""
        await pilot.press(*fleet[0].name.lower(), "enter")
        said = str(picker.query_one("#picker-said", Static).render())
        assert f"costs {fleet[0].points} points and 0 are left" in said
        await pilot.press("escape")
        assert app.screen is roster_screen
        await pilot.pause()
        assert roster_screen.view is not None and roster_screen.view.points == BUDGET
    units = roster.roster(factory, side_id=roster_screen.side_id).units
    assert [(u.name, u.nation, u.points, u.armor, u.vital_armor, u.hull_points, u.speed,
             u.year, u.attacks) for u in units] == [
        (c.name, c.nation, c.points, c.armor, c.vital_armor, c.hull_points, c.speed, c.year,
         json.loads(c.attacks)) for c in fleet
    ]  # fmt: skip


async def test_the_same_card_twice_makes_two_units_of_their_own_names(tmp_path: Path) -> None:
    factory, campaign_id = open_or_create(tmp_path / "campaign.db", _campaign_with_library)
    cheapest = min((c for c in library.cards(factory) if c.points), key=lambda c: c.points)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        roster_screen = await press_to(pilot, "f", screen=RosterScreen)
        picker = await press_to(pilot, "b", screen=CardPickerScreen)
        for _copy in range(2):  # the search is cleared after a pick: the card is found again
            await pilot.press(*f"{cheapest.name} {cheapest.nation}".lower())
            await pilot.press(*["down"] * picker.shown.index(cheapest), "enter")
        # The second copy is asked for first, naming the name it will take.
        asked = app.screen
        assert (
            isinstance(asked, ConfirmScreen) and f"add {cheapest.name} (2) too?" in asked.question
        )
        await pilot.press("y")
        await pilot.pause()
        await pilot.press("escape")
    assert [u.name for u in roster.roster(factory, side_id=roster_screen.side_id).units] == [
        cheapest.name, f"{cheapest.name} (2)",
    ]  # fmt: skip


@given(name=st.text(min_size=1, max_size=20), around=st.text(max_size=10),
       other=st.text(min_size=1, max_size=20))  # fmt: skip
def test_the_search_is_literal_text_in_any_case(name: str, around: str, other: str) -> None:
    # Wildcards and markup-like text match themselves: the card's own name always finds it.
    text = f"{around}{name}{around}"
    assert matches(search_words(name.upper()), text.lower()) == matches(search_words(name), text)
    assert matches(search_words(name), text)
    words = search_words(other)
    assert matches(words, text) == all(word in text.casefold() for word in words)


@given(name=st.text(min_size=1, max_size=12), copies=st.integers(0, 5))
def test_a_units_name_is_never_one_the_fleet_has(name: str, copies: int) -> None:
    taken: list[str] = []
    for _ in range(copies + 1):
        new = free_name(name, taken)
        assert new.casefold() not in {each.casefold() for each in taken}
        assert new.startswith(name)
        taken.append(new.upper())


async def test_a_new_search_highlights_its_first_match_and_enter_adds_that_one(
    tmp_path: Path,
) -> None:
    """Whatever row the cursor was on, a search typed afterwards puts it on the first match
    (the highlight had kept its height: "unit 14" listed Unit 14 first and Enter added Unit 149).
    The searches are the starts of names drawn from the shipped cards."""
    factory, app = _app(tmp_path)
    drawn = random.Random(14).sample(library.cards(factory), 6)
    async with app.run_test(size=(120, 40)) as pilot:
        roster_screen, picker = await _open_picker(pilot)
        search = picker.query_one("#picker-search", Input)
        table = picker.query_one("#picker-rows", DataTable)
        for card in drawn:
            search.value = ""
            await pilot.press("down", "down", "down")
            assert table.cursor_row == 3
            await pilot.press(*card.name.lower()[: len(card.name) - 1])
            assert picker.shown and table.cursor_row == 0
            assert picker.highlighted() == picker.shown[0]
            heading = str(picker.query_one("#picker-heading", Static).render())
            assert picker.shown[0].name in heading
        first = picker.shown[0]
        await pilot.press("enter")
        await pilot.press("escape")
        await pilot.pause()
    units = roster.roster(factory, side_id=roster_screen.side_id).units
    assert [unit.name for unit in units] == [first.name]


def _campaign_of_japan(factory: SessionFactory) -> int:
    campaign_id = campaigns.create_campaign(factory, name="Pacific 1942").id
    campaigns.create_side(factory, campaign_id=campaign_id, name="Kido Butai", nation="Japan")
    library.import_library(factory, raw=CARDS.read_bytes())
    return campaign_id


async def test_the_picker_opens_on_the_sides_nation_and_sorts_by_points_name_or_type(
    tmp_path: Path,
) -> None:
    """A side with a nation sees its nation's cards first (ctrl+n: every nation, and back);
    ctrl+o sorts by name, by points (most first), by type; full type names fit."""
    factory, campaign_id = open_or_create(tmp_path / "campaign.db", _campaign_of_japan)
    cards = library.cards(factory)
    japan = [card for card in cards if card.nation == "Japan"]
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    async with app.run_test(size=(80, 24)) as pilot:
        _, picker = await _open_picker(pilot)
        assert {card.id for card in picker.shown} == {card.id for card in japan}
        await pilot.press("ctrl+o")  # by points, most first
        points = [card.points for card in picker.shown]
        assert points == sorted(points, reverse=True) and len(points) == len(japan)
        await pilot.press("ctrl+o")  # by type
        kinds = [str(card.unit_type) for card in picker.shown]
        assert kinds == sorted(kinds)
        await pilot.press("ctrl+n")
        assert len(picker.shown) == len(cards)
        await pilot.press("ctrl+n")
        assert len(picker.shown) == len(japan)
        widths = dict(picker.COLUMNS)
        assert widths["Type"] >= max(len(str(card.unit_type)) for card in cards)
