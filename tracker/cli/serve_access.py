"""Who may use the page of `tracker serve`, and from where: the rules every request meets.

Each start mints a token that the printed address carries. The browser gets a cookie with it at
the first good request (HttpOnly, SameSite=Strict), for the page's own script, styles and
connection. But a browser counts every port of a host as one site: a page served from another
port of this machine gets the cookie sent along when it puts the tracker in a frame, or opens
it in a window of its own (window.open). It cannot read the tracker's page, yet it can lay it,
nearly transparent, under the player's clicks and keys. So:

- The page is served only with the token in its own address; the cookie alone serves the
  page's files and its connection, never the page. No other page knows the token: the cookie
  is out of scripts' reach, the page sends no Referer, and the address is only in the terminal
  and the player's own browser. The page's restart button keeps the token in its address.
- The page is served to a browser tab only. Where the browser says what it loads the page into
  (Fetch Metadata: Sec-Fetch-Dest, sent by Chromium, Firefox and Safari), anything but a
  top-level document is refused (a frame, an object, a script's fetch); every response also
  forbids being framed (CSP frame-ancestors 'none', X-Frame-Options DENY) for any browser.
- A request that a browser says comes from another site's page, another port of this host
  included (Sec-Fetch-Site: same-site or cross-site), is refused, except the page with its
  token in the address: the player may follow the printed address from another local page.
- The connection that starts an app (the websocket) must come from the page's own origin (its
  Origin header), at an address that only one page was given: each page served gets a random
  name for its websocket, good for one app. So an app starts only for a page this server
  served under the rules above, and once per page.
- Cross-Origin-Opener-Policy: a page that opened the tracker (given the address) gets no hold
  on the tracker's window.
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

# Every response, whatever its route or status.
HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    # The page's address carries the token: no request of the page names it elsewhere.
    "Referrer-Policy": "no-referrer",
}
# The page: its websocket's name is good once, so a page from a cache would start no app.
PAGE_HEADERS = {"Cache-Control": "no-store"}
# Pages served whose websocket has not connected yet; the oldest names go beyond this many.
OPEN_PAGES = 64
NO_TOKEN = "no token: open the address that `tracker serve` printed, token included"
WRONG_TOKEN = "a wrong token: open the address that `tracker serve` printed, token included"
COOKIE_ONLY = (
    "the page opens only at the address that `tracker serve` printed, token included "
    "(the browser's cookie is not enough: a page of another port of this machine can send it)"
)


def origin(url: str) -> str | None:
    """An address's origin as a browser compares it (scheme://host:port, lower case, the default
    port spelled out); None when it is no http(s) address."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in ("http", "https") or not host or parts.username is not None:
        return None
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port or (443 if scheme == 'https' else 80)}"


@dataclass(frozen=True)
class Asked:
    """What a request says of itself, as far as access goes."""

    route: str | None  # "index" (the page), "websocket" (starts an app), or another
    query_token: str | None
    cookie_token: str | None
    origin: str | None = None
    fetch_site: str | None = None  # Sec-Fetch-Site
    fetch_dest: str | None = None  # Sec-Fetch-Dest
    page: str | None = None  # the websocket's page name


@dataclass(frozen=True)
class Access:
    """Who may use the served app (the module's docstring gives the rules)."""

    token: str
    cookie: str
    origin: str | None
    secure: bool
    pages: OrderedDict[str, None] = field(default_factory=OrderedDict)

    def new_page(self) -> str:
        """A name for the websocket of a page about to be served."""
        name = secrets.token_urlsafe(24)
        self.pages[name] = None
        while len(self.pages) > OPEN_PAGES:
            self.pages.popitem(last=False)
        return name

    def refusal(self, asked: Asked) -> str | None:
        """Why a request is refused (None when it may go on); a websocket let through uses up
        its page's name. The token in the address counts: no older cookie rescues a wrong one."""
        given = asked.query_token if asked.query_token is not None else asked.cookie_token
        if given is None:
            return NO_TOKEN
        # Bytes, as compare_digest refuses str with characters beyond ASCII; a header's bytes
        # that are no UTF-8 arrive as lone surrogates.
        if not secrets.compare_digest(given.encode(errors="surrogatepass"), self.token.encode()):
            return WRONG_TOKEN
        if asked.route == "index":
            return self._page_refusal(asked)
        if asked.fetch_site not in (None, "same-origin", "none"):
            return (
                f"a request from another site's page (Sec-Fetch-Site: {asked.fetch_site[:30]!r}, "
                "another port of this machine included)"
            )
        if asked.route != "websocket":
            return None
        if asked.origin is None or origin(asked.origin) != self.origin:
            shown = "none" if asked.origin is None else repr(asked.origin[:100])
            return (
                f"the app opens only from this server's own page ({self.origin}); "
                f"the request came from origin {shown}"
            )
        if asked.page is None or self.pages.pop(asked.page, False) is not None:
            return (
                "the app opens only from a page this server served, once per page: "
                "reload the page (its restart button)"
            )
        return None

    def _page_refusal(self, asked: Asked) -> str | None:
        if asked.query_token is None:
            return COOKIE_ONLY
        if asked.fetch_dest not in (None, "document"):
            return (
                "the page opens only as a browser tab's own page, not inside another page "
                f"(Sec-Fetch-Dest: {asked.fetch_dest[:30]!r})"
            )
        return None


def asked_of(request: web.Request, cookie: str) -> Asked:
    return Asked(
        route=request.match_info.route.name,
        query_token=request.query.get("token"),
        cookie_token=request.cookies.get(cookie),
        origin=request.headers.get("Origin"),
        fetch_site=request.headers.get("Sec-Fetch-Site"),
        fetch_dest=request.headers.get("Sec-Fetch-Dest"),
        page=request.match_info.get("page"),
    )


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def guard(access: Access, log: logging.Logger) -> Any:
    """The middleware that refuses what access refuses (403, one line in the server's log),
    and gives the browser the token's cookie at the first good request."""

    @web.middleware
    async def check_access(request: web.Request, handler: Handler) -> web.StreamResponse:
        refusal = access.refusal(asked_of(request, access.cookie))
        if refusal is not None:
            log.warning("refused %s %s from %s: %s", request.method, request.path,
                        request.remote, refusal)  # fmt: skip
            raise web.HTTPForbidden(text=f"tracker serve: {refusal}\n")
        response = await handler(request)
        if "token" in request.query and not response.prepared:
            # The page's own requests (script, styles, websocket) then need no token.
            response.set_cookie(access.cookie, access.token, path="/", httponly=True,
                                samesite="Strict", secure=access.secure)  # fmt: skip
        return response

    return check_access


async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(HEADERS)
