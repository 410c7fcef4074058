"""ModelApiAdapter over the official anthropic SDK (AsyncAnthropic, Messages API, streaming, prompt caching)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import anthropic

from data.providers.anthropic_shape import anthropic_request
from data.providers.conversation import parse_tool_arguments
from data.providers.errors import (
    error_fields,
    overflow_from_message,
    retry_after_seconds,
    scrub,
    short,
    transport_or_invalid,
)
from data.providers.retry import RetryPolicy, retrying_call, retrying_stream
from domain.errors import (
    AuthenticationFailed,
    ContextOverflow,
    InvalidResponse,
    NetworkError,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from domain.events import (
    StopReason,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    UsageReported,
)
from domain.models import AiModel, Message, ModelId, ModelSource, ToolDefinition, Usage

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
        if kind == "overloaded_error" or status == 529:
            return ProviderUnavailable(f"{provider_name} is overloaded")
        if kind in ("authentication_error", "permission_error") or status in (401, 403):
            return AuthenticationFailed(provider_name)
        if kind == "rate_limit_error" or status == 429:
            return RateLimited(retry_after_seconds(exc.response.headers))
        overflow = overflow_from_message(message) if status in (400, 413) or kind == "invalid_request_error" else None
        if overflow is not None:
            return overflow
        if status == 413:  # the request body itself is too large: too much context, compaction helps
            return ContextOverflow()
        if status >= 500 or kind == "api_error":
            return ProviderUnavailable(f"{provider_name} answered HTTP {status}")
        if status == 404 or kind == "not_found_error":
            return InvalidResponse(f"{provider_name} does not know that model or endpoint: {short(message)}")
        return InvalidResponse(f"{provider_name} refused the request: {short(message or str(status))}")
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


class AnthropicAdapter:
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
        self._client = client
        self._provider_id = provider_id
        self._name = provider_name
        self._retry = retry or RetryPolicy()
        self._secret = secret

    def _error(self, exc: BaseException) -> ProviderError:
        return scrub(map_anthropic_error(exc, self._name), self._secret)

    def send_message_stream(
        self,
        *,
        model_id: ModelId,
        system_prompt: str | None,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        max_output_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        """Events of one reply; transient failures before the first event are retried."""
        params = anthropic_request(
            model_id=model_id,
            system_prompt=system_prompt,
            messages=messages,
            tools=tools,
            max_output_tokens=max_output_tokens,
        )
        return retrying_stream(lambda: self._stream_once(params), self._retry)

    async def _stream_once(self, params: dict[str, Any]) -> AsyncGenerator[StreamEvent, None]:
        try:
            stream = await self._client.messages.create(**params, stream=True)
        except Exception as exc:
            raise self._error(exc) from exc
        state = _StreamState()
        try:
            async for event in stream:
                for out in state.feed(event):
                    yield out
        except ProviderError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
        finally:
            await stream.close()
        if not state.finished:
            raise NetworkError("the response stream ended early")
        yield UsageReported(state.usage())
        yield StreamDone(state.stop_reason)

    async def generate_simple_completion(
        self, model_id: ModelId, prompt: str, system: str | None = None, max_tokens: int = 2048
    ) -> str:
        """The text of one non-streamed reply to a single user prompt."""
        params: dict[str, Any] = {
            "model": model_id,
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": prompt}],
        }
        if system:
            params["system"] = system

        async def call() -> str:
            try:
                response = await self._client.messages.create(**params)
            except Exception as exc:
                raise self._error(exc) from exc
            return "".join(getattr(block, "text", "") for block in response.content if block.type == "text")

        return await retrying_call(call, self._retry)

    async def list_models(self) -> list[AiModel]:
        """The provider's models with their input windows and output limits."""

        async def call() -> list[AiModel]:
            try:
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
            except Exception as exc:
                raise self._error(exc) from exc

        return await retrying_call(call, self._retry)


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

