"""An API URL answered with a web page (a website, a login page, a captive portal, a proxy's page): the HTTP
clients' hook that notices it and the error it becomes (re-exported by data.providers.errors)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import (
    InvalidResponse,
)


class WebPageAnswer(Exception):
    """An API call was answered with an HTML page (a website, a login page, a captive portal, a proxy's page).

    Raised by the HTTP clients' response hook (WEB_PAGE_HOOKS); the SDK wraps it as a connection error, and the
    retry layer turns it back into `web_page_error`'s InvalidResponse, which is not retried."""

    def __init__(self, url: str, status: int) -> None:
        super().__init__(f"HTTP {status} text/html from {url}")
        self.url, self.status = url, status


def web_page_message(url: str, status: int = 200) -> str:
    """What to tell the user when an API URL served a web page."""
    code = "" if status == 200 else f" (HTTP {status})"
    return (f"The server at {url} answered with a web page{code}, not an API response. Check the provider's base "
            "URL: it may point at a website, a login page or a proxy.")


def page_url(url: Any) -> str:
    """The URL without its query string and fragment (a query may carry a key)."""
    return str(url).split("?", 1)[0].split("#", 1)[0]


async def reject_web_pages(response: Any) -> None:
    """httpx response hook: raises WebPageAnswer for an HTML answer below 500 (5xx pages stay retryable)."""
    content_type = str(response.headers.get("content-type", "")).lower()
    if content_type.startswith(("text/html", "application/xhtml")) and response.status_code < 500:
        raise WebPageAnswer(page_url(response.request.url), response.status_code)


WEB_PAGE_HOOKS: Mapping[str, list[Any]] = {"response": [reject_web_pages]}


def looks_like_html(text: str) -> bool:
    """True when a body that should have been JSON starts like an HTML document."""
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body")) or "<html" in head


def web_page_error(error: BaseException) -> InvalidResponse | None:
    """The InvalidResponse to raise instead of `error` when a WebPageAnswer is anywhere in its chain, else None."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, WebPageAnswer):
            return InvalidResponse(web_page_message(current.url, current.status))
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
