"""ModelApiAdapter over the official google-genai SDK (genai.Client(...).aio, generate_content_stream)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from data.providers.attachment_shape import gemini_parts
from data.providers.base import COUNT_PROMPT, SdkAdapter, StreamCall, headers_deadline, read_timeout
from data.providers.errors import public_url
from data.providers.gemini_errors import map_gemini_error
from data.providers.gemini_files import GeminiUploads, UploadGone
from data.providers.gemini_reasoning import gemini_thinking, listed_capabilities
from data.providers.gemini_shape import gemini_config, gemini_contents, signature_text
from data.providers.gemini_web import grounding_record, search_tool, takes_search_with_functions
from data.providers.retry import RetryPolicy
from data.providers.rules import GEMINI, LIMITS
from data.registry import load_registry
from data.registry.capabilities import filled
from domain.attachment import Attachment
from domain.errors import (
    InvalidResponse,
    NetworkError,
    ProviderError,
)
from domain.events import (
    ReasoningDone,
    StopReason,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    UsageReported,
    WebSearched,
)
from domain.models import (
    AiModel,
    CapabilitySource,
    ModelCapabilities,
    ModelId,
    ModelSource,
    ReasoningBlock,
    ReasoningKind,
    Usage,
)

_STOP_REASONS: dict[str, StopReason] = {"STOP": "end_turn", "MAX_TOKENS": "max_tokens"}
class GeminiAdapter(SdkAdapter):
    """Streams Gemini replies, runs simple completions and lists models with inputTokenLimit."""

    searches_web = True  # Grounding with Google Search

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
        self._listed: dict[ModelId, ModelCapabilities | None] = {}  # from list_models in this process
        self._uploads: GeminiUploads | None = None
        self._uploads_media: object | None = None

    async def _uploaded(self, call: StreamCall) -> dict[str, tuple[str, str]]:
        """The Files API URIs of the call's attachments over the inline limit (uploaded now if need be)."""
        if self._uploads is None or self._uploads_media is not self.media:
            self._uploads, self._uploads_media = GeminiUploads(self._client, self._provider_id, self.media), self.media
        return await self._uploads.uris(call.messages)

    def map_error(self, exc: BaseException) -> ProviderError:
        """See map_gemini_error; a file reference Gemini no longer knows makes the uploads be forgotten."""
        mapped = map_gemini_error(exc, self._name, self.endpoint)
        if isinstance(mapped, UploadGone) and self._uploads is not None:
            self._uploads.forget()
        return mapped

    async def _stream_once(self, call: StreamCall) -> AsyncGenerator[StreamEvent, None]:
        owner = (self._provider_id, call.model_id)
        web = call.web_search is not None
        functions = call.tools if not web or takes_search_with_functions(call.model_id) else ()
        contents = gemini_contents(call.messages, tool_blocks=bool(functions), owner=owner, media=self.media,
                                   uploaded=await self._uploaded(call))
        thinking = gemini_thinking(call.model_id, call.reasoning, call.max_output_tokens, self._capabilities(call))
        config = gemini_config(call.system_prompt, functions, thinking.max_output_tokens, thinking.config)
        if web:
            config.tools = [*(config.tools or []), search_tool()]
        grounding: Any = None
        text: list[str] = []
        timeout = read_timeout(call.deadlines)
        if timeout is not None:
            config.http_options = types.HttpOptions(timeout=int(timeout * 1000))
        usage: Usage | None = None
        finish: str | None = None
        called = False
        reply = _ReplyReasoning(self._provider_id, call.model_id)
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
                            call_id = fc.id or f"call_{uuid.uuid4().hex[:24]}"
                            yield ToolCallRequested(call_id, fc.name or "", dict(fc.args or {}))
                            if part.thought_signature:
                                yield ReasoningDone(reply.signature(part.thought_signature), call_id=call_id)
                            continue
                        if part.text:
                            if part.thought:
                                reply.thoughts.append(part.text)
                            if not part.thought:
                                text.append(part.text)
                            yield ThinkingDelta(part.text) if part.thought else TextDelta(part.text)
                        if part.thought_signature:  # a text part's (or a signature-only part's): the reply's own
                            reply.signatures.append(part.thought_signature)
                    grounding = candidate.grounding_metadata or grounding
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
            raise NetworkError("the stream ended without its last event", reason="cut", url=self.endpoint)
        for block in reply.blocks():
            yield ReasoningDone(block)
        record = grounding_record(grounding, "".join(text), self._provider_id, call.model_id) if web else None
        if record is not None:
            yield WebSearched(record)
        if usage is not None:
            yield UsageReported(replace(usage, web_search_requests=record.billed_searches) if record else usage)
        stop = _STOP_REASONS.get(finish, "other")
        yield StreamDone("tool_use" if called and stop == "end_turn" else stop)

    def _capabilities(self, call: StreamCall) -> ModelCapabilities | None:
        """The call's (the stored ones), else as listed in this process, else the registry's entry or family guess."""
        if call.capabilities is not None:
            return call.capabilities
        if call.model_id in self._listed:
            return self._listed[call.model_id]
        return load_registry().capabilities(call.model_id)

    async def _count_input(self, model_id: ModelId, attachment: Attachment | None) -> int | None:
        """models/{model}:countTokens of the attachment sent inline (one larger than an inline request takes is
        priced by Gemini's published rule instead: None)."""
        if attachment is not None and attachment.size > LIMITS[GEMINI].inline_max_bytes:
            return None
        parts = [*(gemini_parts(attachment, self.media) if attachment else []), {"text": COUNT_PROMPT}]
        counted = await self._client.aio.models.count_tokens(
            model=model_id, contents=[types.Content(role="user", parts=[types.Part.model_validate(p) for p in parts])]
        )
        return int(counted.total_tokens or 0) or None

    @property
    def endpoint(self) -> str:
        """See SdkAdapter.endpoint."""
        return public_url(self._client._api_client._http_options.base_url or "")

    async def _close_client(self) -> None:
        await self._client.aio.aclose()

    async def _models(self) -> list[AiModel]:
        registry = load_registry()
        pager = await self._client.aio.models.list(config={"query_base": True})
        models = []
        async for model in pager:
            if not model.name or not _generates(model):
                continue
            model_id = model.name.removeprefix("models/")
            reported = listed_capabilities(model_id, getattr(model, "thinking", None))
            if reported is not None:
                limits = (("context_window", model.input_token_limit), ("max_output_tokens", model.output_token_limit))
                sources = [(name, CapabilitySource.PROVIDER_API) for name, value in limits if value]
                reported = replace(reported, sources=(*reported.sources, *sources))
            capabilities = filled(reported, registry.capabilities(model_id))
            self._listed[model_id] = capabilities
            models.append(AiModel(
                id=model_id, display_name=model.display_name, provider_id=self._provider_id,
                source=ModelSource.FETCHED, context_window_size=model.input_token_limit,
                max_output_tokens=model.output_token_limit, capabilities=capabilities,
            ))
        return models


class _ReplyReasoning:
    """The reasoning of one reply as it streams: thought summaries and the signatures of its non-call parts."""

    def __init__(self, provider_id: str, model_id: str) -> None:
        self._provider_id, self._model_id = provider_id, model_id
        self.thoughts: list[str] = []
        self.signatures: list[bytes] = []

    def signature(self, raw: bytes) -> ReasoningBlock:
        """A part's thought signature as a block bound to this provider and model."""
        return ReasoningBlock(ReasoningKind.SIGNATURE, signature=signature_text(raw), provider_id=self._provider_id,
                              model_id=self._model_id)

    def blocks(self) -> list[ReasoningBlock]:
        """The thought summary (one block), then the signatures, in the order they came."""
        blocks = [ReasoningBlock(ReasoningKind.THINKING, text="".join(self.thoughts), provider_id=self._provider_id,
                                 model_id=self._model_id)] if self.thoughts else []
        return blocks + [self.signature(raw) for raw in self.signatures]


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
    thoughts = getattr(meta, "thoughts_token_count", None) or 0
    return Usage(
        input_tokens=prompt or 0,
        output_tokens=(meta.candidates_token_count or 0) + thoughts,
        cache_read_tokens=meta.cached_content_token_count or 0,
        reasoning_tokens=thoughts,
    )
