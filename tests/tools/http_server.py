"""A local HTTP(S) server for the http_request tests: fixed routes, and a record of every request that reached it."""

from __future__ import annotations

import ssl
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.serving import serving


@dataclass(frozen=True)
class Route:
    """What one path answers."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class RecordingServer:
    """Serves `routes` on 127.0.0.1 (any method; unknown paths are 404) and records each request in `seen`."""

    def __init__(self, routes: Mapping[str, Route], ssl_context: ssl.SSLContext | None = None) -> None:
        self.routes = dict(routes)
        self.seen: list[Seen] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        if ssl_context is not None:
            self._httpd.socket = ssl_context.wrap_socket(self._httpd.socket, server_side=True)

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self._httpd.server_address[1])

    @property
    def paths(self) -> list[str]:
        """The paths requested so far, in order."""
        return [s.path for s in self.seen]

    @contextmanager
    def running(self) -> Iterator[RecordingServer]:
        """Serves from a daemon thread until the block ends."""
        with serving(self._httpd):
            yield self


def _handler(server: RecordingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length) if length else b""
            server.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            route = server.routes.get(self.path, Route(404, b"not here", {"Content-Type": "text/plain"}))
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            if self.command != "HEAD":
                try:
                    self.wfile.write(route.body)
                except (ConnectionError, ssl.SSLError):  # the client stopped reading
                    pass

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

    return Handler
