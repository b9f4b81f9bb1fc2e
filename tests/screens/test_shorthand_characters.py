"""The damage shorthand refuses, in its preview, a ship's name or a critical's effect holding a
character no name (or no text) may hold, with the message the forms give; nothing is written."""

from __future__ import annotations

from pathlib import Path

from campaign_files import press_to, sample_app
from depth import examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Static

from tracker.screens.campaign import CampaignScreen
from tracker.screens.damage_entry import DamageEntryScreen
from tracker.services import history

# The classes, written out here: C1 controls, bidirectional controls, other format characters.
OVERRIDES = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
CLASSES = {
    "a control character": st.integers(0x80, 0x9F).map(chr),
    "a bidirectional control": st.sampled_from(OVERRIDES),
    "an invisible formatting character": st.characters(
        categories=["Cf"], exclude_characters=OVERRIDES
    ),
}
# What free text refuses too: the C1 controls and the overrides (marks are kept in notes).
IN_EFFECTS = {
    "a control character": CLASSES["a control character"],
    "a bidirectional control": st.sampled_from(OVERRIDES[:9]),
}


def refused_lines() -> st.SearchStrategy[tuple[str, str]]:
    """(a shorthand line holding one refused character, the message's start)."""
    in_name = st.sampled_from(sorted(CLASSES)).flatmap(
        lambda what: CLASSES[what].map(
            lambda char: (f"exe{char}ter s1", f"the ship's name holds {what} (U+{ord(char):04X})")
        )
    )
    in_effect = st.sampled_from(sorted(IN_EFFECTS)).flatmap(
        lambda what: IN_EFFECTS[what].map(
            lambda char: (
                f'exeter crit "B tur{char}ret"',
                f"a critical's effect holds {what} (U+{ord(char):04X})",
            )
        )
    )
    return st.one_of(in_name, in_effect)


@settings(
    max_examples=examples(1), deadline=None, derandomize=True, database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
@given(lines=st.lists(refused_lines(), min_size=8, max_size=8))
def test_the_shorthand_refuses_what_a_name_or_text_may_not_hold(lines, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    """One app run, eight generated lines typed one after another."""
    import asyncio

    path: Path = tmp_path_factory.mktemp("shorthand") / "campaign.db"
    app = sample_app(path, seed=3)
    campaign_id = app.open_campaign_id or 0
    before = len(history.list_entries(app.factory, campaign_id=campaign_id))

    async def walk() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await press_to(pilot, screen=CampaignScreen)
            entry = await press_to(pilot, "d", screen=DamageEntryScreen)
            for line, said in lines:
                entry.query_one("#shorthand", Input).value = line
                await pilot.pause()
                preview = str(entry.query_one("#damage-preview", Static).render())
                assert f"{said}: retype it without it" in preview, (line, preview)
                await pilot.press("enter")  # nothing is recorded
                await pilot.pause()
                assert isinstance(app.screen, DamageEntryScreen)
            entry.query_one("#shorthand", Input).value = ""
            await pilot.pause()
            await pilot.press("escape", "escape", "q")
        assert len(history.list_entries(app.factory, campaign_id=campaign_id)) == before

    asyncio.run(walk())
