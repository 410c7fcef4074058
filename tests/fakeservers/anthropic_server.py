"""A fake Anthropic Messages API: POST /v1/messages (SSE and JSON), GET /v1/models, real error bodies."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from tests.fakeservers.anthropic_rules import model_info, redacted_data, refusal, sign, thinks_between_tools
from tests.fakeservers.brain import (
    STREAMED_FAILURES,
    ErrorReply,
    NormalizedMessage,
    NormalizedRequest,
    Part,
    Reply,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from tests.fakeservers.media_rules import MediaPart, MediaRefused, b64, checked_image, checked_pdf
from tests.fakeservers.server import (
    Accounting,
    FakeProviderServer,
    HttpResponse,
    RawRequest,
    non_stream_error,
    sse,
    stalled_chunks,
)
from tests.fakeservers.web_fetch import document_citations, fetch_blocks, fetch_tool
from tests.fakeservers.web_search import citation, result_blocks, web_tool

DEFAULT_MODELS = (model_info("claude-test-1", display_name="Claude Test"),)
__all__ = ["DEFAULT_MODELS", "FakeAnthropicServer", "error_body", "error_response", "normalize", "refusal"]


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def normalize(body: dict[str, Any], headers: dict[str, str]) -> NormalizedRequest:
    """Reads a Messages API body into the provider-neutral request."""
    names: dict[str, str] = {}
    messages: list[NormalizedMessage] = []
    for i, message in enumerate(body.get("messages", [])):
        content = message.get("content")
        blocks: list[dict[str, Any]] = [{"type": "text", "text": content}] if isinstance(content, str) else content
        parts: list[Part] = []
        for j, block in enumerate(blocks):
            kind = block.get("type")
            if kind == "text":
                parts.append(TextPart(block["text"]))
            elif kind in ("image", "document"):
                parts.append(_media(block, f"messages.{i}.content.{j}.{kind}.source"))
            elif kind == "tool_use":
                names[block["id"]] = block["name"]
                parts.append(ToolCallPart(block["id"], block["name"], dict(block.get("input") or {})))
            elif kind in ("server_tool_use", "web_search_tool_result"):  # priced as input like the rest
                parts.append(TextPart(json.dumps(block, sort_keys=True)))
            elif kind == "tool_result":
                call_id = block["tool_use_id"]
                text = _text_of(block.get("content", ""))
                media = _result_media(block, f"messages.{i}.content.{j}.tool_result.content")
                parts.append(ToolResultPart(call_id, names.get(call_id, ""), text, bool(block.get("is_error")),
                                            media))
        messages.append(NormalizedMessage(message["role"], tuple(parts)))
    return NormalizedRequest(
        flavour="anthropic",
        model=body.get("model", ""),
        system=_text_of(body.get("system", "")),
        messages=tuple(messages),
        tool_names=tuple(t["name"] for t in body.get("tools", [])),
        max_tokens=body.get("max_tokens"),
        stream=bool(body.get("stream")),
        raw=body,
        headers=headers,
    )


RESULT_BLOCKS = ("text", "image", "search_result", "document")


def _result_media(block: dict[str, Any], where: str) -> tuple[MediaPart, ...]:
    """The images and documents inside a tool_result's content, checked; the API takes only text, image,
    search_result and document blocks there, and only text in an error's result."""
    content = block.get("content")
    if not isinstance(content, list):
        return ()
    media: list[MediaPart] = []
    for k, inner in enumerate(content):
        kind = inner.get("type")
        if kind not in RESULT_BLOCKS:
            raise MediaRefused(f"{where}.{k}: Input tag '{kind}' found using 'type' does not match any of the "
                               "expected tags: 'text', 'image', 'search_result', 'document'")
        if kind != "text" and block.get("is_error"):
            raise MediaRefused("all content must be type 'text' if 'is_error' is true")
        if kind in ("image", "document"):
            media.append(_media(inner, f"{where}.{k}.{kind}.source"))
    return tuple(media)


def _media(block: dict[str, Any], where: str) -> MediaPart:
    """An image or document block (base64 source) checked as the Messages API does; MediaRefused otherwise."""
    source = block.get("source") or {}
    if source.get("type") != "base64":
        raise MediaRefused(f"{where}.type: Input should be 'base64'")
    data = b64(str(source.get("data", "")), f"{where}.base64.data")
    if block["type"] == "document":
        if source.get("media_type") != "application/pdf":
            raise MediaRefused(f"{where}.base64.media_type: Input should be 'application/pdf'")
        return checked_pdf("anthropic", data, f"{where}.base64.data", block.get("title"))
    return checked_image("anthropic", data, str(source.get("media_type", "")), f"{where}.base64", 5 * 1024 * 1024,
                         8000)


def error_body(kind: str, message: str) -> dict[str, Any]:
    """Anthropic's error envelope."""
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": f"req_{uuid.uuid4().hex[:24]}"}


def error_response(err: ErrorReply, presented_key: str | None = None) -> HttpResponse:
    """The HTTP error Anthropic sends for a directive; a 401 echoes the key it was given (see ECHO_NOTE)."""
    headers = {"request-id": f"req_{uuid.uuid4().hex[:24]}"}
    if err.kind == "auth":
        message = "invalid x-api-key" + (f": {presented_key}" if presented_key else "")
        return HttpResponse.of_json(error_body("authentication_error", message), 401, headers)
    if err.kind == "rate_limit":
        if err.retry_after is not None:
            headers["retry-after"] = str(int(err.retry_after))
        message = err.message or "Number of request tokens has exceeded your per-minute rate limit"
        return HttpResponse.of_json(error_body("rate_limit_error", message), 429, headers)
    if err.kind == "overflow":
        message = f"prompt is too long: {err.tokens} tokens > {err.limit} maximum"
        return HttpResponse.of_json(error_body("invalid_request_error", message), 400, headers)
    if err.kind == "overloaded":
        return HttpResponse.of_json(error_body("overloaded_error", "Overloaded"), 529, headers)
    if err.kind == "bad_request":
        message = err.message or "messages: roles must alternate between \"user\" and \"assistant\""
        return HttpResponse.of_json(error_body("invalid_request_error", message), 400, headers)
    return HttpResponse.of_json(error_body("api_error", err.message or "Internal server error"), 500, headers)


COUNT_FIELDS = frozenset({"model", "messages", "system", "tools", "tool_choice", "thinking", "output_config",
                          "cache_control", "mcp_servers", "context_management"})


# models the real API answered 404 for by 2026-11-28 (retired: Anthropic's model deprecations page)
RETIRED_MODELS = frozenset({
    "claude-3-5-haiku-20241022", "claude-3-5-haiku-latest", "claude-3-7-sonnet-20250219", "claude-3-7-sonnet-latest",
    "claude-sonnet-4-20250514", "claude-sonnet-4-0", "claude-opus-4-20250514", "claude-opus-4-0",
    "claude-opus-4-1-20250805", "claude-opus-4-1", "claude-mythos-preview",
})


class FakeAnthropicServer(FakeProviderServer):
    """Speaks the Anthropic Messages API; accepts the key as x-api-key or Authorization: Bearer. A model in
    `retired` (none unless a test sets it, e.g. to RETIRED_MODELS) is refused as the real API refuses a retired
    model: 404 not_found_error "model: <id>", for a generation and a count alike."""

    retired: frozenset[str] = frozenset()

    def _retired(self, raw: RawRequest) -> HttpResponse | None:
        model = raw.json().get("model")
        if isinstance(model, str) and model in self.retired:
            return HttpResponse.of_json(error_body("not_found_error", f"model: {model}"), 404,
                                        {"request-id": f"req_{uuid.uuid4().hex[:24]}"})
        return None

    def presented_key(self, raw: RawRequest) -> str | None:
        """x-api-key, else the bearer token."""
        bearer = raw.headers.get("authorization", "")
        return raw.headers.get("x-api-key") or (bearer[7:] if bearer.lower().startswith("bearer ") else None)

    def route(self, raw: RawRequest) -> HttpResponse:
        """Dispatches /v1/messages and /v1/models."""
        if self.key_rejected(raw):
            return error_response(ErrorReply("auth"), self.presented_key(raw))
        if raw.method == "GET" and raw.path == "/v1/models":
            models = self.models or [dict(m) for m in DEFAULT_MODELS]
            data = [{"type": "model", "created_at": "2025-01-01T00:00:00Z", "lifecycle": "active", **m} for m in models]
            return HttpResponse.of_json(
                {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None,
                 "last_id": data[-1]["id"] if data else None}
            )
        if raw.method == "POST" and raw.path in ("/v1/messages/count_tokens", "/v1/messages"):
            gone = self._retired(raw)
            if gone is not None:
                return gone
        if raw.method == "POST" and raw.path == "/v1/messages/count_tokens":
            return self._count(raw)
        if raw.method == "POST" and raw.path == "/v1/messages":
            started = time.perf_counter()
            refused = refusal(raw.json(), self.models or DEFAULT_MODELS, raw.headers)
            if refused is not None:  # a rule the real API enforces: the app must not break it
                return HttpResponse.of_json(error_body("invalid_request_error", refused), 400)
            try:
                request = normalize(raw.json(), dict(raw.headers))
            except MediaRefused as exc:  # an attachment the real API refuses
                return HttpResponse.of_json(error_body("invalid_request_error", str(exc)), 400)
            answer, accounting = self.answer(request)
            if isinstance(answer, Reply) and not thinks_between_tools(request.raw, raw.headers):
                answer = replace(answer, thinking=(), redacted=0)  # a budget model, not interleaved: no new block
            if isinstance(answer, ErrorReply) and not request.stream:
                return non_stream_error(answer, error_response)
            if isinstance(answer, ErrorReply) and answer.kind == "no_headers":
                return HttpResponse(silent=True)
            if isinstance(answer, ErrorReply) and answer.kind not in STREAMED_FAILURES:
                return error_response(answer)
            usage = self._usage(request, accounting, answer)
            if not request.stream:
                assert isinstance(answer, Reply)
                self.record_stats(request, accounting, time.perf_counter() - started)
                return HttpResponse.of_json(self._message(request, answer, usage))
            chunks = self._stream(request, answer, usage, accounting, started)
            return HttpResponse(headers={"content-type": "text/event-stream"}, chunks=chunks,
                                cut=isinstance(answer, ErrorReply) and answer.kind == "cut_off")
        return HttpResponse.of_json(error_body("not_found_error", f"Not found: {raw.path}"), 404)

    def _count(self, raw: RawRequest) -> HttpResponse:
        """POST /v1/messages/count_tokens: the input tokens of a request (the fields of a Messages request but
        max_tokens, stream and the sampling ones), by the same rules and prices as a generation."""
        body = raw.json()
        extra = sorted(set(body) - COUNT_FIELDS)
        if extra:
            return HttpResponse.of_json(error_body("invalid_request_error", f"{extra[0]}: Extra inputs are not "
                                                   "permitted"), 400)
        full = {**body, "max_tokens": 1}
        refused = refusal(full, self.models or DEFAULT_MODELS)
        if refused is not None:
            return HttpResponse.of_json(error_body("invalid_request_error", refused), 400)
        try:
            request = normalize(full, dict(raw.headers))
        except MediaRefused as exc:
            return HttpResponse.of_json(error_body("invalid_request_error", str(exc)), 400)
        return HttpResponse.of_json({"input_tokens": self.count(request)})

    def _usage(self, request: NormalizedRequest, accounting: Accounting, answer: Reply | ErrorReply
               ) -> dict[str, Any]:
        caching = "cache_control" in json.dumps(request.raw)
        read = accounting.cached_tokens if caching else 0
        write = accounting.input_tokens - read if caching else 0
        usage: dict[str, Any] = {"input_tokens": accounting.input_tokens - read - write,
                                 "cache_read_input_tokens": read, "cache_creation_input_tokens": write,
                                 "output_tokens": accounting.output_tokens}
        answer_thinking = "".join(answer.thinking) if isinstance(answer, Reply) else ""
        if answer_thinking:
            usage["output_tokens_details"] = {"thinking_tokens": self.counter(answer_thinking)}
        return usage

    def _message(self, request: NormalizedRequest, reply: Reply, usage: dict[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if reply.thinking:
            thought = "".join(reply.thinking)
            content.append({"type": "thinking", "thinking": thought, "signature": sign(request.model, thought)})
        content.extend({"type": "redacted_thinking", "data": redacted_data(request.model)}
                       for _ in range(reply.redacted))
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        for call in reply.tool_calls:
            content.append({"type": "tool_use", "id": call.id or f"toolu_{uuid.uuid4().hex[:20]}",
                            "name": call.name, "input": dict(call.input)})
        return {"id": f"msg_{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant",
                "model": request.model, "content": content, "stop_reason": reply.effective_stop_reason,
                "stop_sequence": None, "usage": usage}

    def _stream(self, request: NormalizedRequest, answer: Reply | ErrorReply, usage: dict[str, Any],
                accounting: Accounting, started: float) -> Iterator[bytes]:
        start_usage = {**{k: v for k, v in usage.items() if k != "output_tokens_details"}, "output_tokens": 1}
        message: dict[str, Any] = {"id": f"msg_{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant",
                   "model": request.model, "content": [], "stop_reason": None, "stop_sequence": None,
                   "usage": start_usage}
        yield sse({"type": "message_start", "message": message}, "message_start")
        if isinstance(answer, ErrorReply):
            yield from self._broken_stream(answer)
            return
        index = 0
        if answer.thinking:
            yield sse({"type": "content_block_start", "index": index,
                       "content_block": {"type": "thinking", "thinking": "", "signature": ""}}, "content_block_start")
            for piece in answer.thinking:
                yield sse({"type": "content_block_delta", "index": index,
                           "delta": {"type": "thinking_delta", "thinking": piece}}, "content_block_delta")
            signature = sign(request.model, "".join(answer.thinking))
            yield sse({"type": "content_block_delta", "index": index,
                       "delta": {"type": "signature_delta", "signature": signature}}, "content_block_delta")
            yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
            index += 1
        for _ in range(answer.redacted):
            redacted = {"type": "redacted_thinking", "data": redacted_data(request.model)}
            yield sse({"type": "content_block_start", "index": index, "content_block": redacted},
                      "content_block_start")
            yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
            index += 1
        tool = web_tool(request.raw)
        pairs = result_blocks(answer.searches, tool, [f"srvtoolu_{uuid.uuid4().hex[:20]}" for _ in answer.searches]
                              ) if tool is not None else []
        fetcher = fetch_tool(request.raw)
        fetched = fetch_blocks(answer.fetches, fetcher, request.raw, [b for pair in pairs for b in pair],
                               [f"srvtoolu_{uuid.uuid4().hex[:20]}" for _ in answer.fetches]
                               ) if fetcher is not None else []
        for use, result in [*pairs, *fetched]:
            yield from _search_events(index, use, result)
            index += 2
        if answer.text or not (answer.tool_calls or pairs or fetched):
            yield sse({"type": "content_block_start", "index": index,
                       "content_block": {"type": "text", "text": ""}}, "content_block_start")
            yield sse({"type": "ping"}, "ping")
            for found in (r["content"] for _, r in pairs):
                if isinstance(found, list) and found:
                    yield sse({"type": "content_block_delta", "index": index,
                               "delta": {"type": "citations_delta", "citation": citation(found[0], answer.text)}},
                              "content_block_delta")
            for cited in document_citations(fetched):
                yield sse({"type": "content_block_delta", "index": index,
                           "delta": {"type": "citations_delta", "citation": cited}}, "content_block_delta")
            for piece in answer.text_chunks:
                yield sse({"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
            yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
            index += 1
        for call in answer.tool_calls:
            block = {"type": "tool_use", "id": call.id or f"toolu_{uuid.uuid4().hex[:20]}", "name": call.name,
                     "input": {}}
            yield sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start")
            arguments = json.dumps(dict(call.input))
            step = max(1, answer.tool_argument_chunk)
            for i in range(0, len(arguments), step):
                yield sse({"type": "content_block_delta", "index": index,
                           "delta": {"type": "input_json_delta", "partial_json": arguments[i : i + step]}},
                          "content_block_delta")
            yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
            index += 1
        delta_usage = {k: v for k, v in usage.items() if k in ("output_tokens", "output_tokens_details")}
        if pairs or fetched:
            ran = sum(1 for _, r in pairs if not (isinstance(r["content"], dict)
                                                  and r["content"].get("error_code") == "max_uses_exceeded"))
            delta_usage["server_tool_use"] = {"web_search_requests": ran, "web_fetch_requests": sum(
                1 for _, r in fetched if r["content"]["type"] == "web_fetch_result")}
        yield sse({"type": "message_delta", "delta": {"stop_reason": answer.effective_stop_reason,
                                                       "stop_sequence": None},
                   "usage": delta_usage}, "message_delta")
        yield sse({"type": "message_stop"}, "message_stop")
        self.record_stats(request, accounting, time.perf_counter() - started)

    def _broken_stream(self, err: ErrorReply) -> Iterator[bytes]:
        yield sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                  "content_block_start")

        def text(piece: str) -> bytes:
            return sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}},
                       "content_block_delta")

        if err.kind in ("pings_only", "endless"):  # `event: ping` is Anthropic's keep-alive
            yield from stalled_chunks(self, err, text, sse({"type": "ping"}, "ping"))
            return
        for piece in err.chunks_before:
            yield text(piece)
        if err.kind == "midstream_error":
            yield sse(error_body("overloaded_error", err.message or "Overloaded"), "error")
        elif err.kind == "malformed":
            yield b"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\n\n"


def _search_events(index: int, use: dict[str, Any], result: dict[str, Any]) -> Iterator[bytes]:
    """A server_tool_use block (its input streamed as JSON) then its web_search_tool_result block, whole."""
    yield sse({"type": "content_block_start", "index": index, "content_block": {**use, "input": {}}},
              "content_block_start")
    yield sse({"type": "content_block_delta", "index": index,
               "delta": {"type": "input_json_delta", "partial_json": json.dumps(use["input"])}}, "content_block_delta")
    yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
    yield sse({"type": "content_block_start", "index": index + 1, "content_block": result}, "content_block_start")
    yield sse({"type": "content_block_stop", "index": index + 1}, "content_block_stop")
