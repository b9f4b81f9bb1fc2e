"""Snapshots of the library, each SVG looked at: the cards filtered by nation and sorted by
points, and a card's detail view."""

from __future__ import annotations

from pathlib import Path

import pytest
from library_app import app_with_library

from tracker.app import TrackerApp

SIZE = (120, 40)


@pytest.fixture
def library_app(tmp_path: Path) -> TrackerApp:
    return app_with_library(tmp_path / "campaign.db")


def test_library_filtered_by_nation_sorted_by_points(snap_compare, library_app: TrackerApp) -> None:  # type: ignore[no-untyped-def]
    # Japan's cards, the Pts column chosen (four to the right) and sorted highest first.
    keys = ["l", "slash", *"japan", "enter", *["right"] * 4, "o", "o", "ctrl+home"]
    assert snap_compare(library_app, terminal_size=SIZE, press=keys)


def test_card_detail_shows_fields_dice_and_abilities(snap_compare, library_app: TrackerApp) -> None:  # type: ignore[no-untyped-def]
    keys = ["l", "slash", *"kreuzer", "enter", "enter"]
    assert snap_compare(library_app, terminal_size=SIZE, press=keys)
