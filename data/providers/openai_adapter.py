"""ModelApiAdapter over the official openai SDK (AsyncOpenAI Chat Completions), for OpenAI and compatible servers."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import openai

from data.providers.conversation import parse_tool_arguments
from data.providers.errors import (
    error_fields,
    overflow_from_message,
    retry_after_seconds,
    scrub,
    short,
    transport_or_invalid,
)
from data.providers.ollama import ollama_context_window
from data.providers.openai_shape import openai_request
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
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}


def map_openai_error(exc: BaseException, provider_name: str = "OpenAI") -> ProviderError:
    """The domain error for an exception raised by the openai SDK or its HTTP stack."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, openai.APIStatusError):
        kind, message, code = error_fields(exc.body)
        status = exc.status_code
        if status in (401, 403) or code == "invalid_api_key":
            return AuthenticationFailed(provider_name)
        if status == 429 and code == "insufficient_quota":
            return InvalidResponse(f"{provider_name} says the account has no quota left: {short(message)}")
        if status == 429:
            return RateLimited(retry_after_seconds(exc.response.headers))
        overflow = overflow_from_message(message, code) if status in (400, 413) else None
        if overflow is not None:
            return overflow
        if status == 413:  # the request body itself is too large: too much context, compaction helps
            return ContextOverflow()
        if status >= 500:
            return ProviderUnavailable(f"{provider_name} answered HTTP {status}")
        if status == 404:
            return InvalidResponse(f"{provider_name} does not know that model or endpoint: {short(message)}")
        return InvalidResponse(f"{provider_name} refused the request: {short(message or str(status))}")
    if isinstance(exc, openai.APITimeoutError):
        return NetworkError("the request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return NetworkError("the connection failed")
    if isinstance(exc, openai.APIResponseValidationError):
        return InvalidResponse(f"{provider_name} sent a response that could not be read.")
    if isinstance(exc, openai.APIError):  # an error event in the middle of a stream
        kind, message, code = error_fields(exc.body) if exc.body is not None else ("", exc.message, None)
        overflow = overflow_from_message(message, code)
        if overflow is not None:
            return overflow
        if kind in ("server_error", "overloaded_error", "api_error") or not kind:
            return ProviderUnavailable(f"{provider_name} failed mid-response")
        return InvalidResponse(f"{provider_name} failed mid-response: {short(message)}")
    mapped = transport_or_invalid(exc)
    if mapped is not None:
        return mapped
    raise exc


class OpenAIAdapter:
    """Streams Chat Completions replies, runs simple completions and lists models; Ollama windows via /api/show."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        *,
        provider_id: str,
        provider_name: str = "OpenAI",
        retry: RetryPolicy | None = None,
        secret: str | None = None,
        compatible: bool = False,
    ) -> None:
        self._client = client
        self._provider_id = provider_id
        self._name = provider_name
        self._retry = retry or RetryPolicy()
        self._secret = secret
        self._compatible = compatible
        # OpenAI's own API wants max_completion_tokens; compatible servers still speak max_tokens.
        self._max_tokens_field = "max_tokens" if compatible else "max_completion_tokens"

    def _error(self, exc: BaseException) -> ProviderError:
        return scrub(map_openai_error(exc, self._name), self._secret)

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
        params = openai_request(
            model_id=model_id,
            system_prompt=system_prompt,
            messages=messages,
            tools=tools,
            max_output_tokens=max_output_tokens,
            max_tokens_field=self._max_tokens_field,
        )
        return retrying_stream(lambda: self._stream_once(params), self._retry)

    async def _stream_once(self, params: dict[str, Any]) -> AsyncGenerator[StreamEvent, None]:
        try:
            stream = await self._client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}
            )
        except Exception as exc:
            raise self._error(exc) from exc
        calls: dict[int, list[Any]] = {}
        usage: Usage | None = None
        finish: str | None = None
        try:
            async for chunk in stream:
                if chunk.usage is not None:
                    usage = _usage(chunk.usage)
                for choice in chunk.choices or ():
                    delta = choice.delta
                    if delta is not None:
                        thinking = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
                        if isinstance(thinking, str) and thinking:
                            yield ThinkingDelta(thinking)
                        if delta.content:
                            yield TextDelta(delta.content)
                        for call in delta.tool_calls or ():
                            slot = calls.setdefault(call.index, ["", "", []])
                            slot[0] = call.id or slot[0]
                            if call.function is not None:
                                slot[1] = call.function.name or slot[1]
                                slot[2].append(call.function.arguments or "")
                    finish = choice.finish_reason or finish
        except ProviderError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
        finally:
            await stream.close()
        if finish is None:
            raise NetworkError("the response stream ended early")
        for index in sorted(calls):
            call_id, name, pieces = calls[index]
            yield ToolCallRequested(call_id or f"call_{index}", name, parse_tool_arguments("".join(pieces)))
        if usage is not None:
            yield UsageReported(usage)
        stop = _STOP_REASONS.get(finish, "other")
        yield StreamDone("tool_use" if calls and stop == "end_turn" else stop)

    async def generate_simple_completion(
        self, model_id: ModelId, prompt: str, system: str | None = None, max_tokens: int = 2048
    ) -> str:
        """The text of one non-streamed reply to a single user prompt."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})

        async def call() -> str:
            try:
                params: dict[str, Any] = {"model": model_id, "messages": messages, self._max_tokens_field: max_tokens}
                response = await self._client.chat.completions.create(**params)
            except Exception as exc:
                raise self._error(exc) from exc
            if not response.choices:
                raise InvalidResponse(f"{self._name} returned no answer.")
            return response.choices[0].message.content or ""

        return await retrying_call(call, self._retry)

    async def list_models(self) -> list[AiModel]:
        """The server's models; for an Ollama server each with its context length from /api/show."""

        async def call() -> list[AiModel]:
            try:
                ids = [model.id async for model in self._client.models.list()]
            except Exception as exc:
                raise self._error(exc) from exc
            windows: dict[str, int | None] = {}
            if self._compatible:
                for model_id in ids:
                    windows[model_id] = await ollama_context_window(self._client, model_id)
                    if windows[model_id] is None:
                        break  # not an Ollama server (or it does not say): do not ask again for every model
            return [
                AiModel(
                    id=model_id,
                    display_name=None,
                    provider_id=self._provider_id,
                    source=ModelSource.FETCHED,
                    context_window_size=windows.get(model_id),
                )
                for model_id in ids
            ]

        return await retrying_call(call, self._retry)


def _usage(raw: Any) -> Usage:
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or 0
    return Usage(
        input_tokens=raw.prompt_tokens or 0,
        output_tokens=raw.completion_tokens or 0,
        cache_read_tokens=cached,
    )

