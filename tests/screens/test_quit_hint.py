"""ctrl+c says how to quit in plain words: every toast is plain text, Textual's own included."""

from __future__ import annotations

from toasts import every_toast

from tracker.app import TrackerApp
from tracker.db import SessionFactory


async def test_ctrl_c_names_the_quit_key_without_markup(factory: SessionFactory) -> None:
    app = TrackerApp(factory)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        messages = [note.message for note in every_toast(app)]
        assert "Press ctrl+q to quit the app" in messages
        assert not any("[b]" in message for message in messages)
