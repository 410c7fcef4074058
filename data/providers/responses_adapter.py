"""ModelApiAdapter over the official openai SDK's Responses API (client.responses), OpenAI's own endpoint's default:
stateless requests whose reasoning items are kept with the reply and sent back, summaries streamed as thinking."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace
from typing import Any

import openai

from data.providers.attachment_shape import responses_parts
from data.providers.base import COUNT_PROMPT, StreamCall, headers_deadline, read_timeout
from data.providers.conversation import parse_tool_arguments
from data.providers.errors import is_billing, overflow_from_message, short
from data.providers.openai_adapter import OPENAI_BILLING_PAGE, OpenAIAdapter, map_openai_error
from data.providers.responses_shape import responses_request
from data.providers.responses_web import WebFold
from domain.attachment import Attachment
from domain.errors import (
    BillingError,
    InvalidResponse,
    NetworkError,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    ReasoningRejected,
)
from domain.events import (
    ReasoningDone,
    ReplyProgress,
    StopReason,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    UsageReported,
    WebSearched,
)
from domain.models import ModelId, ReasoningBlock, ReasoningKind, Usage

REASONING_REFUSED_CODES = ("invalid_encrypted_content",)
_INCOMPLETE: dict[str, StopReason] = {"max_output_tokens": "max_tokens", "content_filter": "other"}


def map_responses_error(exc: BaseException, provider_name: str = "OpenAI", url: str | None = None) -> ProviderError:
    """map_openai_error, plus the Responses API's refusal of reasoning items it cannot verify."""
    if isinstance(exc, openai.APIStatusError) and isinstance(exc.body, dict):
        code = exc.body.get("code") if "code" in exc.body else (exc.body.get("error") or {}).get("code")
        if code in REASONING_REFUSED_CODES:
            message = str(exc.body.get("message") or (exc.body.get("error") or {}).get("message") or "")
            return ReasoningRejected(provider_name, short(message))
    return map_openai_error(exc, provider_name, url)


def failure(provider_name: str, code: str | None, message: str) -> ProviderError:
    """The domain error for a Responses stream's `error` event or `response.failed` error."""
    overflow = overflow_from_message(message, code)
    if overflow is not None:
        return overflow
    if is_billing(code, code):
        return BillingError(provider_name, OPENAI_BILLING_PAGE if provider_name == "OpenAI" else None)
    if code in REASONING_REFUSED_CODES:
        return ReasoningRejected(provider_name, short(message))
    if code == "rate_limit_exceeded":
        return RateLimited()
    if code in (None, "", "server_error", "api_error", "overloaded_error", "internal_error"):
        return ProviderUnavailable(f"{provider_name} failed mid-response")
    return InvalidResponse(f"{provider_name} failed mid-response: {short(message)}")


@dataclass
class _Fold:
    """What a stream has told so far: reasoning items and function calls from their `done` events, in order."""

    reasoning: list[ReasoningDone] = field(default_factory=list)  # the reply's, and each call's (call_id set)
    pending: list[ReasoningBlock] = field(default_factory=list)  # not yet followed by the item it produced
    calls: list[ToolCallRequested] = field(default_factory=list)
    summary_parts: int = 0
    usage: Usage | None = None
    stop: StopReason | None = None
    web: WebFold | None = None  # the reply's web searches and citations


class ResponsesAdapter(OpenAIAdapter):
    """Streams Responses API replies (models, errors and simple completions as OpenAIAdapter, over the same client)."""

    searches_web = True  # the web_search tool

    def map_error(self, exc: BaseException) -> ProviderError:
        """See map_responses_error."""
        return map_responses_error(exc, self._name, self.endpoint)

    async def _count_input(self, model_id: ModelId, attachment: Attachment | None) -> int | None:
        """POST /v1/responses/input_tokens."""
        content = [*(responses_parts(attachment, self.media) if attachment else []),
                   {"type": "input_text", "text": COUNT_PROMPT}]
        message: Any = {"role": "user", "content": content}
        counted = await self._client.responses.input_tokens.count(model=model_id, input=[message])
        return int(counted.input_tokens)

    async def _stream_once(self, call: StreamCall) -> AsyncGenerator[StreamEvent, None]:
        request = responses_request(
            model_id=call.model_id, system_prompt=call.system_prompt, messages=call.messages, tools=call.tools,
            max_output_tokens=call.max_output_tokens, owner=(self._provider_id, call.model_id),
            capabilities=call.capabilities, reasoning=call.reasoning, cache_key=call.cache_key, media=self.media,
            web_search=call.web_search,
        )
        timeout = read_timeout(call.deadlines)
        async with headers_deadline(call.headers_s):
            stream = await self._client.responses.create(
                **request, stream=True,
                timeout=openai.NOT_GIVEN if timeout is None else openai.Timeout(timeout, connect=self.connect_timeout),
            )
        fold = _Fold(web=WebFold(self._provider_id, call.model_id))
        request_id = stream.response.headers.get("x-request-id")
        try:
            async for event in stream:
                for out in self._read(event, fold, call.model_id):
                    if isinstance(out, ProviderError):
                        raise out.with_request_id(request_id)
                    yield out
        finally:
            await stream.close()
        if fold.stop is None:
            raise NetworkError("the stream ended without its last event", reason="cut", url=self.endpoint)
        for tool_call in fold.calls:
            yield tool_call
        fold.reasoning += [ReasoningDone(block) for block in fold.pending]
        for done in fold.reasoning:  # stored with the reply or the call each came before, in order
            yield done
        record = fold.web.record() if fold.web is not None else None
        if record is not None:
            yield WebSearched(record)
        if fold.usage is not None:
            searched = fold.web.searches if fold.web is not None else 0
            yield UsageReported(replace(fold.usage, web_search_requests=searched))
        yield StreamDone("tool_use" if fold.calls and fold.stop == "end_turn" else fold.stop)

    def _read(self, event: Any, fold: _Fold, model_id: str) -> list[StreamEvent | ProviderError]:
        """The domain events (or the error) one SSE event of the stream means."""
        kind = getattr(event, "type", "")
        if kind == "response.output_text.delta":
            return [TextDelta(event.delta)] if event.delta else []
        if kind == "response.reasoning_summary_text.delta":
            return [ThinkingDelta(event.delta)] if event.delta else []
        if kind == "response.reasoning_summary_part.added":
            fold.summary_parts += 1
            return [ThinkingDelta("\n\n")] if fold.summary_parts > 1 else []
        if kind == "response.function_call_arguments.delta":
            return [ReplyProgress()]
        if kind == "response.output_item.done":
            return self._item_done(event.item, fold, model_id)
        if kind in ("response.completed", "response.incomplete"):
            response = event.response
            fold.usage = _usage(getattr(response, "usage", None))
            details = getattr(response, "incomplete_details", None)
            reason = getattr(details, "reason", None) if details is not None else None
            fold.stop = _INCOMPLETE.get(str(reason), "other") if kind == "response.incomplete" else "end_turn"
            return []
        if kind == "response.failed":
            error = getattr(event.response, "error", None)
            return [failure(self._name, getattr(error, "code", None), str(getattr(error, "message", "") or ""))]
        if kind == "error":
            return [failure(self._name, getattr(event, "code", None), str(getattr(event, "message", "") or ""))]
        return []

    def _item_done(self, item: Any, fold: _Fold, model_id: str) -> list[StreamEvent | ProviderError]:
        """A finished output item: reasoning kept whole (only this copy's encrypted content is complete) until the
        item it produced is done — a function call (then the reasoning is that call's), the message (the reply's)
        or a web search call (then it is shown but never sent back); a function call with its complete
        arguments."""
        item_type = getattr(item, "type", "")
        if fold.web is not None:
            fold.web.item(item)
        if item_type == "reasoning":
            summary = "\n\n".join(part.text for part in getattr(item, "summary", None) or () if part.text)
            fold.pending.append(ReasoningBlock(
                ReasoningKind.ENCRYPTED, text=summary, data=getattr(item, "encrypted_content", None),
                item_id=item.id, provider_id=self._provider_id, model_id=model_id))
        elif item_type == "function_call":
            fold.calls.append(ToolCallRequested(item.call_id, item.name, parse_tool_arguments(item.arguments or "")))
            fold.reasoning += [ReasoningDone(block, item.call_id) for block in fold.pending]
            fold.pending.clear()
        elif item_type == "message":
            fold.reasoning += [ReasoningDone(block) for block in fold.pending]
            fold.pending.clear()
        elif item_type == "web_search_call":  # the API takes this reasoning back only followed by the call, which
            fold.reasoning += [ReasoningDone(replace(block, data=None)) for block in fold.pending]  # is not sent:
            fold.pending.clear()  # kept to show, without the encrypted content, so neither goes back
        return []


def _usage(raw: Any) -> Usage | None:
    if raw is None:
        return None
    cached = getattr(getattr(raw, "input_tokens_details", None), "cached_tokens", None) or 0
    reasoning = getattr(getattr(raw, "output_tokens_details", None), "reasoning_tokens", None) or 0
    return Usage(input_tokens=raw.input_tokens or 0, output_tokens=raw.output_tokens or 0,
                 cache_read_tokens=cached, reasoning_tokens=reasoning)
