"""Types shared by the service tests and their fixtures (imported as a plain module)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tracker.models import JournalEntry

Snapshot = dict[str, list[tuple[Any, ...]]]


@dataclass(frozen=True)
class World:
    """One campaign with a scenario, two sides and three squadrons (two on Blue, one on Red)."""

    campaign_id: int
    scenario_id: int
    blue_id: int
    red_id: int
    alpha_id: int  # Blue
    bravo_id: int  # Blue
    raider_id: int  # Red


@dataclass
class NewEntries:
    """The journal entries a block appended; `only` insists there was exactly one."""

    entries: list[JournalEntry] = field(default_factory=list)

    @property
    def only(self) -> JournalEntry:
        assert len(self.entries) == 1, [e.summary for e in self.entries]
        return self.entries[0]

    @property
    def detail(self) -> dict[str, Any]:
        return json.loads(self.only.detail)


def attempt(call: Callable[[], object]) -> Exception | None:
    """Run call and return what it raised (None if nothing).

    Refusal tests use it so a wrong exception costs no deep traceback through SQLAlchemy's
    sources (pytest renders those slowly) and the test can still check the database after.
    """
    try:
        call()
    except Exception as exc:
        return exc
    return None
