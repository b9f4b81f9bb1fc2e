"""A real `tracker serve` for the serve tests: started on 127.0.0.1 in a process group of its
own, its output in files (read whenever a test likes, never a full pipe), its apps found in /proc.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import aiohttp

from tracker import paths

START_TIMEOUT = 30.0
# Generous: how long an app may take to disappear once its server is gone (a bound, not a
# measure of speed).
GONE_TIMEOUT = 60.0
WELCOME = "No campaigns in this file yet"
# CSI and OSC sequences, and the lone escapes of charset and keypad modes.
ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b."
)
BANNER_TOKEN = re.compile(r"^http://127\.0\.0\.1:[0-9]+/\?token=([A-Za-z0-9_-]+)$", re.M)
PAGE_WEBSOCKET = re.compile(r'data-session-websocket-url="[^"]*/ws/([^"/]+)"')
# handshake's page: one fetched for it, as textual.js connects from the page it was served in.
FRESH = "a page served for this handshake"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command_lines(db_path: Path) -> dict[int, list[str]]:
    """Every live tracker process on db_path (the test's own file), by pid: named on its
    command line (the server), or in its environment (the apps, which get TRACKER_DB)."""
    found = {}
    wanted = f"{paths.DB_ENV_VAR}={db_path}".encode()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().decode(errors="replace").split("\0")[:-1]
            environ = cmdline.with_name("environ").read_bytes().split(b"\0")
        except OSError:
            continue
        is_app = words[1:3] == ["-m", "tracker"] and wanted in environ
        if str(db_path) in words or is_app:
            found[int(cmdline.parent.name)] = words
    return found


def alive(pid: int) -> bool:
    """Whether pid is a running process (a zombie has ended: it only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass(frozen=True)
class Served:
    process: subprocess.Popen[str]
    db_path: Path
    port: int
    token: str
    out_path: Path
    err_path: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        """The address the server printed, token included."""
        return f"{self.origin}/?token={self.token}"

    def out(self) -> str:
        return self.out_path.read_text()

    def err(self) -> str:
        return self.err_path.read_text()

    def apps(self) -> dict[int, list[str]]:
        """The apps the server started for its browsers (any process on db_path but it)."""
        return {
            pid: words
            for pid, words in command_lines(self.db_path).items()
            if pid != self.process.pid
        }


@contextmanager
def serving(db_path: Path, *options: str) -> Iterator[Served]:
    """`tracker --db FILE [options] serve --port PORT`, up and listening, killed with everything
    it started whatever the test did."""
    port = free_port()
    out_path = db_path.with_name(f"serve-{port}.out")
    err_path = db_path.with_name(f"serve-{port}.err")
    tracker = [sys.executable, "-m", "tracker", "--db", str(db_path)]
    with out_path.open("w") as out, err_path.open("w") as err:
        process = subprocess.Popen(
            [*tracker, *options, "serve", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            text=True,
            start_new_session=True,
        )
    served = None
    try:
        token = wait_until_listening(process, port, out_path, err_path)
        served = Served(process, db_path, port, token, out_path, err_path)
        yield served
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        for pid in command_lines(db_path):
            if pid != process.pid:
                os.kill(pid, signal.SIGKILL)
        process.wait(timeout=10)


def wait_until_listening(
    process: subprocess.Popen[str], port: int, out_path: Path, err_path: Path
) -> str:
    """The token of the server's banner, once the server accepts connections."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited: {err_path.read_text()}"
        found = BANNER_TOKEN.search(out_path.read_text())
        if found is not None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            except OSError:
                pass
            else:
                return found.group(1)
        time.sleep(0.1)
    raise AssertionError(f"the server did not listen on port {port} within {START_TIMEOUT} s")


def wait_until(check: object, timeout: float = GONE_TIMEOUT) -> None:
    """Poll check() (a bounded loop) until it is true; fail after timeout seconds."""
    assert callable(check)
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"still not so after {timeout} s"
        time.sleep(0.1)


def client() -> aiohttp.ClientSession:
    """An HTTP client that keeps the server's cookie, as a browser does (aiohttp's default jar
    drops cookies from an IP address)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def open_page(http: aiohttp.ClientSession, served: Served) -> str:
    """GET the printed address as a browser does; the websocket URL its script connects to."""
    async with http.get(served.address) as response:
        assert response.status == 200
        page = await response.text()
    assert 'class="textual-terminal"' in page
    assert "js/textual.js" in page
    # The page is titled "tracker", not with textual-serve's default, the command line (which
    # may carry a database password).
    assert "--db" not in page
    assert "<div>tracker</div>" in page
    match = re.search(r'data-session-websocket-url="([^"]+)"', page)
    assert match is not None
    return match.group(1)


async def open_app(http: aiohttp.ClientSession, served: Served) -> aiohttp.ClientWebSocketResponse:
    """Connect as textual.js does, from the page's origin with its cookie: the fitted size in
    the query, then resize and ping."""
    url = await open_page(http, served)
    # The page's own websocket: a name minted for this page, good for one app.
    assert re.fullmatch(rf"ws://127\.0\.0\.1:{served.port}/ws/[A-Za-z0-9_-]{{32}}", url), url
    websocket = await http.ws_connect(
        f"{url}?width=120&height=40",
        origin=served.origin,
        timeout=aiohttp.ClientWSTimeout(ws_close=5),
    )
    await websocket.send_str(json.dumps(["resize", {"width": 120, "height": 40}]))
    await websocket.send_str(json.dumps(["ping", str(int(time.time() * 1000))]))
    await websocket.send_str(json.dumps(["focus"]))
    return websocket


async def read_screen(websocket: aiohttp.ClientWebSocketResponse, wanted: str) -> str:
    """The terminal output the app sends, as text, up to the frame that shows wanted."""
    screen = ""
    async with asyncio.timeout(START_TIMEOUT):
        while wanted not in ANSI.sub("", screen):
            message = await websocket.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                screen += message.data.decode("utf-8", errors="replace")
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the websocket ended: {message.type}, {screen[-500:]!r}")
    return ANSI.sub("", screen)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: str


def get(served: Served, path: str, headers: dict[str, str] | None = None) -> Answer:
    """One GET of path, as any client (or a browser, with its headers) sends it."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=START_TIMEOUT)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        body = response.read().decode(errors="replace")
        found = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, found, body)
    finally:
        connection.close()


def new_page(served: Served) -> str:
    """The printed address's page, served afresh: the name its websocket was given."""
    answer = get(served, f"/?token={served.token}")
    assert answer.status == 200, answer
    found = PAGE_WEBSOCKET.search(answer.body)
    assert found is not None, answer.body
    return found.group(1)


def handshake(
    served: Served,
    *,
    token: str | None = None,
    cookie: str | None = None,
    origin: str | None = None,
    page: str | None = FRESH,
    headers: dict[str, str] | None = None,
) -> int:
    """The status of a websocket handshake (101 when the server takes it) as a browser sends
    it, or any client: the token in the address and/or the cookie, an Origin header or none, at
    a fresh page's websocket (page=FRESH), at another name, or at none (page=None)."""
    query = {"width": "80", "height": "24"} | ({} if token is None else {"token": token})
    name = new_page(served) if page == FRESH else page
    sent = {
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
        "Sec-WebSocket-Version": "13",
    } | (headers or {})
    if origin is not None:
        sent["Origin"] = origin
    if cookie is not None:
        sent["Cookie"] = f"tracker-token-{served.port}={cookie}"
    path = "/ws" if name is None else f"/ws/{name}"
    return get(served, f"{path}?{urlencode(query)}", sent).status
