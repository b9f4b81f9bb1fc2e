"""The record sheet's service calls go through the one path (tracker/screens/calls.py): a refusal
is said in the service's words, an unavailable database once, the cursor stays on its ship, and
what the sheet shows fits its window (the footer, the Points column)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from campaign_files import open_sheet, press_to, sample_engine
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App
from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.db import SessionFactory, session_factory
from tracker.errors import ConnectionLost
from tracker.rules import smr
from tracker.screens.form import FormScreen
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import campaigns, fleet, sheet
from tracker.widgets.sheet_table import FLEXIBLE, SHIP_COLUMNS, column_widths
from tracker.widgets.tables import fits

PILOT = settings(
    max_examples=examples(4), suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def sample(path: Path, seed: int = 3) -> tuple[TrackerApp, SessionFactory, int]:
    engine, campaign_id = sample_engine(path)
    factory = session_factory(engine)
    squadron_id = campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].squadrons[0].id
    return TrackerApp(factory, rng=random.Random(seed), open_campaign_id=campaign_id), factory, \
        squadron_id  # fmt: skip


def toasts(app: App[Any]) -> list[tuple[str, str, str]]:
    """(message, severity, title) of every toast the app showed (tests/toasts.py)."""
    return [(str(n.message), n.severity, n.title) for n in every_toast(app)]


@PILOT
@given(subject=st.sampled_from(["commander", "crew"]), roll=st.integers(1, 10))
async def test_a_test_dialog_and_its_toast_name_the_ship_tested(
    tmp_path_factory: pytest.TempPathFactory, subject: str, roll: int
) -> None:
    app, factory, squadron_id = sample(tmp_path_factory.mktemp("test") / "c.db")
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    rated = record.commander if subject == "commander" else record.crew
    assert rated is not None and record.commander is not None
    total = smr.test_total(roll, rated.modifier_now, under_fire=False, extra=0)
    # The commander aboard no ship yet; the crew of the ship under the cursor, the first.
    who = (f"{record.squadron_name}'s commander {record.commander.name}, aboard no ship"
           if subject == "commander" else f"{record.ships[0].name}'s crew")  # fmt: skip
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_sheet(pilot)
        form = await press_to(pilot, "k", screen=FormScreen)
        assert record.squadron_name in form.form_title
        form.query_one("#field-subject").value = subject  # type: ignore[attr-defined]
        form.query_one("#field-roll").value = str(roll)  # type: ignore[attr-defined]
        await pilot.pause()
        preview = str(form.query_one("#form-preview").render())
        assert preview.startswith(f"{who}: roll {roll}")
        await press_to(pilot, "ctrl+s", screen=RecordSheetScreen)
        verdict = "passed" if total >= smr.PASS_MARK else "FAILED"
        toast = f"Test of {who} {verdict}: total {total}"
        assert toast in [message for message, _, _ in toasts(app)]


async def test_the_test_dialogs_title_follows_who_tests(tmp_path: Path) -> None:
    """SMR2 §3.6: the title names the one tested, the commander or the selected ship's crew,
    as the choice changes, never the crew's ship while Command is chosen."""
    app, factory, squadron_id = sample(tmp_path / "c.db")
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    assert record.commander is not None and record.commander.name
    crew = f"{record.ships[0].name}'s crew"
    async with app.run_test(size=(120, 40)) as pilot:
        await open_sheet(pilot)
        form = await press_to(pilot, "k", screen=FormScreen)
        for subject in ("crew", "commander", "crew", "commander"):
            form.query_one("#field-subject").value = subject  # type: ignore[attr-defined]
            await pilot.pause()
            title = str(form.query_one("#form-title").render())
            assert title == form.form_title
            if subject == "commander":
                assert record.commander.name in title and record.ships[0].name not in title
            else:
                assert crew in title and "commander" not in title


async def test_a_crew_test_of_a_ship_with_her_own_crew_names_the_ship(tmp_path: Path) -> None:
    app, factory, squadron_id = sample(tmp_path / "c.db")
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    other = fleet.create_squadron(factory, side_id=record.side_id, name="Force K")
    ajax = record.ships[1]
    fleet.transfer_ship(factory, ship_id=ajax.id, to_squadron_id=other)  # she keeps her crew
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_sheet(pilot)
        screen.dismiss()
        await pilot.pause()
        app.push_screen(RecordSheetScreen(other))
        await pilot.pause()
        form = await press_to(pilot, "k", screen=FormScreen)
        assert "Force K" in form.form_title and "Ajax's own crew" in form.form_title
        form.query_one("#field-subject").value = "crew"  # type: ignore[attr-defined]
        form.query_one("#field-roll").value = "6"  # type: ignore[attr-defined]
        await press_to(pilot, "ctrl+s", screen=RecordSheetScreen)
        assert any(message.startswith("Test of Ajax's own crew passed") for message, _, _ in
                   toasts(app))  # fmt: skip


async def test_a_refused_call_is_said_in_the_services_words_and_nothing_changes(
    tmp_path: Path,
) -> None:
    app, factory, squadron_id = sample(tmp_path / "c.db")
    exeter = sheet.load_record_sheet(factory, squadron_id=squadron_id).ships[0]
    fleet.add_fire_markers(factory, ship_id=exeter.id, delta=99)  # the most a ship may carry
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_sheet(pilot)
        await pilot.press("f")
        await pilot.pause()
        [(message, severity, _)] = toasts(app)
        assert severity == "error" and "99" in message
        assert app.screen is screen and app.is_running and app.crash is None
        assert sheet.load_ship(factory, ship_id=exeter.id)[0].fire_markers == 99
        await pilot.press("F")  # counted from the sheet, not from the 100 refused
        await pilot.pause()
    assert sheet.load_ship(factory, ship_id=exeter.id)[0].fire_markers == 98


async def test_an_unavailable_database_is_said_once_and_the_sheet_stays_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, factory, squadron_id = sample(tmp_path / "c.db")
    lost = ConnectionLost("lost the connection to the database (server closed)")
    read = sheet.load_record_sheet

    def unavailable(*_: object, **__: object) -> None:
        raise lost

    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_sheet(pilot)
        table = screen.query_one(DataTable)
        await pilot.press("down")
        monkeypatch.setattr(sheet, "load_record_sheet", unavailable)
        await pilot.press("f")  # the marker is written; reading the sheet back meets the loss
        await pilot.pause()
        # Said once, as an error; the change watch may add that it answers again, since only
        # the sheet's read was cut off.
        errors = [(message, title) for message, severity, title in toasts(app)
                  if severity == "error"]  # fmt: skip
        assert errors == [(lost.message, "Database")]
        assert app.screen is screen and app.is_running and app.crash is None
        assert table.row_count == 3 and table.cursor_row == 1
        monkeypatch.setattr(sheet, "load_record_sheet", read)
        await pilot.press("f")
        await pilot.pause()
        # Counted from the marker asked for, not from the sheet that could not be read.
        assert read(factory, squadron_id=squadron_id).ships[1].fire_markers == 2
        assert table.get_row_at(1)[3].plain == "2"


async def test_the_cursor_stays_on_its_ship_when_the_rows_move_and_two_fires_both_count(
    tmp_path: Path,
) -> None:
    app, factory, squadron_id = sample(tmp_path / "c.db")
    exeter, ajax, _ = sheet.load_record_sheet(factory, squadron_id=squadron_id).ships
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sheet(pilot)
        await pilot.press("down")
        fleet.delete_ship(factory, ship_id=exeter.id)  # by another player: Ajax is first now
        screen.action_fire(1)
        screen.action_fire(1)  # asked before the first is back: counted from the first
        await pilot.pause()
        table = screen.query_one(DataTable)
        assert table.row_count == 2 and table.cursor_row == 0
        assert screen._ship() is not None and screen._ship().id == ajax.id  # type: ignore[union-attr]
    assert sheet.load_ship(factory, ship_id=ajax.id)[0].fire_markers == 2


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
async def test_the_footer_ends_with_a_whole_key_before_the_palette(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app, _, _ = sample(tmp_path / "c.db")
    async with app.run_test(size=size) as pilot:
        screen = await open_sheet(pilot)
        await pilot.pause()
        keys = list(screen.query_one(Footer).query(FooterKey))
        [palette] = [key for key in keys if key.has_class("-command-palette")]
        shown = [key for key in keys if key is not palette]
        assert shown and all(key.region.right <= palette.region.x for key in shown)
        actions = {key.action for key in shown}
        assert {"back", "damage", "fire(1)", "form('test')", "next_turn"} <= actions


NAMES = st.text(st.characters(codec="ascii", categories=["L", "Zs"]), min_size=1, max_size=30)


@given(
    rows=st.lists(st.tuples(NAMES, NAMES, NAMES, NAMES), min_size=1, max_size=6),
    room=st.integers(60, 200),
)
def test_every_column_on_screen_when_it_can_be_and_no_word_or_column_is_cut(
    rows: list[tuple[str, str, str, str]], room: int
) -> None:
    labels = [label for label, _ in SHIP_COLUMNS]
    cells: list[list[Any]] = []
    for name, crit, klass, nation in rows:
        row: list[Any] = [Text(str(width)) for _, width in SHIP_COLUMNS]
        for label, text in zip(("Ship", "Crits", "Class", "Nation"), (name, crit, klass, nation),
                               strict=True):  # fmt: skip
            row[labels.index(label)] = Text(text)
        cells.append(row)
    widths = column_widths(cells, room)
    on_screen = [n for n in range(len(widths) + 1) if fits(widths[:n], room)][-1]
    # The columns on screen end at the table's edge, or all fit: none is cut there.
    assert on_screen == len(widths) or sum(widths[:on_screen]) + 2 * on_screen == room
    for label, (_, high) in FLEXIBLE.items():
        at = labels.index(label)
        if at < on_screen:  # narrowed, a column wraps whole words (those up to its widest)
            words = [len(word) for row in cells for word in row[at].plain.split()]
            assert widths[at] >= min(max(words, default=0), high)
        if fits(widths, room - 1):  # room to spare: no flexible column short of its widest
            held = max(max(len(row[at].plain) for row in cells), len(label))
            assert widths[at] >= min(held, high)
