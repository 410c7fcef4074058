"""http_request against a local http.server: HTML reduced to text, 5 MB cap, schemes, timeouts, failures.

The server's address, 127.0.0.1, is one http_request refuses by default; these tests allow it explicitly."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from data.tools import BuiltinTools
from domain.provider_ports import ToolContext
from domain.tool_approval import AllowAllApprover
from tests.tools.fakes import FakeMemories, FakeMessages, FixedClock

CTX = ToolContext(session_id="s1", agent_id=None)
PAGE = b"""<!doctype html><html><head><title>Tide tables</title>
<style>body { color: red }</style><script>var secret = "do not show";</script></head>
<body><h1>High water</h1><p>At 06:12 &amp; 18:40.</p><noscript>enable js</noscript><ul><li>Low: 00:05</li></ul>
</body></html>"""


SLOW_RELEASE = threading.Event()


class Handler(BaseHTTPRequestHandler):
    """Routes for the tests."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except ConnectionError:  # the client stopped reading at its cap
            pass

    def do_GET(self) -> None:
        if self.path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif self.path == "/big":
            self._send(200, b"Z" * (6 * 1024 * 1024), "text/plain")
        elif self.path == "/slow":
            SLOW_RELEASE.wait(30)  # held until the module's server stops: far beyond the client's timeout
            self._send(200, b"late", "text/plain")
        elif self.path == "/cjk":
            self._send(200, "漢字かな交じり文".encode("shift_jis"), "text/plain; charset=shift_jis")
        else:
            self._send(404, b"not here", "text/plain")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        echo = f"{self.headers.get('X-Token')}|{body.decode()}".encode()
        self._send(201, echo, "text/plain")


@pytest.fixture(autouse=True)
def _no_allowed_hosts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PALIMPSEST_TOOL_ALLOW_HOSTS", raising=False)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    SLOW_RELEASE.set()
    httpd.shutdown()
    httpd.server_close()


def tools(**kwargs: float) -> BuiltinTools:
    return BuiltinTools(
        FakeMemories(), FakeMessages(), FixedClock(), http_allowed_hosts=("127.0.0.1",),  # type: ignore[arg-type]
        approver=AllowAllApprover(), **kwargs,
    )


async def test_html_is_reduced_to_readable_text_without_scripts_or_styles(server: str) -> None:
    outcome = await tools().execute("http_request", {"url": f"{server}/page"}, CTX)
    assert not outcome.is_error
    assert outcome.output.startswith("HTTP 200 OK")
    assert "Tide tables" in outcome.output
    assert "High water" in outcome.output and "At 06:12 & 18:40." in outcome.output
    assert "Low: 00:05" in outcome.output
    for hidden in ("secret", "color: red", "<p>", "enable js"):
        assert hidden not in outcome.output


async def test_bodies_are_read_up_to_the_cap_and_the_cut_is_stated(server: str) -> None:
    outcome = await tools().execute("http_request", {"url": f"{server}/big"}, CTX)
    assert not outcome.is_error
    assert outcome.output.count("Z") >= 5 * 1024 * 1024
    assert outcome.output.count("Z") < 5 * 1024 * 1024 + 100
    assert "cut at 5242880 bytes" in outcome.output


async def test_a_smaller_cap_can_be_configured(server: str) -> None:
    outcome = await tools(http_max_bytes=1000).execute("http_request", {"url": f"{server}/big"}, CTX)
    assert outcome.output.count("Z") == 1000


async def test_only_http_and_https_urls_are_allowed() -> None:
    for url in ("file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "example.com"):
        outcome = await tools().execute("http_request", {"url": url}, CTX)
        assert outcome.is_error, url
        assert "Only http and https" in outcome.output


async def test_a_slow_server_times_out_as_an_error_outcome(server: str) -> None:
    started = time.monotonic()
    outcome = await tools(http_timeout=0.2).execute("http_request", {"url": f"{server}/slow"}, CTX)
    assert outcome.is_error and "timed out after 0.2 s" in outcome.output
    assert time.monotonic() - started < 10  # the reply is held for 30 s: the timeout ended the wait


async def test_an_unreachable_host_is_an_error_outcome() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    outcome = await tools().execute("http_request", {"url": f"http://127.0.0.1:{port}/"}, CTX)
    assert outcome.is_error and "failed" in outcome.output


async def test_http_error_statuses_are_returned_with_the_status_for_the_model(server: str) -> None:
    outcome = await tools().execute("http_request", {"url": f"{server}/missing"}, CTX)
    assert outcome.output.startswith("HTTP 404")
    assert "not here" in outcome.output


async def test_method_headers_and_body_are_sent(server: str) -> None:
    args = {"url": f"{server}/echo", "method": "post", "headers": {"X-Token": "t1"}, "body": "hello"}
    outcome = await tools().execute("http_request", args, CTX)
    assert outcome.output.startswith("HTTP 201")
    assert outcome.output.endswith("t1|hello")


async def test_the_declared_charset_is_used_to_decode(server: str) -> None:
    outcome = await tools().execute("http_request", {"url": f"{server}/cjk"}, CTX)
    assert outcome.output.endswith("漢字かな交じり文")


async def test_bad_method_and_headers_are_error_outcomes() -> None:
    for args in ({"url": "http://127.0.0.1/", "method": "BREW"}, {"url": "http://127.0.0.1/", "headers": "x"},
                 {"url": "http://127.0.0.1/", "body": 3}, {}):
        outcome = await tools().execute("http_request", args, CTX)
        assert outcome.is_error, args


async def test_the_tls_context_is_built_once_per_tool_not_per_request(server: str) -> None:
    from data.tools.http_request import HttpRequestTool

    tool = HttpRequestTool(allowed_hosts=("127.0.0.1",))
    first = await tool.run({"url": f"{server}/page"}, CTX)
    context = tool._ssl_context()
    second = await tool.run({"url": f"{server}/page"}, CTX)
    assert not first.is_error and not second.is_error
    assert tool._ssl_context() is context  # loading the certificate store again would cost ~60 ms per call
