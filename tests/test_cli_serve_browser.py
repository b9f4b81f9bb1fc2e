"""`tracker serve` in a real browser: Debian's chromium, headless, driven by Playwright (which
never downloads a browser here: it is pointed at /usr/bin/chromium, that `make system-deps`
installs). The printed address opens the app; a page of another local origin, in the same
browser and so with the server's cookie, can neither frame it nor open it in a window, and
nothing it makes the player type reaches the campaign.

Every request the browser makes beyond 127.0.0.1 (the page asks for a web font) is aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from aiohttp import web
from serving import ANSI, START_TIMEOUT, WELCOME, free_port, serving
from sqlalchemy import Engine

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.is_file(), reason="needs /usr/bin/chromium: run `make system-deps`"
    ),
    pytest.mark.skipif(
        not Path("/proc/self/cmdline").exists(), reason="finds the apps' processes in /proc"
    ),
]

# The other origin's page, in the player's browser, which holds the server's cookie: the tracker
# nearly transparent in a frame over a form of its own, the printed address (token included) in
# another frame, a button that opens the tracker in a window, and the websocket tried directly.
HOSTILE = """<!DOCTYPE html>
<html><body style="margin: 0">
<form><p>Win a prize: click here, then type your name</p><input name="name"></form>
<iframe id="framed" src="TRACKER/" width="900" height="600"
        style="position: absolute; top: 0; left: 0; opacity: 0.05; border: 0"></iframe>
<iframe id="framed-with-token" src="ADDRESS" width="300" height="200"
        style="position: absolute; top: 620px; left: 0"></iframe>
<button id="open" style="position: absolute; top: 620px; left: 400px"
        onclick="window.open('TRACKER/', 'tracker', 'width=900,height=600')">Open</button>
<script>
for (const path of ["/ws", "/ws/a-name-of-its-own"]) {
  new WebSocket("WS" + path + "?width=80&height=24");
}
</script>
</body></html>
"""
# What the attack types into what it framed or opened: a new campaign, saved.
ATTACK_KEYS = ["n", *"Hostile", "Control+s"]


async def only_this_machine(route: Any) -> None:
    if urlsplit(route.request.url).hostname == "127.0.0.1":
        await route.continue_()
    else:
        await route.abort()


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A browser context of Debian's chromium, headless, reaching 127.0.0.1 only."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--disable-dev-shm-usage"]
        )
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            await context.route("**/*", only_this_machine)
            yield context
        finally:
            await browser.close()


async def open_the_printed_address(context: Any, address: str) -> tuple[Any, list[Any]]:
    """The player's tab: the printed address, and the frames its websocket receives."""
    page = await context.new_page()
    frames: list[Any] = []

    def keep(payload: Any) -> None:
        frames.append(payload)

    page.on("websocket", lambda socket: socket.on("framereceived", keep))
    await page.goto(address)
    # textual.js marks the page once the app's first output is on its terminal.
    await page.wait_for_selector("body.-first-byte", state="attached", timeout=START_TIMEOUT * 1000)
    return page, frames


async def screen_text(frames: list[Any], wanted: str, timeout: float = START_TIMEOUT) -> str:
    """The app's output the browser received, as text, once it shows wanted (bounded wait)."""
    async with asyncio.timeout(timeout):
        while True:
            output = b"".join(frame for frame in frames if isinstance(frame, bytes))
            text = ANSI.sub("", output.decode("utf-8", errors="replace"))
            if wanted in text:
                return text
            await asyncio.sleep(0.1)


async def test_chromium_opens_the_printed_address_and_sees_the_welcome_screen(
    engine: Engine, db_path: Path, tmp_path: Path
) -> None:
    with serving(db_path) as served:
        async with chromium() as context:
            page, frames = await open_the_printed_address(context, served.address)
            text = await screen_text(frames, WELCOME)
            assert "Campaigns" in text
            assert len(served.apps()) == 1
            # The player types into it: `n` opens the new campaign form.
            await page.focus(".xterm-helper-textarea")
            for _ in range(6):  # a key can come before the app has taken the page's focus
                await page.keyboard.press("n")
                with contextlib.suppress(TimeoutError):
                    await screen_text(frames, "Cancel (esc)", timeout=5)
                    break
            else:
                raise AssertionError("the new campaign form did not open")
            await page.screenshot(path=str(tmp_path / "served.png"))
        assert served.err() == ""


async def test_the_pages_restart_button_starts_a_new_app(engine: Engine, db_path: Path) -> None:
    """The page's own restart, after its app quit, keeps the token in the address: a new page
    with a new websocket name, and a new app."""
    with serving(db_path) as served:
        async with chromium() as context:
            page, frames = await open_the_printed_address(context, served.address)
            await screen_text(frames, WELCOME)
            first = set(served.apps())
            await page.focus(".xterm-helper-textarea")
            for _ in range(6):  # a key can come before the app has taken the page's focus
                await page.keyboard.press("q")
                with contextlib.suppress(TimeoutError):
                    await page.wait_for_selector("body.-closed", timeout=5000)
                    break
            else:
                raise AssertionError("the app did not quit")
            frames.clear()
            await page.click("text=Restart")
            await screen_text(frames, WELCOME)
            assert page.url == served.address
            second = set(served.apps())
            assert len(second) == 1 and not second & first
        assert "refused" not in served.err()


def campaign_names(db_path: Path) -> list[str]:
    with sqlite3.connect(db_path) as conn:
        return [name for (name,) in conn.execute("SELECT name FROM campaign")]


@asynccontextmanager
async def other_origin(page_text: str) -> AsyncIterator[str]:
    """A web server on another port of 127.0.0.1, serving page_text at /; its origin."""
    other = web.Application()

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=page_text, content_type="text/html")

    other.router.add_get("/", page)
    runner = web.AppRunner(other)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def refused(served: Any, *reasons: str) -> str:
    """The server's log, once it has refused a request for each reason, as many times as the
    reason is given (bounded wait)."""
    wanted = Counter(reasons)

    def missing() -> list[str]:
        log = served.err()
        return [reason for reason, times in wanted.items() if log.count(reason) < times]

    try:
        async with asyncio.timeout(START_TIMEOUT):
            while missing():
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"not refused: {missing()}; the log: {served.err()}") from None
    return str(served.err())


async def test_a_page_of_another_local_origin_can_neither_frame_nor_open_the_tracker(
    engine: Engine, db_path: Path
) -> None:
    with serving(db_path) as served:
        hostile = (
            HOSTILE.replace("TRACKER", served.origin)
            .replace("ADDRESS", served.address)
            .replace("WS", f"ws://127.0.0.1:{served.port}")
        )
        async with other_origin(hostile) as origin, chromium() as context:
            # The player's own tab first: the browser now holds the server's cookie, which it
            # also sends from any other port of 127.0.0.1.
            await open_the_printed_address(context, served.address)
            players_app = served.apps()
            assert len(players_app) == 1

            attack = await context.new_page()
            await attack.goto(f"{origin}/")
            async with context.expect_page() as opened:
                await attack.click("#open")
            window = await opened.value
            cookie_only = "refused GET / from 127.0.0.1: the page opens only at the address"
            await refused(
                served,
                # The frame and the window, which the browser sent the cookie with.
                cookie_only,
                cookie_only,
                # The frame of the printed address, token included.
                "not inside another page (Sec-Fetch-Dest: 'iframe')",
                # The script's websocket (its other one, at no page's name, finds no route).
                "refused GET /ws/a-name-of-its-own from 127.0.0.1: the app opens only from "
                f"this server's own page ({served.origin}); the request came from origin "
                f"'{origin}'",
            )
            # The player clicks where the form is (on the frame) and types, then in the window.
            await attack.mouse.click(200, 40)
            for key in ATTACK_KEYS:
                await attack.keyboard.press(key)
            await window.mouse.click(200, 200)
            for key in ATTACK_KEYS:
                await window.keyboard.press(key)
            assert served.apps() == players_app
        assert campaign_names(db_path) == []
    assert "Traceback" not in served.err()
