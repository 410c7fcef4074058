"""What can happen to the chat screen, as data: the events the view model feeds the reducer (from the backend's
answers, the turn's stream and the widgets)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.events import ContextStatus
from domain.models import Agent, AgentId, Session
from ui.attachments_backend import AttachmentPreview
from ui.backend_types import Selection, SessionMcpServer, UsageSummary
from ui.state.chat_state import Edit, ModelChoice

# --- pages ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChoicesOffered:
    """The pickers' entries changed; the selection is kept while offered, else `default` (or the first)."""

    choices: tuple[ModelChoice, ...]
    agents: tuple[Agent, ...]
    default: Selection | None


@dataclass(frozen=True)
class Cleared:
    """A new chat: no conversation shows."""


@dataclass(frozen=True)
class OpenStarted:
    """Another page is being read in place of the one shown; `leave`: another session or a search hit opens (what
    ran is left, the edit and the queue end, the originals hide), else the newest page of this one replaces a window
    around a search hit."""

    leave: bool = True


@dataclass(frozen=True)
class PageOpened:
    """A page was read; `keep_reasoning`: a reasoning choice is not stored yet (the page must not undo it)."""

    session: Session
    summarized_count: int
    total_count: int
    has_older: bool
    has_newer: bool
    keep_reasoning: bool = False


@dataclass(frozen=True)
class VerbFailed:
    """A read or a verb outside the turn failed."""

    error: str


@dataclass(frozen=True)
class OlderPaged:
    """An older page was put above."""

    has_older: bool


@dataclass(frozen=True)
class NewerPaged:
    """A newer page was put below a window around a search hit."""

    has_newer: bool
    total_count: int


@dataclass(frozen=True)
class OriginalsShown:
    """The originals behind the boundary show (or not)."""

    show: bool


@dataclass(frozen=True)
class PathCut:
    """A new branch starts at a message: what followed it is on the old branch."""

    path_messages: int | None


# --- the turn -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnStarted:
    """Send (or retry, edit, regenerate) was accepted; `files_sent`: the composer's files go with it."""

    files_sent: bool = False


@dataclass(frozen=True)
class StreamActive:
    """The stream reported something: the reply is under way."""


@dataclass(frozen=True)
class ProviderWaiting:
    """The provider has been silent for `seconds`."""

    seconds: int


@dataclass(frozen=True)
class ReplyFailed:
    """The stream reported a failure (it winds down after)."""

    error: str


@dataclass(frozen=True)
class CompactionStarted:
    """A compaction began: inside the turn, or asked for by the user (`in_turn` False)."""

    in_turn: bool = True


@dataclass(frozen=True)
class CompactionEnded:
    """A compaction ended."""


@dataclass(frozen=True)
class StopRequested:
    """The user pressed Stop."""


@dataclass(frozen=True)
class StreamEnded:
    """The stream ended (finished or stopped); `error`: it ended by raising."""

    error: str | None = None


@dataclass(frozen=True)
class ReadBackDone:
    """The finished turn's messages were read back (after the page they are on was opened)."""


@dataclass(frozen=True)
class LiveCounted:
    """The running turn has added `count` messages so far."""

    count: int


@dataclass(frozen=True)
class Refused:
    """A message was refused before sending (too long); the error shows unless a turn runs."""

    error: str


# --- the composer ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MessageQueued:
    """A message typed while a turn ran waits for it to end; `edit`: the edit it was sent from (it waits as that
    edit). It joins a message already waiting, but an edit joins nothing and nothing joins an edit: then it is not
    queued."""

    text: str
    edit: Edit | None = None


@dataclass(frozen=True)
class QueueEmptied:
    """The queued message was sent or withdrawn."""


@dataclass(frozen=True)
class DraftChanged:
    """The composer's text changed (typed, pasted, cut)."""

    text: str


@dataclass(frozen=True)
class DraftSent:
    """The composer's message was taken (sent, or queued behind the running turn): the box empties, or gets back
    the draft it held before an edit."""


@dataclass(frozen=True)
class DraftReturned:
    """A message that was not sent (refused, withdrawn from the queue) goes back to the composer, above anything
    typed since; `edit`: it was an edit, and it comes back as that edit when no other one is open."""

    text: str
    edit: Edit | None = None


@dataclass(frozen=True)
class EditStarted:
    """The next Send makes a new version of a message; its `text` replaces the draft (which comes back after)."""

    message_id: str
    text: str = ""


@dataclass(frozen=True)
class EditCancelled:
    """The next Send is an ordinary message again (Esc, the edit bar's ×, another page opened)."""


@dataclass(frozen=True)
class AttachStarted:
    """A file is being taken in."""


@dataclass(frozen=True)
class AttachEnded:
    """A file was taken in (`preview`) or refused (None)."""

    preview: AttachmentPreview | None


@dataclass(frozen=True)
class IndexingChanged:
    """An attached document began (`started`) or finished being indexed for search_documents."""

    name: str
    started: bool


@dataclass(frozen=True)
class PendingChanged:
    """The files in the composer, as they are now (one removed, earlier ones put back)."""

    pending: tuple[AttachmentPreview, ...]


# --- the header and the gauge ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionUpdated:
    """The session changed (renamed, switched model, its summary edited); `reasoning`: its stored level applies."""

    session: Session
    reasoning: bool = False


@dataclass(frozen=True)
class Measured:
    """The context, the token totals or the MCP servers were read (None: unchanged)."""

    context: ContextStatus | None = None
    usage: UsageSummary | None = None
    mcp_servers: tuple[SessionMcpServer, ...] | None = None


@dataclass(frozen=True)
class Picked:
    """The user picked a model, an agent or a reasoning level (only the fields set change; `reasoning` is set when
    `set_reasoning`)."""

    selection: Selection | None = None
    agent_id: AgentId | None = None
    reasoning: str | None = None
    set_reasoning: bool = False
    web_search: bool | None = None  # the globe before the conversation exists (set when `set_web_search`)
    set_web_search: bool = False


ChatEvent = (
    ChoicesOffered | Cleared | OpenStarted | PageOpened | VerbFailed | OlderPaged | NewerPaged | OriginalsShown
    | PathCut | TurnStarted | StreamActive | ProviderWaiting | ReplyFailed | CompactionStarted | CompactionEnded
    | StopRequested | StreamEnded | ReadBackDone | LiveCounted | Refused | MessageQueued | QueueEmptied | DraftChanged
    | DraftSent | DraftReturned | EditStarted | EditCancelled | AttachStarted | AttachEnded | PendingChanged
    | IndexingChanged    | SessionUpdated | Measured | Picked
)
