"""Each app a test starts parses the same style sheets (Textual's widgets' and the tracker's):
about an eighth of a start's CPU. Here a worker parses each once, for each set of theme
variables, and every later app reuses the rules, as one app reuses them when its styles are
parsed again (Textual's own cache, `Stylesheet._parse_cache`, keyed the same way but per app)."""

from __future__ import annotations

from typing import Any

from textual.css.stylesheet import Stylesheet

_PARSE = Stylesheet._parse_rules
_parsed: dict[tuple[Any, ...], Any] = {}


def _parse_rules(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> Any:
    key = (css, read_from, is_default_rules, tie_breaker, scope,
           tuple(sorted(self._variables.items())))  # fmt: skip
    try:
        return _parsed[key]
    except KeyError:
        pass
    rules = _PARSE(self, css, read_from, is_default_rules, tie_breaker, scope)
    _parsed[key] = rules
    return rules


def install() -> None:
    """Parse each style sheet once per worker (in tests/conftest.py, for every test)."""
    Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]
