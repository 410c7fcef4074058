"""Transport failures of the SDKs' HTTP stacks: whether an exception is one, how it happened (refused, DNS, TLS,
cut, timeouts) and the URL tried, shown without credentials (re-exported by data.providers.errors)."""

from __future__ import annotations

import socket
import ssl
from typing import Any

from data.providers.web_page_errors import page_url
from domain.errors import (
    NetworkError,
    NetworkFailure,
)


def is_transport_failure(exc: BaseException) -> bool:
    """True for connection problems from the SDKs' HTTP stacks (httpx, httpx2, httpcore, aiohttp, sockets,
    timeouts)."""
    module = type(exc).__module__ or ""
    if module.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2", "h11", "aiohttp"):
        return True
    return isinstance(exc, (ConnectionError, TimeoutError))


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and those it was raised from or during, outermost first."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in out):
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _named(exc: BaseException, *names: str) -> bool:
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def network_reason(exc: BaseException) -> NetworkFailure:
    """How a transport failure happened, read from the innermost causes the SDKs wrap (the openai SDK's aiohttp
    transport reports a refused connection as a connect *timeout*; the socket error under it says what it was)."""
    chain = _chain(exc)
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return "refused"
    if any(isinstance(e, socket.gaierror) or _named(e, "ClientConnectorDNSError") for e in chain):
        return "dns"
    if any(isinstance(e, ssl.SSLError) or _named(e, "ClientSSLError", "ClientConnectorCertificateError")
           for e in chain):
        return "tls"
    if any(isinstance(e, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError))
           or _named(e, "ClientPayloadError", "ServerDisconnectedError", "RemoteProtocolError", "ReadError",
                     "IncompleteRead", "TransferEncodingError") for e in chain):
        return "cut"
    if any(_named(e, "ConnectionTimeoutError") or (type(e).__name__ == "ConnectTimeout"
                                                     and type(e).__module__.startswith("httpcore")) for e in chain):
        return "connect_timeout"  # aiohttp's or httpcore's own (the openai SDK's transport calls any failure to
        # connect an httpx ConnectTimeout, so that one alone proves nothing)
    if any(isinstance(e, TimeoutError) or type(e).__name__.endswith("Timeout") or _named(e, "APITimeoutError")
           for e in chain):
        return "timeout"
    return "failed"


def public_url(url: Any) -> str:
    """The URL as it may be shown: no user name or password, no query string (a key may ride in it), no fragment."""
    text = page_url(url)
    scheme, sep, rest = text.partition("//")
    if not sep:
        return text
    netloc, slash, path = rest.partition("/")
    return f"{scheme}//{netloc.rsplit('@', 1)[-1]}{slash}{path}"


def request_url(exc: BaseException) -> str | None:
    """The public URL of the request that failed, from the first exception of the chain that carries one."""
    for e in _chain(exc):
        try:
            url = getattr(getattr(e, "request", None), "url", None)
        except RuntimeError:  # httpx: "The .request property has not been set."
            url = None
        if url is not None:
            return public_url(url)
    return None


def network_error(exc: BaseException, url: str | None = None) -> NetworkError:
    """The NetworkError of a transport failure: its reason and the URL tried (the request's, else `url`)."""
    return NetworkError(reason=network_reason(exc), url=request_url(exc) or (public_url(url) if url else None))
