"""Ports to the world outside storage: the providers' APIs (one adapter per provider), the attachment forms they take,
the built-in tools, and the summarizer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from domain.attachment import Attachment
from domain.events import StreamEvent
from domain.models import (
    AgentId,
    AiModel,
    Message,
    ModelCapabilities,
    ModelId,
    Provider,
    ProviderId,
    ProviderType,
    ServerWindow,
    SessionId,
    ToolDefinition,
)
from domain.settings import Deadlines
from domain.web import WebSearchSettings


class AttachmentForms(Protocol):
    """Which files a provider is sent in another form than the stored one (an image type it does not take converted,
    an animated image's first frame); the provider rules live in data/."""

    def notices(self, attachments: Sequence[Attachment], provider_type: ProviderType, provider_name: str) -> list[str]:
        """One sentence for the user per attachment the provider gets converted; none when all go as they are."""
        ...

    def missing(self, attachments: Sequence[Attachment]) -> list[str]:
        """One sentence per attachment whose file is gone from the data folder (it goes as its placeholder), the
        first time this process meets it."""
        ...


class ModelApiAdapter(Protocol):
    """One provider's API, spoken through its official SDK; no SDK type crosses this line."""

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
        """The reply's events. With `deadlines` the adapter enforces the headers deadline (ProviderTimeout, retried
        once) and keeps its HTTP timeouts above all three; the caller enforces idle and round between events.
        `reasoning` is the level asked for (domain.settings.REASONING_LEVELS; "auto": the model's default), mapped by
        each adapter to its provider's form for the model (from `capabilities` when known); completed reasoning
        blocks come as ReasoningDone. `cache_key`: one stable key per conversation, for providers whose prompt
        cache routes by a key (OpenAI's prompt_cache_key). `web_search`: the provider's native search, when on and
        the provider has one (the reply's searches come as WebSearched at its end)."""
        ...

    async def generate_simple_completion(
        self, model_id: ModelId, prompt: str, system: str | None = None, max_tokens: int = 2048
    ) -> str: ...

    async def list_models(self) -> list[AiModel]: ...

    async def count_attachment_tokens(self, model_id: ModelId, attachment: Attachment) -> int | None:
        """The provider's own count of the input tokens the attachment adds to a request in the form it is sent
        (its count endpoint), or None where the provider has none or it failed."""
        ...

    async def server_window(self, model_id: ModelId) -> ServerWindow | None:
        """A local server's real context for the model (probed once: Ollama's /api/version, /api/show and /api/ps,
        llama.cpp's /props, LM Studio's and vLLM's model lists), or None: not a local server, or it does not say."""
        ...


class ModelApiAdapterFactory(Protocol):
    """Builds the adapter for a provider's type, with its key and base URL."""

    def create(self, provider: Provider, api_key: str | None) -> ModelApiAdapter: ...


ProgressReport = Callable[[float, float | None, str | None], None]


@dataclass(frozen=True)
class ToolContext:
    """Who runs a tool: the session and agent, for tools that store things; `progress` takes what a long tool
    reports (progress, total, message) while it runs."""

    session_id: SessionId
    agent_id: AgentId | None
    progress: ProgressReport | None = None
    granted: tuple[str, ...] = ()  # MCP tools the turn offers though their server is off for the conversation


@dataclass(frozen=True)
class ToolOutcome:
    """A tool's output text; errors are outcomes too, for the model to read."""

    output: str
    is_error: bool = False
    notice: str | None = None  # something the user should be told (e.g. an MCP server was restarted)
    attachments: tuple[Attachment, ...] = ()  # images the tool returned, stored: sent to the model with the result


class ToolExecutor(Protocol):
    """The built-in tools: definitions to offer the model and a way to run them."""

    def definitions(self, enabled: Sequence[str] | None = None) -> Sequence[ToolDefinition]: ...
    async def execute(self, name: str, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        """Never raises for a tool's own failure or bad arguments: returns an error outcome."""
        ...


class Summarizer(Protocol):
    """Produces a summary text with a given provider's model (used by compaction)."""

    async def summarize(
        self, *, provider_id: ProviderId, model_id: ModelId, system: str, prompt: str, max_tokens: int
    ) -> str:
        """Raises ProviderError on failure; may return blank text (callers treat that as a failure)."""
        ...
