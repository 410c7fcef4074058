"""ModelApiAdapter over the official anthropic SDK (AsyncAnthropic, Messages API, streaming, prompt caching)."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any

import anthropic

from data.providers.anthropic_shape import ShapeMemo, anthropic_request
from data.providers.anthropic_stream import StreamState, learned_form
from data.providers.attachment_shape import anthropic_parts
from data.providers.base import COUNT_PROMPT, SdkAdapter, StreamCall, headers_deadline, read_timeout
from data.providers.errors import (
    error_fields,
    network_error,
    public_url,
    retry_after_seconds,
    short,
    status_error,
    transport_or_invalid,
)
from data.providers.listed_retirement import listed_retirement
from data.providers.retry import RetryPolicy
from data.registry import load_registry
from data.registry.capabilities import anthropic_capabilities, filled
from domain.attachment import Attachment
from domain.errors import (
    InvalidResponse,
    NetworkError,
    ProviderError,
    ProviderUnavailable,
    ReasoningRejected,
)
from domain.events import (
    StreamDone,
    StreamEvent,
    UsageReported,
)
from domain.models import (
    AiModel,
    CapabilitySource,
    ModelCapabilities,
    ModelId,
    ModelSource,
)

# the 400s of reasoning blocks sent back that the API no longer accepts (a signature of another model or key, an
# altered block): "messages.N.content.M: Invalid signature in thinking block", "Invalid `signature` in `thinking`
# block", "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified"
_REASONING_REFUSED = re.compile(
    r"invalid\W+(signature|data)\W+in\W+(redacted_)?thinking\W+block|thinking\W+blocks\W+in\W+the\W+latest\W+"
    r"assistant\W+message\W+cannot\W+be\W+modified",
    re.IGNORECASE,
)


def map_anthropic_error(exc: BaseException, provider_name: str = "Anthropic", url: str | None = None) -> ProviderError:
    """The domain error for an exception raised by the anthropic SDK or its HTTP stack (`url`: the base URL, named
    by a network failure that carries no request)."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, anthropic.APIStatusError):
        kind, message, _ = error_fields(exc.body)
        status = exc.status_code
        if status == 200 and kind == "api_error":  # an `event: error` in the middle of a stream
            return ProviderUnavailable(f"{provider_name} failed mid-response")
        if status == 400 and _REASONING_REFUSED.search(message or ""):
            return ReasoningRejected(provider_name, short(message))
        return status_error(
            provider_name,
            status,
            message,
            auth=kind in ("authentication_error", "permission_error"),
            overloaded=kind == "overloaded_error" or status == 529,
            rate_limited=kind == "rate_limit_error",
            retry_after=retry_after_seconds(exc.response.headers),
        )
    if isinstance(exc, anthropic.APIConnectionError):  # a timeout too: the cause under it says which failure
        return network_error(exc, url)
    if isinstance(exc, anthropic.APIResponseValidationError):
        return InvalidResponse(f"{provider_name} sent a response that could not be read.")
    mapped = transport_or_invalid(exc, url)
    if mapped is not None:
        return mapped
    raise exc


MAX_CONTINUATIONS = 4  # responses a paused server tool loop is continued with, at most


class AnthropicAdapter(SdkAdapter):
    """Streams Claude replies, runs simple completions and lists models; no SDK type leaves this class."""

    searches_web = True  # the web_search server tool

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
        self._listed: dict[ModelId, tuple[ModelCapabilities | None, int | None]] = {}  # from list_models
        self._learned: dict[ModelId, ModelCapabilities] = {}  # thinking forms learned from the provider's 400s
        self._shapes = ShapeMemo()  # what earlier requests shaped, for the next ones (the same request, less work)

    def map_error(self, exc: BaseException) -> ProviderError:
        """See map_anthropic_error."""
        return map_anthropic_error(exc, self._name, self.endpoint)

    def capabilities(self, model_id: ModelId) -> tuple[ModelCapabilities | None, int | None]:
        """The model's capabilities and output limit: as the provider listed them in this process, else the
        registry's entry or family guess (call.capabilities, the stored ones, win over both; a thinking form the
        provider refused in this process wins over all)."""
        if model_id in self._listed:
            return self._listed[model_id]
        registry = load_registry()
        preset = registry.preset(model_id)
        return registry.capabilities(model_id), preset.max_output_tokens if preset is not None else None

    async def _open(self, call: StreamCall, sent_back: list[dict[str, Any]] | None = None) -> Any:
        """Sends the request (with `sent_back`, a paused turn's content, as the last assistant message); a thinking
        form the model refuses (a wrong guess for an id the registry does not know) is learned from the 400 and the
        request sent once more in the form that fits."""
        for attempt in (1, 2):
            listed, max_output = self.capabilities(call.model_id)
            capabilities = self._learned.get(call.model_id) or call.capabilities or listed
            request = anthropic_request(
                media=self.media,
                model_id=call.model_id, system_prompt=call.system_prompt, messages=call.messages, tools=call.tools,
                max_output_tokens=call.max_output_tokens, cache=call.cache, provider_id=self._provider_id,
                reasoning=call.reasoning, capabilities=capabilities, model_max_output=max_output,
                web_search=call.web_search, memo=self._shapes,
            )
            if sent_back:
                request["messages"] = [*request["messages"], {"role": "assistant", "content": sent_back}]
            timeout = read_timeout(call.deadlines)
            try:
                async with headers_deadline(call.headers_s):
                    return await self._client.messages.create(
                        **request, stream=True, timeout=anthropic.NOT_GIVEN if timeout is None
                        else anthropic.Timeout(timeout, connect=self.connect_timeout)
                    )
            except anthropic.BadRequestError as exc:
                learned = learned_form(error_fields(exc.body)[1], capabilities)
                if attempt == 2 or learned is None:
                    raise
                self._learned[call.model_id] = learned
        raise AssertionError("unreachable")

    async def _stream_once(self, call: StreamCall) -> AsyncGenerator[StreamEvent, None]:
        """One reply; a server tool loop the API paused (stop_reason pause_turn) is continued by sending the turn so
        far back as it came, up to MAX_CONTINUATIONS times."""
        state = StreamState(self._provider_id, call.model_id)
        sent_back: list[dict[str, Any]] | None = None
        for _leg in range(MAX_CONTINUATIONS + 1):
            stream = await self._open(call, sent_back)
            try:
                async for event in stream:
                    for out in state.feed(event):
                        yield out
            finally:
                await stream.close()
            if not state.finished:
                raise NetworkError("the stream ended without its last event", reason="cut", url=self.endpoint)
            if not state.paused:
                break
            sent_back = state.next_leg()
        yield UsageReported(state.usage())
        yield StreamDone(state.stop_reason)

    async def _count_input(self, model_id: ModelId, attachment: Attachment | None) -> int | None:
        """POST /v1/messages/count_tokens (free; its own rate limit)."""
        content = [*(anthropic_parts(attachment, self.media) if attachment else []),
                   {"type": "text", "text": COUNT_PROMPT}]
        messages: list[Any] = [{"role": "user", "content": content}]
        counted = await self._client.messages.count_tokens(model=model_id, messages=messages)
        return int(counted.input_tokens)

    @property
    def endpoint(self) -> str:
        """See SdkAdapter.endpoint."""
        return public_url(self._client.base_url)

    async def _close_client(self) -> None:
        await self._client.close()

    async def _models(self) -> list[AiModel]:
        registry = load_registry()
        models = []
        async for info in self._client.models.list():
            window, max_output = getattr(info, "max_input_tokens", None), getattr(info, "max_tokens", None)
            reported = anthropic_capabilities(info)
            if reported is not None:
                sources = [(name, CapabilitySource.PROVIDER_API)
                           for name, value in (("context_window", window), ("max_output_tokens", max_output)) if value]
                reported = replace(reported, sources=(*reported.sources, *sources))
            capabilities = filled(reported, registry.capabilities(info.id))
            preset = registry.preset(info.id)
            self._listed[info.id] = (capabilities, max_output or (preset.max_output_tokens if preset else None))
            models.append(AiModel(
                id=info.id, display_name=info.display_name, provider_id=self._provider_id,
                source=ModelSource.FETCHED, context_window_size=window, max_output_tokens=max_output,
                capabilities=capabilities, retirement=listed_retirement(getattr(info, "retires_at", None)),
            ))
        return models
