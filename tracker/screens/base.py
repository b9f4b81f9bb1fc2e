"""What every tracker screen shares: the session factory and the dice of the running app."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import actions
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header

from tracker import compat
from tracker.rules.dice import Dice
from tracker.screens import calls
from tracker.screens.calls import Call
from tracker.services.errors import NotFound
from tracker.widgets.search_table import K, SearchTable
from tracker.widgets.tables import under_cursor

if TYPE_CHECKING:
    from tracker.screens.form import FieldSpec
    from tracker.services.common import SessionFactory
    from tracker.services.history import HistoryResult

T = TypeVar("T")

READ_ONLY_MESSAGE = "Read-only umpire view: nothing can be changed here."
# What the footer shows of a key's binding, besides whether it is enabled and its tooltip.
FOOTER_SHOWS = attrgetter("action", "description", "group")


def _noting_reload(reload: Callable[[Any], None]) -> Callable[[Any], None]:
    """The screen's reload, then `up_to_date`."""

    @functools.wraps(reload)
    def run(self: TrackerScreen) -> None:
        reload(self)
        self.up_to_date()

    return run


def footer_width(app: Any, items: Iterable[ActiveBinding]) -> int:
    """The cells the footer takes for these keys: one per action ("x,delete" shows x), each
    with its word, a group's keys side by side before the group's one word."""
    first = {item.binding.action: item.binding for item in reversed(list(items))}
    words = {binding.group or binding.description for binding in first.values()}
    return sum(len(app.get_key_display(binding)) for binding in first.values()) + sum(
        len(word.description if isinstance(word, Binding.Group) else word) + 2 for word in words
    )


@compat.keys_compact_when_made
class KeysFooter(Footer):
    """Textual's footer, each key compact from the moment it is made (compat)."""


class TrackerScreen(Screen[Any]):
    """A screen that reads and writes through services, with the app's factory and dice."""

    # Keys a widget of the screen handles (enter on a table row): listed in help too.
    HELP_EXTRA: ClassVar[list[tuple[str, str]]] = []
    # The screen's actions the umpire's read-only view (--umpire) keeps: each neither writes to
    # the database nor shows a secret. Every other action a tracker screen defines is disabled
    # there (gone from the footer, the palette and help; its key does nothing), so a key added
    # later stays out of the umpire's view until it is listed here.
    READ_ONLY_ACTIONS: ClassVar[frozenset[str]] = frozenset({"back"})
    # The footer is one line: the actions it leaves out first when the window is too narrow for
    # every key (help and the palette still list them), then the screen's last keys in turn.
    FOOTER_DROPS: ClassVar[tuple[str, ...]] = ()
    # Before any is left out, keys shown together under one word: (word, actions), in turn.
    FOOTER_GROUPS: ClassVar[tuple[tuple[str, frozenset[str]], ...]] = ()
    FOOTER_KEEPS: ClassVar[frozenset[str]] = frozenset({"back", "quit", "help"})
    # The action enter on a table's row runs (a DataTable takes enter itself: the screen's own
    # enter binding never sees it); none, enter says which keys act there.
    ENTER_ACTION: ClassVar[str] = ""
    FOOTER_PALETTE = 12  # the palette's key, docked right: "▏^p palette" and its padding
    _keys_told: tuple[object, ...] | None = None  # what the footer was last told it shows

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "reload" in vars(cls):
            cls.reload = _noting_reload(vars(cls)["reload"])  # type: ignore[method-assign,assignment]

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The screen's keys as the footer shows them: when they do not all fit, each group of
        FOOTER_GROUPS in turn shows its keys together under one word (every key still listed),
        then the keys left out are marked not shown, so that the footer ends with a whole key
        at any width."""
        active = super().active_bindings
        shown = {key: item for key, item in active.items() if item.binding.show}
        room = self.size.width - self.FOOTER_PALETTE
        for word, grouped in self.FOOTER_GROUPS:
            if footer_width(self.app, shown.values()) <= room:
                break
            group = Binding.Group(word, compact=True)
            shown = {
                key: item._replace(binding=replace(item.binding, group=group, show=True))
                if item.binding.action in grouped else shown[key]
                for key, item in active.items() if key in shown or item.binding.action in grouped
            }  # fmt: skip
        last_first = [item.binding.action for item in reversed(shown.values())]
        for action in (*self.FOOTER_DROPS, *last_first):
            if footer_width(self.app, shown.values()) <= room:
                break
            if action not in self.FOOTER_KEEPS:
                shown = {k: item for k, item in shown.items() if item.binding.action != action}
        return {
            key: shown.get(key, item._replace(binding=replace(item.binding, show=False)))
            for key, item in active.items()
        }

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row runs ENTER_ACTION, refused in the umpire's view when it writes, or
        says which keys act there (Textual runs every class's handler: a screen with its own
        is left to it)."""
        for cls in type(self).__mro__:
            if cls is TrackerScreen:
                if not self.ENTER_ACTION:
                    self.say_keys()
                elif self.allows(self.ENTER_ACTION) or not self.refuse_if_read_only():
                    getattr(self, f"action_{self.ENTER_ACTION}")()
            elif "on_data_table_row_selected" in vars(cls):
                return

    def say_keys(self) -> None:
        keys: dict[str, str] = {}
        for item in super().active_bindings.values():
            binding = item.binding
            if item.node is self and item.enabled and binding.show and binding.action != "back":
                keys[binding.action] = f"{self.app.get_key_display(binding)} {binding.description}"
        listed = f"Keys: {', '.join(keys.values())}; " if keys else ""
        self.notify(f"Enter opens nothing here. {listed}? lists them all.", title="Keys",
                    markup=False)  # fmt: skip

    def compose(self) -> ComposeResult:
        yield Header()
        yield from self.body()
        yield KeysFooter(compact=True)

    def body(self) -> ComposeResult:
        yield from ()

    def on_resize(self) -> None:
        self.refresh_bindings()

    def refresh_bindings(self) -> None:
        """Tell the footer the keys changed, only when what it shows did: Textual asks at
        every focus change, resize and change of the screen stack, and the footer then builds
        every key's widget again (opening damage entry built its footer four times)."""
        shown = self._keys_shown()
        if shown == self._keys_told:
            return
        super().refresh_bindings()
        # Remembered only when the footer hears it: it composes its keys at the first telling
        # it hears on the screen on top, so one said before (to no one, or to a screen not yet
        # on top) must be said again.
        heard = compat.has_subscribers(self.bindings_updated_signal)
        self._keys_told = shown if heard and self.is_current else None

    def _keys_shown(self) -> tuple[object, ...]:
        """What the footer shows of the keys (the palette's key whether shown or not, as the
        footer does), and whether it shows them at all: it does not redraw without the focus."""
        palette = self.app.COMMAND_PALETTE_BINDING
        keys = tuple(
            (key, item.enabled, item.tooltip, *FOOTER_SHOWS(item.binding))
            for key, item in self.active_bindings.items()
            if item.binding.show or key == palette
        )
        return (self.app.app_focus, keys)

    def call(self, call: Call[T], **options: Any) -> None:
        calls.run(self, call, **options)

    def missing(self, said: str) -> None:
        calls.missing(self, said)

    def row_of(
        self, table: DataTable[Any], items: Sequence[K], none: str, what: str = ""
    ) -> K | None:
        """The one of `items` under the table's cursor; else why not, said: `none` when there is
        none yet, or a search table's filter hiding every `what`."""
        if not items:
            self.missing(none)
            return None
        if not isinstance(table, SearchTable):
            return under_cursor(table, items)
        if (item := table.selected(items)) is None:
            hidden = f"No {what} shown: the filter hides them all (/ then escape clears it)."
            self.notify(hidden, severity="warning")
        return item

    def load(self, call: Call[T], then: Callable[[T], object]) -> None:
        """Read what the screen shows through the path; a row another player removed meanwhile
        takes the player back."""
        self.call(call, then=then, refused=self._gone)

    def open_form(
        self,
        title: str,
        fields: list[FieldSpec],
        submit: Callable[[dict[str, Any]], Any],
        *,
        done: Callable[[Any], None] | None = None,
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        **options: Any,
    ) -> None:
        """A form over the screen (screens.form); once saved, `done(result)`, else what it
        returns is said, a line or each line of a list, and the screen reads its data again."""
        from tracker.screens.form import FormScreen  # the welcome screen paints before forms

        def saved(result: object) -> None:
            if result is not None:
                self.tell(result, severity=severity, timeout=timeout)

        self.app.push_screen(FormScreen(title, fields, submit, **options), done or saved)

    def calling(
        self, service: Callable[..., T], /, **fixed: Any
    ) -> Callable[[dict[str, Any]], Call[T]]:
        """A form's submit: `service` called with the app's sessions, `fixed` and the values."""
        return lambda values: Call(service, self.factory, **fixed, **values)

    def editing(
        self, service: Callable[..., T], row: Any, id_as: str = "", /, **fixed: Any
    ) -> Callable[[dict[str, Any]], Call[T]]:
        """A form's submit for one row (None: a new one): `service` called with the version the
        form was opened with, so that a row another player changed meanwhile is refused, not
        overwritten, and with the row's id as `id_as` when the service names the row by it."""
        # A row without a version would switch the check off: read it, never default it.
        version = None if row is None else row.version
        ids = {id_as: None if row is None else row.id} if id_as else {}
        return self.calling(service, **fixed, **ids, version=version)

    def confirm_call(
        self,
        question: str,
        call: Call[Any],
        *,
        said: str | Callable[[Any], str | None] = "",
        refused: Callable[[Exception], None] | None = None,
        check_first: bool = False,
        **yes: str,
    ) -> None:
        """Ask `question` (screens.confirm); on yes make the call, say `said` (or its words for
        the result), and read the screen's data again. `check_first`: the call is made first
        with check_only (done, then rolled back), so a refusal is said before anything is asked."""
        from tracker.screens.confirm import confirm

        def done(result: Any) -> None:
            self.tell(said(result) if callable(said) else said)

        def ask(_checked: object = None) -> None:
            confirm(self, question, lambda: self.call(call, then=done, refused=refused), **yes)

        if check_first:
            check = Call(call.service, *call.args, **call.kwargs, check_only=True)
            self.call(check, then=ask, refused=refused)
        else:
            ask()

    def tell(self, said: object, **options: Any) -> None:
        """Say what an act did (a line, or each line of a list; nothing else), and read the
        screen's data again."""
        for line in [said] if isinstance(said, str) else said if isinstance(said, list) else []:
            if line:
                self.notify(str(line), **options)
        self.reload()

    def _gone(self, error: Exception) -> None:
        if isinstance(error, NotFound):
            if self.is_current:  # the screen's other reads after this one find it gone too
                self.notify(f"{error}: going back", severity="error")
                self.dismiss()
        else:
            self.notify(calls.message(error), severity="error")

    @property
    def factory(self) -> SessionFactory:
        factory: SessionFactory = getattr(self.app, "factory")  # noqa: B009 (app type lives above)
        return factory

    @property
    def rng(self) -> random.Random:
        rng: random.Random = getattr(self.app, "rng")  # noqa: B009
        return rng

    @property
    def dice(self) -> Dice:
        dice: Dice = getattr(self.app, "dice")  # noqa: B009
        return dice

    @property
    def read_only(self) -> bool:
        """Whether the app is the umpire's read-only view: nothing written, no secret shown."""
        return bool(getattr(self.app, "read_only", False))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        writes = action not in self.READ_ONLY_ACTIONS and self._own_action(action)
        return not (self.read_only and writes)

    @classmethod
    def _own_action(cls, action: str) -> bool:
        """Whether a tracker screen defines the action (Textual's own, such as copying the
        selected text, are left alone)."""
        name = f"action_{action}"
        return any(name in vars(klass) for klass in cls.__mro__ if issubclass(klass, TrackerScreen))

    def allows(self, action: str) -> bool:
        """Whether a binding's action (`fire(1)`, `app.focus_next`) is available here now."""
        namespace, name, parameters = actions.parse(action)
        return bool(namespace) or bool(self.check_action(name, parameters))

    def help_extra(self) -> list[tuple[str, str]]:
        return list(self.HELP_EXTRA)

    def refuse_if_read_only(self) -> bool:
        """In the umpire's read-only view say that nothing can be changed, and return True;
        for what a widget does on its own (enter on a row), which no binding disables."""
        if self.read_only:
            self.notify(READ_ONLY_MESSAGE, severity="warning")
            return True
        return False

    def hint(self, text: str) -> str:
        """A hint at a key that changes something: shown, except in the umpire's view."""
        return "" if self.read_only else text

    def current_campaign_id(self) -> int | None:
        """The campaign the screen shows: undo and redo (ctrl+z, ctrl+y) act on it."""
        campaign_id = getattr(self, "campaign_id", None)
        return campaign_id if isinstance(campaign_id, int) else None

    def action_back(self) -> None:
        self.dismiss()

    def action_journal(self) -> None:
        if (campaign_id := self.current_campaign_id()) is not None:
            from tracker.screens.journal import JournalScreen

            self.app.push_screen(JournalScreen(campaign_id))

    def on_screen_resume(self) -> None:
        try:
            self.reload()
        except NotFound as exc:
            self._gone(exc)

    def history_changed(self, result: HistoryResult) -> None:
        """An undo or redo (ctrl+z, ctrl+y) changed the campaign: read it again. A screen that
        shows a change it made says here what became of it."""
        self.reload()

    def reload(self) -> None:
        """Read the screen's data again and redraw it."""

    def up_to_date(self) -> None:
        """Tell the app's change watch the screen shows what the database holds, so the
        player's own changes do not make it read everything a second time."""
        watch = getattr(self.app, "change_watch", None)
        if watch is not None:
            watch.screen_reloaded()
