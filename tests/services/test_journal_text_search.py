"""The journal's search of every entry's text is literal: `%`, `_` and the escape character in
what the player types match themselves, never any characters, on every backend."""

from __future__ import annotations

import string

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.models.journal import JournalEntry
from tracker.models.kinds import JournalKind
from tracker.services import history

# ASCII only: SQLite folds the case of ASCII letters alone, and the search is "any case".
PIECES = st.sampled_from(["%", "_", "/", "\\", "[", "]", "*", "50", "a", "A", "b", " "])
TEXT = st.lists(PIECES, min_size=1, max_size=6).map("".join)
NEEDLE = TEXT.filter(lambda needle: needle.strip() != "")


def test_the_text_search_matches_what_was_typed_literally(
    world: World, factory: SessionFactory
) -> None:
    summaries = ["50% hit", "50 percent hit", "a_b", "axb", "A/B", "a\\b", "[a]", "*", "plain"]
    summaries += ["".join(s) for s in zip(string.ascii_letters[:6], "%_/\\[]", strict=True)]
    with factory() as session:
        entries = [JournalEntry(campaign_id=world.campaign_id, kind=JournalKind.CAMPAIGN,
                                summary=summary) for summary in summaries]  # fmt: skip
        session.add_all(entries)
        session.commit()
        ours = {entry.id for entry in entries}

    @settings(
        max_examples=examples(60), suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(needle=NEEDLE)
    def check(needle: str) -> None:
        found = history.list_entries(factory, campaign_id=world.campaign_id, search=needle)
        wanted = needle.strip().lower()
        assert sorted(e.summary for e in found if e.id in ours) == sorted(
            s for s in summaries if wanted in s.lower()
        ), needle

    check()
