"""`tracker serve [--host HOST] [--port PORT] [--public-url URL]`: the app in a web browser.

textual-serve runs one `python -m tracker --db TARGET` process per browser tab and relays its
screen over a websocket; every tab works on the same campaign file, as the terminal app does.
"""

from __future__ import annotations

import argparse
import errno
import os
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker import paths

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory

EXIT_BAD_INPUT = 2
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# Seconds the browsers' apps get to quit when the server stops, before they are killed.
QUIT_GRACE = 5.0
WILDCARD_HOSTS = ("", "0.0.0.0", "::")


def add_parser(sub: Any) -> None:
    """The `serve` sub-command."""
    parser = sub.add_parser(
        "serve",
        help="serve the tracker to web browsers (textual-serve)",
        description="Serve the tracker on a web page: each browser tab that opens it runs its "
        "own tracker on this campaign file. Listens on this machine only unless --host says "
        "otherwise; anyone who can reach the page can use the app.",
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default: {DEFAULT_HOST}, this machine only; "
        "0.0.0.0 for every network of the machine)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help=f"TCP port, 1 to 65535 (default: {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers use, when it is not http://HOST:PORT "
        "(behind a reverse proxy: https://tracker.example.org)",
    )
    parser.set_defaults(handler=run)


def port_number(text: str) -> int:
    """argparse type: a TCP port from 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (1 to 65535)")
    return value


def app_command(*, umpire: bool) -> str:
    """The shell command textual-serve starts for each browser tab. The database reaches it in
    the environment (TRACKER_DB, set by run): a command line is visible to every user of the
    machine, and a PostgreSQL URL may carry a password."""
    return shlex.join([sys.executable, "-m", "tracker"] + (["--umpire"] if umpire else []))


def shown_target(target: str) -> str:
    """The database as it may be printed: a URL without its password."""
    return paths.shown(target)


def listen_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (None when it can), found by binding a
    socket first: aiohttp would otherwise fail with a traceback after its start-up."""
    try:
        addresses = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as exc:
        return f"cannot listen on {host!r}: no such address here ({exc})"
    for family, kind, proto, _name, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                if os.name == "posix":
                    # As aiohttp does: a port left in TIME_WAIT by the last run is free.
                    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} on {host or '*'} is already in use: choose another with --port"
            return f"cannot listen on {host or '*'} port {port}: {exc.strerror or exc}"
    return None


def public_url(host: str, port: int) -> str:
    """The address the page gives browsers for the websocket; a wildcard host is no address a
    browser can use, so the machine's address on its network stands in for it."""
    if host in WILDCARD_HOSTS:
        host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def lan_address() -> str:
    """This machine's address on the network of its default route (127.0.0.1 without one)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            # A datagram socket's connect only picks the route: nothing is sent.
            probe.connect(("192.0.2.1", 9))
            return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"


def run(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    """Check the address, print where the page is, serve until SIGINT or SIGTERM."""
    problem = listen_problem(args.host, args.port)
    if problem is not None:
        print(f"tracker serve: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    url = (args.public_url or public_url(args.host, args.port)).rstrip("/")
    os.environ[paths.DB_ENV_VAR] = target
    server = make_server(app_command(umpire=args.umpire), args.host, args.port, url)
    on_host = (
        f" (listening on {args.host or '*'})"
        if args.public_url or args.host in WILDCARD_HOSTS
        else ""
    )
    print(
        f"tracker: serving {shown_target(target)} at {url}{on_host} (ctrl+c to stop)",
        flush=True,
    )
    try:
        server.serve()
    except KeyboardInterrupt:  # before textual-serve's own SIGINT handler is in place
        pass
    except OSError as exc:  # the port was taken between the check and the start
        print(f"tracker serve: cannot listen: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        stop_children()
    return 0


def make_server(command: str, host: str, port: int, url: str) -> Any:
    """textual-serve's Server, quiet, without the command line (which may carry a database
    password) on the page, and stopping every browser's app before it exits."""
    import asyncio
    import logging

    from aiohttp import web
    from textual_serve.server import Server

    class TrackerServer(Server):
        def __init__(self) -> None:
            # The page's title defaults to the command: never show it to a browser.
            super().__init__(command, host=host, port=port, title="tracker", public_url=url)
            self.sessions: set[asyncio.Task[Any]] = set()

        def initialize_logging(self) -> None:
            # textual-serve logs every request at INFO; only trouble earns a line here.
            logging.basicConfig(level=logging.WARNING, format="tracker serve: %(message)s")

        async def on_startup(self, app: web.Application) -> None:
            """No banner: run() has printed the one line that matters."""

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            task = asyncio.current_task()
            assert task is not None
            self.sessions.add(task)
            try:
                response: web.WebSocketResponse = await super().handle_websocket(request)
                return response
            finally:
                self.sessions.discard(task)

        async def on_shutdown(self, app: web.Application) -> None:
            # A cancelled session tells its app to quit, waits for its output to end, then
            # closes the browser's websocket (textual-serve's own clean-up).
            sessions = list(self.sessions)
            for task in sessions:
                task.cancel()
            deadline = asyncio.get_running_loop().time() + QUIT_GRACE
            if sessions:
                await asyncio.wait(sessions, timeout=QUIT_GRACE)
            # Then let the processes end while the loop still reaps them: one that ends after
            # the loop is closed gets asyncio's warnings on stderr.
            while child_pids() and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.05)
            if child_pids():
                # An app that did not quit in time would hold its session (and the server's
                # exit) for aiohttp's 60 s: end it, and its session with it.
                stop_children()
                await asyncio.wait(sessions, timeout=1.0)

    return TrackerServer()


def child_pids() -> set[int]:
    """This process's descendants (the browsers' apps, and the `sh -c` textual-serve starts
    each in); Linux only, where /proc says whose child a process is, else empty."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The parent's pid is the 2nd field after the ")" that closes the command name.
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found: set[int] = set()
    wave = {os.getpid()}
    while wave:
        wave = {pid for pid, ppid in parents.items() if ppid in wave} - found
        found |= wave
    return found


def stop_children() -> None:
    """Kill any app process still left (one that did not quit when asked), so that none
    outlives the server; its database writes are transactions, so none is left half-done."""
    for pid in child_pids():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
