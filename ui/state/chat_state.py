"""The chat screen's state, sealed: `Empty | Loading | Ready(conversation, turn, composer)`, where the turn is one of
`Idle | Sending | Streaming | Compacting | Stopping | Failing | ReadingBack | Failed`. Frozen dataclasses only: a
combination that cannot happen (streaming while loading, an error while idle) cannot be written.

The read-only properties of `_Views` answer the questions the widgets ask (is a reply streaming, what error shows);
they are derived from the variant, never stored beside it."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.events import ContextStatus
from domain.models import Agent, AgentId, Session
from ui.attachments_backend import AttachmentPreview
from ui.backend_types import Selection, SessionMcpServer, UsageSummary
from ui.state.chat_parts import (
    RUNNING,
    Compacting,
    Composer,
    Conversation,
    Edit,
    Failed,
    Failing,
    Header,
    Idle,
    ModelChoice,
    Queued,
    ReadingBack,
    Sending,
    Stopping,
    Streaming,
    Turn,
)

__all__ = [
    "RUNNING", "ChatState", "Compacting", "Composer", "Conversation", "Edit", "Empty", "Failed", "Failing", "Header",
    "Idle", "Loading", "ModelChoice", "Queued", "ReadingBack", "Ready", "Sending", "Stopping", "Streaming", "Turn",
]

# --- the screen ---------------------------------------------------------------------------------------------------


class _Views:
    """Derived, read-only answers shared by the three screens."""

    header: Header
    composer: Composer

    @property
    def shown(self) -> Conversation | None:
        """The conversation on screen (while loading: the one shown before, if any)."""
        return None

    @property
    def current_turn(self) -> Turn | None:
        """The turn (None: no conversation is ready)."""
        return self.turn if isinstance(self, Ready) else None

    @property
    def session(self) -> Session | None:
        """The session shown."""
        shown = self.shown
        return shown.session if shown is not None else None

    @property
    def loading(self) -> bool:
        """Whether a page is being read in place of what shows."""
        return isinstance(self, Loading)

    @property
    def streaming(self) -> bool:
        """Whether a turn's stream runs (the composer offers Stop)."""
        turn = self.current_turn
        return isinstance(turn, RUNNING) and not (isinstance(turn, Compacting) and not turn.in_turn)

    @property
    def compacting(self) -> bool:
        """Whether older messages are being summarized."""
        return isinstance(self.current_turn, Compacting)

    @property
    def reading_back(self) -> bool:
        """Whether a finished turn's messages are being read back."""
        return isinstance(self.current_turn, ReadingBack)

    @property
    def waiting(self) -> int:
        """Seconds the provider has been silent while streaming (0: data is arriving)."""
        turn = self.current_turn
        return turn.waiting if isinstance(turn, Streaming) else 0

    @property
    def error(self) -> str | None:
        """The error on screen, if any."""
        turn = self.current_turn
        if isinstance(turn, Failing | Failed | ReadingBack):
            return turn.error
        return self.failure if isinstance(self, Empty) else None

    @property
    def can_send(self) -> bool:
        """Whether the composer accepts a message now (during a read-back it is queued until it ends)."""
        busy = self.streaming or self.compacting
        return not busy and not self.loading and self.header.selection is not None

    @property
    def can_start_turn(self) -> bool:
        """Whether a turn may start now (no turn runs, is read back or compacts; no page is being read)."""
        return isinstance(self, Empty) or (isinstance(self, Ready) and isinstance(self.turn, Idle | Failed))

    @property
    def selection(self) -> Selection | None:
        """The provider/model chosen."""
        return self.header.selection

    @property
    def agent_id(self) -> AgentId | None:
        """The agent chosen."""
        return self.header.agent_id

    @property
    def reasoning(self) -> str | None:
        """The conversation's own reasoning level."""
        return self.header.reasoning

    @property
    def choices(self) -> tuple[ModelChoice, ...]:
        """The provider/model picker's entries."""
        return self.header.choices

    @property
    def agents(self) -> tuple[Agent, ...]:
        """The agent picker's entries."""
        return self.header.agents

    @property
    def selected_choice(self) -> ModelChoice | None:
        """The picker entry of the current selection."""
        return next((c for c in self.header.choices if c.selection == self.header.selection), None)

    @property
    def editing(self) -> str | None:
        """The message being edited (the next Send makes a new version of it)."""
        return self.composer.editing

    @property
    def draft(self) -> str:
        """The composer's text."""
        return self.composer.draft

    @property
    def pending(self) -> tuple[AttachmentPreview, ...]:
        """The files in the composer."""
        return self.composer.pending

    @property
    def attaching(self) -> int:
        """Files being taken in now."""
        return self.composer.attaching

    @property
    def indexing(self) -> tuple[str, ...]:
        """Attached documents being indexed for search now."""
        return self.composer.indexing

    @property
    def queued(self) -> str | None:
        """The queued message's text."""
        return self.composer.queued.text if self.composer.queued is not None else None

    @property
    def context(self) -> ContextStatus | None:
        """The gauge's measure."""
        return self.shown.context if self.shown is not None else None

    @property
    def usage(self) -> UsageSummary | None:
        """The session's token totals."""
        return self.shown.usage if self.shown is not None else None

    @property
    def mcp_servers(self) -> tuple[SessionMcpServer, ...]:
        """The MCP servers on or off for this conversation."""
        return self.shown.mcp_servers if self.shown is not None else ()

    @property
    def show_originals(self) -> bool:
        """Whether the originals behind the boundary show (dimmed)."""
        return self.shown.show_originals if self.shown is not None else False

    @property
    def summarized_count(self) -> int:
        """Messages behind the compaction boundary."""
        return self.shown.summarized_count if self.shown is not None else 0

    @property
    def has_older(self) -> bool:
        """Whether older messages can page in."""
        return self.shown.has_older if self.shown is not None else False

    @property
    def has_newer(self) -> bool:
        """Whether the rows are a window around a search hit that does not reach the newest message."""
        return self.shown.has_newer if self.shown is not None else False

    @property
    def live_messages(self) -> int:
        """Messages the running turn has added so far."""
        return self.shown.live_messages if self.shown is not None else 0

    @property
    def path_messages(self) -> int | None:
        """Messages on the active path, from the last page read."""
        return self.shown.path_messages if self.shown is not None else None

    @property
    def message_count(self) -> int:
        """The messages of the active path plus those the running turn has added so far."""
        shown = self.shown
        if shown is None:
            return 0
        stored = shown.path_messages if shown.path_messages is not None else (
            shown.session.message_count if shown.session is not None else 0)
        return stored + shown.live_messages

    @property
    def summary(self) -> str | None:
        """The session's compacted summary, if any."""
        session = self.session
        return session.compacted_summary if session is not None else None


@dataclass(frozen=True)
class Empty(_Views):
    """No conversation: a new chat not yet sent (`failure`: why the last page could not be read, if it failed)."""

    header: Header = field(default_factory=Header)
    composer: Composer = field(default_factory=Composer)
    failure: str | None = None


@dataclass(frozen=True)
class Loading(_Views):
    """A page is being read; the conversation shown before (if any) stays on screen meanwhile."""

    header: Header
    composer: Composer
    previous: Conversation | None = None

    @property
    def shown(self) -> Conversation | None:
        """The conversation shown before."""
        return self.previous


@dataclass(frozen=True)
class Ready(_Views):
    """A conversation on screen, its turn and its composer."""

    header: Header
    conversation: Conversation
    turn: Turn = field(default_factory=Idle)
    composer: Composer = field(default_factory=Composer)

    @property
    def shown(self) -> Conversation | None:
        """The conversation."""
        return self.conversation


ChatState = Empty | Loading | Ready
