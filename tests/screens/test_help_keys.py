"""Help lists every key of every screen the app can open: its own bindings, its widgets' (a
table's enter, a text field's keys), what an on_key takes, and the app's; and ? opens help on
every screen, typed only in the damage line, where "crit ?" needs it (f1 opens help there)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import string
import textwrap
from pathlib import Path
from typing import Any

import pytest
from campaign_files import full_sample_campaign, migrated_engine, press_to
from textual import actions
from textual.dom import DOMNode
from textual.keys import _character_to_key, key_to_character
from textual.screen import Screen

import tracker.screens
from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.screens.help import GLOBAL_KEYS, HelpScreen
from tracker.screens.library_changes import LibraryChangesScreen
from tracker.screens.mine_check import MineCheckScreen
from tracker.services.building import Drift
from tracker.widgets.shorthand_line import ShorthandLine

# Keys the walk does not press: they quit, go back, copy, undo or open help (checked apart).
NOT_PRESSED = {"q", "ctrl+q", "ctrl+c", "super+c", "escape", "question_mark", "f1", "ctrl+z",
               "ctrl+y", "ctrl+p", "tab", "shift+tab"}  # fmt: skip


PUNCTUATION = {_character_to_key(character): character for character in string.punctuation}


def shown(key: str) -> str:
    """A key as a player reads it: "?" for question_mark, "/" for slash; "space" as named."""
    character = PUNCTUATION.get(key) or key_to_character(key)
    return character if character and character.isprintable() and not character.isspace() else key


def every_screen_class() -> set[type[Screen[Any]]]:
    """Every screen class tracker defines (each module of tracker.screens imported)."""
    for module in pkgutil.iter_modules(tracker.screens.__path__):
        importlib.import_module(f"tracker.screens.{module.name}")
    found: set[type[Screen[Any]]] = set()
    todo: list[type[Any]] = [Screen]
    while todo:
        for kind in todo.pop().__subclasses__():
            todo.append(kind)
            if kind.__module__.startswith("tracker."):
                found.add(kind)
    return found


def on_key_keys(node: DOMNode) -> set[str]:
    """The keys a tracker widget's on_key compares event.key with, read from its source."""
    method = getattr(type(node), "on_key", None)
    if method is None or not type(node).__module__.startswith("tracker."):
        return set()
    keys = set()
    for compare in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(method)))):
        if isinstance(compare, ast.Compare) and ast.unparse(compare.left) == "event.key":
            for right in compare.comparators:
                if isinstance(right, ast.Constant):
                    keys.add(str(right.value))
                elif isinstance(right, ast.Attribute):  # self.sort_key
                    keys.add(str(getattr(node, right.attr)))
    return keys


def reacts_to(screen: Screen[Any]) -> set[str]:
    """Every key the screen reacts to now: each binding of the app, the screen and its widgets
    whose action is allowed, and each key an on_key takes."""
    keys = set()
    for node in (screen.app, screen, *screen.query("*")):
        for key, bindings in node._bindings.key_to_bindings.items():
            for binding in bindings:
                namespace, name, parameters = actions.parse(binding.action)
                if namespace or node.check_action(name, parameters) is not False:
                    keys.add(key)
        keys |= on_key_keys(node)
    return {shown(key) for key in keys}


async def help_of(pilot: Any) -> set[str]:
    """The keys the help of the screen on top names, opened with ?; in the damage line, where
    ? is typed (crit ?), with f1."""
    app, screen = pilot.app, pilot.app.screen
    focused = app.focused
    await pilot.press("question_mark")
    await pilot.pause()
    if isinstance(focused, ShorthandLine):
        assert app.screen is screen and focused.value.endswith("?")
        focused.value = ""
        await press_to(pilot, "f1", screen=HelpScreen)
    assert isinstance(app.screen, HelpScreen), f"? on {type(screen).__name__}"
    rows = [*app.screen.keys, *GLOBAL_KEYS]
    await press_to(pilot, "escape", screen=type(screen))
    return {key for keys, _ in rows for key in keys.split(" / ")}


async def walk(pilot: Any, seen: dict[str, set[str]]) -> None:
    """The screen on top and every screen its keys open, each once: what it reacts to and its
    help does not name."""
    app = pilot.app
    screen, depth = app.screen, len(app.screen_stack)
    seen[type(screen).__name__] = reacts_to(screen) - await help_of(pilot)
    own = [key for binding in screen.BINDINGS for key in binding.key.split(",")]
    # Enter on the first table, then on the next (the campaign screen's scenarios).
    for key in [*dict.fromkeys([*own, "enter"]), "tab", "enter"]:
        if (key in NOT_PRESSED and key != "tab") or app.screen is not screen:
            continue
        await pilot.press(key)
        await pilot.pause()
        if len(app.screen_stack) > depth and type(app.screen).__name__ not in seen:
            await walk(pilot, seen)
        while len(app.screen_stack) > depth:
            app.pop_screen()
            await pilot.pause()


def leaves(classes: set[type[Any]]) -> set[str]:
    """The classes no other of them extends: a base (the pickers') is opened as one of them."""
    return {
        kind.__name__
        for kind in classes
        if not any(other is not kind and issubclass(other, kind) for other in classes)
    }


@pytest.mark.slow
async def test_every_screen_opens_help_with_a_question_mark_and_it_names_every_key(
    tmp_path: Path,
) -> None:
    factory = session_factory(migrated_engine(tmp_path / "c.db"))
    filled = full_sample_campaign(factory)
    # Screens the sample opens only in a state of its own, pushed as that state would.
    apart = {
        "MineCheckScreen": lambda: MineCheckScreen(filled.campaign_id, filled.check_id),
        "LibraryChangesScreen": lambda: LibraryChangesScreen("Library changes", [
            Drift("ship", filled.ship_id, "Ajax", "Leander class", ("Structure max 14 -> 20",))]),
    }  # fmt: skip
    app = TrackerApp(factory, open_campaign_id=filled.campaign_id)
    seen: dict[str, set[str]] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        while len(app.screen_stack) > 2:  # the walk starts on the first screen
            app.pop_screen()
            await pilot.pause()
        await walk(pilot, seen)
        for name, opened in apart.items():
            assert name not in seen  # else it is walked to: no longer kept apart
            app.push_screen(opened())
            await pilot.pause()
            await walk(pilot, seen)
            app.pop_screen()
    assert {name: missing for name, missing in seen.items() if missing} == {}
    # Help does not open over itself: its own keys are its footer line.
    assert leaves(every_screen_class()) - set(seen) == {"HelpScreen"}
