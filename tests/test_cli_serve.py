"""`tracker serve`: a real server process, driven as a browser drives it (page, websocket)."""

from __future__ import annotations

import asyncio
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
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy import Engine

from tracker import paths
from tracker.cli import build_parser
from tracker.cli.serve import app_command, shown_target

needs_proc = pytest.mark.skipif(
    not Path("/proc/self/cmdline").exists(), reason="reads processes' command lines in /proc"
)

START_TIMEOUT = 20.0
WELCOME = "No campaigns in this file yet"
# CSI and OSC sequences, and the lone escapes of charset and keypad modes.
ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b."
)


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


def app_processes(db_path: Path, server: subprocess.Popen[str]) -> dict[int, list[str]]:
    """The apps the server started for its browsers (any process on db_path but the server)."""
    return {pid: words for pid, words in command_lines(db_path).items() if pid != server.pid}


@contextmanager
def serving(db_path: Path, port: int, *options: str) -> Iterator[subprocess.Popen[str]]:
    """`tracker --db FILE [options] serve --port PORT` in a process group of its own, killed
    with everything it started whatever the test did."""
    tracker = [sys.executable, "-m", "tracker", "--db", str(db_path)]
    server = subprocess.Popen(
        [*tracker, *options, "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield server
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
        for pid in app_processes(db_path, server):
            os.kill(pid, signal.SIGKILL)
        server.communicate(timeout=5)


async def wait_for_port(port: int, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert server.poll() is None, f"the server exited: {server.communicate()}"
        try:
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise AssertionError(f"nothing listened on port {port} within {START_TIMEOUT} s")


async def open_page(http: aiohttp.ClientSession, port: int) -> str:
    """GET / as a browser does; the websocket URL its script connects to."""
    async with http.get(f"http://127.0.0.1:{port}/") as response:
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


async def open_app(http: aiohttp.ClientSession, port: int) -> aiohttp.ClientWebSocketResponse:
    """Connect as textual.js does: the fitted size in the query, then resize and ping."""
    url = await open_page(http, port)
    assert url == f"ws://127.0.0.1:{port}/ws"
    websocket = await http.ws_connect(
        f"{url}?width=120&height=40", timeout=aiohttp.ClientWSTimeout(ws_close=5)
    )
    await websocket.send_str(json.dumps(["resize", {"width": 120, "height": 40}]))
    await websocket.send_str(json.dumps(["ping", str(int(time.time() * 1000))]))
    await websocket.send_str(json.dumps(["focus"]))
    return websocket


async def wait_until_gone(db_path: Path, server: subprocess.Popen[str]) -> dict[int, list[str]]:
    deadline = time.monotonic() + 5
    while (left := app_processes(db_path, server)) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return left


@needs_proc
async def test_browser_sees_the_welcome_screen_and_ctrl_c_stops_everything(
    engine: Engine, db_path: Path
) -> None:
    port = free_port()
    with serving(db_path, port) as server:
        await wait_for_port(port, server)
        async with aiohttp.ClientSession() as http:
            websocket = await open_app(http, port)
            screen = await read_screen(websocket, WELCOME)
            assert "tracker" in screen
            assert "Campaigns" in screen
            apps = app_processes(db_path, server)
            assert apps, "no app process for the browser"
            # The command of the brief, started for this browser, exactly.
            assert list(apps.values()) == [[sys.executable, "-m", "tracker"]]

            started = time.monotonic()
            server.send_signal(signal.SIGINT)  # with the browser still connected
            # As a browser does, answer the server's closing of the websocket.
            async with asyncio.timeout(10):
                while not websocket.closed:
                    await websocket.receive()
            out, err = await asyncio.to_thread(server.communicate, timeout=10)
            stopped_in = time.monotonic() - started
        assert server.returncode == 0, err
        assert stopped_in < 5
        assert await wait_until_gone(db_path, server) == {}
    lines = out.splitlines()
    assert lines[0] == f"tracker: serving {db_path} at http://127.0.0.1:{port} (ctrl+c to stop)"
    assert len(lines) == 1, out
    assert err == ""


@needs_proc
async def test_umpire_reaches_the_browsers_app(engine: Engine, db_path: Path) -> None:
    port = free_port()
    with serving(db_path, port, "--umpire") as server:
        await wait_for_port(port, server)
        async with aiohttp.ClientSession() as http:
            websocket = await open_app(http, port)
            await read_screen(websocket, "Campaigns")
            apps = list(app_processes(db_path, server).values())
            # Closing the tab ends its app, with the server still running.
            await websocket.close()
            assert await wait_until_gone(db_path, server) == {}
            assert server.poll() is None
        server.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.communicate, timeout=10)
        assert server.returncode == 0
    assert apps == [[sys.executable, "-m", "tracker", "--umpire"]]


def test_a_port_in_use_is_one_line_and_status_2(engine: Engine, db_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tracker", "--db", str(db_path), "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
        )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert f"port {port}" in done.stderr and "in use" in done.stderr


@pytest.mark.parametrize("port", ["0", "65536", "http"])
def test_a_port_out_of_range_is_refused_by_argparse(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve", "--port", port])
    assert exit_.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_defaults_are_loopback_port_8000() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.public_url) == ("127.0.0.1", 8000, None)


def test_the_command_and_the_shown_database() -> None:
    assert app_command(umpire=True) == f"{sys.executable} -m tracker --umpire"
    url = "postgresql+psycopg://club:s3cret@db.example/norway"
    assert "s3cret" not in shown_target(url)
    assert shown_target(url) == "postgresql+psycopg://club:***@db.example/norway"
    assert shown_target("/tmp/campaign.db") == "/tmp/campaign.db"
