"""The http_request tool: fetches a public http(s) URL with a time limit and a size cap, HTML reduced to text.

Hosts on the user's own machine or network are refused unless the user allowed them (net_guard); methods other than
GET and HEAD run only when the user approves them; binary bodies are described, not dumped.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from data.tools.base import ToolArgumentError, require_str
from data.tools.html_text import html_to_text, looks_like_html
from data.tools.http_body import decode_text, describe_binary, is_binary
from data.tools.http_fetch import SAFE_METHODS, Fetched, HttpCall, PinnedFetcher, host_of, port_of
from data.tools.net_guard import AllowedHosts, NetGuard, Resolver, TargetError, system_resolver
from domain.models import ToolDefinition
from domain.provider_ports import ToolContext, ToolOutcome
from domain.tool_approval import ApprovalRequest, DenyAllApprover, ToolApprover

if TYPE_CHECKING:  # the HTTP client is imported when a request is made, not with the tool's definition
    import httpx2 as httpx

DEFAULT_TIMEOUT_S = 20.0
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
AllowedHostsSource = Iterable[str] | Callable[[], Iterable[str]]
"""Host names, IP addresses or CIDR networks the user allowed, or a callable read on every request."""

DEFINITION = ToolDefinition(
    name="http_request",
    description=(
        "Make an HTTP or HTTPS request to a public internet address and return the status and the response body as "
        "text. HTML pages are reduced to their readable text; binary bodies are described by type and size. Large "
        "bodies are cut at 5 MB. Addresses on the user's own machine or local network are refused unless the user "
        "allowed them, and methods other than GET and HEAD are sent only after the user approves."
    ),
    parameters={
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "Absolute http:// or https:// URL."},
            "method": {"type": "string", "enum": list(_METHODS), "description": "HTTP method, GET by default."},
            "headers": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "Request headers.",
            },
            "body": {"type": "string", "description": "Request body, for POST, PUT and PATCH."},
        },
        "required": ["url"],
    },
)


class HttpRequestTool:
    """Runs http_request; refused hosts, refused approvals, network failures and timeouts become error outcomes."""

    definition = DEFINITION

    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        max_bytes: int = DEFAULT_MAX_BYTES,
        allowed_hosts: AllowedHostsSource = (),
        approver: ToolApprover | None = None,
        resolver: Resolver = system_resolver,
        environ: Mapping[str, str] = os.environ,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._allowed_source = allowed_hosts if callable(allowed_hosts) else None
        self._allowed_fixed = AllowedHosts.parse(() if callable(allowed_hosts) else allowed_hosts)
        self._approver: ToolApprover = approver or DenyAllApprover()
        self._ssl = ssl_context
        self._guard = NetGuard(self._allowed, resolver=resolver, environ=environ)
        self._fetcher = PinnedFetcher(self._guard, self._ssl_context, timeout=timeout, max_bytes=max_bytes)

    async def aclose(self) -> None:
        """Closes the connections kept for later requests; call it on the event loop that ran the tool."""
        await self._fetcher.aclose()

    def _allowed(self) -> AllowedHosts:
        if self._allowed_source is None:
            return self._allowed_fixed
        return AllowedHosts.parse(self._allowed_source())

    def _ssl_context(self) -> ssl.SSLContext:
        """The TLS context, built once: loading the certificate store costs tens of milliseconds per client."""
        import httpx2 as httpx
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context(trust_env=False)
        return self._ssl

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        import httpx2 as httpx
        call, url = _parse(arguments)
        try:
            target = await asyncio.wait_for(self._guard.check(host_of(url), port_of(url)), timeout=self._timeout)
        except TargetError as err:
            return ToolOutcome(err.message, is_error=True)
        except TimeoutError:
            return ToolOutcome(f"Looking up {url.host} timed out after {self._timeout:g} s.", is_error=True)
        if call.method not in SAFE_METHODS and not await self._approver.approve(approval_request(call)):
            return ToolOutcome(
                f"The user did not allow this {call.method} request to {call.url}, so it was not sent. Requests other "
                "than GET and HEAD need the user's approval; do not retry unless the user asks for it.",
                is_error=True,
            )
        try:
            fetched = await asyncio.wait_for(self._fetcher.fetch(call, target), timeout=self._timeout)
        except (TimeoutError, httpx.TimeoutException):
            return ToolOutcome(f"The request to {call.url} timed out after {self._timeout:g} s.", is_error=True)
        except TargetError as err:
            return ToolOutcome(err.message, is_error=True)
        except httpx.HTTPError as err:
            return ToolOutcome(f"The request to {call.url} failed: {_describe(err)}.", is_error=True)
        return ToolOutcome(_render(fetched, call.method, self._max_bytes))


def approval_request(call: HttpCall) -> ApprovalRequest:
    """What the user is shown before a request other than GET/HEAD: method, URL, headers and body."""
    headers = "\n".join(f"{name}: {value}" for name, value in call.headers.items()) or "(none)"
    return ApprovalRequest(
        tool="http_request",
        title=f"Allow the model to send {call.method} {call.url}?",
        details=(("Method", call.method), ("URL", call.url), ("Headers", headers), ("Body", call.body or "(none)")),
    )


def _render(fetched: Fetched, method: str, max_bytes: int) -> str:
    header = f"HTTP {fetched.status} {fetched.reason}".rstrip()
    if fetched.redirects:
        header += f"\nURL after {fetched.redirects} redirect(s): {fetched.final_url}"
    if fetched.content_type:
        header += f"\nContent-Type: {fetched.content_type}"
    if fetched.location:
        header += (
            f"\nLocation: {fetched.location}\n[redirect not followed: it would send {method} again, to another URL; "
            "make a new request there if needed (the user is asked first)]"
        )
    body = fetched.body
    if is_binary(body, fetched.content_type):
        return f"{header}\n\n{describe_binary(fetched.content_type, len(body), fetched.capped)}"
    if fetched.capped:
        header += f"\n[body cut at {max_bytes} bytes; the rest was not read]"
    text = decode_text(body, fetched.content_type)
    body.clear()  # the raw bytes are not needed any more; free them before parsing
    if looks_like_html(fetched.content_type, text):
        text = html_to_text(text)
    return f"{header}\n\n{text}"


def _parse(arguments: Mapping[str, Any]) -> tuple[HttpCall, httpx.URL]:
    import httpx2 as httpx
    raw_url = require_str(arguments, "url").strip()
    try:
        url = httpx.URL(raw_url)
    except (httpx.InvalidURL, UnicodeError) as err:
        raise ToolArgumentError(f"The URL {raw_url!r} is not valid: {err}.") from err
    if url.scheme.lower() not in ("http", "https"):
        shown = url.scheme or "none"
        raise ToolArgumentError(f"Only http and https URLs are allowed (scheme was {shown!r}).")
    if not url.host:
        raise ToolArgumentError(f"The URL {raw_url!r} has no host.")
    method = arguments.get("method") or "GET"
    if not isinstance(method, str) or method.upper() not in _METHODS:
        raise ToolArgumentError(f"Argument 'method' must be one of {', '.join(_METHODS)}.")
    raw_headers = arguments.get("headers") or {}
    if not isinstance(raw_headers, Mapping):
        raise ToolArgumentError("Argument 'headers' must be an object of header names to string values.")
    headers = {str(k): str(v) for k, v in raw_headers.items()}
    body = arguments.get("body")
    if body is not None and not isinstance(body, str):
        raise ToolArgumentError("Argument 'body' must be a string.")
    return HttpCall(method.upper(), raw_url, headers, body), url


def _describe(err: httpx.HTTPError) -> str:
    detail = str(err).strip()
    return f"{type(err).__name__}: {detail}" if detail else type(err).__name__
