"""Events: what a provider stream yields (StreamEvent) and what a chat turn reports (ChatEvent)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from domain.errors import PalimpsestError
from domain.models import ReasoningBlock, Usage
from domain.web import WebSearchRecord

StopReason = Literal["end_turn", "tool_use", "max_tokens", "other"]


# --- provider stream events -------------------------------------------------------------------

@dataclass(frozen=True)
class TextDelta:
    """A piece of the reply's text."""

    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of the model's reasoning text, when the provider streams it."""

    text: str


@dataclass(frozen=True)
class ToolCallRequested:
    """The model asks for a tool; `input` is the complete parsed JSON object."""

    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class UsageReported:
    """Token usage for the request (may arrive once, at the end)."""

    usage: Usage


@dataclass(frozen=True)
class StreamDone:
    """The stream finished normally."""

    stop_reason: StopReason


@dataclass(frozen=True)
class ReplyProgress:
    """Part of the reply arrived that is not shown as it comes (a tool call's arguments): the provider is not idle.

    Keep-alive pings never become events, so they never count as progress."""


@dataclass(frozen=True)
class ReasoningDone:
    """A reasoning block is complete (with its signature or opaque data), to be stored with the reply — or, with
    `call_id`, with that tool call (a Gemini thought signature on a function call part). Its text was streamed as
    ThinkingDelta already."""

    block: ReasoningBlock
    call_id: str | None = None


@dataclass(frozen=True)
class WebSearched:
    """The reply's web searches, complete (sources, citations, the provider's blocks to send back), at its end."""

    record: WebSearchRecord


StreamEvent = (
    TextDelta | ThinkingDelta | ToolCallRequested | UsageReported | StreamDone | ReplyProgress | ReasoningDone
    | WebSearched
)


# --- chat events (use cases -> UI / CLI) ------------------------------------------------------

@dataclass(frozen=True)
class ContextBreakdown:
    """Where the context's tokens go."""

    system: int = 0
    summary: int = 0
    messages: int = 0
    tool_results: int = 0
    tools: int = 0
    reasoning: int = 0  # the model's own earlier reasoning the request sends back (a tool loop's thinking)
    attachments: int = 0  # images, PDFs and files of user messages (included in neither messages nor tool_results)
    web_search: int = 0  # web search results and sources of searched replies (included in no other row)


@dataclass(frozen=True)
class ContextStatus:
    """What the next request of a session would send, estimated, against the model's window.

    `used` counts the input tokens of the next request as it would be sent now (pruned, summary injected, tool
    definitions included, calibrated for the model), without a new user message and without the output reserve.
    `threshold` is the number of tokens at which auto-compaction runs; `warnings` are plain sentences."""

    used: int
    window: int | None
    breakdown: ContextBreakdown = field(default_factory=ContextBreakdown)
    window_is_guess: bool = False
    provider_id: str | None = None
    model_id: str | None = None
    input_limit: int | None = None
    window_source: str | None = None
    threshold: int | None = None
    warnings: tuple[str, ...] = ()

    @property
    def percent(self) -> float | None:
        """`used` as a percentage of the window (None when the window is unknown)."""
        return round(100.0 * self.used / self.window, 1) if self.window else None


@dataclass(frozen=True)
class ToolCallStarted:
    """A tool is about to run."""

    call_id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class ToolResultStored:
    """A tool ran and its (possibly truncated) result was stored."""

    call_id: str
    name: str
    chars: int
    truncated: bool
    is_error: bool
    message_id: str
    images: int = 0  # images the tool returned, stored with the result


@dataclass(frozen=True)
class ResponseComplete:
    """The final reply of the turn is stored."""

    message_id: str
    usage: Usage


@dataclass(frozen=True)
class CompactStarted:
    """Compaction is running."""

    trigger: str = "auto"


@dataclass(frozen=True)
class CompactCompleted:
    """Compaction finished, did nothing, or fell back."""

    did_compact: bool
    fallback: bool = False
    tokens_before: int = 0
    tokens_after: int = 0
    summary_tokens: int = 0
    reason: str = ""


@dataclass(frozen=True)
class MemoryFlushed:
    """The silent memory-flush turn ran."""

    saved_count: int


@dataclass(frozen=True)
class ContextStatusChanged:
    """A new context estimate is available."""

    status: ContextStatus


@dataclass(frozen=True)
class TitleGenerated:
    """The session got a title from its first exchange."""

    title: str


@dataclass(frozen=True)
class ToolRoundLimitReached:
    """The turn stopped because the model kept calling tools."""

    rounds: int


@dataclass(frozen=True)
class Waiting:
    """Nothing has arrived from the provider for `seconds` (reported every few seconds of silence); 0 means data
    is arriving again (e.g. a tool call's arguments, which are not shown as they come)."""

    seconds: int


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not an error (the turn goes on); `warning`: something that limits
    what the model sees (a server cutting the conversation), shown as a warning."""

    message: str
    warning: bool = False
    guessed_window_of: str | None = None  # the model whose window was just set on a guess (an interface offers undo)


@dataclass(frozen=True)
class SourcesCited:
    """The stored reply cites web sources (numbered as the reader sees them: record.numbered())."""

    message_id: str
    record: WebSearchRecord


@dataclass(frozen=True)
class ToolProgress:
    """A running tool reported how far it got (an MCP server's notifications/progress)."""

    call_id: str
    name: str
    progress: float
    total: float | None = None
    message: str | None = None

    @property
    def text(self) -> str:
        """One line: the server's message and how far ("step 2 of 3 (67%)", "40%", "12" without a total)."""
        figures = f"{self.progress / self.total:.0%}" if self.total else f"{self.progress:g}"
        return f"{self.message} ({figures})" if self.message else figures


@dataclass(frozen=True)
class ChatError:
    """The turn failed; `kind` is the error's stable tag and `message` a plain sentence."""

    kind: str
    message: str
    retryable: bool = False
    error: PalimpsestError | None = field(default=None, compare=False)  # its fields, for the GUI and CLI to word


ChatEvent = (
    TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolResultStored
    | ToolProgress
    | ResponseComplete
    | CompactStarted
    | CompactCompleted
    | MemoryFlushed
    | ContextStatusChanged
    | TitleGenerated
    | ToolRoundLimitReached
    | Waiting
    | Notice
    | SourcesCited
    | ChatError
)
