"""TrackerApp: the screens, the global keys, the command palette and the theme."""

from __future__ import annotations

import gc
import os
import random
import sys
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, NamedTuple

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.content import Content
from textual.screen import Screen
from textual.theme import Theme

from tracker import compat, crash_log, paths, settings
from tracker.errors import CannotOpen, ChangedElsewhere, DatabaseUnavailable
from tracker.redaction import scrub
from tracker.rules.dice import Dice
from tracker.screens import calls
from tracker.screens.base import READ_ONLY_MESSAGE, TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.welcome import FirstLook, WelcomeScreen, remember_campaign
from tracker.watch import WATCH_SECONDS, ChangeWatch
from tracker.widgets.tones import tone_theme

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from tracker.services.common import SessionFactory

# The settings' theme names for Textual's own dark and light themes.
THEMES = {"dark": "textual-dark", "light": "textual-light"}
# Shown in the header of every screen of the umpire's view (--umpire).
UMPIRE_LABEL = "umpire view · read-only"
# The app's actions that write, unavailable in the umpire's view.
WRITING_ACTIONS = frozenset({"undo", "redo"})
# Allocations between two collections of the collector's youngest generation (CPython's default
# is 700): one repaint of a screen makes tens of thousands of short-lived strips and segments.
COLLECT_AFTER = 10_000


def quiet_collector() -> None:
    """What the start built (modules, classes, styles, the database's tables) lives as long as
    the app: frozen out of the garbage collector's sight, so that its full collections do not
    walk it all again in play (pauses of 0.1 to 0.5 s at a keystroke were measured), and the
    youngest generation collected every COLLECT_AFTER allocations instead of every 700."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(COLLECT_AFTER, middle, oldest)


# How often the app looks whether its terminal is still open (one system call).
TERMINAL_CHECK_SECONDS = 1.0


def _terminal() -> int | None:
    """The terminal the app reads its keys from (Textual's driver reads stdin), while open."""
    stdin = sys.__stdin__
    try:
        fileno = stdin.fileno() if stdin is not None else -1
    except (OSError, ValueError):  # closed, or not a file
        return None
    return fileno if fileno >= 0 and os.isatty(fileno) else None


def style_files() -> list[str | PurePath]:
    """styles/app.tcss (the globals), then each screen's own file: every .tcss there, so a new
    screen's styles need no list kept by hand."""
    folder = paths.styles_dir()
    return [folder / "app.tcss", *sorted(set(folder.glob("*.tcss")) - {folder / "app.tcss"})]


# The first screen's own style file: with the globals, all the first paint needs.
FIRST_SCREEN_STYLES = "welcome.tcss"


def screen_keys(screen: Screen[Any]) -> list[tuple[str, str, str]]:
    """(key, description, action) of each binding the screen itself declares and allows now
    (the umpire's read-only view leaves out those that write or show a secret)."""
    keys = []
    for binding in screen.BINDINGS:
        if not isinstance(binding, Binding) or not binding.description:
            continue
        if not isinstance(screen, TrackerScreen) or screen.allows(binding.action):
            name = binding.tooltip or binding.description
            shown = binding.key_display or binding.key  # "/" for slash
            keys.append((shown.replace(",", " / "), name, binding.action))
    return keys


class Opened(NamedTuple):
    """What opening the database gave: the sessions, the campaign to show first (the sample
    just made, say), and a line for the player (the file was upgraded)."""

    factory: SessionFactory
    open_campaign_id: int | None = None
    note: str | None = None


@compat.reports_crashes
@compat.hides_under_opaque_screens
class TrackerApp(App[None]):
    """Campaign list first; everything else is pushed from there."""

    TITLE = "tracker"
    # Read before the first paint (Textual parsed all 25 files in about 20 ms, these two in
    # 2.5); every file of styles/ is read right after it (read_every_style).
    CSS_PATH = [paths.styles_dir() / name for name in ("app.tcss", FIRST_SCREEN_STYLES)]
    STYLE_FILES = [PurePath(path) for path in style_files()]
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("ctrl+z", "undo", "Undo", show=False),
        Binding("ctrl+y", "redo", "Redo", show=False),
    ]
    # Each screen gets -narrow below 100 columns and -short below 30 rows, so styles/ can fit
    # the layouts to an 80x24 terminal.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]

    def __init__(
        self,
        factory: SessionFactory | None,
        *,
        rng: random.Random | None = None,
        open_campaign_id: int | None = None,
        read_only: bool = False,
        watch_seconds: float = WATCH_SECONDS,
        opener: Callable[[], Opened] | None = None,
        first_look: FirstLook | None = None,
        quiet_gc: bool = False,
    ) -> None:
        super().__init__()
        # The command line's app calls quiet_collector once the database is open; tests,
        # which run many apps in one process, leave the collector as it is.
        self.quiet_gc = quiet_gc
        # None until `opener` has opened the database, in a thread, while the first screen
        # paints: the database libraries load behind it (the command line passes an opener).
        self.factory: SessionFactory = factory  # type: ignore[assignment]
        self.opener = opener
        # The campaign list the command line read from the file, shown while it opens.
        self.first_look = first_look
        # Why the database could not be opened; the command line says it on stderr, exit 2.
        self.failure: str | None = None
        # The umpire's view (--umpire): the database refuses writes, and no secret is shown.
        self.read_only = read_only
        # How often other players' changes are looked for (tests shorten it).
        self.watch_seconds = watch_seconds
        # Dice come from this one Random so a test can seed them; players may always type rolls.
        self.rng = rng or random.Random()
        self.dice = Dice(self.rng)
        self.open_campaign_id = open_campaign_id
        # (campaign, journal entry) ctrl+z named when it could not undo the newest changes.
        self._undo_past_to: tuple[int, int] | None = None
        # The first unexpected error, and the log it was written to (crash_log): the command
        # line says where, and exits with status 1.
        self.crash: BaseException | None = None
        self.crash_path: Path | None = None

    def crashed(self, error: BaseException) -> None:
        """A crash: its traceback goes to a log file, and the terminal gets only the line the
        command line prints (crash_log says why; compat.reports_crashes calls this)."""
        if self.crash is None:
            self.crash = error
            self.crash_path = crash_log.write(error)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast is plain text, whatever the caller asked: toasts name ships, sides and
        files, and a name such as `Crash[/]` read as markup ended the app. Scrubbed of the
        database's secrets: a driver's message can quote its address."""
        super().notify(
            scrub(message), title=scrub(title), severity=severity, timeout=timeout, markup=False
        )

    def action_help_quit(self) -> None:
        """ctrl+c says how to quit, in plain words (Textual's own message is markup)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return

    def on_mount(self) -> None:
        loaded = settings.read()
        if self.read_only:
            self.sub_title = UMPIRE_LABEL
        self._apply_theme(loaded.settings.theme)
        self.theme_changed_signal.subscribe(self, self._save_theme)
        for warning in loaded.warnings:
            self.notify(warning, title="Settings", severity="warning", timeout=10)
        self.push_screen(WelcomeScreen(self.first_look))
        self.call_after_refresh(self.read_every_style)
        if _terminal() is not None and not (self.is_headless or self.is_web):
            self.set_interval(TERMINAL_CHECK_SECONDS, self._check_terminal)
        if self.factory is None and self.opener is not None:
            # After the first paint: the thread's imports would otherwise hold the GIL while
            # the first screen is being drawn.
            self.call_after_refresh(
                self.run_worker, self._open_database, thread=True, name="open-database"
            )
        else:
            self._database_ready()

    def read_every_style(self) -> None:
        """Read every screen's style file, after the first paint, and restyle every screen by
        them (a screen pushed before, by a key typed during the start, gets its styles here).

        Each screen's rules start with that screen's type (tests/test_styles.py), so the order
        the files are read in changes nothing. The stylesheet is added to, not copied: a copy
        starts without the parsed rules and parses every widget's default styles again.
        Each node is restyled once: the app's own tree holds the screen on top, restyled with
        the rest of the stack (a third of the start's restyling went to it twice).
        """
        self.stylesheet.read_all(self.STYLE_FILES)
        self.stylesheet.parse()  # only the files new to it: the rest come from its cache
        self.stylesheet.update_nodes([self])
        for screen in self.screen_stack:
            self.stylesheet.update(screen)

    def _check_terminal(self) -> None:
        """The terminal the app runs in closed: quit, as q does. Its session leader gets the
        SIGHUP, which is not the app under `make run` or a script that waits for it; Textual's
        input thread then read the closed terminal, nothing, at full CPU, forever."""
        if _terminal() is None:
            self.exit()

    def _open_database(self) -> None:
        """In a thread, while the first screen is up."""
        assert self.opener is not None
        try:
            opened = self.opener()
        except CannotOpen as exc:
            self.call_from_thread(self._cannot_open, str(exc))
        except DatabaseUnavailable as exc:
            self.call_from_thread(self._cannot_open, "; ".join(exc.errors.values()))
        else:
            self.call_from_thread(self._opened, opened)

    def _cannot_open(self, message: str) -> None:
        self.failure = message
        self.exit(return_code=2)

    def _opened(self, opened: Opened) -> None:
        self.factory = opened.factory
        if opened.open_campaign_id is not None:
            self.open_campaign_id = opened.open_campaign_id
        if opened.note:
            self.notify(opened.note, title="Campaign file", timeout=10)
        self._database_ready()

    def _database_ready(self) -> None:
        self.change_watch = ChangeWatch(self, self.factory, self.watch_seconds)
        if self.quiet_gc:
            quiet_collector()
        # A welcome screen not mounted yet fills itself when it mounts (the factory is set).
        welcome = self.screen
        if isinstance(welcome, WelcomeScreen) and welcome.is_mounted:
            if self.open_campaign_id is not None:
                # The campaign the command line asked for (the sample just made) is opened,
                # not one the player chose on the first look meanwhile: one campaign screen.
                welcome.open_when_ready = None
            welcome.database_ready()
        if self.open_campaign_id is not None:
            # The umpire's view leaves the player's settings as they were, too.
            problem = (
                None if self.read_only else remember_campaign(self.factory, self.open_campaign_id)
            )
            if problem:
                self.notify(problem, severity="warning")
            from tracker.screens.campaign import CampaignScreen

            self.push_screen(CampaignScreen(self.open_campaign_id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.read_only and action in WRITING_ACTIONS)

    def format_title(self, title: str, sub_title: str) -> Content:
        """Every screen's header says when the app is the umpire's read-only view."""
        content = super().format_title(title, sub_title)
        if not self.read_only or sub_title == UMPIRE_LABEL:
            return content
        return Content.assemble(content, (" · ", "dim"), (UMPIRE_LABEL, "bold"))

    def _apply_theme(self, name: str) -> None:
        theme = THEMES.get(name, name)
        if theme in self.available_themes:
            self.theme = theme
        else:
            self.notify(f"Unknown theme {name!r} in your settings: using dark.", severity="warning")

    def get_css_variables(self) -> dict[str, str]:
        """The theme's CSS variables; and, from them, the colour of each meaning a screen
        colours by (widgets.tones), given to the console that draws every cell."""
        variables = super().get_css_variables()
        if getattr(self, "_tones_pushed", False):
            self.console.pop_theme()
        self.console.push_theme(tone_theme(variables))
        self._tones_pushed = True
        return variables

    def _save_theme(self, theme: Theme) -> None:
        # The palette's Theme command sets app.theme; the choice is kept for the next start.
        name = next((key for key, value in THEMES.items() if value == theme.name), theme.name)
        if name != settings.load().theme:
            warning = settings.remember(theme=name)
            if warning:
                self.notify(warning, severity="warning")

    async def on_event(self, event: events.Event) -> None:
        # ? and f1 open help before the screen's widgets see them: a text field would type ?,
        # and a dialog never hands a key on to the app. ? stays typed in a field that means
        # something by it (TAKES_QUESTION_MARK: the damage line's crit ?; f1 is help there),
        # closes help itself, and is left to the search of the command palette.
        if isinstance(event, events.Key) and event.key in ("question_mark", "f1"):
            from tracker.screens.help import HelpScreen

            kept = event.key == "question_mark" and (
                isinstance(self.screen, HelpScreen)
                or getattr(self.focused, "TAKES_QUESTION_MARK", False)
            )
            if not (kept or event.is_forwarded or isinstance(self.screen, CommandPalette)):
                self.action_help()
                return
        await super().on_event(event)

    def action_help(self) -> None:
        from tracker.screens.help import HelpScreen, help_rows

        if isinstance(self.screen, HelpScreen):
            return
        own = [(keys, description) for keys, description, _ in screen_keys(self.screen)]
        if isinstance(self.screen, TrackerScreen):
            own.extend(self.screen.help_extra())
        name = self.screen.sub_title or self.screen.title or ""
        rows = help_rows(self.screen, own)
        self.push_screen(HelpScreen(name, rows, read_only=self.read_only))

    def _history(self, undo: bool) -> None:
        if self.read_only:
            self.notify(READ_ONLY_MESSAGE, severity="warning")
            return
        screen = self.screen
        campaign_id = screen.current_campaign_id() if isinstance(screen, TrackerScreen) else None
        if not isinstance(screen, TrackerScreen) or campaign_id is None:
            self.notify("Open a campaign first: undo and redo work within one.", severity="warning")
            return
        from tracker.services import history

        # ctrl+z names what it would undo past; pressed again, it undoes what it named.
        past_to, self._undo_past_to = self._undo_past_to, None
        if undo:
            call: Call[Any] = Call(
                history.undo_last,
                self.factory,
                campaign_id=campaign_id,
                past_to=past_to[1] if past_to and past_to[0] == campaign_id else None,
            )
        else:
            call = Call(history.redo_last, self.factory, campaign_id=campaign_id)

        def done(result: Any) -> None:
            self.notify(result.summary, title="Undone" if undo else "Redone")
            screen.history_changed(result)

        def refused(error: Exception) -> None:
            if isinstance(error, history.UndoSkipAsked):
                self._undo_past_to = (campaign_id, error.next_id)
                self.notify("\n".join(error.errors.values()), severity="warning", timeout=10)
            else:  # nothing to undo, or a row another player changed at the same moment
                changed = isinstance(error, ChangedElsewhere)
                self.notify(calls.message(error), severity="error" if changed else "warning")

        screen.call(call, then=done, refused=refused)

    def action_undo(self) -> None:
        self._history(undo=True)

    def action_redo(self) -> None:
        self._history(undo=False)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key, description, action in screen_keys(screen):
            yield SystemCommand(description, f"Key: {key}", partial(screen.run_action, action))
        yield SystemCommand("Help", "Key: ? : the keys of this screen", self.action_help)
        if self.read_only:
            return
        yield SystemCommand("Undo", "Key: ctrl+z : undo the newest change", self.action_undo)
        yield SystemCommand("Redo", "Key: ctrl+y : redo the newest undo", self.action_redo)
