"""http_request keeps a connection alive for the next request only to the same checked address under the same name,
and keeps no cookies: a kept-alive HTTP/1.1 server on loopback records which connection each request came on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from data.tools.http_request import HttpRequestTool
from domain.provider_ports import ToolContext
from tests.serving import serving
from tests.tools.fakes import FakeResolver

CTX = ToolContext(session_id="s1", agent_id=None)


@dataclass(frozen=True)
class Arrival:
    """One request as a server saw it: the connection (the client's port), the path, the headers."""

    connection: int
    path: str
    host: str | None
    cookie: str | None


class KeepAliveServer:
    """An HTTP/1.1 server that keeps connections open; `/cookie` sets a cookie, `/hop` redirects to `/page`."""

    def __init__(self, address: str = "127.0.0.1", port: int = 0) -> None:
        self.arrivals: list[Arrival] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                outer.arrivals.append(Arrival(self.client_address[1], self.path, self.headers.get("Host"),
                                              self.headers.get("Cookie")))
                body = f"{address} {self.path}".encode()
                self.send_response(302 if self.path == "/hop" else 200)
                if self.path == "/hop":
                    self.send_header("Location", "/page")
                if self.path == "/cookie":
                    self.send_header("Set-Cookie", "session=secret; Path=/")
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer((address, port), Handler)
        self._httpd.daemon_threads = True

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def connections(self) -> list[int]:
        """The connection of each request, in order."""
        return [a.connection for a in self.arrivals]

    @contextmanager
    def running(self) -> Iterator[KeepAliveServer]:
        with serving(self._httpd):
            yield self


@pytest.fixture(autouse=True)
def _no_allowed_hosts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PALIMPSEST_TOOL_ALLOW_HOSTS", raising=False)


@pytest.fixture()
def server() -> Iterator[KeepAliveServer]:
    with KeepAliveServer().running() as running:
        yield running


def tool(resolver: FakeResolver | None = None) -> HttpRequestTool:
    return HttpRequestTool(allowed_hosts=("127.0.0.1", "127.0.0.2"), resolver=resolver or FakeResolver(strict=True))


async def test_requests_to_the_same_checked_address_and_name_reuse_one_connection(server: KeepAliveServer) -> None:
    http = tool(FakeResolver({"pages.test": ["127.0.0.1"]}))
    try:
        for path in ("/a", "/b", "/hop", "/c"):
            outcome = await http.run({"url": f"http://pages.test:{server.port}{path}"}, CTX)
            assert not outcome.is_error, outcome.output
    finally:
        await http.aclose()
    assert [a.path for a in server.arrivals] == ["/a", "/b", "/hop", "/page", "/c"]  # the redirect's hop included
    a, b, hop, page, c = server.connections
    assert a == b == hop  # one kept connection, not a client per request
    assert page == c  # a redirect's unread body ends its connection; the hop's new one is kept in turn
    assert {a.host for a in server.arrivals} == {f"pages.test:{server.port}"}


async def test_another_name_on_the_same_address_gets_its_own_connection(server: KeepAliveServer) -> None:
    http = tool(FakeResolver({"one.test": ["127.0.0.1"], "two.test": ["127.0.0.1"]}))
    try:
        for host in ("one.test", "two.test", "one.test"):
            outcome = await http.run({"url": f"http://{host}:{server.port}/page"}, CTX)
            assert not outcome.is_error, outcome.output
    finally:
        await http.aclose()
    first, second, third = server.connections
    assert first == third and second != first  # each (name, address) keeps its own connection


async def test_a_name_that_resolves_elsewhere_later_is_sent_to_the_new_address_not_the_kept_connection() -> None:
    old = KeepAliveServer("127.0.0.1")
    new = KeepAliveServer("127.0.0.2", old.port)  # the same port on another loopback address
    with old.running(), new.running():
        resolver = FakeResolver({"moving.test": ["127.0.0.1"]}, later={"moving.test": ["127.0.0.2"]})
        http = tool(resolver)
        try:
            for _ in range(2):
                outcome = await http.run({"url": f"http://moving.test:{old.port}/page"}, CTX)
                assert not outcome.is_error, outcome.output
        finally:
            await http.aclose()
    assert [a.path for a in old.arrivals] == ["/page"]  # the kept connection to the old address was not used
    assert [a.path for a in new.arrivals] == ["/page"]


async def test_a_cookie_set_by_one_response_is_never_sent_again(server: KeepAliveServer) -> None:
    http = tool(FakeResolver({"pages.test": ["127.0.0.1"]}))
    try:
        for path in ("/cookie", "/page", "/hop"):
            outcome = await http.run({"url": f"http://pages.test:{server.port}{path}"}, CTX)
            assert not outcome.is_error, outcome.output
    finally:
        await http.aclose()
    assert [a.path for a in server.arrivals] == ["/cookie", "/page", "/hop", "/page"]
    assert [a.cookie for a in server.arrivals] == [None, None, None, None]


async def test_kept_clients_are_bounded_and_closed() -> None:
    from data.tools.http_fetch import KEPT_CLIENTS

    names = [f"site{i}.test" for i in range(KEPT_CLIENTS + 2)]
    with KeepAliveServer().running() as server:
        http = tool(FakeResolver({name: ["127.0.0.1"] for name in names}))
        try:
            for name in names:
                outcome = await http.run({"url": f"http://{name}:{server.port}/page"}, CTX)
                assert not outcome.is_error, outcome.output
            kept = list(http._fetcher._clients.values())
            assert len(kept) == KEPT_CLIENTS
        finally:
            await http.aclose()
    assert all(client.is_closed for client in kept)
    assert not http._fetcher._clients


async def test_a_client_with_a_request_in_flight_is_never_closed_to_make_room() -> None:
    import httpx2

    from data.tools.http_fetch import KEPT_CLIENTS, HttpCall

    names = [f"site{i}.test" for i in range(KEPT_CLIENTS + 2)]
    with KeepAliveServer().running() as server:
        http = tool(FakeResolver({name: ["127.0.0.1"] for name in names}))
        fetcher, guard = http._fetcher, http._guard
        try:
            first = await guard.check(names[0], server.port)
            async with fetcher._open(HttpCall("GET", f"http://{names[0]}:{server.port}/page"),
                                     httpx2.URL(f"http://{names[0]}:{server.port}/page"), first) as response:
                for name in names[1:]:  # more pinned clients than are kept, while the first one is reading
                    outcome = await http.run({"url": f"http://{name}:{server.port}/page"}, CTX)
                    assert not outcome.is_error, outcome.output
                in_flight = fetcher._clients.get(("http", names[0], "127.0.0.1", server.port))
                assert in_flight is not None and not in_flight.is_closed  # not closed under its request
                assert (await response.aread()).endswith(b"/page")
            assert len(fetcher._clients) == KEPT_CLIENTS  # idle ones made room instead

        finally:
            await http.aclose()
