"""`tracker serve`: a real server process, driven as a browser drives it (page, websocket), and
tried as a hostile page or a stranger would: without the token, with a wrong one, from another
origin; killed outright, it leaves no app behind."""

from __future__ import annotations

import argparse
import asyncio
import base64
import http.client
import ipaddress
import os
import re
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import (
    START_TIMEOUT,
    WELCOME,
    Served,
    alive,
    client,
    free_port,
    handshake,
    new_page,
    open_app,
    read_screen,
    serving,
    wait_until,
)
from sqlalchemy import Engine

from tracker import paths
from tracker.cli import build_parser
from tracker.cli import serve as serve_cli
from tracker.cli.serve import app_command
from tracker.db import make_engine, migrate

needs_proc = pytest.mark.skipif(
    not Path("/proc/self/cmdline").exists(), reason="reads processes' command lines in /proc"
)
FUZZ = settings(
    max_examples=examples(40),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# The characters of a cookie's value (RFC 6265's cookie-octet), and bytes beyond ASCII that
# are no UTF-8 (http.client sends a header's characters as latin-1 bytes).
COOKIE_CHARACTERS = "".join(
    chr(code) for code in [*range(0x21, 0x7F), *range(0x80, 0x100)] if chr(code) not in '\\",;'
)


@needs_proc
async def test_browser_sees_the_welcome_screen_and_ctrl_c_stops_everything(
    engine: Engine, db_path: Path
) -> None:
    with serving(db_path) as served:
        async with client() as http:
            websocket = await open_app(http, served)
            screen = await read_screen(websocket, WELCOME)
            assert "tracker" in screen
            assert "Campaigns" in screen
            apps = served.apps()
            assert apps, "no app process for the browser"
            # The command of the brief, started for this browser, exactly, as the server's own
            # child (no shell between them).
            assert list(apps.values()) == [[sys.executable, "-m", "tracker"]]
            assert [parent_of(pid) for pid in apps] == [served.process.pid]

            served.process.send_signal(signal.SIGINT)  # with the browser still connected
            # As a browser does, answer the server's closing of the websocket.
            async with asyncio.timeout(10):
                while not websocket.closed:
                    await websocket.receive()
            await asyncio.to_thread(served.process.wait, timeout=10)
        assert served.process.returncode == 0, served.err()
        wait_until(lambda: not served.apps())
    lines = served.out().splitlines()
    assert lines == [
        f"tracker: serving {db_path} (ctrl+c to stop); open this address, token included, "
        "in a browser:",
        served.address,
    ]
    assert served.err() == ""


@needs_proc
async def test_umpire_reaches_the_browsers_app(engine: Engine, db_path: Path) -> None:
    with serving(db_path, "--umpire") as served:
        async with client() as http:
            websocket = await open_app(http, served)
            await read_screen(websocket, "Campaigns")
            apps = list(served.apps().values())
            # Closing the tab ends its app, with the server still running.
            await websocket.close()
            wait_until(lambda: not served.apps())
            assert served.process.poll() is None
        served.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(served.process.wait, timeout=10)
        assert served.process.returncode == 0
    assert apps == [[sys.executable, "-m", "tracker", "--umpire"]]


@needs_proc
async def test_a_killed_server_leaves_no_app_running(engine: Engine, db_path: Path) -> None:
    with serving(db_path) as served:
        async with client() as http:
            first = await open_app(http, served)
            second = await open_app(http, served)
            await read_screen(first, WELCOME)
            await read_screen(second, WELCOME)
            apps = list(served.apps())
            assert len(apps) == 2
            # The server alone, as the OOM killer or `kill -9` would: no clean-up of its own.
            os.kill(served.process.pid, signal.SIGKILL)
            await asyncio.to_thread(served.process.wait, timeout=10)
            wait_until(lambda: not any(alive(pid) for pid in apps))


# Tabs closed as their connection opens: before the server's answer, and after it, while the
# server answers the page's first messages; by a closed socket and by a reset one. A close may
# leave an app process starting (a second or more of CPU each, and the test waits for each to
# end): the tries scale with the run's depth (tests/depth.py), at least two of each kind.
EARLY_CLOSES = max(4, examples(16))
LATE_CLOSES = max(4, examples(6))
PINGS = 20


async def close_abruptly(served: Served, *, answered: bool, reset: bool) -> None:
    """Open an app's websocket as the page would, and close the connection at once: before
    the server's answer, or once it is answered and a burst of pings is sent."""
    page = await asyncio.to_thread(new_page, served)
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws/{page}?width=80&height=24 HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Key: {key}\r\nOrigin: {served.origin}\r\n"
        f"Cookie: tracker-token-{served.port}={served.token}\r\n\r\n".encode()
    )
    if answered:
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
        payload = b'["ping", "1"]'
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[n % 4] for n, byte in enumerate(payload))
        writer.write(bytes([0x81, 0x80 | len(payload)]) + mask + masked)  # a masked text frame
        writer.write((bytes([0x81, 0x80 | len(payload)]) + mask + masked) * (PINGS - 1))
    await writer.drain()
    if reset:
        linger = struct.pack("ii", 1, 0)  # close with a reset, as a killed browser would
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
    writer.close()
    # Closed now, not when the event loop next runs: the test's waits hold the loop, and a
    # socket left open is only let go by the server's heartbeat, 15 s on.
    await writer.wait_closed()


@needs_proc
async def test_a_tab_closed_as_its_connection_opens_is_let_go_without_a_word(
    engine: Engine, db_path: Path
) -> None:
    with serving(db_path) as served:
        for number in range(EARLY_CLOSES):
            await close_abruptly(served, answered=False, reset=number % 2 == 1)
        for number in range(LATE_CLOSES):
            await close_abruptly(served, answered=True, reset=number % 2 == 1)
        # Each app started for them ends with its connection; a tab is still served.
        wait_until(lambda: not served.apps())
        async with client() as http:
            websocket = await open_app(http, served)
            await read_screen(websocket, WELCOME)
            await websocket.close()
        wait_until(lambda: not served.apps())
        # Every connection has been dealt with once the server has stopped.
        served.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(served.process.wait, timeout=START_TIMEOUT)
    assert served.process.returncode == 0
    assert served.err() == ""


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


# --- the token and the origin, against one server for the module ---------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db_path = tmp_path_factory.mktemp("serve") / "campaign.db"
    engine = make_engine(str(db_path))
    migrate(engine)
    engine.dispose()
    with serving(db_path) as served:
        yield served


def not_the_token(served: Served, alphabet: str | None = None) -> st.SearchStrategy[str]:
    """Wrong tokens: any text, and near misses of the right one (cut, grown, one character
    changed, another case)."""
    token = served.token
    text = st.text() if alphabet is None else st.text(alphabet=alphabet, max_size=80)
    cut = st.integers(0, len(token) - 1).map(lambda n: token[:n])
    # Only characters the alphabet has: a space after a cookie is no part of its value.
    extras = [extra for extra in "=A% " if alphabet is None or extra in alphabet]
    grown = st.sampled_from(extras).map(lambda extra: token + extra)
    changed = st.integers(0, len(token) - 1).map(
        lambda n: token[:n] + ("A" if token[n] != "A" else "B") + token[n + 1 :]
    )
    cased = st.just(token.swapcase())
    return st.one_of(text, cut, grown, changed, cased).filter(lambda wrong: wrong != token)


def foreign_origins(served: Served) -> st.SearchStrategy[str]:
    """Origins that are not the served page's: another scheme, host or port of this machine or
    elsewhere, spelled as browsers do, and junk."""
    schemes = st.sampled_from(["http", "https", "ws", "file", "chrome-extension"])
    hosts = st.sampled_from(
        ["127.0.0.1", "localhost", "127.0.0.2", "[::1]", "0.0.0.0", "evil.example",
         "127.0.0.1.evil.example", "127.0.0.1.nip.io"]
    ) | st.from_regex(r"[a-z][a-z0-9-]{0,15}(\.[a-z]{2,6}){1,2}", fullmatch=True)  # fmt: skip
    ports = st.none() | st.integers(1, 65535)
    built = st.tuples(schemes, hosts, ports).filter(
        lambda parts: parts != ("http", "127.0.0.1", served.port)
    )
    spelled = built.map(
        lambda parts: f"{parts[0]}://{parts[1]}" + ("" if parts[2] is None else f":{parts[2]}")
    )
    # Junk a header can carry (the server answers 400 to control characters, before any check).
    printable = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E))
    junk = printable.filter(lambda text: served.origin not in text.lower())
    return st.one_of(spelled, st.just("null"), junk)


@needs_proc
@FUZZ
@given(data=st.data())
def test_a_wrong_token_or_a_foreign_origin_starts_no_app(
    served: Served, data: st.DataObject
) -> None:
    before = served.apps()
    in_address = data.draw(not_the_token(served), label="token in the address")
    assert handshake(served, token=in_address, origin=served.origin) == 403
    in_cookie = data.draw(not_the_token(served, COOKIE_CHARACTERS), label="token in the cookie")
    assert handshake(served, cookie=in_cookie, origin=served.origin) == 403
    # A wrong token in the address is not rescued by a right cookie.
    assert handshake(served, token=in_address, cookie=served.token, origin=served.origin) == 403
    # The right token, from another page's origin.
    origin = data.draw(foreign_origins(served), label="origin")
    assert handshake(served, cookie=served.token, origin=origin) == 403
    assert handshake(served, token=served.token, origin=origin) == 403
    assert served.apps() == before


@needs_proc
def test_no_token_or_no_origin_starts_no_app(served: Served) -> None:
    before = served.apps()
    assert handshake(served, origin=served.origin) == 403
    assert handshake(served, token=served.token) == 403
    assert handshake(served, cookie=served.token) == 403
    assert served.apps() == before
    refusals = served.err()
    assert re.search(r"refused GET /ws/[\w-]+ from 127\.0\.0\.1: no token", refusals)
    assert f"the app opens only from this server's own page ({served.origin})" in refusals


@needs_proc
def test_the_right_token_and_origin_start_an_app(served: Served) -> None:
    """The handshakes above are refused for what they lack, not for their form: the same
    handshake with the token and the page's origin starts an app."""
    before = served.apps()
    assert handshake(served, cookie=served.token, origin=served.origin) == 101
    assert handshake(served, token=served.token, origin=served.origin) == 101
    # Each closed at once: the apps started, and end with their websockets.
    wait_until(lambda: served.apps() == before)


PATHS = ["/", "/ws", "/static/js/textual.js", "/static/css/xterm.css", "/download/x",
         "/favicon.ico", "/nothing-here"]  # fmt: skip


@needs_proc
@FUZZ
@given(
    path=st.sampled_from(PATHS)
    | st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789/._-", max_size=30).map(
        lambda text: "/" + text
    ),
    data=st.data(),
)
def test_every_request_without_the_token_is_refused(
    served: Served, path: str, data: st.DataObject
) -> None:
    wrong = data.draw(st.none() | not_the_token(served, COOKIE_CHARACTERS), label="token")
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=START_TIMEOUT)
    try:
        query = "" if wrong is None else "?" + urlencode({"token": wrong})
        connection.request("GET", path + query)
        response = connection.getresponse()
        body = response.read().decode()
    finally:
        connection.close()
    assert response.status == 403
    assert "open the address that `tracker serve` printed, token included" in body
    assert served.token not in body
    assert "set-cookie" not in {name.lower() for name, _ in response.getheaders()}


@needs_proc
def test_the_printed_address_sets_a_private_cookie_for_the_page(served: Served) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=START_TIMEOUT)
    try:
        connection.request("GET", f"/?token={served.token}")
        response = connection.getresponse()
        response.read()
        cookie = response.getheader("Set-Cookie")
        # The page's own script then loads with the cookie alone.
        connection.request(
            "GET",
            "/static/js/textual.js",
            headers={"Cookie": f"tracker-token-{served.port}={served.token}"},
        )
        script = connection.getresponse()
        script.read()
    finally:
        connection.close()
    assert response.status == 200
    assert script.status == 200
    assert cookie is not None
    assert cookie.startswith(f"tracker-token-{served.port}={served.token};")
    # Out of reach of any page's script (a page on another port of this host shares the
    # cookies), and never sent along by another site's page.
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie


@needs_proc
def test_each_start_mints_its_own_token(served: Served, tmp_path: Path) -> None:
    with serving(tmp_path / "other.db") as other:
        assert other.token != served.token
    assert len(served.token) >= 43  # 32 random bytes, URL-safe


# --- who can reach the page ----------------------------------------------------------------


LOOPBACK_V4 = ipaddress.ip_network("127.0.0.0/8")


@FUZZ
@given(
    address=st.ip_addresses(v=4, network="127.0.0.0/8").map(str)
    | st.sampled_from(["::1", "localhost", "[::1]"])
)
def test_loopback_hosts_need_no_warning(address: str) -> None:
    assert serve_cli.reach_note(address) is None


@FUZZ
@given(
    address=st.ip_addresses()
    .filter(lambda ip: ip not in LOOPBACK_V4 and ip != ipaddress.ip_address("::1"))
    .map(str)
    | st.sampled_from(["0.0.0.0", "::", ""])
)
def test_any_other_host_says_who_can_reach_the_page(address: str) -> None:
    note = serve_cli.reach_note(address)
    assert note is not None
    assert "Anyone on that network who has the address above, token included" in note
    assert "not encrypted" in note
    assert "--public-url" in note


def test_a_wildcard_host_prints_the_warning_under_the_address(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without listening anywhere: the server is replaced by one that returns at once."""
    started: list[Any] = []

    class Stub:
        def serve(self) -> None:
            started.append(True)

    monkeypatch.setattr(serve_cli, "make_server", lambda *args: Stub())
    monkeypatch.setattr(serve_cli, "listen_problem", lambda host, port: None)
    monkeypatch.setattr(serve_cli, "lan_address", lambda: "192.0.2.7")
    monkeypatch.setattr(serve_cli, "stop_children", lambda: None)
    monkeypatch.setenv(paths.DB_ENV_VAR, "")  # run() sets it for the apps: restored after
    args = argparse.Namespace(host="0.0.0.0", port=8123, public_url=None, umpire=False)
    assert serve_cli.run(args, None, str(db_path)) == 0  # type: ignore[arg-type]
    banner, address, note = capsys.readouterr().out.splitlines()
    assert banner.startswith(f"tracker: serving {db_path} (listening on 0.0.0.0) (ctrl+c to")
    assert address.startswith("http://192.0.2.7:8123/?token=")
    assert note.startswith("tracker serve: listening on every network of this machine")
    assert started == [True]


@pytest.mark.parametrize("url", ["ftp://tracker.example.org", "tracker.example.org", "https://"])
def test_a_public_url_that_is_no_web_address_is_refused(
    url: str, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(host="127.0.0.1", port=free_port(), public_url=url,
                              umpire=False)  # fmt: skip
    assert serve_cli.run(args, None, str(db_path)) == 2  # type: ignore[arg-type]
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "is not an http:// or https:// address" in captured.err


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


def test_the_command() -> None:
    assert app_command(umpire=True) == [sys.executable, "-m", "tracker", "--umpire"]
