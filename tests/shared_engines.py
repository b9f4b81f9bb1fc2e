"""The suite's engines share their dialect and compiled-statement cache, as one app's do.

The app makes one engine per process, so it compiles each SQL statement once and reuses it from
the engine's cache for the rest of the session. A test makes an engine of its own, on a file or
database of its own, and so compiled every statement again: in a profile of the service tests,
SQLAlchemy's compiler took about two fifths of their CPU. Here the engines made through
`tracker.db.engine` on the same backend, driver and options share the first one's dialect and
cache (SQLAlchemy keys its cache on the dialect object), so a statement is compiled once per
test worker. Connections, pools and files stay each test's own.

A dialect is set up by its engine's first connection (server version, isolation levels); it is
shared only once that has happened, so no engine gets a dialect that was never set up.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.util import LRUCache

import tracker.db.engine

CREATE_ENGINE = tracker.db.engine.create_engine
# Room for every statement the services compile, on both backends, without evicting.
CACHE_SIZE = 5000

# Per backend, driver and options: the first engine's dialect and cache (never the engine: its
# connections are its test's), and whether its first connection has set the dialect up.
_first: dict[tuple[Any, ...], tuple[Any, Any]] = {}
_set_up: set[tuple[Any, ...]] = set()


def _create_engine(url: Any, *args: Any, **kwargs: Any) -> Engine:
    engine: Engine = CREATE_ENGINE(url, *args, **kwargs)
    key = (engine.dialect.name, engine.dialect.driver, args, tuple(sorted(kwargs)))
    if key not in _first:
        engine._compiled_cache = LRUCache(CACHE_SIZE)
        _first[key] = (engine.dialect, engine._compiled_cache)

        @event.listens_for(engine, "connect", once=True)
        def set_up(*_: Any) -> None:
            _set_up.add(key)

    elif key in _set_up:
        dialect, cache = _first[key]
        engine.dialect = dialect
        engine.pool._dialect = dialect
        engine._compiled_cache = cache
    return engine


def install() -> None:
    tracker.db.engine.create_engine = _create_engine
