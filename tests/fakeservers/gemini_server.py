"""A fake Gemini API (v1beta): streamGenerateContent (SSE), generateContent, models list, real error bodies."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

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
from tests.fakeservers.embeddings import GEMINI_EMBEDDING_MODELS, gemini_embeddings
from tests.fakeservers.gemini_media import INLINE_REQUEST_LIMIT, FilesApi, GeminiMediaRefused, is_media, media_part
from tests.fakeservers.gemini_rules import SIGNING_KEY, refusal, signed_parts, thinks
from tests.fakeservers.media_rules import MediaPart
from tests.fakeservers.server import (
    Accounting,
    FakeProviderServer,
    HttpResponse,
    RawRequest,
    non_stream_error,
    sse,
    stalled_chunks,
)
from tests.fakeservers.web_search import gemini_grounding, gemini_tool_refusal

_GENERATE = re.compile(r"^/v1beta/models/([^:/]+):(streamGenerateContent|generateContent)$")
_COUNT = re.compile(r"^/v1beta/models/([^:/]+):countTokens$")
_EMBED = re.compile(r"^/v1beta/models/([^:/]+):(batchEmbedContents|embedContent)$")
_FINISH = {"end_turn": "STOP", "tool_use": "STOP", "max_tokens": "MAX_TOKENS", "other": "SAFETY"}
DEFAULT_MODELS = ({"id": "gemini-test-1", "display_name": "Gemini Test", "input_token_limit": 1048576,
                   "output_token_limit": 65536},)


def _result_text(response: Any) -> tuple[str, bool]:
    if isinstance(response, dict):
        if "error" in response:
            value = response["error"]
            return (value if isinstance(value, str) else json.dumps(value)), True
        for key in ("output", "result", "content"):
            if key in response:
                value = response[key]
                return (value if isinstance(value, str) else json.dumps(value)), False
    return json.dumps(response), False


RESPONSE_PART_FIELDS = ("inlineData", "fileData", "inline_data", "file_data")


def _response_media(result: dict[str, Any], where: str, files: FilesApi) -> tuple[MediaPart, ...]:
    """The media of a functionResponse's `parts` (FunctionResponsePart: inline_data or file_data only, as the API's
    proto has no other field: anything else is its "Unknown name" 400)."""
    media: list[MediaPart] = []
    for k, part in enumerate(result.get("parts") or []):
        unknown = next((key for key in part if key not in RESPONSE_PART_FIELDS), None)
        if unknown is not None:
            raise GeminiMediaRefused(f"Invalid JSON payload received. Unknown name \"{unknown}\" at "
                                     f"'{where}.parts[{k}]': Cannot find field.")
        media.append(media_part(part, f"{where}.parts[{k}]", files, audio=False))
    return tuple(media)


def normalize(model: str, stream: bool, body: dict[str, Any], headers: dict[str, str],
              files: FilesApi | None = None) -> NormalizedRequest:
    """Reads a generateContent body into the provider-neutral request (role 'model' becomes 'assistant')."""
    messages: list[NormalizedMessage] = []
    for i, content in enumerate(body.get("contents", [])):
        parts: list[Part] = []
        for j, part in enumerate(content.get("parts", [])):
            if part.get("thought"):
                continue
            if is_media(part):
                parts.append(media_part(part, f"contents[{i}].parts[{j}]", files or FilesApi()))
            elif "text" in part:
                parts.append(TextPart(part["text"]))
            elif "functionCall" in part:
                call = part["functionCall"]
                parts.append(ToolCallPart(call.get("id", ""), call["name"], call.get("args", {})))
            elif "functionResponse" in part:
                result = part["functionResponse"]
                text, is_error = _result_text(result.get("response"))
                media = _response_media(result, f"contents[{i}].parts[{j}].function_response", files or FilesApi())
                parts.append(ToolResultPart(result.get("id", ""), result["name"], text, is_error, media))
        role = "assistant" if content.get("role") == "model" else "user"
        messages.append(NormalizedMessage(role, tuple(parts)))
    system = "".join(p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", []))
    declarations = [d for tool in body.get("tools", []) for d in tool.get("functionDeclarations", [])]
    return NormalizedRequest(
        flavour="gemini",
        model=model,
        system=system,
        messages=tuple(messages),
        tool_names=tuple(d["name"] for d in declarations),
        max_tokens=(body.get("generationConfig") or {}).get("maxOutputTokens"),
        stream=stream,
        raw=body,
        headers=headers,
    )


def _error(code: int, status: str, message: str, details: list[dict[str, Any]] | None = None) -> HttpResponse:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = details
    return HttpResponse.of_json({"error": error}, code)


def error_response(err: ErrorReply, presented_key: str | None = None) -> HttpResponse:
    """The HTTP error Gemini sends for a directive; an auth error echoes the key it was given (see ECHO_NOTE)."""
    if err.kind == "auth":
        echo = f" (key: {presented_key})" if presented_key else ""
        if err.status == 401:
            return _error(401, "UNAUTHENTICATED", f"Request had invalid authentication credentials{echo}.")
        if err.status == 403:
            return _error(403, "PERMISSION_DENIED", f"Method doesn't allow unregistered callers{echo}.")
        metadata = {"service": "generativelanguage.googleapis.com", **({"key": presented_key} if presented_key else {})}
        info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                "domain": "googleapis.com", "metadata": metadata}
        return _error(400, "INVALID_ARGUMENT", f"API key not valid. Please pass a valid API key.{echo}", [info])
    if err.kind == "rate_limit":
        delay = f"{int(err.retry_after or 0)}s"
        retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
        message = err.message or "You exceeded your current quota, please check your plan and billing details."
        return _error(429, "RESOURCE_EXHAUSTED", message, [retry])
    if err.kind == "overflow":
        message = (f"The input token count ({err.tokens}) exceeds the maximum number of tokens allowed "
                   f"({err.limit}).")
        return _error(400, "INVALID_ARGUMENT", message)
    if err.kind == "overloaded":
        return _error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
    if err.kind == "bad_request":
        return _error(400, "INVALID_ARGUMENT", err.message or "Request contains an invalid argument.")
    return _error(500, "INTERNAL", err.message or "An internal error has occurred. Please retry.")


# models Google lists as shut down by 2026-11-28 (the Gemini deprecations page; Firebase AI Logic's notice for 2.0)
RETIRED_MODELS = frozenset({"gemini-2.0-flash", "gemini-2.0-flash-001", "gemini-2.0-flash-lite",
                            "gemini-2.0-flash-lite-001", "gemini-3-pro-preview"})


class FakeGeminiServer(FakeProviderServer):
    """Speaks the Gemini API under /v1beta; the SDK's base URL is the root, with api_version v1beta. A model in
    `retired` (none unless a test sets it, e.g. to RETIRED_MODELS) is refused as the API refuses a model it does not
    serve: 404 NOT_FOUND "models/<id> is not found for API version v1beta, ...", for generations and counts."""

    auth_status: int | None = None  # 401 or 403: reject a wrong key that way instead of 400 API_KEY_INVALID
    retired: frozenset[str] = frozenset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.issued: list[str] = []  # every thought signature this server streamed, in order
        self.signing_key = SIGNING_KEY  # change it to make every signature given so far "corrupted"
        self.files = FilesApi()  # the Files API's uploads (see gemini_media)
        self.embedding_models: tuple[str, ...] = GEMINI_EMBEDDING_MODELS  # what the embedding methods know
        self.embedded: list[int] = []  # the number of texts of each embedding request answered

    def presented_key(self, raw: RawRequest) -> str | None:
        """x-goog-api-key, else the key query parameter."""
        return raw.headers.get("x-goog-api-key") or raw.query.get("key")

    def route(self, raw: RawRequest) -> HttpResponse:
        """Dispatches generation, the models list and the Files API."""
        upload_session = raw.path == "/upload/v1beta/files" and self.files.is_open(raw.query.get("upload_id", ""))
        if self.key_rejected(raw) and not upload_session:  # an upload URL authorizes its own chunks (no key sent)
            return error_response(ErrorReply("auth", status=self.auth_status), self.presented_key(raw))
        if raw.path.startswith(("/upload/v1beta/files", "/v1beta/files/")):
            return self._files(raw)
        if raw.method == "GET" and raw.path == "/v1beta/models":
            models = self.models or [dict(m) for m in DEFAULT_MODELS]
            return HttpResponse.of_json({"models": [self._model(m) for m in models]})
        named = _COUNT.match(raw.path) or _GENERATE.match(raw.path)
        if raw.method == "POST" and named is not None and named.group(1) in self.retired:
            method = raw.path.rsplit(":", 1)[-1]
            return _error(404, "NOT_FOUND", f"models/{named.group(1)} is not found for API version v1beta, or is not "
                          f"supported for {method}. Call ListModels to see the list of available models and their "
                          "supported methods.")
        counting = _COUNT.match(raw.path)
        if raw.method == "POST" and counting:
            return self._count(raw, counting.group(1))
        embedding = _EMBED.match(raw.path)
        if raw.method == "POST" and embedding:
            return gemini_embeddings(embedding.group(1), embedding.group(2), raw.json(), self.embedding_models, _error,
                                     self.embedded)
        match = _GENERATE.match(raw.path)
        if raw.method == "POST" and match:
            return self._generate(raw, match.group(1), match.group(2) == "streamGenerateContent")
        return _error(404, "NOT_FOUND", f"Requested entity was not found: {raw.path}")

    def _files(self, raw: RawRequest) -> HttpResponse:
        """The Files API: start and continue resumable uploads, get a file."""
        if raw.method == "GET":
            stored = self.files.files.get(raw.path.removeprefix("/v1beta/"))
            if stored is None:
                return _error(403, "PERMISSION_DENIED", "You do not have permission to access the File or it may not "
                              "exist.")
            return HttpResponse.of_json(self.files.resource(stored, self.root_url))
        command = raw.headers.get("x-goog-upload-command", "")
        if command == "start":
            upload_id = self.files.start(raw.json(), dict(raw.headers))
            url = f"{self.root_url}/upload/v1beta/files?upload_id={upload_id}"
            return HttpResponse.of_json({}, 200, {"x-goog-upload-url": url, "x-goog-upload-status": "active"})
        stored = self.files.chunk(raw.query.get("upload_id", ""), raw.body, "finalize" in command)
        if stored is None:
            return HttpResponse.of_json({}, 200, {"x-goog-upload-status": "active"})
        return HttpResponse.of_json({"file": self.files.resource(stored, self.root_url)}, 200,
                                    {"x-goog-upload-status": "final"})

    @staticmethod
    def _model(model: dict[str, Any]) -> dict[str, Any]:
        return {"name": f"models/{model['id']}", "version": "001", "displayName": model.get("display_name", ""),
                "description": "", "inputTokenLimit": model.get("input_token_limit"),
                "outputTokenLimit": model.get("output_token_limit"),
                "supportedGenerationMethods": ["generateContent", "countTokens"],
                **({"thinking": model["thinking"]} if "thinking" in model else {})}

    def _count(self, raw: RawRequest, model: str) -> HttpResponse:
        """models/{model}:countTokens: totalTokens of `contents` (or of a whole generateContentRequest), priced as a
        generation is."""
        body = raw.json()
        if "generateContentRequest" in body:
            body = body["generateContentRequest"]
        elif set(body) - {"contents"}:
            field = sorted(set(body) - {"contents"})[0]
            return _error(400, "INVALID_ARGUMENT", f'Invalid JSON payload received. Unknown name "{field}": '
                          "Cannot find field.")
        try:
            request = normalize(model, False, body, dict(raw.headers), self.files)
        except GeminiMediaRefused as exc:
            return _error(exc.code, exc.status, str(exc))
        total = self.count(request)
        return HttpResponse.of_json({"totalTokens": total,
                                     "promptTokensDetails": [{"modality": "TEXT", "tokenCount": total}]})

    def _generate(self, raw: RawRequest, model: str, stream: bool) -> HttpResponse:
        started = time.perf_counter()
        refused = refusal(model, raw.json(), self.signing_key) or gemini_tool_refusal(model, raw.json())
        if refused is not None:  # a signature rule the real API enforces: the app must not break it
            return _error(400, "INVALID_ARGUMENT", refused)
        if len(raw.body) > INLINE_REQUEST_LIMIT:
            return _error(400, "INVALID_ARGUMENT",
                          f"Request payload size exceeds the limit: {INLINE_REQUEST_LIMIT} bytes.")
        try:
            request = normalize(model, stream, raw.json(), dict(raw.headers), self.files)
        except GeminiMediaRefused as exc:  # an attachment the real API refuses
            return _error(exc.code, exc.status, str(exc))
        answer, accounting = self.answer(request)
        if isinstance(answer, ErrorReply) and not stream:
            return non_stream_error(answer, error_response)
        if isinstance(answer, ErrorReply) and answer.kind == "no_headers":
            return HttpResponse(silent=True)
        if isinstance(answer, ErrorReply) and answer.kind not in STREAMED_FAILURES:
            return error_response(answer)
        if not stream:
            assert isinstance(answer, Reply)
            self.record_stats(request, accounting, time.perf_counter() - started)
            parts = self._signed(request, self._parts(answer))
            return HttpResponse.of_json(self._chunk(request, parts, answer, accounting))
        return HttpResponse(headers={"content-type": "text/event-stream"},
                            chunks=self._stream(request, answer, accounting, started),
                            cut=isinstance(answer, ErrorReply) and answer.kind == "cut_off")

    @staticmethod
    def _parts(reply: Reply) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = [{"text": t, "thought": True} for t in reply.thinking]
        if reply.text:
            parts.append({"text": reply.text})
        parts.extend({"functionCall": {"name": c.name, "args": dict(c.input), **({"id": c.id} if c.id else {})}}
                     for c in reply.tool_calls)
        return parts

    def _signed(self, request: NormalizedRequest, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """With thinking on, Gemini signs the first function call, or the last part of a reply without calls (the
        signatures given are kept in `issued`)."""
        if not thinks(request.model, request.raw):
            return parts
        signed = signed_parts(request.model, parts, self.signing_key)
        self.issued.extend(p["thoughtSignature"] for p in signed if "thoughtSignature" in p)
        return signed

    def _usage(self, accounting: Accounting) -> dict[str, Any]:
        usage = {"promptTokenCount": accounting.input_tokens, "candidatesTokenCount": accounting.output_tokens,
                 "totalTokenCount": accounting.input_tokens + accounting.output_tokens,
                 "promptTokensDetails": [{"modality": "TEXT", "tokenCount": accounting.input_tokens}]}
        if accounting.cached_tokens:
            usage["cachedContentTokenCount"] = accounting.cached_tokens
        return usage

    def _chunk(self, request: NormalizedRequest, parts: list[dict[str, Any]], reply: Reply | None,
               accounting: Accounting | None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if reply is not None:
            candidate["finishReason"] = _FINISH[reply.effective_stop_reason]
        chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": request.model,
                                 "responseId": uuid.uuid4().hex[:22]}
        chunk["usageMetadata"] = self._usage(accounting) if accounting else {"promptTokenCount": 0}
        thoughts = min(self.counter("".join(reply.thinking)), accounting.output_tokens - 1) if (
            reply is not None and reply.thinking and accounting is not None) else 0
        if thoughts > 0:  # thinking is billed as output but reported apart from the candidates' tokens
            chunk["usageMetadata"]["candidatesTokenCount"] -= thoughts
            chunk["usageMetadata"]["thoughtsTokenCount"] = thoughts
        return chunk

    def _stream(self, request: NormalizedRequest, answer: Reply | ErrorReply, accounting: Accounting,
                started: float) -> Iterator[bytes]:
        if isinstance(answer, ErrorReply) and answer.kind in ("pings_only", "endless"):
            # an empty line: the keep-alive that google-genai's line reader skips
            yield from stalled_chunks(self, answer, lambda piece: sse(self._chunk(request, [{"text": piece}], None,
                                                                                 None)), b"\n")
            return
        if isinstance(answer, ErrorReply):
            for piece in answer.chunks_before:
                yield sse(self._chunk(request, [{"text": piece}], None, None))
            if answer.kind == "midstream_error":
                yield sse({"error": {"code": 503, "message": "The model is overloaded. Please try again later.",
                                     "status": "UNAVAILABLE"}})
            elif answer.kind == "malformed":
                yield b'data: {"candidates": [{"content": {"parts": [{"text\n\n'
            return
        for piece in answer.thinking:
            yield sse(self._chunk(request, [{"text": piece, "thought": True}], None, None))
        for piece in answer.text_chunks[:-1] if not answer.tool_calls else answer.text_chunks:
            yield sse(self._chunk(request, [{"text": piece}], None, None))
        last: list[dict[str, Any]] = []
        if answer.text_chunks and not answer.tool_calls:
            last.append({"text": answer.text_chunks[-1]})
        last.extend(self._parts(Reply(tool_calls=answer.tool_calls)))
        final = self._chunk(request, self._signed(request, last), answer, accounting)
        grounding = gemini_grounding(answer.searches, request.raw, answer.text)
        if grounding is not None:
            final["candidates"][0]["groundingMetadata"] = grounding
        yield sse(final)
        self.record_stats(request, accounting, time.perf_counter() - started)
