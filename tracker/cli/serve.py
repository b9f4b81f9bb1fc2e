"""`tracker serve [--host HOST] [--port PORT] [--public-url URL]`: the app in a web browser.

textual-serve runs one `python -m tracker` process per browser tab (the database reaches it in
TRACKER_DB) and relays its screen over a websocket; every tab works on the same campaign file,
as the terminal app does.

Private by default, as Jupyter is: each start mints a token that the printed address carries.
Every request must bring it, the page itself in its address, and an app starts only for a page
this server served to a browser tab, from that page, once: a page of another site or of another
port of this machine can neither frame the tracker nor open and drive it (serve_access gives the
rules and why).
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker import paths
from tracker.cli.common import command, fail
from tracker.redaction import shown

# secrets, ctypes, ipaddress, shlex and serve_access are imported where they are used: every
# start of the app builds this command's parser, and importing them took about 5 ms of the time
# to its first paint.

if TYPE_CHECKING:
    from tracker.cli.serve_access import Access
    from tracker.services.common import SessionFactory

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# Seconds the browsers' apps get to quit when the server stops, before they are killed.
QUIT_GRACE = 5.0
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
# Linux's prctl option that has the kernel signal a process when its parent dies.
PR_SET_PDEATHSIG = 1
log = logging.getLogger("tracker.serve")


def add_parser(sub: Any) -> None:
    parser = command(
        sub,
        "serve",
        help="serve the tracker to web browsers (textual-serve)",
        description="Serve the tracker on a web page: each browser tab that opens it runs its "
        "own tracker on this campaign file. Listens on this machine only unless --host says "
        "otherwise. The address it prints carries a secret token: only a browser given that "
        "address can use the app.",
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
    parser.set_defaults(handler=run, needs_extra="serve")


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (1 to 65535)")
    return value


def app_command(*, umpire: bool) -> list[str]:
    """The command started for each browser tab, without a shell. The database reaches it in
    the environment (TRACKER_DB, set by run): a command line is visible to every user of the
    machine, and a PostgreSQL URL may carry a password."""
    return [sys.executable, "-m", "tracker"] + (["--umpire"] if umpire else [])


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


def is_loopback(host: str) -> bool:
    """Whether host names this machine only (every address it resolves to is a loopback one)."""
    import ipaddress

    if host in WILDCARD_HOSTS:
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(
        ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in found
    )


def reach_note(host: str) -> str | None:
    """What a player must know when the server listens beyond this machine (None when not)."""
    if is_loopback(host):
        return None
    where = "every network of this machine" if host in WILDCARD_HOSTS else repr(host)
    return (
        f"tracker serve: listening on {where}, not this machine only. Anyone on that network "
        "who has the address above, token included, can open this campaign and change it; "
        "the traffic is not encrypted (token and campaign cross the network in clear) unless "
        "a TLS proxy is in front: give its https address with --public-url."
    )


def die_with_server() -> Callable[[], None] | None:
    """What each browser's app runs between fork and exec so that it ends when the server
    does, however the server ends (None where Linux's prctl is missing).

    The kernel sends the app SIGKILL the moment the server process dies, even by SIGKILL, when
    nothing of the server is left to clean up; a process group would need a live server to
    signal it, and textual's web driver keeps the app running when its stdin closes. SIGKILL,
    not SIGTERM: with the server gone the app's stdout is a broken pipe, so a clean exit could
    fail halfway, and every write of the app is a transaction, so nothing is left half-done.
    The signal follows the death of the thread that forked the app: the event loop's, which
    is the server's main thread. The app is the server's own child (started without a shell),
    which the signal needs."""
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):
        return None
    server = os.getpid()

    def preexec() -> None:
        # Resolved before the fork: loading a library in the child of a threaded process can
        # deadlock.
        if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != server:  # the server died before the signal was armed
            os._exit(1)

    return preexec


def run(args: argparse.Namespace, factory: SessionFactory, target: str) -> int:
    """Check the address, print where the page is (with its token), serve until SIGINT/SIGTERM."""
    import secrets

    from tracker.cli.serve_access import Access, origin

    problem = listen_problem(args.host, args.port)
    if problem is not None:
        return fail(problem, "tracker serve")
    url = (args.public_url or public_url(args.host, args.port)).rstrip("/")
    if origin(url) is None:
        return fail(
            f"--public-url {url!r} is not an http:// or https:// address "
            "(for example https://tracker.example.org)",
            "tracker serve",
        )
    os.environ[paths.DB_ENV_VAR] = target
    access = Access(
        token=secrets.token_urlsafe(32),
        # Cookies are shared by every port of a host: one per port, so that two servers on
        # one machine do not overwrite each other's.
        cookie=f"tracker-token-{args.port}",
        origin=origin(url),
        secure=url.lower().startswith("https:"),
    )
    server = make_server(app_command(umpire=args.umpire), args.host, args.port, url, access)
    on_host = (
        f" (listening on {args.host or '*'})"
        if args.public_url or args.host in WILDCARD_HOSTS
        else ""
    )
    # The address on a line of its own, whole, to copy or click even where the line wraps.
    print(
        f"tracker: serving {shown(target)}{on_host} (ctrl+c to stop); open this "
        f"address, token included, in a browser:\n{url}/?token={access.token}",
        flush=True,
    )
    note = reach_note(args.host)
    if note is not None:
        print(note, flush=True)
    try:
        server.serve()
    except KeyboardInterrupt:  # before textual-serve's own SIGINT handler is in place
        pass
    except OSError as exc:  # the port was taken between the check and the start
        return fail(f"cannot listen: {exc.strerror or exc}", "tracker serve")
    finally:
        stop_children()
    return 0


def make_server(command: list[str], host: str, port: int, url: str, access: Access) -> Any:
    """textual-serve's Server, quiet, without the command line (which may carry a database
    password) on the page, refusing what access refuses, its apps tied to its life, and
    stopping every browser's app before it exits. Built on textual-serve 1.1.3 (pinned): its
    internals through compat.serve_bases, and its page's template."""
    import asyncio
    import shlex

    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.server import to_int

    from tracker import compat
    from tracker.cli.serve_access import PAGE_HEADERS, add_headers, guard

    preexec = die_with_server()

    service_base, server_base = compat.serve_bases()

    class TrackerAppService(service_base):  # type: ignore[misc,valid-type]
        async def open_process(self, width: int, height: int) -> Any:
            # As textual-serve's, without `sh -c` between the server and the app.
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self.environment(width, height),
                preexec_fn=preexec,
            )
            return self.started(process)

    class TrackerServer(server_base):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            # The page's title defaults to the command: never show it to a browser.
            super().__init__(
                shlex.join(command), host=host, port=port, title="tracker", public_url=url
            )
            self.sessions: set[asyncio.Task[Any]] = set()

        def initialize_logging(self) -> None:
            # textual-serve logs every request at INFO; only trouble earns a line here.
            logging.basicConfig(level=logging.WARNING, format="tracker serve: %(message)s")

        async def make_app(self) -> web.Application:
            # textual-serve's routes, but each page's websocket at a name of its own, and no
            # listing of the static folder.
            app = web.Application(middlewares=[guard(access, log)])
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
            app.add_routes([
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{page}", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ])  # fmt: skip
            app.on_response_prepare.append(add_headers)
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        async def handle_index(self, request: web.Request) -> web.Response:
            """textual-serve's page, its websocket at the name minted for this page."""
            router = request.app.router
            websocket = f"{url}{router['websocket'].url_for(page=access.new_page())}"
            context = {
                "font_size": to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": "ws" + websocket.removeprefix("http"),
                "config": {"static": {"url": f"{url}/static/"}},
                "application": {"name": self.title},
            }
            response = aiohttp_jinja2.render_template("app_index.html", request, context)
            response.headers.update(PAGE_HEADERS)
            return response

        async def on_startup(self, app: web.Application) -> None:
            """No banner: run() has printed the one line that matters."""

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            task = asyncio.current_task()
            assert task is not None
            self.sessions.add(task)
            try:
                return await self.run_session(request)
            finally:
                self.sessions.discard(task)

        async def run_session(self, request: web.Request) -> web.StreamResponse:
            """textual-serve's handle_websocket, with the tracker's app service. A tab closed
            while its connection opens, or while its app starts, is let go without a word."""
            websocket = web.WebSocketResponse(heartbeat=15)
            width = to_int(request.query.get("width", "80"), 80)
            height = to_int(request.query.get("height", "24"), 24)
            app_service: Any = None
            try:
                await websocket.prepare(request)
            except ConnectionError:
                # No app was started. A response aiohttp drops quietly on the closed
                # connection: the half-opened websocket would fail its own closing.
                return web.Response()
            try:
                app_service = TrackerAppService(
                    shlex.join(command),
                    write_bytes=websocket.send_bytes,
                    write_str=websocket.send_str,
                    close=websocket.close,
                    download_manager=self.download_manager,
                )
                await app_service.start(width, height)
                try:
                    await self.relay(websocket, app_service)
                finally:
                    # The app quits and its output ends before the websocket closes.
                    await app_service.stop()
            except asyncio.CancelledError:
                await websocket.close()
            except ConnectionError:
                pass  # the tab went away while the app started or was answered
            except Exception as error:
                log.exception(error)
            finally:
                if app_service is not None:
                    await app_service.stop()
            return websocket

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
    """This process's descendants (the browsers' apps and whatever they started); Linux only,
    where /proc says whose child a process is, else empty."""
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
