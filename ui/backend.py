"""What the desktop UI needs from the app, split by screen: every operation an async call returning domain objects."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from domain.attachment import Attachment
from domain.events import ChatEvent, CompactCompleted, ContextStatus
from domain.models import (
    AgentId,
    AiModel,
    Message,
    MessageId,
    ModelId,
    ProviderId,
    Session,
    SessionId,
)
from domain.ports import SessionSearchHit
from domain.usecases.load_conversation import ConversationPage
from domain.usecases.open_at_message import HitPage
from ui.attachments_backend import AttachmentsBackend
from ui.backend_types import (
    ConnectionResult,
    ImportProgress,
    ProviderInfo,
    Selection,
    SessionMcpServer,
    SessionPrompt,
    StartupInfo,
    UsageSummary,
)
from ui.mcp_backend import McpCatalogBackend
from ui.settings_backend import SettingsBackend

__all__ = [
    "AppBackend", "ChatBackend", "ConnectionResult", "ConversationBackend", "ImportProgress", "ProviderInfo",
    "Selection", "SessionMcpServer", "SessionPrompt", "SessionsBackend", "SettingsBackend", "StartupInfo",
    "UsageSummary",
]


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
        """Imports an export of `kind` ("auto" tells it from the file, and the finished step names what it found;
        else one of data.importing.sources.KINDS): progress, then a finished one; all or nothing (InvalidInput saying
        where a malformed file is wrong)."""
        raise NotImplementedError


class ConversationBackend(Protocol):
    """The chat screen: a conversation's pages, sending, and the context verbs."""

    async def create_session(self, agent_id: AgentId | None, selection: Selection | None) -> Session:
        """A new empty session."""
        raise NotImplementedError

    async def load_conversation(self, session_id: SessionId, tail: int) -> ConversationPage:
        """The session and its newest `tail` messages."""
        raise NotImplementedError

    async def load_older(self, session_id: SessionId, before_seq: int, limit: int) -> ConversationPage:
        """Up to `limit` messages of the active path with seq < before_seq, in order, with their versions."""
        raise NotImplementedError

    async def open_at(self, session_id: SessionId, message_id: MessageId, tail: int) -> HitPage:
        """The session at a message (a search hit): the newest page when it is in it, else a window around it; its
        branch checked out first when needed."""
        raise NotImplementedError

    async def load_newer(self, session_id: SessionId, after_seq: int, limit: int) -> ConversationPage:
        """The next `limit` messages of the active path after after_seq (below a window), and how many follow."""
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

    async def set_web_search(self, session_id: SessionId, on: bool | None) -> Session:
        """Turns the session's web search on or off (None: its agent's or the app's setting)."""
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

    async def session_mcp_servers(self, session_id: SessionId | None) -> Sequence[SessionMcpServer]:
        """Every MCP server, on or off for this conversation (None: a new chat not stored yet, where every server is
        on)."""
        raise NotImplementedError

    async def set_session_mcp_server(self, session_id: SessionId, name: str, enabled: bool) -> None:
        """Turns an MCP server on or off for this conversation (its tools leave or rejoin the request)."""
        raise NotImplementedError

    async def use_automatic_window(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        """Drops a user-set, learned or guessed window of a model: the model as it resolves afterwards."""
        raise NotImplementedError


class ChatBackend(AppBackend, SessionsBackend, ConversationBackend, AttachmentsBackend, SettingsBackend,
                  McpCatalogBackend, Protocol):
    """Every screen's interface together: what app.gui.bridge implements over the use cases (fakes in tests)."""
