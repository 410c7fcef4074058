"""A fake OpenAI Chat Completions API (optionally with Ollama's /api/show), with real error bodies."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tests.fakeservers import chat_rules
from tests.fakeservers.brain import (
    STREAMED_FAILURES,
    Answer,
    Brain,
    ErrorReply,
    NormalizedMessage,
    NormalizedRequest,
    Part,
    Reply,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from tests.fakeservers.embeddings import OPENAI_EMBEDDING_MODELS, openai_embeddings
from tests.fakeservers.openai_media import OpenAIMediaRefused, audio_part, audio_refusal, media_part, ollama_refusal
from tests.fakeservers.responses_rules import Refusal
from tests.fakeservers.server import (
    FakeProviderServer,
    HttpResponse,
    RawRequest,
    non_stream_error,
    sse,
    stalled_chunks,
)
from tests.fakeservers.tokens import TokenCounter, approx_counter

_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "other": "content_filter"}
DEEPSEEK_DOCS = "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"


def deepseek_thinks(body: Mapping[str, Any]) -> bool:
    """DeepSeek thinks unless the request turns it off with thinking.type "disabled"."""
    return (body.get("thinking") or {}).get("type") != "disabled"


def deepseek_refusal(body: Mapping[str, Any]) -> str | None:
    """DeepSeek's 400 for a thinking request whose assistant turn with tool calls lacks its reasoning_content (the
    index counts every message, the system one included), or None."""
    if not deepseek_thinks(body):
        return None
    for index, message in enumerate(body.get("messages") or []):
        if message.get("role") == "assistant" and message.get("tool_calls") and "reasoning_content" not in message:
            return (f"Missing `reasoning_content` field in the assistant message at message index {index}. For more "
                    f"information, please refer to {DEEPSEEK_DOCS}")
    return None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def normalize(body: dict[str, Any], headers: dict[str, str], *, ollama: bool = False) -> NormalizedRequest:
    """Reads a Chat Completions body into the provider-neutral request (tool messages keep role 'tool'); input_audio
    parts are checked as OpenAI does unless `ollama` (Ollama's own rules are ollama_refusal's)."""
    names: dict[str, str] = {}
    system: list[str] = []
    messages: list[NormalizedMessage] = []
    for i, message in enumerate(body.get("messages", [])):
        role = message.get("role")
        if role in ("system", "developer"):
            system.append(_text_of(message.get("content")))
            continue
        parts: list[Part] = []
        text = _text_of(message.get("content"))
        if role == "tool":
            call_id = message.get("tool_call_id", "")
            content = message.get("content")
            for j, part in enumerate(content if isinstance(content, list) else []):
                if isinstance(part, dict) and part.get("type") in ("image_url", "file"):  # refused: not a user message
                    media_part(part, "tool", f"messages[{i}].content[{j}]")
                if isinstance(part, dict) and part.get("type") == "input_audio":
                    audio_part(part, "tool", f"messages[{i}].content[{j}]", str(body.get("model", "")))
            parts.append(ToolResultPart(call_id, names.get(call_id, ""), text, False))
        else:
            if text:
                parts.append(TextPart(text))
            content = message.get("content")
            for j, part in enumerate(content if isinstance(content, list) else []):
                if isinstance(part, dict) and part.get("type") in ("image_url", "file"):
                    parts.append(media_part(part, str(role), f"messages[{i}].content[{j}]"))
                if isinstance(part, dict) and part.get("type") == "input_audio" and not ollama:
                    parts.append(audio_part(part, str(role), f"messages[{i}].content[{j}]", str(body.get("model", ""))))
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["function"]["name"]
                arguments = json.loads(call["function"].get("arguments") or "{}")
                parts.append(ToolCallPart(call["id"], call["function"]["name"], arguments))
        messages.append(NormalizedMessage(role, tuple(parts)))
    return NormalizedRequest(
        flavour="openai",
        model=body.get("model", ""),
        system="\n".join(system),
        messages=tuple(messages),
        tool_names=tuple(t["function"]["name"] for t in body.get("tools", [])),
        max_tokens=body.get("max_completion_tokens", body.get("max_tokens")),
        stream=bool(body.get("stream")),
        raw=body,
        headers=headers,
    )


def _error(message: str, kind: str, code: str | None, status: int, param: str | None = None,
           headers: Mapping[str, str] | None = None) -> HttpResponse:
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return HttpResponse.of_json(body, status, {"x-request-id": f"req_{uuid.uuid4().hex[:24]}", **(headers or {})})


def error_response(err: ErrorReply, presented_key: str | None = None) -> HttpResponse:
    """The HTTP error OpenAI sends for a directive; a 401 echoes the key it was given (see ECHO_NOTE)."""
    if err.kind == "auth":
        return _error(f"Incorrect API key provided: {presented_key or ''}. You can find your API key at "
                      "https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key", 401)
    if err.kind == "rate_limit":
        wait = err.retry_after if err.retry_after is not None else 1
        message = err.message or (f"Rate limit reached for requests on tokens per min (TPM): Limit 30000, "
                                  f"Used 30000, Requested 1000. Please try again in {wait:g}s.")
        return _error(message, "tokens", "rate_limit_exceeded", 429, headers={"retry-after": f"{wait:g}"})
    if err.kind == "overflow":
        message = (f"This model's maximum context length is {err.limit} tokens. However, your messages resulted in "
                   f"{err.tokens} tokens. Please reduce the length of the messages.")
        return _error(message, "invalid_request_error", "context_length_exceeded", 400, "messages")
    if err.kind == "overloaded":
        return _error("The server is overloaded or not ready yet.", "server_error", None, 503)
    if err.kind == "bad_request":
        return _error(err.message or "Invalid value for 'messages'.", "invalid_request_error", None, 400, "messages")
    return _error(err.message or "The server had an error while processing your request. Sorry about that!",
                  "server_error", None, 500)


# models OpenAI's deprecations page lists as shut down by 2026-11-28 (the API answers 404 model_not_found)
RETIRED_MODELS = frozenset({
    "o1", "o1-2024-12-17", "o3-mini", "o3-mini-2025-01-31", "o4-mini", "o4-mini-2025-04-16", "gpt-4.1-nano",
    "gpt-4.1-nano-2025-04-14", "gpt-4o-2024-05-13",
})


def model_gone(model: object) -> HttpResponse:
    """OpenAI's answer to a model it does not serve (retired, or never there): 404 model_not_found."""
    return _error(f"The model `{model}` does not exist or you do not have access to it.", "invalid_request_error",
                  "model_not_found", 404)


class FakeOpenAIServer(FakeProviderServer):
    """Speaks Chat Completions under /v1; with ollama=True also answers Ollama's POST /api/show; with deepseek=True
    acts as DeepSeek in thinking mode (thinking unless turned off, tool-call turns need their reasoning_content);
    reasoning_field is the delta field reasoning streams in ("reasoning" as OpenRouter does); `listing`, when given,
    is the body GET /v1/models answers with as it is (a provider's own shape: see local_servers.listing_of). A model in
    `retired` (none unless a test sets it, e.g. to RETIRED_MODELS) is refused as OpenAI refuses a shut-down model."""

    retired: frozenset[str] = frozenset()

    def __init__(self, brain: Brain | None = None, *, counter: TokenCounter = approx_counter,
                 context_windows: Mapping[str, int] | None = None, models: Iterable[Mapping[str, Any]] | None = None,
                 api_key: str | None = None, ollama: bool = False, deepseek: bool = False,
                 reasoning_field: str = "reasoning_content", listing: Any = None) -> None:
        super().__init__(brain, counter=counter, context_windows=context_windows, models=models, api_key=api_key)
        self.listing = listing
        self.ollama = ollama
        self.deepseek = deepseek
        self.reasoning_field = reasoning_field
        self.embedding_models: tuple[str, ...] = OPENAI_EMBEDDING_MODELS  # what POST /v1/embeddings knows
        self.embedded: list[int] = []  # the number of inputs of each embeddings request answered

    @property
    def base_url(self) -> str:
        """The root URL plus /v1, as the openai SDK needs it."""
        return self.root_url + "/v1"

    def presented_key(self, raw: RawRequest) -> str | None:
        """The bearer token."""
        bearer = raw.headers.get("authorization", "")
        return bearer[7:] if bearer.lower().startswith("bearer ") else None

    def route(self, raw: RawRequest) -> HttpResponse:
        """Dispatches /v1/chat/completions, /v1/embeddings, /v1/models and (Ollama mode) /api/show."""
        if self.ollama and raw.method == "POST" and raw.path == "/api/show":
            return self._show(raw.json())
        if self.key_rejected(raw):
            return error_response(ErrorReply("auth"), self.presented_key(raw))
        if raw.method == "GET" and raw.path == "/v1/models" and self.listing is not None:
            return HttpResponse.of_json(self.listing)
        if raw.method == "GET" and raw.path == "/v1/models":
            models = self.models or [{"id": "gpt-test-1"}]
            owner = "library" if self.ollama else "openai"
            data = [{"object": "model", "created": 1700000000, "owned_by": owner, **m} for m in models]
            return HttpResponse.of_json({"object": "list", "data": data})
        if raw.method == "POST" and raw.path == "/v1/chat/completions":
            gone = self.retired_model(raw)
            return gone if gone is not None else self._complete(raw)
        if raw.method == "POST" and raw.path == "/v1/embeddings":
            return openai_embeddings(raw.json(), self.counter, self.embedding_models, self.embedded)
        return _error(f"Unknown request URL: {raw.method} {raw.path}.", "invalid_request_error", "unknown_url", 404)

    def retired_model(self, raw: RawRequest) -> HttpResponse | None:
        """The 404 for a request naming a model in `retired`, else None."""
        model = raw.json().get("model")
        return model_gone(model) if isinstance(model, str) and model in self.retired else None

    def _show(self, body: Mapping[str, Any]) -> HttpResponse:
        name = str(body.get("model") or body.get("name") or "")
        window = self.context_windows.get(name)
        if window is None and not any(m.get("id") == name for m in self.models):
            return HttpResponse.of_json({"error": f"model '{name}' not found"}, 404)
        info: dict[str, Any] = {"general.architecture": "llama", "general.parameter_count": 8030261248}
        if window is not None:
            info["llama.context_length"] = window
        return HttpResponse.of_json({"modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
                                     "details": {"family": "llama", "format": "gguf"}, "model_info": info,
                                     "capabilities": ["completion", "tools"]})

    def _complete(self, raw: RawRequest) -> HttpResponse:
        started = time.perf_counter()
        body = raw.json()  # parsed once: a long conversation's request is large
        refused = deepseek_refusal(body) if self.deepseek else None
        if refused is not None:  # the rule DeepSeek enforces in thinking mode: the app must not break it
            return _error(refused, "invalid_request_error", "invalid_request_error", 400)
        refused = ollama_refusal(body) if self.ollama else None
        if refused is not None:  # a content part Ollama does not take (a PDF file part, a GIF image_url)
            return _error(refused, "invalid_request_error", None, 400)
        try:
            if not (self.ollama or self.deepseek):  # OpenAI's own reasoning rules (efforts, tools with an effort)
                chat_rules.check(body)
        except Refusal as rule:
            return _error(rule.message, "invalid_request_error", rule.code, 400, rule.param)
        try:
            refusal = None if self.ollama else audio_refusal(body)
            if refusal is not None:
                raise refusal
            request = normalize(body, dict(raw.headers), ollama=self.ollama)
        except OpenAIMediaRefused as exc:  # an attachment the real API refuses
            return _error(str(exc), "invalid_request_error", exc.code, 400, exc.param)
        answer, accounting = self.answer(request)
        if isinstance(answer, ErrorReply) and not request.stream:
            return non_stream_error(answer, error_response)
        if isinstance(answer, ErrorReply) and answer.kind == "no_headers":
            return HttpResponse(silent=True)
        if isinstance(answer, ErrorReply) and answer.kind not in STREAMED_FAILURES:
            return error_response(answer)
        usage = {"prompt_tokens": accounting.input_tokens, "completion_tokens": accounting.output_tokens,
                 "total_tokens": accounting.input_tokens + accounting.output_tokens,
                 "prompt_tokens_details": {"cached_tokens": accounting.cached_tokens, "audio_tokens": 0},
                 "completion_tokens_details": {"reasoning_tokens": self._reasoning_tokens(request, answer),
                                               "audio_tokens": 0,
                                               "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}
        head = {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "created": int(time.time()), "model": request.model,
                "system_fingerprint": "fp_fake"}
        if not request.stream:
            assert isinstance(answer, Reply)
            self.record_stats(request, accounting, time.perf_counter() - started)
            message: dict[str, Any] = {"role": "assistant", "content": answer.text or None, "refusal": None}
            if answer.tool_calls:
                message["tool_calls"] = [self._call(i, c) for i, c in enumerate(answer.tool_calls)]
            choice = {"index": 0, "message": message, "logprobs": None,
                      "finish_reason": _FINISH[answer.effective_stop_reason]}
            return HttpResponse.of_json({**head, "object": "chat.completion", "choices": [choice], "usage": usage})
        include_usage = bool((request.raw.get("stream_options") or {}).get("include_usage"))

        def chunks() -> Iterator[bytes]:
            def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
                choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                return sse({**head, "object": "chat.completion.chunk", "choices": [choice], "usage": None})

            yield chunk({"role": "assistant", "content": "", "refusal": None})
            if isinstance(answer, ErrorReply) and answer.kind in ("pings_only", "endless"):
                # an SSE comment line is the usual keep-alive of OpenAI-compatible servers (OpenRouter, proxies)
                yield from stalled_chunks(self, answer, lambda piece: chunk({"content": piece}), b": ping\n\n")
                return
            if isinstance(answer, ErrorReply):
                yield from (chunk({"content": piece}) for piece in answer.chunks_before)
                if answer.kind == "midstream_error":
                    yield sse({"error": {"message": answer.message or "The server had an error while processing "
                                         "your request. Sorry about that!", "type": "server_error", "param": None,
                                         "code": None}})
                elif answer.kind == "malformed":
                    yield b'data: {"id": "chatcmpl-broken", "choices": [{"delta": {"content\n\n'
                return
            yield from (chunk({self.reasoning_field: piece}) for piece in self._thinking(request, answer))
            yield from (chunk({"content": piece}) for piece in answer.text_chunks)
            for index, call in enumerate(answer.tool_calls):
                opening = self._call(index, call)
                arguments = opening["function"]["arguments"]
                opening["function"]["arguments"] = ""
                yield chunk({"tool_calls": [opening]})
                step = max(1, answer.tool_argument_chunk)
                for i in range(0, len(arguments), step):
                    piece = {"index": index, "function": {"arguments": arguments[i : i + step]}}
                    yield chunk({"tool_calls": [piece]})
            yield chunk({}, _FINISH[answer.effective_stop_reason])
            if include_usage:
                yield sse({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
            yield sse("[DONE]")
            self.record_stats(request, accounting, time.perf_counter() - started)

        return HttpResponse(headers={"content-type": "text/event-stream",  # like the API: every response has one
                                     "x-request-id": f"req_{uuid.uuid4().hex[:24]}"}, chunks=chunks(),
                            cut=isinstance(answer, ErrorReply) and answer.kind == "cut_off")

    def _thinking(self, request: NormalizedRequest, answer: Answer) -> tuple[str, ...]:
        """The reasoning pieces streamed (none from DeepSeek with thinking turned off)."""
        if not isinstance(answer, Reply) or (self.deepseek and not deepseek_thinks(request.raw)):
            return ()
        return answer.thinking

    def _reasoning_tokens(self, request: NormalizedRequest, answer: Answer) -> int:
        thinking = "".join(self._thinking(request, answer))
        return self.counter(thinking) if thinking else 0

    @staticmethod
    def _call(index: int, call: Any) -> dict[str, Any]:
        return {"index": index, "id": call.id or f"call_{uuid.uuid4().hex[:24]}", "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(dict(call.input))}}
