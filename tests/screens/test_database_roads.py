"""A database that stops answering, met by the app's own undo, a key or typed text, is told to the
player once and the app carries on: every such call goes through the one call path
(tracker/screens/calls.py), which says an unavailable database as one "Database" notification, and
a row another player changed at the same moment as the player's own error."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from campaign_files import open_sheet, press_to, sample_engine
from textual.widgets import Static
from toasts import every_toast

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.errors import ChangedElsewhere, ConnectionLost, DatabaseUnavailable
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.services import history

LOST = [
    ConnectionLost("lost the connection to the database (server closed): nothing was written"),
    ChangedElsewhere("another player changed this at the same moment: nothing was written"),
    DatabaseUnavailable("the disk is full: nothing was written; free some space and try again"),
]


def _raise(problem: DatabaseUnavailable):  # type: ignore[no-untyped-def]
    def service(*_: object, **__: object) -> None:
        raise problem

    return service


async def test_undo_on_a_database_that_stopped_answering_is_said_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each problem in turn, in one app: each said once, and the app goes on to the next."""
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    try:
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await open_sheet(pilot)
            for problem in LOST:
                monkeypatch.setattr(history, "undo_last", _raise(problem))
                await pilot.press("ctrl+z")
                await pilot.pause()
                [said] = [note for note in every_toast(app) if note.message == problem.message]
                title = "" if isinstance(problem, ChangedElsewhere) else "Database"
                assert (said.title, said.severity) == (title, "error"), problem
                assert app.crash is None and app.is_running, problem
    finally:
        engine.dispose()


# A key's action and a handler of typed text, each calling a service through the one path, with
# no guard of its own around it: (module, service, keys from the record sheet, keys back to it
# once the screen was left with escape).
KEYS_AND_TYPING = [
    ("fleet", "add_fire_markers", ("f",), ("enter",)),
    ("damage", "preview_hit", ("d", *"exeter s3"), ("y",)),
]


@pytest.mark.parametrize("where", KEYS_AND_TYPING, ids=lambda where: where[1])
async def test_a_key_or_typing_meeting_a_lost_database_is_said_and_the_screen_goes_on(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    where: tuple[str, str, tuple[str, ...], tuple[str, ...]],
) -> None:
    """Each problem in turn, in one app, from the record sheet each time."""
    from tracker.services import damage, fleet

    module, name, keys, back = where
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id)
    try:
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await open_sheet(pilot)
            for problem in LOST:
                monkeypatch.setattr({"fleet": fleet, "damage": damage}[module], name,
                                    _raise(problem))  # fmt: skip
                told = len(every_toast(app))
                await pilot.press(*keys)
                await pilot.pause()
                screen = app.screen
                said = [(note.message, note.severity) for note in every_toast(app)[told:]
                        if note.severity == "error"]  # fmt: skip
                shown = [str(box.render()) for box in screen.query(Static)]
                # Said once: in a toast, or where the screen shows what it could not do (a
                # preview).
                assert said == [(problem.message, "error")] or (
                    said == [] and any(problem.message in text for text in shown)
                ), problem
                assert app.crash is None and app.is_running, problem
                # The screen still answers keys: escape leaves it (or asks first, on a typed
                # line).
                await pilot.press("escape")
                await pilot.pause()
                assert app.is_running and app.screen is not screen, problem
                await press_to(pilot, *back, screen=RecordSheetScreen)
    finally:
        engine.dispose()


# An act a screen refuses without a call for lack of what its read should have brought: (the
# read that finds the database gone, keys from the campaign screen to the screen, the act's
# keys, what the act says when the read was simply empty).
UNREAD = [
    ("sheet.load_record_sheet", ("enter",), ("e",), "No ship selected"),
    ("sheet.load_record_sheet", ("enter",), ("r",), "The sheet is not read yet"),
    ("sheet.load_ship", ("enter", "enter"), ("e",), "No battery selected"),
    ("campaigns.list_campaigns", ("escape",), ("e",), "No campaign to edit"),
    ("campaigns.get_overview", (), ("n",), "Add a side first"),
    ("campaigns.get_overview", (), ("f",), "Put the cursor on a side"),
    ("mines.ledger", ("m",), ("c",), "No minefield yet"),
    ("mines.ledger", ("m",), ("T",), "No ship with a counter yet"),
    ("roster.roster", ("f",), ("e",), "No unit yet"),
    ("roster.roster", ("f",), ("g",), "No marker yet"),
    ("history.list_entries", ("j",), ("u",), "No journal entry listed"),
    ("damage.preview_hit", ("d", *"exeter s3"), ("enter",), "Nothing to record"),
    ("damage_entry.read_opening", ("d",), ("up",), "No line recorded"),
]


# The acts of UNREAD by the read they lack and the screen they are pressed on: one app each,
# the acts pressed one after another (a refused act leaves the screen as it was).
UNREAD_ON_A_SCREEN = {
    (read, to_screen): [act for other, keys, act, _ in UNREAD if (other, keys) == (read, to_screen)]
    for read, to_screen, _, _ in UNREAD
}


@pytest.mark.parametrize(
    "case", UNREAD_ON_A_SCREEN.items(),
    ids=lambda case: f"{case[0][0]}-{','.join('+'.join(act) for act in case[1])}",
)  # fmt: skip
async def test_an_act_on_what_a_lost_database_left_unread_names_the_database(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: tuple[tuple[str, tuple[str, ...]], list[tuple[str, ...]]],
) -> None:
    """The screen's read met the database gone, so what the act needs is not there: the act
    says the database did not answer (as often as it is pressed), not that there is nothing."""
    import tracker.screens.damage_entry
    from tracker.screens import calls
    from tracker.services import campaigns, damage, mines, roster, sheet

    (read, to_screen), acts = case
    module, name = read.split(".")
    modules = {
        "sheet": sheet,
        "campaigns": campaigns,
        "mines": mines,
        "roster": roster,
        "history": history,
        "damage": damage,
        "damage_entry": tracker.screens.damage_entry,
    }  # its own name for the service
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    problem = LOST[0]
    monkeypatch.setattr(modules[module], name, _raise(problem))
    monkeypatch.setattr(calls, "SAY_AGAIN_AFTER", 0)  # each telling heard, not only the first
    # The change watch does not look meanwhile: it would find the database answering (only the
    # screen's read is cut off) and the act would then say what is missing.
    app = TrackerApp(factory, rng=random.Random(1), open_campaign_id=campaign_id,
                     watch_seconds=3600)  # fmt: skip
    try:
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            await pilot.press(*to_screen)
            await pilot.pause()
            for act in acts:
                told = len(every_toast(app))
                await pilot.press(*act)
                await pilot.pause()
                said = [note.message for note in every_toast(app)[told:]]
                assert said and all(message == problem.message for message in said), (act, said)
                assert app.crash is None and app.is_running, act
    finally:
        engine.dispose()
