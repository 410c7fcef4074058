"""An API URL that serves a web page is reported as such, once: not as a connection problem, and not retried."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from domain.errors import InvalidResponse
from domain.models import ProviderType
from tests.providers.helpers import History, RecordingSleep, adapter_for, collect, stream

PAGE = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in</body></html>"


class PageServer:
    """Answers every request with an HTML page (200 unless told otherwise), counting the requests."""

    def __init__(self, status: int = 200) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def _answer(self) -> None:
                server.requests.append(self.path)
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(server.status)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)

            do_GET = do_POST = _answer

        self.status = status
        self.requests: list[str] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True

    @property
    def root(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> PageServer:
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def page() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server


KINDS = [ProviderType.ANTHROPIC, ProviderType.OPENAI, ProviderType.GEMINI, ProviderType.OPENAI_COMPATIBLE]


def _base(kind: ProviderType, root: str) -> str:
    return root + "/v1" if kind in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE) else root


@pytest.mark.parametrize("kind", KINDS)
async def test_a_streamed_reply_answered_with_a_web_page_says_so_and_is_not_retried(kind, page):
    sleep = RecordingSleep()
    with pytest.raises(InvalidResponse) as caught:
        await collect(stream(adapter_for(kind, _base(kind, page.root), retries=2, sleep=sleep), History().user("hi")))
    message = caught.value.message
    assert message.startswith(f"The server at {page.root}/")
    assert "answered with a web page, not an API response" in message
    assert "?" not in message.split(" answered")[0]  # no query string (it may hold a key)
    assert len(page.requests) == 1 and sleep.delays == []


@pytest.mark.parametrize("kind", KINDS)
async def test_listing_models_from_a_web_page_says_so_instead_of_failing_as_a_bug(kind, page):
    with pytest.raises(InvalidResponse, match="answered with a web page, not an API response"):
        await adapter_for(kind, _base(kind, page.root), retries=2).list_models()
    assert len(page.requests) == 1


async def test_a_web_page_with_an_error_status_names_the_status():
    with PageServer(status=404) as server, pytest.raises(InvalidResponse) as caught:
        await adapter_for(ProviderType.OPENAI, server.root + "/v1").list_models()
    assert "answered with a web page (HTTP 404), not an API response" in caught.value.message
