"""Snapshots of the report screens (the campaign's story); each was looked at as a picture."""

from __future__ import annotations

from test_snapshots_linked import app_for, played

SMALL, LARGE = (80, 24), (120, 40)
__all__ = ["played"]  # the fixture: the sample after two battles, a third planned


def test_campaign_report_at_80x24(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*played), terminal_size=SMALL, press=["a"])


def test_campaign_report_at_120x40(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*played), terminal_size=LARGE, press=["a"])


def test_after_action_report_at_80x24(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(*played), terminal_size=SMALL, press=["tab", "enter", "a"])


def test_after_action_report_scrolled_to_its_journal(snap_compare, played) -> None:  # type: ignore[no-untyped-def]
    keys = ["tab", "enter", "a", "end"]
    assert snap_compare(app_for(*played), terminal_size=SMALL, press=keys)
