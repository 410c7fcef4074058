"""Sends an http_request call to checked addresses only, following redirects by hand so that every hop is checked.

The URL's host is resolved once by the NetGuard; the connection goes to the checked IP, with the original Host header
and, for https, the original name as TLS SNI and certificate name, so a second DNS answer (rebinding) never counts.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import TYPE_CHECKING

from data.tools.net_guard import CheckedTarget, NetGuard, RefusedTarget, TargetError

if TYPE_CHECKING:  # the HTTP client is imported when a request is made, not with the tool's definition
    import httpx2 as httpx

SAFE_METHODS = frozenset({"GET", "HEAD"})
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 10
_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")
_BODY_HEADERS = ("content-type", "content-length", "content-encoding", "transfer-encoding")
KEPT_CLIENTS = 8  # pinned (scheme, TLS name, address, port) clients kept open; the least recently used idle one closed
Pin = tuple[str, str, str, int]


@dataclass(frozen=True)
class HttpCall:
    """One request as the model asked for it."""

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None


@dataclass(frozen=True)
class Fetched:
    """The final response: status, type, the body read up to the cap, and where the redirects led."""

    status: int
    reason: str
    content_type: str
    body: bytearray
    capped: bool
    final_url: str
    redirects: int
    location: str | None = None  # a redirect that was not followed


class PinnedFetcher:
    """Fetches through clients kept per pinned address: one client (and its connection pool) per scheme, TLS name,
    checked address and port, so a kept-alive connection is only ever reused for the same checked address and the
    same name; no client keeps cookies. The clients belong to the event loop that made them (`aclose` there)."""

    def __init__(
        self,
        guard: NetGuard,
        verify: Callable[[], ssl.SSLContext],
        *,
        timeout: float,
        max_bytes: int,
        max_redirects: int = MAX_REDIRECTS,
    ) -> None:
        self._guard = guard
        self._verify = verify
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._max_redirects = max_redirects
        self._clients: OrderedDict[Pin, httpx.AsyncClient] = OrderedDict()
        self._busy: dict[Pin, int] = {}  # requests in flight per pinned client (never closed under them)
        self._loop: asyncio.AbstractEventLoop | None = None

    async def fetch(self, call: HttpCall, target: CheckedTarget) -> Fetched:
        """The response to `call` sent to `target` (already checked), redirects followed and each re-checked.

        A redirect that would repeat a method other than GET/HEAD is not followed: it is returned as it is, so the
        model can make a new request (which the user is asked to allow)."""
        import httpx2 as httpx
        url = httpx.URL(call.url)
        for hop in range(self._max_redirects + 1):
            async with self._open(call, url, target) as response:
                location = response.headers.get("location")
                if response.status_code not in REDIRECT_CODES or not location:
                    return await self._read(response, url, hop)
                next_call, next_url = redirected(call, url, response.status_code, location)
                if next_call.method not in SAFE_METHODS:
                    return await self._read(response, url, hop, location=str(next_url))
            if hop == self._max_redirects:
                break
            if next_url.scheme not in ("http", "https"):
                raise TargetError(f"The server redirected to {next_url}, which is not an http or https URL.")
            try:
                target = await self._guard.check(host_of(next_url), port_of(next_url))
            except RefusedTarget as err:
                raise RefusedTarget(f"The server redirected to {next_url}. {err.message}") from err
            call, url = next_call, next_url
        raise TargetError(f"Stopped after {self._max_redirects} redirects (the last one pointed to {next_url}).")

    async def aclose(self) -> None:
        """Closes the kept clients' connections; call it on the event loop that fetched."""
        clients = list(self._clients.values())
        self._clients.clear()
        for client in clients:
            await client.aclose()

    async def _client(self, pin: Pin) -> httpx.AsyncClient:
        """The kept client of a pinned address, made on first use (clients of another event loop are dropped)."""
        import httpx2 as httpx
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # their connections belong to a loop that may be gone: not reused, not awaited
            self._clients.clear()
            self._busy.clear()
            self._loop = loop
        client = self._clients.get(pin)
        if client is not None:
            self._clients.move_to_end(pin)
            return client
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout), follow_redirects=False, trust_env=False, verify=self._verify(),
            cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])),  # no cookie is kept from one fetch to the next
        )
        self._clients[pin] = client
        idle = [kept for kept in self._clients if kept != pin and not self._busy.get(kept)]
        for kept in idle[:max(0, len(self._clients) - KEPT_CLIENTS)]:  # the least recently used first
            await self._clients.pop(kept).aclose()
        return client

    @asynccontextmanager
    async def _open(self, call: HttpCall, url: httpx.URL, target: CheckedTarget) -> AsyncIterator[httpx.Response]:
        """The response's head, from the first checked address that accepts the connection."""
        import httpx2 as httpx
        headers = httpx.Headers(dict(call.headers))
        if "host" not in headers:
            headers["Host"] = url.netloc.decode("ascii")
        extensions = {"sni_hostname": target.host} if url.scheme == "https" else {}
        port = port_of(url)
        for index, address in enumerate(target.addresses):
            pin = (url.scheme, target.host, str(address), port)
            client = await self._client(pin)
            self._busy[pin] = self._busy.get(pin, 0) + 1
            try:
                try:
                    request = client.build_request(
                        call.method, url.copy_with(host=str(address)), headers=headers, content=call.body,
                        extensions=extensions,
                    )
                    response = await client.send(request, stream=True)
                except httpx.ConnectError:  # no connection was made: the client stays for the next request
                    if index + 1 < len(target.addresses):
                        continue  # the next address of the host, as a browser would
                    raise
                try:
                    yield response
                finally:
                    await response.aclose()
                return
            finally:
                left = self._busy.get(pin, 1) - 1
                if left:
                    self._busy[pin] = left
                else:
                    self._busy.pop(pin, None)

    async def _read(self, response: httpx.Response, url: httpx.URL, hops: int, location: str | None = None) -> Fetched:
        body = bytearray()
        capped = False
        async for chunk in response.aiter_bytes():
            room = self._max_bytes - len(body)
            if len(chunk) > room:
                body += chunk[:room]
                capped = True
                break
            body += chunk
        return Fetched(
            response.status_code, response.reason_phrase, response.headers.get("content-type", ""), body, capped,
            str(url), hops, location,
        )


def host_of(url: httpx.URL) -> str:
    """The URL's host as it goes on the wire: IDNA-encoded, IPv6 without brackets."""
    return url.raw_host.decode("ascii")


def port_of(url: httpx.URL) -> int:
    """The URL's port, or its scheme's default."""
    return url.port or (443 if url.scheme == "https" else 80)


def redirected(call: HttpCall, url: httpx.URL, status: int, location: str) -> tuple[HttpCall, httpx.URL]:
    """The request a redirect asks for, as browsers make it: 303 (and 301/302 after POST) turn into GET without the
    body; credentials are not carried to another origin."""
    next_url = url.join(location)
    method = call.method
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        method = "GET"
    headers = dict(call.headers)
    body = call.body
    if method != call.method:
        body = None
        headers = {k: v for k, v in headers.items() if k.lower() not in _BODY_HEADERS}
    if (next_url.scheme, next_url.host, port_of(next_url)) != (url.scheme, url.host, port_of(url)):
        headers = {k: v for k, v in headers.items() if k.lower() not in (*_CREDENTIAL_HEADERS, "host")}
        next_url = next_url.copy_with(userinfo=b"")
    return HttpCall(method, str(next_url), headers, body), next_url
