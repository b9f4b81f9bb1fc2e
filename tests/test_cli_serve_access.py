"""`tracker serve`'s rules against a page of another port of this machine (tracker/cli/
serve_access.py), as a real server answers them: nothing may frame the page, the page opens only
with the token in its address and as a tab's own page, another site's requests are refused, and
an app starts only for a page the server served, once. tests/test_cli_serve_browser.py makes the
same attack from a real browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import FRESH, Served, get, handshake, new_page, serving, wait_until

from tracker.cli.serve_access import OPEN_PAGES, Access, Asked
from tracker.db import make_engine, migrate

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/cmdline").exists(), reason="finds the apps' processes in /proc"
)
FUZZ = settings(
    max_examples=examples(30),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
FRAMING = {"content-security-policy": "frame-ancestors 'none'", "x-frame-options": "DENY"}
# What a browser says it loads a response into (Fetch Metadata's Sec-Fetch-Dest), but a tab.
NOT_A_TAB = ["iframe", "frame", "embed", "object", "fencedframe", "empty", "script", "style",
             "image", "worker", "audio", "video", "report", "webidentity"]  # fmt: skip
SITES = ["none", "same-origin", "same-site", "cross-site"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db_path = tmp_path_factory.mktemp("serve-access") / "campaign.db"
    engine = make_engine(str(db_path))
    migrate(engine)
    engine.dispose()
    with serving(db_path) as served:
        yield served


def cookie(served: Served) -> dict[str, str]:
    return {"Cookie": f"tracker-token-{served.port}={served.token}"}


@FUZZ
@given(
    path=st.sampled_from(["/", "/ws", "/ws/x", "/static/js/textual.js", "/static/",
                          "/download/x", "/favicon.ico"])
    | st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789/._-", max_size=20).map(
        lambda text: "/" + text
    ),
    token=st.sampled_from(["none", "cookie", "address", "wrong"]),
)  # fmt: skip
def test_no_response_may_be_framed(served: Served, path: str, token: str) -> None:
    """Every answer, whatever its route and status (200, 403, 404), forbids framing."""
    query = {"address": f"?token={served.token}", "wrong": "?token=wrong"}.get(token, "")
    answer = get(served, path + query, cookie(served) if token == "cookie" else None)
    assert {name: answer.headers.get(name) for name in FRAMING} == FRAMING


def test_the_page_is_not_cached_sends_no_referrer_and_keeps_no_opener(served: Served) -> None:
    answer = get(served, f"/?token={served.token}")
    assert answer.status == 200
    assert {name: answer.headers.get(name) for name in FRAMING} == FRAMING
    assert answer.headers["cache-control"] == "no-store"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["cross-origin-opener-policy"] == "same-origin"


def test_the_page_opens_only_with_the_token_in_its_address(served: Served) -> None:
    """The cookie, which a page of another port of this machine makes the browser send, is
    not enough for the page; it still serves the page's own files."""
    refused = get(served, "/", cookie(served))
    assert refused.status == 403
    assert "the page opens only at the address that `tracker serve` printed" in refused.body
    assert "websocket-url" not in refused.body
    assert get(served, "/static/js/textual.js", cookie(served)).status == 200
    assert get(served, f"/?token={served.token}", cookie(served)).status == 200


@FUZZ
@given(dest=st.sampled_from(NOT_A_TAB) | st.from_regex(r"[a-z]{1,12}", fullmatch=True))
def test_the_page_opens_only_as_a_tabs_own_page(served: Served, dest: str) -> None:
    """A browser that says it loads the page into a frame, an object or a script's fetch is
    refused, even with the token; a tab's page (or a client that does not say) is served."""
    if dest == "document":
        return
    refused = get(served, f"/?token={served.token}", {"Sec-Fetch-Dest": dest})
    assert refused.status == 403
    assert f"not inside another page (Sec-Fetch-Dest: {dest!r})" in refused.body
    assert "websocket-url" not in refused.body


def test_a_tabs_page_is_served_whoever_linked_to_it(served: Served) -> None:
    """The printed address followed from a tab, from another local page or from any client."""
    tab = {"Sec-Fetch-Dest": "document"}
    for headers in ({}, tab, *({**tab, "Sec-Fetch-Site": site} for site in SITES)):
        assert get(served, f"/?token={served.token}", headers).status == 200, headers


@pytest.mark.parametrize("site", ["same-site", "cross-site"])
def test_another_sites_request_is_refused(served: Served, site: str) -> None:
    """A browser's request from another site's page (another port of this machine is the same
    site, not the same origin), with the cookie the browser sends along."""
    before = served.apps()
    headers = cookie(served) | {"Sec-Fetch-Site": site}
    assert get(served, "/static/js/textual.js", headers).status == 403
    status = handshake(served, cookie=served.token, origin=served.origin,
                       headers={"Sec-Fetch-Site": site})  # fmt: skip
    assert status == 403
    assert f"a request from another site's page (Sec-Fetch-Site: {site!r}" in served.err()
    same = cookie(served) | {"Sec-Fetch-Site": "same-origin"}
    assert get(served, "/static/js/textual.js", same).status == 200
    assert served.apps() == before


def test_an_app_starts_once_per_page_served(served: Served) -> None:
    before = served.apps()
    page = new_page(served)
    assert handshake(served, cookie=served.token, origin=served.origin, page=page) == 101
    # The same page's name again (a copy of the page, a replay), a name of one's own, none.
    assert handshake(served, cookie=served.token, origin=served.origin, page=page) == 403
    assert handshake(served, cookie=served.token, origin=served.origin, page="x" * 32) == 403
    assert handshake(served, cookie=served.token, origin=served.origin, page=None) == 404
    assert "the app opens only from a page this server served, once per page" in served.err()
    wait_until(lambda: served.apps() == before)  # the one app ended with its connection


def test_a_page_name_is_no_token(served: Served) -> None:
    """A page's name does not stand in for the token or the page's origin."""
    assert handshake(served, origin=served.origin, page=FRESH) == 403
    assert handshake(served, cookie=served.token, origin="http://127.0.0.1:1", page=FRESH) == 403


def test_only_the_newest_pages_can_start_an_app() -> None:
    """Pages whose app never connected are forgotten past OPEN_PAGES: the server's memory of
    them is bounded."""
    access = Access(token="t", cookie="c", origin="http://127.0.0.1:8000", secure=False)
    pages = [access.new_page() for _ in range(OPEN_PAGES + 1)]
    asked = Asked(route="websocket", query_token=None, cookie_token="t",
                  origin="http://127.0.0.1:8000")  # fmt: skip
    assert access.refusal(Asked(**{**asked.__dict__, "page": pages[0]})) is not None
    assert access.refusal(Asked(**{**asked.__dict__, "page": pages[-1]})) is None
    assert access.refusal(Asked(**{**asked.__dict__, "page": pages[-1]})) is not None
