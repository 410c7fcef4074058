"""The chat screen's immutable state and the choices its header offers."""

from __future__ import annotations

from dataclasses import dataclass

from domain.events import ContextStatus
from domain.models import Agent, AgentId, Session
from ui.attachments_backend import AttachmentPreview
from ui.backend import Selection, SessionMcpServer, UsageSummary


@dataclass(frozen=True)
class ModelChoice:
    """One entry of the provider/model picker."""

    selection: Selection
    label: str
    provider_name: str
    window: int | None = None
    window_is_guess: bool = False
    features: tuple[str, ...] = ()  # what the model takes besides text: "reasoning", "images", "PDFs", "tools"
    reasoning_levels: tuple[str, ...] = ()  # the reasoning settings that mean something for it (none: no picker)


@dataclass(frozen=True)
class ChatState:
    """Everything the chat screen shows besides the rows themselves (those live in MessageListModel)."""

    session: Session | None = None
    loading: bool = False
    streaming: bool = False
    compacting: bool = False
    waiting: int = 0  # seconds the provider has been silent while streaming (0: data is arriving)
    selection: Selection | None = None
    agent_id: AgentId | None = None
    reasoning: str | None = None  # the conversation's own reasoning level (None: its agent's or the app's)
    choices: tuple[ModelChoice, ...] = ()
    agents: tuple[Agent, ...] = ()
    context: ContextStatus | None = None
    usage: UsageSummary | None = None
    mcp_servers: tuple[SessionMcpServer, ...] = ()  # on or off for this conversation
    error: str | None = None
    show_originals: bool = False
    summarized_count: int = 0
    has_older: bool = False
    has_newer: bool = False  # a window around a search hit: the path goes on below it (paged in, or Jump to latest)
    live_messages: int = 0  # messages the running turn has added so far (shown before they are read back)
    path_messages: int | None = None  # messages on the active path, from the last page read (other branches aside)
    queued: str | None = None  # typed while a reply streamed: sent when the turn ends, unless cancelled
    pending: tuple[AttachmentPreview, ...] = ()  # files in the composer, sent with the next message
    attaching: int = 0  # files being taken in (checked and stored) right now

    @property
    def can_send(self) -> bool:
        """Whether the composer accepts a message now."""
        return not self.streaming and not self.loading and self.selection is not None

    @property
    def message_count(self) -> int:
        """The messages of the session's active path (all stored ones until a page told) plus those the running turn
        has added so far."""
        stored = self.path_messages if self.path_messages is not None else (
            self.session.message_count if self.session is not None else 0)
        return stored + self.live_messages

    @property
    def summary(self) -> str | None:
        """The session's compacted summary, if any."""
        return self.session.compacted_summary if self.session is not None else None

    @property
    def selected_choice(self) -> ModelChoice | None:
        """The picker entry of the current selection."""
        return next((c for c in self.choices if c.selection == self.selection), None)
