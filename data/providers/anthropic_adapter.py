"""ModelApiAdapter over the official anthropic SDK (AsyncAnthropic, Messages API, streaming, prompt caching)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import anthropic

from data.providers.anthropic_shape import anthropic_request
from data.providers.base import SdkAdapter, StreamCall, headers_deadline, read_timeout
from data.providers.conversation import parse_tool_arguments
from data.providers.errors import (
    error_fields,
    retry_after_seconds,
    status_error,
    transport_or_invalid,
)
from data.providers.retry import RetryPolicy
from domain.errors import (
    InvalidResponse,
    NetworkError,
    ProviderError,
    ProviderUnavailable,
)
from domain.events import (
    ReplyProgress,
    StopReason,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    UsageReported,
)
from domain.models import AiModel, ModelSource, Usage

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
}


def map_anthropic_error(exc: BaseException, provider_name: str = "Anthropic") -> ProviderError:
    """The domain error for an exception raised by the anthropic SDK or its HTTP stack."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, anthropic.APIStatusError):
        kind, message, _ = error_fields(exc.body)
        status = exc.status_code
        if status == 200 and kind == "api_error":  # an `event: error` in the middle of a stream
            return ProviderUnavailable(f"{provider_name} failed mid-response")
        return status_error(
            provider_name,
            status,
            message,
            auth=kind in ("authentication_error", "permission_error"),
            overloaded=kind == "overloaded_error" or status == 529,
            rate_limited=kind == "rate_limit_error",
            retry_after=retry_after_seconds(exc.response.headers),
        )
    if isinstance(exc, anthropic.APITimeoutError):
        return NetworkError("the request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return NetworkError("the connection failed")
    if isinstance(exc, anthropic.APIResponseValidationError):
        return InvalidResponse(f"{provider_name} sent a response that could not be read.")
    mapped = transport_or_invalid(exc)
    if mapped is not None:
        return mapped
    raise exc


class AnthropicAdapter(SdkAdapter):
    """Streams Claude replies, runs simple completions and lists models; no SDK type leaves this class."""

    def __init__(
        self,
        client: anthropic.AsyncAnthropic,
        *,
        provider_id: str,
        provider_name: str = "Anthropic",
        retry: RetryPolicy | None = None,
        secret: str | None = None,
    ) -> None:
        super().__init__(provider_id=provider_id, provider_name=provider_name, retry=retry, secret=secret)
        self._client = client

    def map_error(self, exc: BaseException) -> ProviderError:
        """See map_anthropic_error."""
        return map_anthropic_error(exc, self._name)

    async def _stream_once(self, call: StreamCall) -> AsyncGenerator[StreamEvent, None]:
        request = anthropic_request(
            model_id=call.model_id,
            system_prompt=call.system_prompt,
            messages=call.messages,
            tools=call.tools,
            max_output_tokens=call.max_output_tokens,
            cache=call.cache,
        )
        timeout = read_timeout(call.deadlines)
        async with headers_deadline(call.headers_s):
            stream = await self._client.messages.create(
                **request, stream=True, timeout=anthropic.NOT_GIVEN if timeout is None else timeout
            )
        state = _StreamState()
        try:
            async for event in stream:
                for out in state.feed(event):
                    yield out
        finally:
            await stream.close()
        if not state.finished:
            raise NetworkError("the response stream ended early")
        yield UsageReported(state.usage())
        yield StreamDone(state.stop_reason)

    async def _models(self) -> list[AiModel]:
        return [
            AiModel(
                id=info.id,
                display_name=info.display_name,
                provider_id=self._provider_id,
                source=ModelSource.FETCHED,
                context_window_size=getattr(info, "max_input_tokens", None),
                max_output_tokens=getattr(info, "max_tokens", None),
            )
            async for info in self._client.models.list()
        ]


class _StreamState:
    """Folds raw Messages API stream events into domain events."""

    def __init__(self) -> None:
        self.input = self.output = self.cache_read = self.cache_write = 0
        self.stop_reason: StopReason = "other"
        self.finished = False
        self.tools: dict[int, tuple[str, str, list[str]]] = {}

    def feed(self, event: Any) -> list[StreamEvent]:
        kind = event.type
        if kind == "message_start":
            self._take_usage(event.message.usage)
        elif kind == "content_block_start" and event.content_block.type == "tool_use":
            self.tools[event.index] = (event.content_block.id, event.content_block.name, [])
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta" and delta.text:
                return [TextDelta(delta.text)]
            if delta.type == "thinking_delta" and delta.thinking:
                return [ThinkingDelta(delta.thinking)]
            if delta.type == "input_json_delta" and event.index in self.tools:
                self.tools[event.index][2].append(delta.partial_json)
                return [ReplyProgress()]
        elif kind == "content_block_stop" and event.index in self.tools:
            call_id, name, pieces = self.tools.pop(event.index)
            return [ToolCallRequested(call_id, name, parse_tool_arguments("".join(pieces)))]
        elif kind == "message_delta":
            self.stop_reason = _STOP_REASONS.get(event.delta.stop_reason or "", "other")
            self._take_usage(event.usage)
        elif kind == "message_stop":
            self.finished = True
        return []

    def _take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        self.input = getattr(usage, "input_tokens", None) or self.input
        self.output = getattr(usage, "output_tokens", None) or self.output
        self.cache_read = getattr(usage, "cache_read_input_tokens", None) or self.cache_read
        self.cache_write = getattr(usage, "cache_creation_input_tokens", None) or self.cache_write

    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input + self.cache_read + self.cache_write,
            output_tokens=self.output,
            cache_read_tokens=self.cache_read,
            cache_write_tokens=self.cache_write,
        )

