"""ModelApiAdapter over the official google-genai SDK (genai.Client(...).aio, generate_content_stream)."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncGenerator
from typing import Any

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from data.providers.base import SdkAdapter, StreamCall, headers_deadline, read_timeout
from data.providers.errors import error_fields, status_error, transport_or_invalid, web_page_error
from data.providers.gemini_shape import gemini_config, gemini_contents
from data.providers.retry import RetryPolicy
from domain.errors import (
    InvalidResponse,
    NetworkError,
    ProviderError,
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
from domain.models import AiModel, ModelSource, Usage

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
    page = web_page_error(exc)
    if page is not None:
        return page
    if isinstance(exc, genai_errors.APIError):
        status, message, _ = error_fields(exc.details)
        code = exc.code or 0
        key_invalid = "API_KEY_INVALID" in str(exc.details) or "api key not valid" in message.lower()
        return status_error(
            provider_name,
            code if code else 500,
            message,
            auth=key_invalid or status in ("UNAUTHENTICATED", "PERMISSION_DENIED"),
            overloaded=status == "UNAVAILABLE" and "overloaded" in message.lower(),
            rate_limited=status == "RESOURCE_EXHAUSTED",
            retry_after=_retry_delay(exc.details),
        )
    if isinstance(exc, genai_errors.UnknownApiResponseError):
        return InvalidResponse(f"{provider_name} sent a response that could not be read.")
    mapped = transport_or_invalid(exc)
    if mapped is not None:
        return mapped
    raise exc


class GeminiAdapter(SdkAdapter):
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
        super().__init__(provider_id=provider_id, provider_name=provider_name, retry=retry, secret=secret)
        self._client = client

    def map_error(self, exc: BaseException) -> ProviderError:
        """See map_gemini_error."""
        return map_gemini_error(exc, self._name)

    async def _stream_once(self, call: StreamCall) -> AsyncGenerator[StreamEvent, None]:
        contents = gemini_contents(call.messages, tool_blocks=bool(call.tools))
        config = gemini_config(call.system_prompt, call.tools, call.max_output_tokens)
        timeout = read_timeout(call.deadlines)
        if timeout is not None:
            config.http_options = types.HttpOptions(timeout=int(timeout * 1000))
        usage: Usage | None = None
        finish: str | None = None
        called = False
        stream = await self._client.aio.models.generate_content_stream(
            model=call.model_id, contents=list(contents), config=config
        )
        try:
            async with headers_deadline(call.headers_s):  # the SDK sends the request on the first read
                chunk = await anext(stream, None)
            while chunk is not None:
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
                            fc = part.function_call
                            yield ToolCallRequested(
                                fc.id or f"call_{uuid.uuid4().hex[:24]}", fc.name or "", dict(fc.args or {})
                            )
                        elif part.text:
                            yield ThinkingDelta(part.text) if part.thought else TextDelta(part.text)
                    if candidate.finish_reason is not None:
                        finish = str(getattr(candidate.finish_reason, "value", candidate.finish_reason))
                chunk = await anext(stream, None)
        except genai_errors.APIError as exc:
            await close_sdk_response(exc.response)
            raise
        finally:
            if hasattr(stream, "aclose"):
                await stream.aclose()
        if finish is None:
            raise NetworkError("the response stream ended early")
        if usage is not None:
            yield UsageReported(usage)
        stop = _STOP_REASONS.get(finish, "other")
        yield StreamDone("tool_use" if called and stop == "end_turn" else stop)

    async def _models(self) -> list[AiModel]:
        pager = await self._client.aio.models.list(config={"query_base": True})
        return [
            AiModel(
                id=(model.name or "").removeprefix("models/"),
                display_name=model.display_name,
                provider_id=self._provider_id,
                source=ModelSource.FETCHED,
                context_window_size=model.input_token_limit,
                max_output_tokens=model.output_token_limit,
            )
            async for model in pager
            if model.name and _generates(model)
        ]


async def close_sdk_response(response: Any) -> None:
    """Closes the HTTP response under an error the SDK raised mid-stream, innermost reader first.

    google-genai raises an error chunk from inside its own stream generators and leaves them, and the connection's
    byte stream, suspended; asyncio would otherwise close them only at loop shutdown, all at once and out of order,
    which prints "aclose(): asynchronous generator is already running" after the error message."""
    segments = getattr(response, "segment_iterator", None)
    http_response = getattr(response, "response_stream", None)
    if segments is not None and hasattr(segments, "aclose"):
        await segments.aclose()
    if http_response is not None and hasattr(http_response, "aclose"):
        await http_response.aclose()


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
