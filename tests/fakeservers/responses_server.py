"""A fake OpenAI Responses API (POST /v1/responses, SSE events as the real API names and shapes them), stateless
like a store=false client needs it: every reasoning item carries encrypted content the server can verify."""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from tests.fakeservers.brain import STREAMED_FAILURES, ErrorReply, NormalizedRequest, Reply, ToolCall
from tests.fakeservers.openai_media import OpenAIMediaRefused
from tests.fakeservers.openai_server import FakeOpenAIServer, error_response
from tests.fakeservers.responses_rules import Refusal, check, normalize, reasons
from tests.fakeservers.server import HttpResponse, RawRequest, non_stream_error, sse, stalled_chunks
from tests.fakeservers.web_search import responses_search_items, responses_tool_refusal

CACHE_MIN_TOKENS, CACHE_STEP = 1024, 128
INPUT_LIMIT_WORDING = ("Input tokens exceed the configured limit of {limit} tokens. Your messages resulted in {tokens} "
                       "tokens. Please reduce the length of the messages.")
QUOTA_BODY = {"error": {"message": "You exceeded your current quota, please check your plan and billing details. For "
                        "more information on this error, read the docs: https://platform.openai.com/docs/guides/"
                        "error-codes/api-errors.", "type": "insufficient_quota", "param": None, "code": None}}


def _bad(refusal: Refusal) -> HttpResponse:
    body = {"error": {"message": refusal.message, "type": "invalid_request_error", "param": refusal.param,
                      "code": refusal.code}}
    return HttpResponse.of_json(body, 400, {"x-request-id": f"req_{uuid.uuid4().hex[:24]}"})


class FakeResponsesServer(FakeOpenAIServer):
    """Speaks the Responses API under /v1 (and Chat Completions and /v1/models, as the real endpoint does).

    Refuses what the real API refuses (responses_rules.check): a reasoning item without the item it produced after
    it, one whose encrypted content it did not issue or issued to another model, a function_call_output without its
    call, reasoning knobs for a model that does not reason, an input_image or input_file the API would not take
    (responses_media: the data URL's media type against the bytes, base64, a PDF that opens, the size limits; images
    billed by OpenAI's formula). An overflow answers with GPT-5's input-limit wording (numbers included). `quota`:
    every generation request gets the 429 insufficient_quota body."""

    def __init__(self, *args: Any, quota: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.quota = quota
        self.issued: dict[str, str] = {}  # reasoning item id -> the encrypted content sent with it
        self.issued_to: dict[str, str] = {}  # reasoning item id -> the model that produced it
        self.searched_after: dict[str, str] = {}  # reasoning item id -> the web_search_call it produced
        self.refusals: list[str] = []

    def route(self, raw: RawRequest) -> HttpResponse:
        """Dispatches /v1/responses; everything else as the Chat Completions fake."""
        if raw.method == "POST" and raw.path in ("/v1/responses", "/v1/responses/input_tokens"):
            if self.key_rejected(raw):
                return error_response(ErrorReply("auth"), self.presented_key(raw))
            gone = self.retired_model(raw)
            if gone is not None:
                return gone
            return self._respond(raw) if raw.path == "/v1/responses" else self._count(raw)
        return super().route(raw)

    def _count(self, raw: RawRequest) -> HttpResponse:
        """POST /v1/responses/input_tokens: {"object": "response.input_tokens", "input_tokens": N} for a request's
        input, checked by the same rules and priced as a response is."""
        body = raw.json()
        try:
            check({**body, "store": False}, self.issued, searched_after=self.searched_after)
            request = normalize(body, raw.headers)
        except OpenAIMediaRefused as refused:
            return _bad(Refusal(str(refused), refused.param, refused.code))
        except Refusal as refusal:
            return _bad(refusal)
        return HttpResponse.of_json({"object": "response.input_tokens", "input_tokens": self.count(request)})

    def _respond(self, raw: RawRequest) -> HttpResponse:
        started = time.perf_counter()
        body = raw.json()
        if self.quota:
            return HttpResponse.of_json(QUOTA_BODY, 429, {"x-request-id": f"req_{uuid.uuid4().hex[:24]}"})
        bad_tool = responses_tool_refusal(body)
        if bad_tool is not None:
            self.refusals.append(bad_tool[0])
            return _bad(Refusal(bad_tool[0], bad_tool[1], "unknown_parameter"))
        try:
            check(body, self.issued, self.issued_to, self.searched_after)
            request = normalize(body, raw.headers)
        except OpenAIMediaRefused as refused:  # an attachment the real API refuses
            self.refusals.append(str(refused))
            return _bad(Refusal(str(refused), refused.param, refused.code))
        except Refusal as refusal:
            self.refusals.append(refusal.message)
            return _bad(refusal)
        answer, accounting = self.answer(request)
        if isinstance(answer, ErrorReply) and answer.kind == "overflow":
            message = INPUT_LIMIT_WORDING.format(limit=answer.limit, tokens=answer.tokens)
            return HttpResponse.of_json({"error": {"message": message, "type": "invalid_request_error",
                                                   "param": "input", "code": "context_length_exceeded"}}, 400,
                                        {"x-request-id": f"req_{uuid.uuid4().hex[:24]}"})
        if isinstance(answer, ErrorReply) and not request.stream:
            return non_stream_error(answer, error_response)
        if isinstance(answer, ErrorReply) and answer.kind == "no_headers":
            return HttpResponse(silent=True)
        if isinstance(answer, ErrorReply) and answer.kind not in STREAMED_FAILURES:
            return error_response(answer)
        usage = {"input_tokens": accounting.input_tokens,
                 "input_tokens_details": {"cached_tokens": accounting.cached_tokens},
                 "output_tokens": accounting.output_tokens,
                 "output_tokens_details": {"reasoning_tokens": self._reasoning_tokens(request, answer)},
                 "total_tokens": accounting.input_tokens + accounting.output_tokens}
        shell = {"id": f"resp_{uuid.uuid4().hex[:24]}", "object": "response", "created_at": int(time.time()),
                 "model": request.model, "status": "in_progress", "output": [], "usage": None, "error": None,
                 "incomplete_details": None, "instructions": body.get("instructions"), "metadata": {},
                 "parallel_tool_calls": True, "tool_choice": "auto", "tools": body.get("tools") or [],
                 "temperature": 1.0, "top_p": 1.0, "store": body.get("store", True),
                 "prompt_cache_key": body.get("prompt_cache_key")}
        if not request.stream:
            assert isinstance(answer, Reply)
            self.record_stats(request, accounting, time.perf_counter() - started)
            output = [item for item, _ in self._items(request, answer)]
            return HttpResponse.of_json({**shell, "status": "completed", "output": output, "usage": usage})

        def events() -> Iterator[bytes]:
            counter = iter(range(1_000_000))

            def event(kind: str, **fields: Any) -> bytes:
                return sse({"type": kind, "sequence_number": next(counter), **fields}, kind)

            yield event("response.created", response=shell)
            yield event("response.in_progress", response=shell)
            if isinstance(answer, ErrorReply):
                yield from self._failure(answer, event)
                return
            output: list[dict[str, Any]] = []
            for index, (item, pieces) in enumerate(self._items(request, answer)):
                yield from self._stream_item(index, item, pieces, event)
                output.append(item)
            stopped = answer.effective_stop_reason == "max_tokens"
            final = {**shell, "status": "incomplete" if stopped else "completed", "output": output, "usage": usage,
                     "incomplete_details": {"reason": "max_output_tokens"} if stopped else None}
            yield event("response.incomplete" if stopped else "response.completed", response=final)
            self.record_stats(request, accounting, time.perf_counter() - started)

        return HttpResponse(headers={"content-type": "text/event-stream",
                                     "x-request-id": f"req_{uuid.uuid4().hex[:24]}"}, chunks=events(),
                            cut=isinstance(answer, ErrorReply) and answer.kind == "cut_off")

    def cache_slot(self, request: NormalizedRequest) -> str | None:
        """OpenAI routes a prompt to a cache by its prompt_cache_key (none: one shared slot)."""
        key = request.raw.get("prompt_cache_key")
        return str(key) if key else None

    def cached_tokens(self, prefix_tokens: int, input_tokens: int) -> int:
        """OpenAI caches prompts of at least 1,024 tokens, in steps of 128 tokens."""
        if input_tokens < CACHE_MIN_TOKENS or prefix_tokens < CACHE_MIN_TOKENS:
            return 0
        return prefix_tokens - prefix_tokens % CACHE_STEP

    def _failure(self, answer: ErrorReply, event: Any) -> Iterator[bytes]:
        text_item = {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                     "status": "in_progress", "content": []}
        yield event("response.output_item.added", output_index=0, item=text_item)
        if answer.kind in ("pings_only", "endless"):
            yield from stalled_chunks(self, answer, lambda piece: event(
                "response.output_text.delta", item_id=text_item["id"], output_index=0, content_index=0, delta=piece,
                logprobs=[]), b": ping\n\n")
            return
        for piece in answer.chunks_before:
            yield event("response.output_text.delta", item_id=text_item["id"], output_index=0, content_index=0,
                        delta=piece, logprobs=[])
        if answer.kind == "midstream_error":
            yield event("error", code="server_error", param=None, message=answer.message or "The server had an "
                        "error while processing your request. Sorry about that!")
        elif answer.kind == "malformed":
            yield b'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "del\n\n'

    def _items(self, request: NormalizedRequest, answer: Reply) -> list[tuple[dict[str, Any], list[str]]]:
        """The output items, complete, each with the pieces its deltas stream (summary, text or arguments)."""
        items: list[tuple[dict[str, Any], list[str]]] = []
        raw = request.raw
        searched = responses_search_items(answer.searches, raw)
        thinks = reasons(request.model) and (raw.get("reasoning") or {}).get("effort") != "none"  # none: no reasoning
        if thinks and searched:  # the reasoning that produced the first search call, before it
            before, _ = self._reasoning(request, ())
            self.searched_after[before["id"]] = searched[0]["id"]
            items.append((before, []))
        items.extend(({k: v for k, v in item.items() if k != "_kept"}, []) for item in searched)
        if thinks:
            summarize = bool((raw.get("reasoning") or {}).get("summary"))
            items.append(self._reasoning(request, tuple(answer.thinking) if summarize else ()))
        notes = [{"type": "url_citation", "start_index": 0, "end_index": len(answer.text),
                  "url": item["_kept"][0][0], "title": item["_kept"][0][1]}
                 for item in searched if item["status"] == "completed" and item["_kept"]]
        if answer.text or not answer.tool_calls:
            message = {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": answer.text, "annotations": notes,
                                    "logprobs": []}]}
            items.append((message, list(answer.text_chunks)))
        for call in answer.tool_calls:
            arguments = json.dumps(dict(call.input))
            step = max(1, answer.tool_argument_chunk)
            items.append((self._call_item(call, arguments), [arguments[i:i + step]
                                                            for i in range(0, len(arguments), step)]))
        return items

    def _reasoning(self, request: NormalizedRequest, thinking: tuple[str, ...]) -> tuple[dict[str, Any], list[str]]:
        """A reasoning item with its summary (when asked for) and, when included, encrypted content this server
        can verify later."""
        item_id = f"rs_{uuid.uuid4().hex[:24]}"
        summary = [{"type": "summary_text", "text": "".join(thinking)}] if thinking else []
        item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": summary}
        if "reasoning.encrypted_content" in (request.raw.get("include") or []):
            digest = hashlib.sha256(f"{item_id}:{''.join(thinking)}".encode()).digest()
            item["encrypted_content"] = "gAAAA" + base64.b64encode(digest * 8).decode()
            self.issued[item_id] = item["encrypted_content"]
            self.issued_to[item_id] = request.model
        return item, list(thinking)

    @staticmethod
    def _call_item(call: ToolCall, arguments: str) -> dict[str, Any]:
        return {"id": f"fc_{uuid.uuid4().hex[:24]}", "type": "function_call", "status": "completed",
                "call_id": call.id or f"call_{uuid.uuid4().hex[:24]}", "name": call.name, "arguments": arguments}

    @staticmethod
    def _stream_item(index: int, item: Mapping[str, Any], pieces: list[str], event: Any) -> Iterator[bytes]:
        """added (the reasoning item's encrypted content cut short, as the real API may send it), the deltas, done."""
        kind, item_id = item["type"], item["id"]
        opening: dict[str, Any] = {**item, "status": "in_progress"}
        if kind == "reasoning":
            opening["summary"] = []
            if item.get("encrypted_content"):
                opening["encrypted_content"] = str(item["encrypted_content"])[:20]
        elif kind == "message":
            opening["content"] = []
        elif kind == "function_call":
            opening["arguments"] = ""
        elif kind == "web_search_call":
            opening = {"id": item_id, "type": kind, "status": "in_progress"}
        yield event("response.output_item.added", output_index=index, item=opening)
        if kind == "web_search_call":
            for stage in ("in_progress", "searching", "completed"):
                yield event(f"response.web_search_call.{stage}", item_id=item_id, output_index=index)
        if kind == "reasoning" and pieces:
            part: dict[str, Any] = {"type": "summary_text", "text": ""}
            yield event("response.reasoning_summary_part.added", item_id=item_id, output_index=index,
                        summary_index=0, part=part)
            for piece in pieces:
                yield event("response.reasoning_summary_text.delta", item_id=item_id, output_index=index,
                            summary_index=0, delta=piece)
            text = "".join(pieces)
            yield event("response.reasoning_summary_text.done", item_id=item_id, output_index=index,
                        summary_index=0, text=text)
            yield event("response.reasoning_summary_part.done", item_id=item_id, output_index=index,
                        summary_index=0, part={**part, "text": text})
        elif kind == "message":
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            yield event("response.content_part.added", item_id=item_id, output_index=index, content_index=0,
                        part=part)
            for piece in pieces:
                yield event("response.output_text.delta", item_id=item_id, output_index=index, content_index=0,
                            delta=piece, logprobs=[])
            text = "".join(pieces)
            for n, note in enumerate(item["content"][0]["annotations"]):
                yield event("response.output_text.annotation.added", item_id=item_id, output_index=index,
                            content_index=0, annotation_index=n, annotation=note)
            yield event("response.output_text.done", item_id=item_id, output_index=index, content_index=0,
                        text=text, logprobs=[])
            yield event("response.content_part.done", item_id=item_id, output_index=index, content_index=0,
                        part={**part, "text": text})
        elif kind == "function_call":
            for piece in pieces:
                yield event("response.function_call_arguments.delta", item_id=item_id, output_index=index,
                            delta=piece)
            yield event("response.function_call_arguments.done", item_id=item_id, output_index=index,
                        arguments=item["arguments"], name=item["name"])
        yield event("response.output_item.done", output_index=index, item=item)
