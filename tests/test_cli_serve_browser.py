"""`tracker serve` in a real browser: Debian's chromium, headless, driven by Playwright (which
never downloads a browser here: it is pointed at /usr/bin/chromium, that `make system-deps`
installs). The printed address opens the app; a page of another local origin, in the same
browser and so with the server's cookie, cannot open it.

Every request the browser makes beyond 127.0.0.1 (the page asks for a web font) is aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
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

# The other origin's page: it tries the tracker's websocket as textual.js would, and tells
# whether it opened, how it closed, and what cookies its script can read.
ATTEMPT = """<!DOCTYPE html>
<html><body><script>
window.attempt = new Promise((resolve) => {
  const socket = new WebSocket("ws://127.0.0.1:PORT/ws?width=80&height=24");
  socket.onopen = () => resolve({opened: true, code: 0, cookie: document.cookie});
  socket.onclose = (event) =>
    resolve({opened: false, code: event.code, cookie: document.cookie});
});
</script></body></html>
"""


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


async def test_a_page_of_another_local_origin_cannot_open_the_app(
    engine: Engine, db_path: Path
) -> None:
    other = web.Application()

    async def attempt_page(request: web.Request) -> web.Response:
        return web.Response(
            text=ATTEMPT.replace("PORT", str(served.port)), content_type="text/html"
        )

    other.router.add_get("/", attempt_page)
    runner = web.AppRunner(other)
    await runner.setup()
    other_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", other_port).start()
    try:
        with serving(db_path) as served:
            async with chromium() as context:
                # The player's own tab first: the browser now holds the server's cookie, which
                # it also sends from any other port of 127.0.0.1.
                await open_the_printed_address(context, served.address)
                players_app = served.apps()
                assert len(players_app) == 1

                hostile = await context.new_page()
                await hostile.goto(f"http://127.0.0.1:{other_port}/")
                result = await hostile.evaluate("window.attempt")
                assert served.apps() == players_app
            refusals = served.err()
    finally:
        await runner.cleanup()
    assert result["opened"] is False
    assert result["code"] == 1006  # the handshake was refused
    # The cookie is out of the other page's reach (HttpOnly), though the host is the same.
    assert served.token not in result["cookie"]
    # Refused for its origin: the cookie (and so the token) did come with it.
    assert f"the request came from origin 'http://127.0.0.1:{other_port}'" in refusals
