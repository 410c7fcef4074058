"""The parts of the chat screen's state: the picker entries, the turn (sealed: `Idle | Sending | Streaming |
Compacting | Stopping | Failing | ReadingBack | Failed`), the header, the composer and the conversation shown."""

from __future__ import annotations

from dataclasses import dataclass

from domain.events import ContextStatus
from domain.models import Agent, AgentId, Session
from ui.attachments_backend import AttachmentPreview
from ui.backend_types import Selection, SessionMcpServer, UsageSummary


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
    web_search: bool = False  # its provider has a web search of its own, and the model takes it
    web_search_refused: bool = False  # the provider has one but this model does not take it (Claude 3)
    web_search_mcp: tuple[str, ...] = ()  # no native search: the MCP search tools the globe uses instead
    retirement: str = ""  # "retires 30 Nov 2026" / "retired 15 Jun 2026": its vendor ends it ("" when not)
    retired: bool = False  # that day has come
    successor: str = ""  # the model its vendor names instead, as the picker shows it


# --- the turn ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Idle:
    """No turn runs: the composer sends."""


@dataclass(frozen=True)
class Sending:
    """A message is on its way: nothing has come back yet (the pending reply shows)."""


@dataclass(frozen=True)
class Streaming:
    """The reply streams; `waiting`: seconds the provider has been silent (0: data is arriving)."""

    waiting: int = 0


@dataclass(frozen=True)
class Compacting:
    """Older messages are being summarized: inside a turn (its stream goes on after) or asked for by the user."""

    in_turn: bool = True


@dataclass(frozen=True)
class Stopping:
    """The user pressed Stop: the stream winds down; what it still reports is not shown (storage has the rest)."""


@dataclass(frozen=True)
class Failing:
    """The stream reported a failure and winds down; the error already shows."""

    error: str


@dataclass(frozen=True)
class ReadingBack:
    """The stream ended; the turn's stored messages are being read back (`error`: the failure shown, if any)."""

    error: str | None = None


@dataclass(frozen=True)
class Failed:
    """The last turn or verb failed; the error shows until the next turn or page."""

    error: str


Turn = Idle | Sending | Streaming | Compacting | Stopping | Failing | ReadingBack | Failed
RUNNING = (Sending, Streaming, Compacting, Stopping, Failing)  # the stream still runs (Stop stops it)

# --- the parts ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The pickers: provider/model, agent, reasoning level, and what they offer."""

    selection: Selection | None = None
    agent_id: AgentId | None = None
    reasoning: str | None = None  # the conversation's own reasoning level (None: its agent's or the app's)
    web_search: bool | None = None  # the globe's choice before the conversation exists (then: the session's)
    choices: tuple[ModelChoice, ...] = ()
    agents: tuple[Agent, ...] = ()


@dataclass(frozen=True)
class Edit:
    """A message being edited: the next Send makes a new version of it. `text`: what the edit put in the box (left
    untouched, a cancel takes it away); `before`: the draft the box held before (back when the edit ends)."""

    message_id: str
    text: str = ""
    before: str = ""


@dataclass(frozen=True)
class Queued:
    """A message typed while a turn ran, sent when it ends; `unseen`: part of it was typed before the turn's outcome
    showed (then it is not sent behind a failure); `edit`: the edit it was sent from (then it is sent as a new
    version of that message, else as a new message, whatever the composer holds by then)."""

    text: str
    unseen: bool = False
    edit: Edit | None = None


@dataclass(frozen=True)
class Composer:
    """What the composer holds: its draft (the text box follows it), the message being edited, the files to send,
    the queue."""

    draft: str = ""
    edit: Edit | None = None
    pending: tuple[AttachmentPreview, ...] = ()  # files in the composer, sent with the next message
    attaching: int = 0  # files being taken in (checked and stored) right now
    indexing: tuple[str, ...] = ()  # attached documents being indexed for search_documents now (their names)
    queued: Queued | None = None

    @property
    def editing(self) -> str | None:
        """The id of the message the next Send replaces with a new version."""
        return self.edit.message_id if self.edit is not None else None


@dataclass(frozen=True)
class Conversation:
    """The conversation shown: its session (None: a new chat whose first message is creating it) and its view."""

    session: Session | None = None
    summarized_count: int = 0
    has_older: bool = False
    has_newer: bool = False  # a window around a search hit: the path goes on below it
    path_messages: int | None = None  # messages on the active path, from the last page read
    live_messages: int = 0  # messages the running turn has added so far (shown before they are read back)
    show_originals: bool = False
    context: ContextStatus | None = None
    usage: UsageSummary | None = None
    mcp_servers: tuple[SessionMcpServer, ...] = ()  # on or off for this conversation
