"""The shared HTTP machinery of the fake provider servers: a threaded 127.0.0.1 server, recording, accounting."""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakeservers.brain import (
    STALLS,
    STREAMED_FAILURES,
    Answer,
    Brain,
    ErrorReply,
    NormalizedRequest,
    Reply,
    ScriptedBrain,
)
from tests.fakeservers.tokens import TokenCounter, approx_counter, common_prefix_length


class _QuietHTTPServer(ThreadingHTTPServer):
    """A client that hangs up mid-stream (a cancelled turn, Ctrl-C) is normal here, not a server error to print:
    printing it would land in whichever test happens to be capturing stderr at that moment."""

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


@dataclass(frozen=True)
class RawRequest:
    """One HTTP request exactly as received."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON (an empty dict for an empty body)."""
        return json.loads(self.body) if self.body else {}


@dataclass
class HttpResponse:
    """What to send back: a whole body, or chunks streamed with chunked encoding (`cut` drops the connection);
    `silent`: nothing at all, not even the status line, until the client hangs up or the server stops."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: Iterable[bytes] | None = None
    cut: bool = False
    silent: bool = False

    @classmethod
    def of_json(cls, payload: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> HttpResponse:
        """A JSON response."""
        merged = {"content-type": "application/json", **(headers or {})}
        return cls(status=status, headers=merged, body=json.dumps(payload).encode())


@dataclass(frozen=True)
class RequestStats:
    """Accounting of one generation request, readable by tests and benchmarks."""

    model: str
    input_tokens: int
    cached_tokens: int
    output_tokens: int
    server_seconds: float
    stream: bool


@dataclass(frozen=True)
class Accounting:
    """Tokens the server bills for one request: prompt total, its cached prefix, output."""

    input_tokens: int
    cached_tokens: int
    output_tokens: int


ECHO_NOTE = (
    "A rejected key is echoed in full in the 401 body. Real servers echo part of it (OpenAI: 'Incorrect API key "
    "provided: sk-proj-****abcd'), some proxies all of it; the SDKs then carry that body in their exceptions, so "
    "the app must redact the key from every message, traceback and log."
)


class FakeProviderServer:
    """Base of the three flavours: start/stop as a context manager, record requests, compute usage."""

    def __init__(
        self,
        brain: Brain | None = None,
        *,
        counter: TokenCounter = approx_counter,
        context_windows: Mapping[str, int] | None = None,
        models: Iterable[Mapping[str, Any]] | None = None,
        api_key: str | None = None,
    ) -> None:
        self.brain: Brain = brain if brain is not None else ScriptedBrain()
        self.counter = counter
        self.context_windows = dict(context_windows or {})
        self.models = [dict(m) for m in (models or [])]
        self.api_key = api_key
        self.log: list[RawRequest] = []
        self.requests: list[NormalizedRequest] = []
        self.counted: list[NormalizedRequest] = []  # requests to the provider's token-count endpoint
        self.stats: list[RequestStats] = []
        self.failures: list[BaseException] = []  # exceptions raised by the brain or flavour (answered as HTTP 500)
        self._previous_prompts: dict[str | None, str] = {}  # the last prompt per cache slot (see cache_slot)
        self._lock = threading.Lock()
        self.chunk_pause = 0.0  # seconds between streamed chunks (a slow model, for tests that interrupt a stream)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.stopping = threading.Event()  # set by stop(): ends the stalls (see ErrorReply kinds in STALLS)

    # --- lifecycle -------------------------------------------------------------------------------
    def __enter__(self) -> FakeProviderServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Listens on 127.0.0.1 on a free port, serving from a daemon thread."""
        self.stopping.clear()
        handler = _make_handler(self)
        self._httpd = _QuietHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name=type(self).__name__, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stops serving and frees the port."""
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def root_url(self) -> str:
        """http://127.0.0.1:PORT (no path)."""
        if self._httpd is None:
            raise RuntimeError("the fake server is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        """The base URL to give the SDK."""
        return self.root_url

    # --- flavour hooks ---------------------------------------------------------------------------
    def route(self, raw: RawRequest) -> HttpResponse:
        """Answers one request; flavours override."""
        raise NotImplementedError

    def presented_key(self, raw: RawRequest) -> str | None:
        """The API key the client sent; flavours override."""
        return None

    # --- shared logic ----------------------------------------------------------------------------
    def key_rejected(self, raw: RawRequest) -> bool:
        """True when the server has a key and the client did not present it."""
        return self.api_key is not None and self.presented_key(raw) != self.api_key

    def answer(self, request: NormalizedRequest) -> tuple[Answer, Accounting]:
        """Enforces the model's window, asks the brain, and bills tokens with prefix caching."""
        with self._lock:
            self.requests.append(request)
        prompt = request.serialized()
        input_tokens = self.counter(prompt) + request.media_tokens
        window = self.context_windows.get(request.model)
        if window is not None and input_tokens > window:
            return ErrorReply("overflow", tokens=input_tokens, limit=window), Accounting(input_tokens, 0, 0)
        asked = request.max_tokens or 0
        if request.flavour == "anthropic" and window is not None and input_tokens + asked > window:
            # the Messages API refuses a request whose prompt plus max_tokens (thinking included) passes the window
            message = (f"input length and `max_tokens` exceed context limit: {input_tokens} + {asked} > {window}, "
                       "decrease input length or `max_tokens` and try again")
            return ErrorReply("bad_request", message=message), Accounting(input_tokens, 0, 0)
        answer = self.brain.respond(request)
        if isinstance(answer, ErrorReply) and answer.kind not in STREAMED_FAILURES:
            return answer, Accounting(input_tokens, 0, 0)
        with self._lock:
            slot = self.cache_slot(request)
            prefix = common_prefix_length(prompt, self._previous_prompts.get(slot, ""))
            self._previous_prompts[slot] = prompt
        cached = self.cached_tokens(min(self.counter(prompt[:prefix]) if prefix else 0, input_tokens), input_tokens)
        return answer, Accounting(input_tokens, cached, self._output_tokens(answer))

    def count(self, request: NormalizedRequest) -> int:
        """What the provider's count endpoint answers: the input tokens a generation of this request is billed."""
        with self._lock:
            self.counted.append(request)
        return self.counter(request.serialized()) + request.media_tokens

    def cache_slot(self, request: NormalizedRequest) -> str | None:
        """Which cache a request's prefix is compared in (one for all here; a flavour whose provider routes by a
        key, like OpenAI's prompt_cache_key, keeps one per key)."""
        return None

    def cached_tokens(self, prefix_tokens: int, input_tokens: int) -> int:
        """The cache reads billed for a prefix this long (flavours round as their provider does)."""
        return prefix_tokens

    def _output_tokens(self, answer: Answer) -> int:
        if not isinstance(answer, Reply):
            return 1
        calls = "".join(c.name + json.dumps(dict(c.input)) for c in answer.tool_calls)
        return max(1, self.counter(answer.text + "".join(answer.thinking) + calls))

    def record_stats(self, request: NormalizedRequest, accounting: Accounting, seconds: float) -> None:
        """Keeps the accounting of one finished generation request."""
        with self._lock:
            self.stats.append(
                RequestStats(
                    model=request.model,
                    input_tokens=accounting.input_tokens,
                    cached_tokens=accounting.cached_tokens,
                    output_tokens=accounting.output_tokens,
                    server_seconds=seconds,
                    stream=request.stream,
                )
            )

    def handled(self, cpu_seconds: float) -> None:
        """The CPU time a handler thread spent on one request: reading it, answering, writing the reply (the
        benchmark subtracts it from the app's wall time; nothing to do here)."""

    def _dispatch(self, raw: RawRequest) -> HttpResponse:
        with self._lock:
            self.log.append(raw)
        return self.route(raw)


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event (data as JSON unless already a string)."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def stalled_chunks(
    server: FakeProviderServer, err: ErrorReply, content: Callable[[str], bytes], ping: bytes
) -> Iterator[bytes]:
    """The body of a stall after its 200 headers: `chunks_before` as content, then every `interval` seconds one
    keep-alive `ping` ('pings_only') or one more content chunk ('endless'), until the client hangs up (the write
    fails) or the server stops."""
    yield from (content(piece) for piece in err.chunks_before)
    ticks = 0
    while not server.stopping.wait(err.interval):
        ticks += 1
        yield content(f"tick {ticks} ") if err.kind == "endless" else ping


def non_stream_error(err: ErrorReply, render: Callable[[ErrorReply], HttpResponse]) -> HttpResponse:
    """A stream-only directive on a non-streaming request: a midstream error becomes 'overloaded', a cut or
    malformed stream becomes a truncated JSON body, a stall sends nothing at all; everything else renders as the
    flavour's error response."""
    if err.kind in STALLS:
        return HttpResponse(silent=True)
    if err.kind == "midstream_error":
        return render(ErrorReply("overloaded", message=err.message))
    if err.kind in ("cut_off", "malformed"):
        return HttpResponse(headers={"content-type": "application/json"}, body=b'{"id": "broken", "choi')
    return render(err)


def _make_handler(server: FakeProviderServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # small SSE writes must not wait for the client's delayed ACK

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _handle(self) -> None:
            started = time.thread_time()
            try:
                self._answer()
            finally:
                server.handled(time.thread_time() - started)

        def _answer(self) -> None:
            split = urlsplit(self.path)
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            raw = RawRequest(
                method=self.command,
                path=split.path,
                query={k: v[0] for k, v in parse_qs(split.query).items()},
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            try:
                response = server._dispatch(raw)
            except Exception as exc:  # a brain or flavour bug: answer 500 with the reason, loudly
                server.failures.append(exc)
                response = HttpResponse.of_json({"error": {"message": f"fake server failure: {exc!r}"}}, 500)
            self._send(response)

        def _hold(self) -> None:
            """Sends nothing until the client hangs up or the server stops."""
            while not server.stopping.wait(0.02):
                readable, _, _ = select.select([self.connection], [], [], 0)
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    break
            self.close_connection = True

        def _send(self, response: HttpResponse) -> None:
            if response.silent:
                self._hold()
                return
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            if response.chunks is None:
                self.send_header("content-length", str(len(response.body)))
                self.end_headers()
                self.wfile.write(response.body)
                return
            self.send_header("transfer-encoding", "chunked")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for chunk in response.chunks:
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
                if server.chunk_pause:
                    time.sleep(server.chunk_pause)
            if response.cut:
                self.close_connection = True
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        do_GET = _handle
        do_POST = _handle

    return Handler
