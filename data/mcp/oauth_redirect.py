"""The CLI's side of an OAuth sign-in: shows the authorization URL and waits for the browser's redirect on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Callable
from urllib.parse import parse_qs, urlparse

from mcp.shared.auth import AuthorizationCodeResult

SIGN_IN_TIMEOUT_S = 300.0
CALLBACK_PATH = "/callback"
# (server name, authorization URL): tells the person where to sign in; True when it opened the browser itself
ShowSignIn = Callable[[str, str], bool | None]

_PAGE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
         b"<!doctype html><title>Palimpsest</title><p>Signed in. You can close this tab and go back to Palimpsest.")
_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redirect_uri(port: int) -> str:
    """The redirect URI registered with the authorization server."""
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


class RedirectListener:
    """One sign-in: `show` listens on the redirect port, then hands over the URL (and opens a browser when a display
    exists); `wait` returns the code and state the authorization server redirected the browser with."""

    def __init__(self, server: str, port: int, show: ShowSignIn, timeout_s: float = SIGN_IN_TIMEOUT_S) -> None:
        self._server_name, self._port, self._show, self._timeout = server, port, show, timeout_s
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self._listener: asyncio.Server | None = None

    async def show(self, url: str) -> None:
        """The SDK's redirect_handler."""
        self._result = asyncio.get_running_loop().create_future()
        self._listener = await asyncio.start_server(self._on_request, "127.0.0.1", self._port)
        opened = self._show(self._server_name, url)
        if opened is not True and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            import webbrowser

            with contextlib.suppress(Exception):  # no browser: the printed URL is enough
                webbrowser.open(url)

    async def wait(self) -> AuthorizationCodeResult:
        """The SDK's callback_handler: TimeoutError when nobody signs in in time."""
        assert self._result is not None, "show() runs first"
        try:
            return await asyncio.wait_for(self._result, self._timeout)
        except TimeoutError:
            raise TimeoutError(f"nobody signed in to {self._server_name} within {self._timeout:g} s") from None
        finally:
            if self._listener is not None:
                self._listener.close()

    async def _on_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)).strip():
                pass  # the headers: nothing in them is needed
            parts = line.split()
            target = urlparse(parts[1]) if len(parts) >= 2 else None
            query = parse_qs(target.query) if target else {}
            if target is None or target.path != CALLBACK_PATH or ("code" not in query and "error" not in query):
                writer.write(_NOT_FOUND)
                return
            writer.write(_PAGE)
            if self._result is not None and not self._result.done():
                if "error" in query:
                    why = query.get("error_description", query["error"])[0]
                    self._result.set_exception(PermissionError(f"the sign-in was refused: {why}"))
                else:
                    self._result.set_result(AuthorizationCodeResult(
                        code=query["code"][0], state=_first(query, "state"), iss=_first(query, "iss")))
        except (TimeoutError, ConnectionError, UnicodeError):
            return
        finally:
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            writer.close()


def _first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None
