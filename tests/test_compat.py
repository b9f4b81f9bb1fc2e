"""Canaries for tracker.compat: each private part of Textual and pydantic it reaches is still
there, with the shape it uses, and does what compat counts on. An upgrade that changes one
fails here, by name, not at the table."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import SQLModel
from textual import events
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label

import tracker.models
from tracker import compat
from tracker.models.fleet import ShipRead

TRACKER = Path(__file__).resolve().parent.parent / "tracker"
# The private names compat reaches: none may stand in another module of tracker/.
PRIVATE = re.compile(
    r"_background_screens|_handle_exception|_screen_stacks?\b|_update_dimensions|_clear_caches"
    r"|_toggle_button|_sa_registry|__pydantic_fields_set__|_css_update_count"
    r"|_get_column_region|_on_screen_resume|_exit_renderables|_require_update_dimensions"
    r"|_subscriptions|\b_closing\b|\b_pruning\b|\._closed\b"
    r"|_open_app_process|_make_app|_process_messages|_build_environment|\._stdin\b"
    r"|widgets\._footer|_watch_compact"
)


def test_no_module_but_compat_reaches_a_private_part_of_the_libraries() -> None:
    reached = sorted(
        f"{path.relative_to(TRACKER)}:{number}"
        for path in TRACKER.rglob("*.py")
        if path.name != "compat.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if PRIVATE.search(line)
    )
    assert reached == []


def test_the_textual_parts_are_there_with_their_shapes() -> None:
    assert list(inspect.signature(App._handle_exception).parameters) == ["self", "error"]
    assert isinstance(inspect.getattr_static(App, "_background_screens"), property)
    assert list(inspect.signature(DataTable._update_dimensions).parameters) == [
        "self", "new_rows"
    ]  # fmt: skip
    assert list(inspect.signature(DataTable._clear_caches).parameters) == ["self"]
    assert list(inspect.signature(DataTable._get_column_region).parameters) == [
        "self", "column_index"
    ]  # fmt: skip
    assert callable(Screen._on_screen_resume)
    assert "refresh_styles" in inspect.signature(events.ScreenResume).parameters


class _Table(DataTable[Any]):
    measured = 0


@compat.redraws_after_measuring(lambda table: setattr(table, "measured", table.measured + 1))
class _MeasuredTable(_Table):
    pass


@compat.keeps_styles_on_resume
class _KeptScreen(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Label("kept")
        yield Footer()


@compat.reports_crashes
@compat.hides_under_opaque_screens
class _App(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.crashes: list[BaseException] = []

    def crashed(self, error: BaseException) -> None:
        self.crashes.append(error)

    def compose(self) -> ComposeResult:
        yield _MeasuredTable()


async def test_the_textual_parts_do_what_compat_counts_on() -> None:
    app = _App()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(_MeasuredTable)
        table.add_column("Ship")
        table.add_rows([["Exeter"], ["Ajax"]])
        await pilot.pause()
        assert table.measured >= 1  # the hook ran after Textual measured the rows
        compat.measure_at_idle(table)
        table.check_idle()
        before = table.measured
        await pilot.pause()
        assert table.measured > before
        assert compat.column_region(table, 0).width > 0
        compat.drop_drawn_lines(table)

        # Every mode's stack; a screen on top and an opaque one hides what is under it.
        assert [list(stack) for stack in compat.screen_stacks(app)] == [app.screen_stack]
        kept = _KeptScreen()
        await app.push_screen(kept)
        await pilot.pause()
        kept.styles.background = "red"
        assert app._background_screens == []
        assert compat.closing(kept) is False
        # Its footer hears the keys' changes; a screen never shown has no one to hear them.
        assert compat.has_subscribers(kept.bindings_updated_signal) is True
        assert compat.has_subscribers(Screen[None]().bindings_updated_signal) is False
        app.pop_screen()
        await pilot.pause()
        assert compat.closing(kept) is True
        styled_for = kept._styled_for
        assert isinstance(styled_for, int)


async def test_a_crash_reaches_the_apps_crashed_and_ends_it_with_status_1() -> None:
    app = _App()
    with pytest.raises(RuntimeError, match="boom"):  # run_test raises it again
        async with app.run_test(size=(60, 12)) as pilot:
            compat.crash(app, RuntimeError("boom"))
            await pilot.pause()
    assert [str(error) for error in app.crashes] == ["boom"]
    assert app.return_code == 1


def test_construct_unchecked_builds_what_model_construct_builds() -> None:
    values = {"name": "Exeter", "type_abbrev": "CA", "structure_max": 12, "structure_now": 9}
    defaults = {
        key: info.get_default(call_default_factory=True)
        for key, info in ShipRead.model_fields.items()
        if not info.is_required()
    }
    built = compat.construct_unchecked(ShipRead, {**defaults, **values}, values)
    expected = ShipRead.model_construct(_fields_set=set(values), **{**defaults, **values})
    assert built == expected
    assert built.model_fields_set == expected.model_fields_set == set(values)
    assert built.model_dump() == expected.model_dump()


@compat.keys_compact_when_made
class _KeysFooter(Footer):
    pass


class _FooterApp(App[None]):
    BINDINGS = [("a", "bell", "Add"), ("e", "focus_next", "Edit")]

    def __init__(self, footer: type[Footer]) -> None:
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        yield Label("keys")
        yield self.footer(compact=True)


@pytest.mark.parametrize("footer", [Footer, _KeysFooter], ids=["textual", "compat"])
async def test_a_compact_footers_keys_are_compact_and_each_restyled_only_by_compat(
    monkeypatch: pytest.MonkeyPatch, footer: type[Footer]
) -> None:
    """Textual's compact footer gives each key its "-compact" class once mounted, restyling it
    (FooterKey._watch_compact); compat's gives it as the key is made: the same keys, the same
    classes, no restyle."""
    from textual.widgets._footer import FooterKey

    restyled: list[str] = []
    update = FooterKey.update_node_styles

    def counted(self: Any, animate: bool = True) -> None:
        restyled.append(self.key)
        update(self, animate)

    monkeypatch.setattr(FooterKey, "update_node_styles", counted)
    app = _FooterApp(footer)
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        keys = list(app.query(FooterKey))
        assert {key.key for key in keys} >= {"a", "e"}
        assert all(key.has_class("-compact") and key.compact for key in keys)
    assert bool(restyled) is (footer is Footer), restyled


def test_the_table_models_are_every_mapped_class() -> None:
    registry = {mapper.class_ for mapper in SQLModel._sa_registry.mappers}
    assert set(tracker.models.TABLES) == registry
    assert len(tracker.models.TABLES) == len(registry)


@pytest.mark.parametrize("decorator", [compat.reports_crashes, compat.hides_under_opaque_screens])
def test_an_app_decorator_keeps_the_class_itself(decorator: Any) -> None:
    class Plain(App[None]):
        pass

    assert decorator(Plain) is Plain


def test_the_textual_serve_parts_are_there_with_their_shapes() -> None:
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    service, server = compat.serve_bases()
    assert issubclass(service, AppService) and issubclass(server, Server)
    assert list(inspect.signature(AppService._open_app_process).parameters) == [
        "self", "width", "height"
    ]  # fmt: skip
    assert list(inspect.signature(AppService._build_environment).parameters) == [
        "self", "width", "height"
    ]  # fmt: skip
    assert list(inspect.signature(Server._make_app).parameters) == ["self"]
    assert list(inspect.signature(Server._process_messages).parameters) == [
        "self", "websocket", "app_service"
    ]  # fmt: skip
    # The service keeps its process and the process's stdin where started() puts them.
    init = inspect.getsource(AppService.__init__)
    assert "self._process" in init and "self._stdin" in init
