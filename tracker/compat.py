"""Every private part of Textual, textual-serve and pydantic that tracker still reaches, in one
place.

Each piece says why no public API does its job. `tests/test_compat.py` holds a canary for each:
it fails when an upgrade renames, removes or reshapes what is reached here, so an upgrade breaks
one test that names the piece, not a screen at the table. Textual and textual-serve are pinned
exactly (pyproject.toml) for the same reason.

Nothing from those libraries is imported at the top: the models use this module too, and must
not load Textual, and textual-serve is an extra (`serve`). The overrides are class decorators, or
base classes made when first asked for: the private name is written here only, and the class
itself keeps to public hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def _set(cls: type, name: str, value: Any) -> None:
    setattr(cls, name, value)


# -- Textual: the app -----------------------------------------------------------------------------


def reports_crashes(cls: T) -> T:
    """An App class whose unhandled exception goes to its `crashed(error)` first; Textual then
    ends the app with status 1 as it does (App._handle_exception), without printing its own
    traceback to the terminal (App._exit_renderables): the command line prints one line and the
    log's path. No public hook sees the exception itself."""

    owner: Any = cls

    def _handle_exception(self: Any, error: Exception) -> None:
        self.crashed(error)
        super(owner, self)._handle_exception(error)
        self._exit_renderables.clear()

    _set(cls, "_handle_exception", _handle_exception)
    return cls


def crash(app: Any, error: Exception) -> None:
    """End the app as a crash, from an error caught elsewhere (a worker's outcome): the same
    path as an unhandled exception, so the app's `crashed` sees it."""
    app._handle_exception(error)


def hides_under_opaque_screens(cls: T) -> T:
    """An App class that paints no screen under an opaque top screen.

    Textual counts the screen under the top one as showing through it whatever the top one's
    background (App._background_screens), so every change to that screen repainted the top one
    too, and each screen pushed was painted twice (9 ms and a frame more on every `d`). An
    opaque screen hides everything under it; a dialog's translucent one shows the one beneath."""
    inherited: property = getattr(cls, "_background_screens")  # noqa: B009

    def _background_screens(self: Any) -> list[Any]:
        stack = self.screen_stack
        if stack and stack[-1].styles.background.a == 1:
            return []
        screens: list[Any] = inherited.__get__(self)
        return screens

    _set(cls, "_background_screens", property(_background_screens))
    return cls


def screen_stacks(app: Any) -> Iterable[list[Any]]:
    """Every mode's stack of screens (App.screen_stack is the current mode's only)."""
    stacks: dict[str, list[Any]] = app._screen_stacks
    return stacks.values()


def closing(screen: Any) -> bool:
    """Whether the screen is being closed or was closed: it is then still attached for a
    moment, and still in its stack, while its widgets go (Screen._closing, _closed, _pruning)."""
    return bool(screen._closing or screen._closed or screen._pruning)


def has_subscribers(signal: Any) -> bool:
    """Whether anything hears the signal yet (Signal._subscriptions): the footer composes its
    keys at the first telling it hears, so one said to no one must be said again."""
    return bool(signal._subscriptions)


# -- Textual: a screen kept between showings ------------------------------------------------------


def keeps_styles_on_resume(cls: T) -> T:
    """A Screen class that keeps its widgets' styles when it is shown again and nothing they
    follow (the theme, the app's CSS: App._css_update_count) changed since it was left.

    Textual restyles every widget of a screen it pushes (about 30 ms on damage entry), though
    not one it comes back to; a screen kept and pushed again is both. The handler runs before
    Textual's own (Screen._on_screen_resume, a subclass's first), which reads the event."""

    def _on_screen_resume(self: Any, event: Any) -> None:
        css = getattr(self.app, "_css_update_count", None)
        if css is not None and css == getattr(self, "_styled_for", None):
            event.refresh_styles = False
        self._styled_for = css

    _set(cls, "_on_screen_resume", _on_screen_resume)
    return cls


# -- Textual: the footer --------------------------------------------------------------------------


def keys_compact_when_made(cls: T) -> T:
    """A Footer class whose keys, in a compact footer, are made with the "-compact" class that
    Textual gives each only once it is mounted (FooterKey._watch_compact, the key's `compact`
    bound to the footer's): every key of every footer drawn, and a footer is drawn again at
    each change of its keys, was restyled a second time (about a tenth of the app's start).
    With the class there from the start, the watcher finds nothing to change."""
    owner: Any = cls

    def compose(self: Any) -> Any:
        from textual.widgets._footer import FooterKey

        for widget in super(owner, self).compose():
            if self.compact and isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)
            yield widget

    _set(cls, "compose", compose)
    return cls


# -- Textual: DataTable ---------------------------------------------------------------------------


def redraws_after_measuring(after: Callable[[Any], None]) -> Callable[[T], T]:
    """A DataTable class that calls `after(table)` each time Textual has measured the rows
    added since its last idle (DataTable._update_dimensions), then drops the lines it drew
    before (DataTable._clear_caches) and repaints: a repaint that came first drew those rows at
    the columns' old widths ("conce" for "concealed") and kept them until the next one."""

    def decorate(cls: T) -> T:
        owner: Any = cls

        def _update_dimensions(self: Any, new_rows: Iterable[Any]) -> None:
            super(owner, self)._update_dimensions(new_rows)
            after(self)
            self._clear_caches()
            self.refresh()

        _set(cls, "_update_dimensions", _update_dimensions)
        return cls

    return decorate


def measure_at_idle(table: Any) -> None:
    """Have the table measure its rows at its next idle (DataTable._require_update_dimensions),
    as it does after add_rows: rows it was told of another way widen their columns too."""
    table._require_update_dimensions = True


def drop_drawn_lines(table: Any) -> None:
    """Forget the lines the table drew (DataTable._clear_caches), so it draws them again: its
    column labels or widths were changed in place, which Textual does not watch."""
    table._clear_caches()


def column_region(table: Any, column: int) -> Any:
    """The region of the table's column `column` (DataTable._get_column_region), to scroll it
    into sight: the public scroll_to_column scrolls the cursor's column only."""
    return table._get_column_region(column)


# -- pydantic -------------------------------------------------------------------------------------


def construct_unchecked(model: Any, values: dict[str, Any], given: Iterable[str]) -> Any:
    """An instance of a pydantic model from values already checked, as model_construct builds
    it (its __dict__, fields set, extra and private), at a third of its cost: a record sheet or
    a roster reads thousands of rows, and model_construct's pass over every field and alias
    cost three times as much (measured: 129 against 45 microseconds a ship)."""
    built = model.__new__(model)
    object.__setattr__(built, "__dict__", values)
    object.__setattr__(built, "__pydantic_fields_set__", set(given))
    object.__setattr__(built, "__pydantic_extra__", None)
    object.__setattr__(built, "__pydantic_private__", None)
    return built


# -- textual-serve ---------------------------------------------------------------------------------


@cache
def serve_bases() -> tuple[Any, Any]:
    """textual-serve's AppService and Server, with public names for the hooks tracker's own
    serve needs (textual-serve has none for them):

    - `AppService.open_process(width, height)` starts the browser's app: textual-serve's
      `_open_app_process` runs it through `sh -c`, which stands between the server and the app
      (it must die with the server); `environment(width, height)` is textual-serve's
      environment for it, and `started(process)` hands the process back to the service.
    - `Server.make_app()` builds the aiohttp application (routes, middlewares): `_make_app`;
      `Server.relay(websocket, service)` passes the browser's messages to the app and back:
      `_process_messages`.
    """
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class PublicAppService(AppService):
        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            return await self.open_process(width, height)

        async def open_process(self, width: int, height: int) -> Any:
            raise NotImplementedError

        def environment(self, width: int, height: int) -> dict[str, str]:
            found: dict[str, str] = self._build_environment(width=width, height=height)
            return found

        def started(self, process: Any) -> Any:
            self._process = process
            self._stdin = process.stdin
            return process

    class PublicServer(Server):
        async def _make_app(self) -> Any:
            return await self.make_app()

        async def make_app(self) -> Any:
            return await super()._make_app()

        async def relay(self, websocket: Any, service: Any) -> None:
            await self._process_messages(websocket, service)

    return PublicAppService, PublicServer
