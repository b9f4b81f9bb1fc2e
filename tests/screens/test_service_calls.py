"""The one path for a screen's service calls (tracker/screens/calls.py): off the UI thread, in
the screen's order, and one handler for every outcome whatever the calling method's name."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

import pytest
from campaign_files import real_campaign_file, run_main
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from settle import settle
from test_crash import Boom, logged
from textual.app import App
from textual.binding import Binding
from toasts import every_toast

from tracker import crash_log
from tracker.app import TrackerApp
from tracker.screens import calls
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.services import campaigns, errors


class Probe(TrackerScreen):
    """A screen whose key `x` and whose oddly named method both call a service."""

    BINDINGS = [Binding("x", "call_it", "Call")]

    def __init__(self, service: Any) -> None:
        super().__init__()
        self.service = service
        self.results: list[Any] = []
        self.refusals: list[Exception] = []

    def action_call_it(self) -> None:
        self.call(Call(self.service), then=self.results.append, refused=self.refusals.append)

    def zebra_stripes(self) -> None:  # no action_ or on_ prefix: the path covers it all the same
        self.call(Call(self.service), then=self.results.append)


class ProbeApp(App[None]):
    def __init__(self, service: Any) -> None:
        super().__init__()
        self.probe = Probe(service)
        self.factory = None
        self.crashed: list[BaseException] = []

    def on_mount(self) -> None:
        self.push_screen(self.probe)

    def _handle_exception(self, error: Exception) -> None:
        self.crashed.append(error)
        super()._handle_exception(error)


def database_toasts(app: App[Any]) -> list[str]:
    return [n.message for n in every_toast(app) if n.title == "Database"]


async def test_a_call_runs_off_the_ui_thread_and_its_result_comes_back_on_it() -> None:
    threads: list[int] = []

    def service() -> str:
        threads.append(threading.get_ident())
        return "done"

    app = ProbeApp(service)
    async with app.run_test() as pilot:
        await pilot.press("x")
        assert app.probe.results == ["done"]
        assert threads and threads[0] != threading.get_ident()


@pytest.mark.parametrize(
    "kind", [errors.ConnectionLost, errors.ReadOnlyDatabase, errors.DatabaseUnavailable]
)
async def test_an_unavailable_database_is_said_once_and_the_screen_stays(kind: type) -> None:
    def service() -> None:
        raise kind("The database server does not answer: nothing was written.")

    app = ProbeApp(service)
    async with app.run_test() as pilot:
        await pilot.press("x", "x", "x")
        app.probe.zebra_stripes()
        await pilot.pause()
        assert database_toasts(app) == ["The database server does not answer: nothing was written."]
        assert app.probe.refusals == []  # by its own class, before the player's errors
        assert app.screen is app.probe and app.return_code is None and app.crashed == []


async def test_a_handler_of_any_name_has_its_database_trouble_said() -> None:
    def service() -> None:
        raise errors.ConnectionLost("The database server does not answer.")

    app = ProbeApp(service)
    async with app.run_test() as pilot:
        app.probe.call_later(app.probe.zebra_stripes)
        await pilot.pause()
        assert database_toasts(app) == ["The database server does not answer."]
        assert app.screen is app.probe and app.crashed == []


PLAYERS = st.sampled_from([errors.InvalidInput, errors.NotFound, errors.ChangedElsewhere])


@settings(derandomize=True, max_examples=examples(15), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(kind=PLAYERS, text=st.text(min_size=1, max_size=30))
async def test_the_players_errors_go_to_the_screens_handler(kind: type, text: str) -> None:
    error = kind({"name": text}) if kind is errors.InvalidInput else kind(text)

    def service() -> None:
        raise error

    app = ProbeApp(service)
    async with app.run_test() as pilot:
        await pilot.press("x")
        assert app.probe.refusals == [error]
        assert database_toasts(app) == [] and app.crashed == []


def service(ran: list[str], name: str, wait: threading.Event | None = None) -> Any:
    """A service that says it ran (after `wait`, if given) and returns its name."""

    def run() -> str:
        assert wait is None or wait.wait(30)
        ran.append(name)
        return name

    return run


async def test_two_calls_from_one_screen_run_one_after_the_other_in_order() -> None:
    release = threading.Event()
    order: list[str] = []
    app = ProbeApp(None)
    async with app.run_test():
        app.probe.call(Call(service(order, "first", release)), then=app.probe.results.append)
        app.probe.call(Call(service(order, "second")), then=app.probe.results.append)
        assert calls.busy(app.probe)
        release.set()
        await settle(app)
        assert order == ["first", "second"]
        assert app.probe.results == ["first", "second"]
        assert not calls.busy(app.probe)


async def test_a_call_asked_for_by_an_outcome_runs_once_after_it() -> None:
    ran: list[str] = []
    app = ProbeApp(None)
    async with app.run_test():

        def saved(result: str) -> None:
            app.probe.results.append(result)
            app.probe.call(Call(service(ran, "next turn")), then=app.probe.results.append)

        app.probe.call(Call(service(ran, "save")), then=saved)
        await settle(app)
        assert ran == ["save", "next turn"]
        assert app.probe.results == ["save", "next turn"]


async def test_a_screen_closed_while_its_call_runs_is_left_alone() -> None:
    release = threading.Event()

    def slow() -> str:
        assert release.wait(30)
        return "late"

    app = ProbeApp(slow)
    async with app.run_test() as pilot:
        app.probe.action_call_it()
        await app.pop_screen()
        release.set()
        await settle(app)
        await pilot.pause()
        assert app.probe.results == [] and app.crashed == []


async def test_a_mapped_call_hands_on_its_result_turned_on_the_ui_thread() -> None:
    threads: list[int] = []

    def words(result: str) -> str:
        threads.append(threading.get_ident())
        return f"#{result} laid"

    app = ProbeApp(None)
    async with app.run_test():
        app.probe.call(Call(lambda: "7").map(words), then=app.probe.results.append)
        await settle(app)
        assert app.probe.results == ["#7 laid"]
        assert threads == [threading.get_ident()]


# TrackerApp.run as the command line calls it, headless: the crash is the app's own.
HEADLESS = functools.partialmethod(TrackerApp.run, headless=True, size=(80, 24))


def test_a_programming_error_in_a_worker_writes_the_crash_log_and_exits_1(
    tmp_path: Path, config_dir: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    ran_in: list[int] = []

    def list_campaigns(factory: Any) -> None:
        ran_in.append(threading.get_ident())
        raise Boom("a bug in the campaign list")

    monkeypatch.setattr(TrackerApp, "run", HEADLESS)
    monkeypatch.setattr(campaigns, "list_campaigns", list_campaigns)
    outcome = run_main(capsys, ["--db", str(real_campaign_file(tmp_path / "campaign.db"))])
    assert outcome.status == 1
    assert ran_in and ran_in[0] != threading.get_ident()  # it was a worker's
    kind, log = logged(outcome.err)
    assert kind == "Boom"
    assert log.parent == config_dir / crash_log.FOLDER_NAME
    text = log.read_text(encoding="utf-8")
    assert "in list_campaigns" in text and "Boom: a bug in the campaign list" in text


@settings(max_examples=examples(5), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1, max_size=30))
async def test_an_error_the_call_turns_reaches_the_screen_as_the_one_it_expects(text: str) -> None:
    class Exists(Exception):
        pass

    def service() -> None:
        raise Exists(text)

    app = ProbeApp(None)
    async with app.run_test():
        call = Call(service).turning(Exists, lambda exc: errors.InvalidInput({"path": str(exc)}))
        app.probe.call(call.map(lambda _none: "written"), then=app.probe.results.append,
                       refused=app.probe.refusals.append)  # fmt: skip
        await settle(app)
        [refusal] = app.probe.refusals
        assert isinstance(refusal, errors.InvalidInput) and refusal.errors == {"path": text}
        assert isinstance(refusal.__cause__, Exists)
        assert app.probe.results == [] and app.crashed == []
