"""The http_request tool: fetches an http(s) URL with a time limit and a size cap, HTML reduced to text."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx

from data.tools.base import ToolArgumentError, require_str
from data.tools.html_text import html_to_text, looks_like_html
from domain.models import ToolDefinition
from domain.ports import ToolContext, ToolOutcome

DEFAULT_TIMEOUT_S = 20.0
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

DEFINITION = ToolDefinition(
    name="http_request",
    description=(
        "Make an HTTP or HTTPS request and return the status and the response body as text. "
        "HTML pages are reduced to their readable text. Large bodies are cut at 5 MB."
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
    """Runs http_request; network failures, bad URLs and timeouts become error outcomes."""

    definition = DEFINITION

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT_S, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._ssl: ssl.SSLContext | None = None

    def _ssl_context(self) -> ssl.SSLContext:
        """The TLS context, built once: loading the certificate store costs tens of milliseconds per client."""
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context(trust_env=False)
        return self._ssl

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        url, method, headers, body = _parse(arguments)
        try:
            status, reason, content_type, raw, capped = await asyncio.wait_for(
                self._fetch(url, method, headers, body), timeout=self._timeout
            )
        except (TimeoutError, httpx.TimeoutException):
            return ToolOutcome(f"The request to {url} timed out after {self._timeout:g} s.", is_error=True)
        except httpx.HTTPError as err:
            return ToolOutcome(f"The request to {url} failed: {_describe(err)}.", is_error=True)
        text = _decode(raw, content_type)
        if looks_like_html(content_type, text):
            text = html_to_text(text)
        header = f"HTTP {status} {reason}".rstrip()
        if content_type:
            header += f"\nContent-Type: {content_type}"
        if capped:
            header += f"\n[body cut at {self._max_bytes} bytes; the rest was not read]"
        return ToolOutcome(f"{header}\n\n{text}")

    async def _fetch(
        self, url: str, method: str, headers: dict[str, str], body: str | None
    ) -> tuple[int, str, str, bytes, bool]:
        timeout = httpx.Timeout(self._timeout)
        async with (
            httpx.AsyncClient(
                timeout=timeout, follow_redirects=True, trust_env=False, verify=self._ssl_context()
            ) as client,
            client.stream(method, url, headers=headers, content=body) as response,
        ):
            chunks: list[bytes] = []
            size = 0
            capped = False
            async for chunk in response.aiter_bytes():
                room = self._max_bytes - size
                if len(chunk) > room:
                    chunks.append(chunk[:room])
                    capped = True
                    break
                chunks.append(chunk)
                size += len(chunk)
            return (
                response.status_code,
                response.reason_phrase,
                response.headers.get("content-type", ""),
                b"".join(chunks),
                capped,
            )


def _parse(arguments: Mapping[str, Any]) -> tuple[str, str, dict[str, str], str | None]:
    url = require_str(arguments, "url").strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        shown = parts.scheme or "none"
        raise ToolArgumentError(f"Only http and https URLs are allowed (scheme was {shown!r}).")
    if not parts.netloc:
        raise ToolArgumentError(f"The URL {url!r} has no host.")
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
    return url, method.upper(), headers, body


def _decode(raw: bytes, content_type: str) -> str:
    charset = "utf-8"
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"' ")
    try:
        return raw.decode(charset, errors="replace")
    except LookupError:
        return raw.decode("utf-8", errors="replace")


def _describe(err: httpx.HTTPError) -> str:
    detail = str(err).strip()
    return f"{type(err).__name__}: {detail}" if detail else type(err).__name__
