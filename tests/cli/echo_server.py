"""A local HTTP server on 127.0.0.1 for the tool-guard tests: records every request, answers GET and POST."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    """What the local server was sent: (method, path, body, headers)."""

    requests: list[tuple[str, str, str, dict[str, str]]] = field(default_factory=list)


class EchoServer:
    """A local HTTP server on 127.0.0.1 that records every request and answers 201 (POST) or 200 (GET)."""

    def __init__(self) -> None:
        self.received = Received()
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def _answer(self, status: int) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                received.requests.append((self.command, self.path, body, dict(self.headers.items())))
                reply = f"{self.command} stored: {body}".encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def do_POST(self) -> None:
                self._answer(201)

            def do_GET(self) -> None:
                self._answer(200)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> EchoServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
