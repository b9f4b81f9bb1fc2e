"""The screens of tables at an 80x24 terminal on a crowded campaign (long ship and sea-area
names, several minefields, repairs outstanding, a long journal); each SVG was looked at before
it was committed."""

from __future__ import annotations

from pathlib import Path

import pytest
from crowded_campaign import crowded_app

from tracker.app import TrackerApp

SMALL = (80, 24)


@pytest.fixture
def app(tmp_path: Path) -> TrackerApp:
    return crowded_app(tmp_path / "campaign.db")


@pytest.mark.parametrize(
    "keys",
    [
        pytest.param(["j"], id="journal"),
        pytest.param(["r"], id="repairs"),
        pytest.param(["m"], id="ledger"),
        pytest.param(["m", "tab"], id="ledger_counters_focused"),
        pytest.param(["m", "t"], id="mine_table"),
        pytest.param(["f"], id="roster"),
        pytest.param(["l"], id="library"),
        pytest.param(["f", "b", "ctrl+n"], id="card_picker"),
        pytest.param(["r", "enter"], id="repair_dialog"),
    ],
)
def test_table_screens_at_80x24(snap_compare, app, keys: list[str]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app, terminal_size=SMALL, press=keys)
