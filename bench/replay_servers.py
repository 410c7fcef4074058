"""The replay benchmark's local servers: fake providers with o200k accounting and timing, and a page server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.replay_brain import RequestKind, classify
from bench.replay_script import page_body
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeProviderServer
from tests.fakeservers.brain import (
    Answer,
    Brain,
    ErrorReply,
    NormalizedRequest,
    Reply,
    TextPart,
    ToolCallPart,
)
from tests.fakeservers.media_rules import MediaPart
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.server import Accounting, HttpResponse, RawRequest
from tests.fakeservers.tokens import o200k_counter


class ServerClock:
    """CPU seconds the local servers' threads spent on requests (reading them, answering, writing every byte back),
    summed over threads, to subtract from the app's wall time. CPU, not wall time: a server thread waiting for the
    interpreter lock while the app works is the app's time, not the server's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seconds = 0.0

    def add(self, seconds: float) -> None:
        """Adds one piece of server work."""
        with self._lock:
            self.seconds += seconds


@dataclass(frozen=True)
class RequestRecord:
    """One generation request as the fake provider billed it."""

    kind: RequestKind
    model: str
    input_tokens: int
    cached_tokens: int
    output_tokens: int
    overflow: bool
    reasoning_tokens: int = 0  # the part of output_tokens the model spent thinking (billed as output)


class PartTokens:
    """o200k_base token counts of prompt parts, cached by text (the same parts recur in every request)."""

    def __init__(self) -> None:
        self._cache: dict[str, int] = {}
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        """Tokens of one part."""
        hit = self._cache.get(text)
        if hit is None:
            hit = o200k_counter(text)
            with self._lock:
                self._cache[text] = hit
        return hit


def prompt_parts(request: NormalizedRequest) -> list[str]:
    """The prompt as the fake servers serialize it (system, tools, one part per message part), split per part."""
    parts = [f"system:{request.system}", "tools:" + ",".join(request.tool_names)]
    for message in request.messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                parts.append(f"{message.role}:{part.text}")
            elif isinstance(part, ToolCallPart):
                parts.append(f"{message.role}:call {part.id} {part.name} {json.dumps(part.input, sort_keys=True)}")
            elif isinstance(part, MediaPart):  # as the fakes serialize it (its tokens are billed apart)
                parts.append(f"{message.role}:{part.kind} {part.sha256}")
            else:
                parts.append(f"{message.role}:result {part.id} {part.name} {part.is_error} {part.text}")
    return parts


def _common(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


class BenchAccounting:
    """Mixin over a fake provider server: counts o200k tokens per prompt part (joined by one-token newlines),
    bills cache reads as the prefix shared with the previous request to the same model, enforces the windows,
    times its own work, and keeps compact records instead of whole requests (naive requests reach megabytes)."""

    tokens: PartTokens
    clock: ServerClock
    records: list[RequestRecord]
    context_windows: dict[str, int]
    brain: Brain
    _lock: threading.Lock

    def setup_bench(self, tokens: PartTokens, clock: ServerClock) -> None:
        """Attaches the shared token cache and server clock."""
        self.tokens, self.clock = tokens, clock
        self.records = []
        self._previous: dict[str, tuple[list[str], list[int]]] = {}

    def answer(self, request: NormalizedRequest) -> tuple[Answer, Accounting]:
        """Window check, brain, and billing with prefix caching."""
        parts = prompt_parts(request)
        counts = [self.tokens.count(p) for p in parts]
        total = sum(counts) + len(parts) - 1
        kind = classify(request)
        window = self.context_windows.get(request.model)
        if window is not None and total > window:
            self._record(RequestRecord(kind, request.model, total, 0, 0, True))
            return ErrorReply("overflow", tokens=total, limit=window), Accounting(total, 0, 0)
        answer = self.brain.respond(request)
        with self._lock:
            previous = self._previous.get(request.model)
            self._previous[request.model] = (parts, counts)
        cached = min(total, self._cached(parts, counts, previous))
        output = self._output_tokens(answer)  # type: ignore[attr-defined]
        thinking = "".join(answer.thinking) if isinstance(answer, Reply) else ""
        reasoning = min(self.tokens.count(thinking), output) if thinking else 0
        self._record(RequestRecord(kind, request.model, total, cached, output, False, reasoning))
        return answer, Accounting(total, cached, output)

    def _cached(self, parts: list[str], counts: list[int], previous: tuple[list[str], list[int]] | None) -> int:
        if previous is None:
            return 0
        old_parts, _ = previous
        shared = 0
        for i, part in enumerate(parts):
            if i >= len(old_parts):
                return shared
            if part == old_parts[i]:
                shared += counts[i] + (1 if i else 0)
                continue
            prefix = _common(part, old_parts[i])
            return shared + (o200k_counter(part[:prefix]) if prefix else 0)
        return shared

    def _record(self, record: RequestRecord) -> None:
        with self._lock:
            self.records.append(record)

    def record_stats(self, request: NormalizedRequest, accounting: Accounting, seconds: float) -> None:
        """Not kept: the records above hold what the benchmark needs."""

    def handled(self, cpu_seconds: float) -> None:
        """A request's whole handling counts as server time."""
        self.clock.add(cpu_seconds)

    def _dispatch(self, raw: RawRequest) -> HttpResponse:
        return self.route(raw)  # type: ignore[attr-defined]  # no log of whole requests


class BenchAnthropicServer(BenchAccounting, FakeAnthropicServer):
    """The fake Anthropic Messages API with benchmark accounting."""


class BenchOpenAIServer(BenchAccounting, FakeResponsesServer):
    """The fake OpenAI Responses API (what the app speaks to OpenAI's own endpoint) with benchmark accounting."""


class BenchGeminiServer(BenchAccounting, FakeGeminiServer):
    """The fake Gemini API with benchmark accounting."""


SERVER_CLASSES: Mapping[str, type[FakeProviderServer]] = {
    "anthropic": BenchAnthropicServer,
    "openai": BenchOpenAIServer,
    "gemini": BenchGeminiServer,
}


def start_provider(flavour: str, brain: Brain, windows: Mapping[str, int], api_key: str, tokens: PartTokens,
                   clock: ServerClock) -> FakeProviderServer:
    """Starts one flavour's fake server with benchmark accounting."""
    server = SERVER_CLASSES[flavour](brain, counter=o200k_counter, context_windows=windows, api_key=api_key)
    assert isinstance(server, BenchAccounting)
    server.setup_bench(tokens, clock)
    server.start()
    return server


class PageServer:
    """Serves the script's pages (`/page/<turn>/<kind>/<bytes>`) on 127.0.0.1, timing its own work."""

    def __init__(self, clock: ServerClock, seed: int) -> None:
        self._clock, self._seed = clock, seed
        self._cache: dict[str, tuple[bytes, str]] = {}
        self._httpd: ThreadingHTTPServer | None = None

    def start(self) -> None:
        """Listens on a free port from a daemon thread."""
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                started = time.thread_time()
                try:
                    body, content_type = outer.page(self.path)
                    status = 200
                except (ValueError, IndexError):
                    body, content_type, status = b"not found", "text/plain", 404
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                outer._clock.add(time.thread_time() - started)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, name="PageServer", daemon=True).start()

    def page(self, path: str) -> tuple[bytes, str]:
        """The page body and content type (generated once)."""
        if path not in self._cache:
            self._cache[path] = page_body(path, self._seed)
        return self._cache[path]

    @property
    def root_url(self) -> str:
        """http://127.0.0.1:PORT."""
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def stop(self) -> None:
        """Stops serving."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
