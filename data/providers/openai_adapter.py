"""ModelApiAdapter over the official openai SDK (AsyncOpenAI Chat Completions), for OpenAI and compatible servers."""

from __future__ import annotations

import shlex
from collections.abc import AsyncGenerator
from typing import Any

import openai

from data.providers.base import SdkAdapter, StreamCall, headers_deadline, read_timeout
from data.providers.compat_reasoning import Server, echo_field, reasoning_params, server_for
from data.providers.conversation import parse_tool_arguments
from data.providers.errors import (
    error_fields,
    is_billing,
    network_error,
    overflow_from_message,
    public_url,
    request_id_of,
    retry_after_seconds,
    short,
    status_error,
    transport_or_invalid,
)
from data.providers.listed_retirement import listed_retirement
from data.providers.listed_windows import entries, listed_window
from data.providers.local_server import MODELS_PATH, probe_window
from data.providers.media_forms import COMPATIBLE, OPENAI
from data.providers.openai_shape import openai_request
from data.providers.probe_store import MemoryProbes, ProbeStore
from data.providers.probes import Prober
from data.providers.retry import RetryPolicy
from domain.errors import (
    BillingError,
    InvalidResponse,
    NetworkError,
    ProviderError,
    ProviderUnavailable,
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
)
from domain.models import AiModel, ModelSource, ReasoningBlock, ReasoningKind, Retirement, ServerWindow, Usage

OPENAI_BILLING_PAGE = "https://platform.openai.com/settings/organization/billing"
# OpenAI's 400 for function tools with a reasoning effort other than none on Chat Completions (GPT-5.2 on)
TOOLS_WITH_EFFORT = "Function tools with reasoning_effort are not supported"
_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}


def map_openai_error(exc: BaseException, provider_name: str = "OpenAI", url: str | None = None) -> ProviderError:
    """The domain error for an exception raised by the openai SDK or its HTTP stack (`url`: the base URL, named by
    a network failure that carries no request)."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, openai.APIStatusError):
        kind, message, code = error_fields(exc.body)
        if exc.status_code == 400 and message.startswith(TOOLS_WITH_EFFORT):
            return InvalidResponse(f"{provider_name} refused the request: {short(message)} In Palimpsest: set this "
                                   f"provider's API to Responses (Settings › Providers, or `palimpsest providers set "
                                   f"{shlex.quote(provider_name)} --api responses`), or reasoning to Off for this "
                                   "conversation.")
        return status_error(
            provider_name,
            exc.status_code,
            message,
            code=code,
            auth=code == "invalid_api_key",
            retry_after=retry_after_seconds(exc.response.headers),
            billing=is_billing(kind, code),
            billing_page=OPENAI_BILLING_PAGE if provider_name == "OpenAI" else None,
        )
    if isinstance(exc, openai.APIConnectionError):  # its aiohttp transport reports a refused port as a timeout
        return network_error(exc, url)
    if isinstance(exc, openai.APIResponseValidationError):
        return InvalidResponse(f"{provider_name} sent a response that could not be read.")
    if isinstance(exc, openai.APIError):  # an error event in the middle of a stream
        kind, message, code = error_fields(exc.body) if exc.body is not None else ("", exc.message, None)
        overflow = overflow_from_message(message, code)
        if overflow is not None:
            return overflow
        if is_billing(kind, code):
            return BillingError(provider_name, OPENAI_BILLING_PAGE if provider_name == "OpenAI" else None)
        if kind in ("server_error", "overloaded_error", "api_error") or not kind:
            return ProviderUnavailable(f"{provider_name} failed mid-response")
        return InvalidResponse(f"{provider_name} failed mid-response: {short(message)}")
    mapped = transport_or_invalid(exc, url)
    if mapped is not None:
        return mapped
    raise exc


class OpenAIAdapter(SdkAdapter):
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
        server: Server | None = None,
        probes: ProbeStore | None = None,
    ) -> None:
        super().__init__(provider_id=provider_id, provider_name=provider_name, retry=retry, secret=secret)
        self._client = client
        self._compatible = compatible
        # how reasoning is asked for and sent back: from the base URL unless given
        self._server = server or server_for(str(client.base_url), compatible=compatible)
        # OpenAI's own API wants max_completion_tokens; compatible servers still speak max_tokens.
        self._max_tokens_field = "max_tokens" if compatible else "max_completion_tokens"
        self._windows: dict[str, ServerWindow | None] = {}  # per model, for this adapter's life
        self._probes = probes if probes is not None else MemoryProbes()  # what servers answered (the database's)

    async def server_window(self, model_id: str) -> ServerWindow | None:
        """For an OpenAI-compatible base URL, what the server says it runs the model with, or its model list states
        (see local_server); hosted routers (OpenRouter, DeepSeek) are only asked their list."""
        if not self._compatible:
            return None
        if model_id not in self._windows:
            local = self._server is Server.COMPATIBLE
            self._windows[model_id] = await probe_window(self._client, model_id, self._probes, local=local)
        return self._windows[model_id]

    def map_error(self, exc: BaseException) -> ProviderError:
        """See map_openai_error."""
        return map_openai_error(exc, self._name, self.endpoint)

    async def _stream_once(self, call: StreamCall) -> AsyncGenerator[StreamEvent, None]:
        request = openai_request(
            model_id=call.model_id,
            system_prompt=call.system_prompt,
            messages=call.messages,
            tools=call.tools,
            max_output_tokens=call.max_output_tokens,
            max_tokens_field=self._max_tokens_field,
            echo=echo_field(self._server),
            owner=(self._provider_id, call.model_id),
            extra=reasoning_params(self._server, call.model_id, call.reasoning,
                                   call.capabilities.efforts if call.capabilities is not None else (),
                                   tools=bool(call.tools)),
            media=self.media,
            forms=COMPATIBLE if self._compatible else OPENAI,
        )
        timeout = read_timeout(call.deadlines)
        async with headers_deadline(call.headers_s):
            stream = await self._client.chat.completions.create(
                **request, stream=True, stream_options={"include_usage": True},
                timeout=openai.NOT_GIVEN if timeout is None else openai.Timeout(timeout, connect=self.connect_timeout),
            )
        calls: dict[int, list[Any]] = {}
        thoughts: list[str] = []
        usage: Usage | None = None
        finish: str | None = None
        request_id = stream.response.headers.get("x-request-id")  # an error event mid-stream carries none itself
        try:
            async for chunk in stream:
                if chunk.usage is not None:
                    usage = _usage(chunk.usage)
                for choice in chunk.choices or ():  # the usage chunk (and Azure's first) has no choices
                    delta = choice.delta
                    if delta is not None:
                        thinking = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
                        if isinstance(thinking, str) and thinking:
                            thoughts.append(thinking)
                            yield ThinkingDelta(thinking)
                        if delta.content:
                            yield TextDelta(delta.content)
                        for piece in delta.tool_calls or ():
                            slot = calls.setdefault(piece.index, ["", "", []])
                            slot[0] = piece.id or slot[0]
                            if piece.function is not None:
                                slot[1] = piece.function.name or slot[1]
                                slot[2].append(piece.function.arguments or "")
                            yield ReplyProgress()
                    finish = choice.finish_reason or finish
        except openai.APIError as exc:  # an error event in the stream: the response's request id is the one to quote
            if request_id_of(exc) is not None or not isinstance(request_id, str):
                raise
            raise self._error(exc).with_request_id(request_id) from exc
        finally:
            await stream.close()
        if finish is None:
            raise NetworkError("the stream ended without its last event", reason="cut", url=self.endpoint)
        for index in sorted(calls):
            call_id, name, pieces = calls[index]
            yield ToolCallRequested(call_id or f"call_{index}", name, parse_tool_arguments("".join(pieces)))
        if thoughts:  # kept whole, to be sent back on this turn if it made tool calls (DeepSeek requires it)
            yield ReasoningDone(ReasoningBlock(ReasoningKind.REASONING_CONTENT, text="".join(thoughts),
                                               provider_id=self._provider_id, model_id=call.model_id))
        if usage is not None:
            yield UsageReported(usage)
        stop = _STOP_REASONS.get(finish, "other")
        yield StreamDone("tool_use" if calls and stop == "end_turn" else stop)

    @property
    def endpoint(self) -> str:
        """See SdkAdapter.endpoint."""
        return public_url(self._client.base_url)

    async def _close_client(self) -> None:
        await self._client.close()

    async def _models(self) -> list[AiModel]:
        retiring: dict[str, Retirement] = {}
        if not self._compatible:
            ids = []
            async for model in self._client.models.list():
                ids.append(model.id)
                day = listed_retirement(getattr(model, "shutdown_date", None))
                if day is not None:
                    retiring[model.id] = day
            windows: dict[str, ServerWindow] = {}
        else:  # the list as the server sends it (Together's is a bare array), kept for the window probes
            listing = await self._client.get(MODELS_PATH, cast_to=object)
            Prober(self._client, self._probes).keep(MODELS_PATH, listing)
            listed = [e for e in entries(listing) if isinstance(e.get("id"), str)]
            ids = [e["id"] for e in listed]
            windows = {e["id"]: w for e in listed if (w := listed_window(e)) is not None}
            for model_id in ids:  # a local server's real window for each model (the context it runs it with)
                if model_id in windows:
                    continue
                found = await self.server_window(model_id)
                if found is None:
                    break  # not a server that says (or not for this model): do not ask again for every model
                windows[model_id] = found
        return [
            AiModel(
                id=model_id,
                display_name=None,
                provider_id=self._provider_id,
                source=ModelSource.FETCHED,
                context_window_size=windows[model_id].loaded if model_id in windows else None,
                trained_window=windows[model_id].trained if model_id in windows else None,
                input_limit=windows[model_id].input_limit if model_id in windows else None,
                retirement=retiring.get(model_id),
            )
            for model_id in ids
        ]


def _usage(raw: Any) -> Usage:
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or 0
    reasoning = getattr(getattr(raw, "completion_tokens_details", None), "reasoning_tokens", None) or 0
    return Usage(
        input_tokens=raw.prompt_tokens or 0,
        output_tokens=raw.completion_tokens or 0,
        cache_read_tokens=cached,
        reasoning_tokens=reasoning,
    )

