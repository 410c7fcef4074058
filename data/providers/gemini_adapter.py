"""ModelApiAdapter over the official google-genai SDK (genai.Client(...).aio, generate_content_stream)."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

from google import genai
from google.genai import errors as genai_errors

from data.providers.errors import error_fields, overflow_from_message, scrub, short, transport_or_invalid
from data.providers.gemini_shape import gemini_config, gemini_contents
from data.providers.retry import RetryPolicy, retrying_call, retrying_stream
from domain.errors import (
    AuthenticationFailed,
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

_STOP_REASONS: dict[str, StopReason] = {"STOP": "end_turn", "MAX_TOKENS": "max_tokens"}
_DELAY = re.compile(r"^\s*([\d.]+)s\s*$")


def _retry_delay(details: Any) -> float | None:
    error = details.get("error", {}) if isinstance(details, dict) else {}
    for detail in error.get("details", []) if isinstance(error, dict) else []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _DELAY.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def map_gemini_error(exc: BaseException, provider_name: str = "Gemini") -> ProviderError:
    """The domain error for an exception raised by the google-genai SDK or its HTTP stack."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, genai_errors.APIError):
        status, message, _ = error_fields(exc.details)
        code = exc.code or 0
        if code in (401, 403) or status in ("UNAUTHENTICATED", "PERMISSION_DENIED") or "API_KEY_INVALID" in str(
            exc.details
        ) or "api key not valid" in message.lower():
            return AuthenticationFailed(provider_name)
        if code == 429 or status == "RESOURCE_EXHAUSTED":
            return RateLimited(_retry_delay(exc.details))
        overflow = overflow_from_message(message) if code in (400, 413) else None
        if overflow is not None:
            return overflow
        if code >= 500 or status in ("UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED"):
            return ProviderUnavailable(f"{provider_name} answered HTTP {code}" if code else "")
        if code == 404:
            return InvalidResponse(f"{provider_name} does not know that model or endpoint: {short(message)}")
        return InvalidResponse(f"{provider_name} refused the request: {short(message or str(code))}")
    if isinstance(exc, genai_errors.UnknownApiResponseError):
        return InvalidResponse(f"{provider_name} sent a response that could not be read.")
    mapped = transport_or_invalid(exc)
    if mapped is not None:
        return mapped
    raise exc


class GeminiAdapter:
    """Streams Gemini replies, runs simple completions and lists models with inputTokenLimit."""

    def __init__(
        self,
        client: genai.Client,
        *,
        provider_id: str,
        provider_name: str = "Gemini",
        retry: RetryPolicy | None = None,
        secret: str | None = None,
    ) -> None:
        self._client = client
        self._provider_id = provider_id
        self._name = provider_name
        self._retry = retry or RetryPolicy()
        self._secret = secret

    def _error(self, exc: BaseException) -> ProviderError:
        return scrub(map_gemini_error(exc, self._name), self._secret)

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
        contents = gemini_contents(messages)
        config = gemini_config(system_prompt, tools, max_output_tokens)
        return retrying_stream(lambda: self._stream_once(model_id, contents, config), self._retry)

    async def _stream_once(
        self, model_id: str, contents: Any, config: Any
    ) -> AsyncGenerator[StreamEvent, None]:
        usage: Usage | None = None
        finish: str | None = None
        called = False
        stream: Any = None
        try:
            stream = await self._client.aio.models.generate_content_stream(
                model=model_id, contents=contents, config=config
            )
            async for chunk in stream:
                blocked = getattr(chunk.prompt_feedback, "block_reason", None) if chunk.prompt_feedback else None
                if blocked is not None:
                    reason = str(getattr(blocked, "value", blocked))
                    raise InvalidResponse(f"{self._name} refused the prompt ({reason}).")
                if chunk.usage_metadata is not None:
                    usage = _usage(chunk.usage_metadata) or usage
                for candidate in (chunk.candidates or [])[:1]:
                    for part in (candidate.content.parts if candidate.content else None) or []:
                        if part.function_call is not None:
                            called = True
                            call = part.function_call
                            yield ToolCallRequested(
                                call.id or f"call_{uuid.uuid4().hex[:24]}", call.name or "", dict(call.args or {})
                            )
                        elif part.text:
                            yield ThinkingDelta(part.text) if part.thought else TextDelta(part.text)
                    if candidate.finish_reason is not None:
                        finish = str(getattr(candidate.finish_reason, "value", candidate.finish_reason))
        except ProviderError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
        finally:
            if stream is not None and hasattr(stream, "aclose"):
                await stream.aclose()
        if finish is None:
            raise NetworkError("the response stream ended early")
        if usage is not None:
            yield UsageReported(usage)
        stop = _STOP_REASONS.get(finish, "other")
        yield StreamDone("tool_use" if called and stop == "end_turn" else stop)

    async def generate_simple_completion(
        self, model_id: ModelId, prompt: str, system: str | None = None, max_tokens: int = 2048
    ) -> str:
        """The text of one non-streamed reply to a single user prompt."""
        config = gemini_config(system, (), max_tokens)

        async def call() -> str:
            try:
                response = await self._client.aio.models.generate_content(
                    model=model_id, contents=prompt, config=config
                )
            except Exception as exc:
                raise self._error(exc) from exc
            content = response.candidates[0].content if response.candidates else None
            parts = content.parts if content is not None else None
            return "".join(p.text for p in parts or [] if p.text and not p.thought)

        return await retrying_call(call, self._retry)

    async def list_models(self) -> list[AiModel]:
        """The models that can generate content, with inputTokenLimit / outputTokenLimit."""

        async def call() -> list[AiModel]:
            try:
                pager = await self._client.aio.models.list(config={"query_base": True})
                listed = [model async for model in pager]
            except Exception as exc:
                raise self._error(exc) from exc
            return [
                AiModel(
                    id=(model.name or "").removeprefix("models/"),
                    display_name=model.display_name,
                    provider_id=self._provider_id,
                    source=ModelSource.FETCHED,
                    context_window_size=model.input_token_limit,
                    max_output_tokens=model.output_token_limit,
                )
                for model in listed
                if model.name and _generates(model)
            ]

        return await retrying_call(call, self._retry)


def _generates(model: Any) -> bool:
    actions = getattr(model, "supported_actions", None)
    return not actions or "generateContent" in actions


def _usage(meta: Any) -> Usage | None:
    prompt = meta.prompt_token_count
    if prompt is None and meta.candidates_token_count is None:
        return None
    output = (meta.candidates_token_count or 0) + (getattr(meta, "thoughts_token_count", None) or 0)
    return Usage(
        input_tokens=prompt or 0,
        output_tokens=output,
        cache_read_tokens=meta.cached_content_token_count or 0,
    )
