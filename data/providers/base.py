"""What the three SDK adapters share: the port's entry points, retries, and error mapping with the key scrubbed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from data.attachments.media import MediaSource
from data.providers.errors import request_id_of, scrub
from data.providers.retry import RetryPolicy, retrying_call, retrying_stream
from domain.attachment import Attachment
from domain.errors import PalimpsestError, ProviderError, ProviderTimeout
from domain.events import StreamEvent, TextDelta
from domain.models import (
    AiModel,
    Message,
    MessageType,
    ModelCapabilities,
    ModelId,
    ServerWindow,
    ToolDefinition,
)
from domain.settings import Deadlines
from domain.web import WebSearchSettings

T = TypeVar("T")
log = logging.getLogger(__name__)
COUNT_PROMPT = "?"  # the question an attachment is counted with (its own count is taken off)
READ_TIMEOUT_MARGIN_S = 30.0  # the HTTP read timeout stays this far above the deadlines the domain enforces
CONNECT_TIMEOUT_S = 10.0  # a host that does not answer a connection attempt this long is reported, not waited on
_HEADERS_ARRIVED: ContextVar[Callable[[], None] | None] = ContextVar("palimpsest_headers_arrived", default=None)


async def headers_arrived(response: Any) -> None:
    """httpx response hook (installed on every SDK client by the factory): the response headers are here, so the
    headers deadline of the request under way, if any, is lifted. Runs in the task that made the request."""
    lift = _HEADERS_ARRIVED.get()
    if lift is not None:
        lift()


@asynccontextmanager
async def headers_deadline(seconds: float | None) -> AsyncIterator[None]:
    """Raises ProviderTimeout('headers') unless the response headers of the request made inside arrive within
    `seconds` (None: no deadline). The body is not covered: a stream that opens lazily (google-genai sends its
    request on the first read) may wait for its first chunk as long as the idle deadline allows."""
    if seconds is None:
        yield
        return
    scope = asyncio.timeout(seconds)

    def lift() -> None:
        if not scope.expired():
            scope.reschedule(None)

    token = _HEADERS_ARRIVED.set(lift)
    try:
        async with scope:
            yield
    except TimeoutError:
        if scope.expired():
            raise ProviderTimeout("headers", seconds) from None
        raise
    finally:
        _HEADERS_ARRIVED.reset(token)


def read_timeout(deadlines: Deadlines | None) -> float | None:
    """The SDK's per-request timeout for a stream held to `deadlines`: above all three, so a model that thinks
    silently is stopped by the idle deadline (with its message), not by a read timeout, and a long reply is not cut
    by a server-side timeout (google-genai sends it as X-Server-Timeout). None: keep the client's own timeout."""
    if deadlines is None:
        return None
    return max(deadlines.headers_s, deadlines.idle_s, deadlines.round_s) + READ_TIMEOUT_MARGIN_S


@dataclass(frozen=True)
class StreamCall:
    """The arguments of one send_message_stream call."""

    model_id: ModelId
    system_prompt: str | None
    messages: Sequence[Message]
    tools: Sequence[ToolDefinition]
    max_output_tokens: int
    cache: bool = True  # prompt caching where the provider needs it asked for (Anthropic)
    deadlines: Deadlines | None = None  # headers: enforced by the adapter; idle and round: by the caller
    reasoning: str = "auto"  # the level asked for (domain.settings.REASONING_LEVELS)
    capabilities: ModelCapabilities | None = None  # the model's, as stored (None: the adapter looks them up)
    cache_key: str | None = None  # one per conversation (OpenAI's prompt_cache_key)
    web_search: WebSearchSettings | None = None  # the provider's native web search, when on

    @property
    def headers_s(self) -> float | None:
        """The headers deadline in seconds, or None."""
        return self.deadlines.headers_s if self.deadlines is not None else None


class SdkAdapter:
    """A ModelApiAdapter skeleton: subclasses shape requests and read one SDK; this class retries and maps errors."""

    searches_web = False  # whether the provider's own web search is offered (send_message_stream's web_search)

    def __init__(
        self, *, provider_id: str, provider_name: str, retry: RetryPolicy | None = None, secret: str | None = None
    ) -> None:
        self._provider_id = provider_id
        self._name = provider_name
        self._retry = retry or RetryPolicy()
        self._secret = secret
        self.media: MediaSource | None = None  # reads attachment files for the shapers (set by the factory)
        self.connect_timeout = CONNECT_TIMEOUT_S  # seconds to wait for a connection (set by the factory)
        self._count_base: dict[str, int] = {}  # per model: the count of COUNT_PROMPT alone
        self._count_failed: set[tuple[str, str]] = set()  # (model, sha256) whose count failed in this process

    # --- the port ---------------------------------------------------------------------------------
    def send_message_stream(
        self,
        *,
        model_id: ModelId,
        system_prompt: str | None,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        max_output_tokens: int,
        deadlines: Deadlines | None = None,
        reasoning: str = "auto",
        capabilities: ModelCapabilities | None = None,
        cache_key: str | None = None,
        web_search: WebSearchSettings | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Events of one reply; a transient failure before the first event is retried, never after (a headers
        timeout once)."""
        call = StreamCall(model_id, system_prompt, messages, tools, max_output_tokens, deadlines=deadlines,
                          reasoning=reasoning, capabilities=capabilities, cache_key=cache_key,
                          web_search=web_search if web_search is not None and web_search.enabled else None)
        return retrying_stream(lambda: self._stream_once(call), self._retry, self._error)

    async def generate_simple_completion(
        self, model_id: ModelId, prompt: str, system: str | None = None, max_tokens: int = 2048
    ) -> str:
        """The text of one non-streamed reply to a single user prompt (titles, summaries)."""
        return await self._call(lambda: self._complete(model_id, prompt, system, max_tokens))

    async def aclose(self) -> None:
        """Closes the SDK client's connections (on the event loop that used them)."""
        await self._close_client()

    async def list_models(self) -> list[AiModel]:
        """The provider's models, with context windows wherever the provider reports them."""
        return await self._call(self._models)

    async def count_attachment_tokens(self, model_id: ModelId, attachment: Attachment) -> int | None:
        """The provider's count endpoint asked twice (the attachment with a one-word question, and the question
        alone, once per model), the difference; None without a count endpoint, or when it failed (the caller
        then prices the attachment by the provider's published rule, and this process does not ask again)."""
        if (model_id, attachment.sha256) in self._count_failed:
            return None
        try:
            with_it = await self._count_input(model_id, attachment)
            if with_it is None:
                return None
            base = self._count_base.get(model_id)
            if base is None:
                base = self._count_base[model_id] = await self._count_input(model_id, None) or 0
        except PalimpsestError as err:  # the file is gone, or the count was refused: the rule will do
            log.info("%s could not count %s: %s", self._name, attachment.name, err)
        except Exception as exc:  # an SDK error is mapped (anything else is a bug: map_error raises it)
            log.info("%s could not count %s: %s", self._name, attachment.name, self.map_error(exc))
        else:
            return max(1, with_it - base)
        self._count_failed.add((model_id, attachment.sha256))
        return None

    async def server_window(self, model_id: ModelId) -> ServerWindow | None:
        """None: hosted providers' windows come from the registry and their model lists (OpenAI-compatible
        adapters override this to ask a local server)."""
        return None

    # --- for subclasses ---------------------------------------------------------------------------
    async def _count_input(self, model_id: ModelId, attachment: Attachment | None) -> int | None:
        """The count endpoint's input tokens for one user message of the attachment (if any) and COUNT_PROMPT;
        None: this provider has no count endpoint."""
        return None

    @property
    def endpoint(self) -> str | None:
        """The base URL requests go to, as it may be shown (no credentials, no query): what a network failure
        names when its exception carries no request."""
        return None

    def map_error(self, exc: BaseException) -> ProviderError:
        """The domain error for an exception of this SDK (re-raise what is not one: bugs are not hidden)."""
        raise NotImplementedError

    def _stream_once(self, call: StreamCall) -> AsyncGenerator[StreamEvent, None]:
        """One attempt: shape the request, stream it, yield domain events (usage, then done, last)."""
        raise NotImplementedError

    async def _complete(self, model_id: ModelId, prompt: str, system: str | None, max_tokens: int) -> str:
        # streamed, so a long summary never waits on one read timeout; a failure anywhere retries the whole
        # attempt (nothing of it reached the user)
        message = Message(id="prompt", session_id="", type=MessageType.USER, content=prompt)
        call = StreamCall(model_id, system, (message,), (), max_tokens, cache=False, reasoning="off")
        pieces = [e.text async for e in self._mapped(self._stream_once(call)) if isinstance(e, TextDelta)]
        return "".join(pieces)

    async def _models(self) -> list[AiModel]:
        raise NotImplementedError

    async def _close_client(self) -> None:
        raise NotImplementedError

    # --- plumbing ---------------------------------------------------------------------------------
    def _error(self, exc: BaseException) -> ProviderError:
        return scrub(self.map_error(exc), self._secret).with_request_id(request_id_of(exc))

    async def _mapped(self, events: AsyncGenerator[StreamEvent, None]) -> AsyncGenerator[StreamEvent, None]:
        try:
            async for event in events:
                yield event
        except ProviderError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
        finally:
            await events.aclose()

    async def _call(self, call: Callable[[], Awaitable[T]]) -> T:
        async def attempt() -> T:
            try:
                return await call()
            except ProviderError:
                raise
            except Exception as exc:
                raise self._error(exc) from exc

        return await retrying_call(attempt, self._retry)
