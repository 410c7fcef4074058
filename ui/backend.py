"""What the desktop UI needs from the app, split by screen: every operation an async call returning domain objects."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from domain.attachment import Attachment
from domain.events import ChatEvent, CompactCompleted, ContextStatus
from domain.mcp import McpServer
from domain.models import (
    Agent,
    AgentId,
    AiModel,
    Memory,
    MemoryId,
    Message,
    MessageId,
    ModelId,
    Provider,
    ProviderId,
    Session,
    SessionId,
)
from domain.ports import KeySource, SessionSearchHit
from domain.settings import ContextSettings, ToolSettings
from domain.usecases.load_conversation import ConversationPage
from domain.usecases.open_at_message import HitPage
from ui.attachments_backend import AttachmentsBackend


@dataclass(frozen=True)
class ProviderInfo:
    """A provider with where its key comes from (never the key itself)."""

    provider: Provider
    key_source: KeySource | None = None
    env_var: str | None = None

    @property
    def has_key(self) -> bool:
        """Whether a key is available from the keychain or the environment."""
        return self.key_source is not None


@dataclass(frozen=True)
class ConnectionResult:
    """Outcome of Test connection: ok, a sentence for the user, and how many models were listed."""

    ok: bool
    message: str
    model_count: int = 0


@dataclass(frozen=True)
class UsageSummary:
    """A session's token totals and, where every model's price is known, its cost in US dollars."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float | None = None


@dataclass(frozen=True)
class SessionMcpServer:
    """An MCP server as one conversation sees it: on or off here, and how many tools it offers."""

    name: str
    enabled: bool
    tools: int


@dataclass(frozen=True)
class Selection:
    """The provider and model a session talks to."""

    provider_id: ProviderId
    model_id: ModelId


@dataclass(frozen=True)
class StartupInfo:
    """What the first screen needs: configured providers, the keychain's state, and a default selection."""

    providers: tuple[ProviderInfo, ...]
    keychain_problem: str | None = None
    default_selection: Selection | None = None
    agents: tuple[Agent, ...] = field(default_factory=tuple)
    has_sessions: bool = False

    @property
    def any_key(self) -> bool:
        """Whether at least one provider can be used (a key, or a local OpenAI-compatible server)."""
        return any(p.has_key or (p.provider.base_url and _is_local(p.provider.base_url)) for p in self.providers)


def _is_local(url: str) -> bool:
    return any(host in url for host in ("localhost", "127.0.0.1", "[::1]"))




@dataclass(frozen=True)
class SessionPrompt:
    """A conversation's own system prompt (None: its agent's applies) beside the agent's, for the editor."""

    own: str | None
    agent_name: str
    agent_prompt: str | None


@dataclass(frozen=True)
class ImportProgress:
    """How far an import is: conversations stored so far of all; at the end, what it stored."""

    done: int
    total: int
    finished: bool = False
    imported: int = 0
    skipped: int = 0
    messages: int = 0


class AppBackend(Protocol):
    """What the main window needs at start: providers, keychain state, agents, models for the pickers."""

    async def startup(self) -> StartupInfo:
        """Providers, keychain state, agents and the default provider/model."""
        raise NotImplementedError

    async def list_models(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        """Known models, of one provider or all."""
        raise NotImplementedError


class SessionsBackend(Protocol):
    """The sessions list: list, search, rename, archive, delete with undo."""

    async def list_sessions(self, archived: bool = False) -> Sequence[Session]:
        """Sessions not archived (with archived: only the archived ones), newest first."""
        raise NotImplementedError

    async def archive_session(self, session_id: SessionId, archived: bool) -> Session:
        """Archives (or, with archived False, unarchives) a session; it stays searchable."""
        raise NotImplementedError

    async def search_sessions(self, query: str) -> Sequence[SessionSearchHit]:
        """Full-text search over messages, titles and summaries."""
        raise NotImplementedError

    async def rename_session(self, session_id: SessionId, title: str) -> Session:
        """Renames; a blank title raises InvalidInput."""
        raise NotImplementedError

    async def delete_session(self, session_id: SessionId) -> None:
        """Soft delete, undoable with restore_session."""
        raise NotImplementedError

    async def restore_session(self, session_id: SessionId) -> None:
        """Undoes a delete."""
        raise NotImplementedError

    async def export_session(self, session_id: SessionId, fmt: str, path: str) -> None:
        """Writes the session as Markdown (the active path) or JSON (every branch) to `path`."""
        raise NotImplementedError

    def import_file(self, kind: str, path: str) -> AsyncIterator[ImportProgress]:
        """Imports an export ("chatgpt", "claude", "palimpsest"): progress, then a finished one; all or nothing
        (InvalidInput saying where a malformed file is wrong)."""
        raise NotImplementedError


class ConversationBackend(Protocol):
    """The chat screen: a conversation's pages, sending, and the context verbs."""

    async def create_session(self, agent_id: AgentId | None, selection: Selection | None) -> Session:
        """A new empty session."""
        raise NotImplementedError

    async def load_conversation(self, session_id: SessionId, tail: int) -> ConversationPage:
        """The session and its newest `tail` messages."""
        raise NotImplementedError

    async def load_older(self, session_id: SessionId, before_seq: int, limit: int) -> Sequence[Message]:
        """Up to `limit` messages with seq < before_seq, in order."""
        raise NotImplementedError

    async def open_at(self, session_id: SessionId, message_id: MessageId, tail: int) -> HitPage:
        """The session paged back to a message (a search hit), its branch checked out first when needed."""
        raise NotImplementedError

    def send(self, session_id: SessionId, text: str, selection: Selection,
             attachments: Sequence[Attachment] = ()) -> AsyncIterator[ChatEvent]:
        """Runs one user turn (with the files taken in for it); cancelling the iteration stops it and keeps the
        partial reply."""
        raise NotImplementedError

    def retry(self, session_id: SessionId, selection: Selection) -> AsyncIterator[ChatEvent]:
        """Runs the last user turn again after a failure (the user's last message is sent again)."""
        raise NotImplementedError

    def edit(self, session_id: SessionId, message_id: MessageId, text: str, selection: Selection
             ) -> AsyncIterator[ChatEvent]:
        """Sends `text` as a new version of a user message (a sibling branch) and runs its turn."""
        raise NotImplementedError

    def regenerate(self, session_id: SessionId, message_id: MessageId, selection: Selection
                   ) -> AsyncIterator[ChatEvent]:
        """Answers again the user message a reply answered (the old reply stays as another branch)."""
        raise NotImplementedError

    async def fork_session(self, session_id: SessionId, message_id: MessageId) -> Session:
        """A new session holding the path up to a message."""
        raise NotImplementedError

    async def delete_branch(self, session_id: SessionId, message_id: MessageId) -> None:
        """Deletes the part of the branch through a message that no other branch shares."""
        raise NotImplementedError

    async def checkout(self, session_id: SessionId, message_id: MessageId) -> Session:
        """Makes the branch through a message (its newest leaf) the conversation."""
        raise NotImplementedError

    async def compact_now(
        self, session_id: SessionId, selection: Selection, instructions: str | None
    ) -> CompactCompleted:
        """Summarizes the older part now, optionally focused by instructions."""
        raise NotImplementedError

    async def reset_context(self, session_id: SessionId) -> Session:
        """Clears summary and boundary; every original message is sent again."""
        raise NotImplementedError

    async def edit_summary(self, session_id: SessionId, summary: str) -> Session:
        """Replaces the compacted summary."""
        raise NotImplementedError

    async def set_pinned(self, message_id: MessageId, pinned: bool) -> Message:
        """Pins a message so it is always sent verbatim."""
        raise NotImplementedError

    async def select(self, session_id: SessionId, selection: Selection, agent_id: AgentId | None) -> Session:
        """Switches the session's provider/model and agent."""
        raise NotImplementedError

    async def set_reasoning(self, session_id: SessionId, level: str | None) -> Session:
        """Sets the session's own reasoning level (None: its agent's or the app's setting)."""
        raise NotImplementedError

    async def session_prompt(self, session_id: SessionId) -> SessionPrompt:
        """The session's own system prompt and its agent's."""
        raise NotImplementedError

    async def set_session_prompt(self, session_id: SessionId, prompt: str | None) -> Session:
        """Sets the session's own system prompt (None or blank: its agent's applies again)."""
        raise NotImplementedError

    async def context_status(self, session_id: SessionId, selection: Selection) -> ContextStatus:
        """The current context estimate against the model's window."""
        raise NotImplementedError

    async def usage_summary(self, session_id: SessionId) -> UsageSummary:
        """Token totals and cost."""
        raise NotImplementedError

    async def full_tool_output(self, message_id: MessageId) -> str | None:
        """The untruncated original of a tool result, if one was kept."""
        raise NotImplementedError

    async def session_mcp_servers(self, session_id: SessionId) -> Sequence[SessionMcpServer]:
        """Every MCP server, on or off for this conversation."""
        raise NotImplementedError

    async def set_session_mcp_server(self, session_id: SessionId, name: str, enabled: bool) -> None:
        """Turns an MCP server on or off for this conversation (its tools leave or rejoin the request)."""
        raise NotImplementedError


class SettingsBackend(Protocol):
    """The settings dialog: providers, keys, models, agents, memories, context and tool settings."""

    async def keychain_problem(self) -> str | None:
        """None when a usable keychain exists, else a plain sentence saying why not."""
        raise NotImplementedError

    async def list_providers(self) -> Sequence[ProviderInfo]:
        """Providers with their key source."""
        raise NotImplementedError

    async def add_compatible_provider(self, name: str, base_url: str) -> Provider:
        """Adds an OpenAI-compatible endpoint (Ollama, LM Studio, ...)."""
        raise NotImplementedError

    async def set_base_url(self, provider_id: ProviderId, base_url: str | None) -> Provider:
        """Changes (or clears) a provider's base URL."""
        raise NotImplementedError

    async def set_api(self, provider_id: ProviderId, api: str) -> Provider:
        """Chooses the API an OpenAI-type provider speaks: responses, chat-completions or auto."""
        raise NotImplementedError

    async def set_key(self, provider_id: ProviderId, key: str) -> None:
        """Stores a key in the OS keychain; raises KeychainUnavailable when there is none."""
        raise NotImplementedError

    async def delete_key(self, provider_id: ProviderId) -> None:
        """Removes a key from the keychain."""
        raise NotImplementedError

    async def test_connection(self, provider_id: ProviderId) -> ConnectionResult:
        """Lists the provider's models to check key and URL."""
        raise NotImplementedError

    async def list_models(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        """Known models, of one provider or all."""
        raise NotImplementedError

    async def refresh_models(self, provider_id: ProviderId) -> Sequence[AiModel]:
        """Fetches the provider's model list and stores it."""
        raise NotImplementedError

    async def set_model_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None
    ) -> AiModel:
        """A user-set context window (always wins over presets and guesses)."""
        raise NotImplementedError

    async def list_agents(self) -> Sequence[Agent]:
        """Every agent."""
        raise NotImplementedError

    async def save_agent(self, agent: Agent) -> Agent:
        """Adds or updates an agent."""
        raise NotImplementedError

    async def delete_agent(self, agent_id: AgentId) -> None:
        """Deletes an agent."""
        raise NotImplementedError

    async def tool_names(self) -> Sequence[str]:
        """Names of the built-in tools an agent can enable."""
        raise NotImplementedError

    async def list_memories(self) -> Sequence[Memory]:
        """Every long-term memory, newest first."""
        raise NotImplementedError

    async def update_memory(self, memory_id: MemoryId, content: str) -> Memory:
        """Edits a memory's text."""
        raise NotImplementedError

    async def delete_memory(self, memory_id: MemoryId) -> None:
        """Deletes a memory."""
        raise NotImplementedError

    async def context_settings(self) -> ContextSettings:
        """App-wide context settings."""
        raise NotImplementedError

    async def save_context_settings(self, settings: ContextSettings) -> ContextSettings:
        """Validates and stores context settings."""
        raise NotImplementedError

    async def tool_settings(self) -> ToolSettings:
        """App-wide tool settings: the local hosts http_request may reach."""
        raise NotImplementedError

    async def save_tool_settings(self, settings: ToolSettings) -> ToolSettings:
        """Validates (InvalidInput naming a bad host) and stores tool settings; returns them as stored."""
        raise NotImplementedError

    async def list_mcp_servers(self) -> Sequence[McpServer]:
        """The configured MCP servers with their tools as last listed."""
        raise NotImplementedError

    async def add_mcp_server(
        self, name: str, command: Sequence[str], url: str | None, values: Mapping[str, str] | None = None
    ) -> McpServer:
        """Adds a server after starting it and listing its tools (InvalidInput / McpServerError /
        KeychainUnavailable say why not); `values` are a command's environment or a URL's headers, kept in the
        keychain only."""
        raise NotImplementedError

    async def refresh_mcp_tools(self, name: str) -> McpServer:
        """Starts the server if needed and lists its tools again."""
        raise NotImplementedError

    async def set_mcp_tool_permission(self, name: str, tool: str, rule: str) -> McpServer:
        """Sets one tool's rule: ask, allow or deny."""
        raise NotImplementedError

    async def remove_mcp_server(self, name: str) -> None:
        """Removes a server and its secrets."""
        raise NotImplementedError

    async def set_agent_mcp_servers(self, agent_id: AgentId, off: Sequence[str]) -> Sequence[McpServer]:
        """Turns the named MCP servers off for an agent and every other one on; returns every server."""
        raise NotImplementedError

    async def mcp_log_path(self, name: str) -> str:
        """The file a stdio server's error output goes to."""
        raise NotImplementedError


class ChatBackend(AppBackend, SessionsBackend, ConversationBackend, AttachmentsBackend, SettingsBackend, Protocol):
    """Every screen's interface together: what app.gui.bridge implements over the use cases (fakes in tests)."""
