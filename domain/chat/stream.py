"""Streams one model response, passing text through and collecting the reply, tool calls, usage and stop."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field

from domain.chat.deadlines import within_deadlines
from domain.events import (
    ReasoningDone,
    StopReason,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    UsageReported,
    Waiting,
    WebSearched,
)
from domain.models import ReasoningBlock, Usage
from domain.settings import Deadlines
from domain.web import WebSearchRecord


@dataclass
class RoundState:
    """What one response has produced so far; kept whole so a failure midway can store the partial reply."""

    text_parts: list[str] = field(default_factory=list)
    thinking_parts: list[str] = field(default_factory=list)
    calls: list[ToolCallRequested] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason | None = None
    blocks: list[ReasoningDone] = field(default_factory=list)  # completed reasoning blocks, in order
    clock: Callable[[], float] = time.monotonic
    thinking_began: float | None = None  # when the first reasoning arrived
    thinking_ended: float | None = None  # when the reply's text or a tool call first arrived after it
    chars: int = 0  # characters of text and reasoning so far (kept as they come: a long reply has many parts)
    web: WebSearchRecord | None = None  # the reply's web searches, when it made any

    def thought(self, text: str) -> None:
        """Records a piece of reasoning (and when reasoning began)."""
        if self.thinking_began is None:
            self.thinking_began = self.clock()
        self.thinking_parts.append(text)
        self.chars += len(text)

    def wrote(self, text: str) -> None:
        """Records a piece of the reply's text."""
        self.answering()
        self.text_parts.append(text)
        self.chars += len(text)

    def answering(self) -> None:
        """Marks the end of the reasoning phase when the reply or a tool call begins."""
        if self.thinking_began is not None and self.thinking_ended is None:
            self.thinking_ended = self.clock()

    @property
    def thinking_ms(self) -> int | None:
        """How long the model reasoned before answering (up to now when it has not answered yet)."""
        if self.thinking_began is None:
            return None
        end = self.thinking_ended if self.thinking_ended is not None else self.clock()
        return max(0, round((end - self.thinking_began) * 1000))

    def reasoning(self, call_id: str | None = None) -> tuple[ReasoningBlock, ...]:
        """The reply's own reasoning blocks (call_id None), or those of one tool call part."""
        return tuple(done.block for done in self.blocks if done.call_id == call_id)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def thinking(self) -> str | None:
        return "".join(self.thinking_parts) or None

    def has_output(self) -> bool:
        """True once any text, reasoning or tool call has arrived."""
        return bool(self.text_parts or self.thinking_parts or self.calls)


async def stream_round(
    stream: AsyncIterator[StreamEvent], state: RoundState, deadlines: Deadlines | None = None
) -> AsyncGenerator[TextDelta | ThinkingDelta | Waiting, None]:
    """Yields text and reasoning deltas as they come; everything is also recorded in `state`. With `deadlines`,
    also Waiting events while the provider is silent, and ProviderTimeout when a deadline passes (what arrived
    before stays in `state`)."""
    events: AsyncIterator[StreamEvent | Waiting] = within_deadlines(stream, deadlines) if deadlines else stream
    try:
        async for event in events:
            if isinstance(event, Waiting):
                yield event
            elif isinstance(event, TextDelta):
                if event.text:
                    state.wrote(event.text)
                    yield event
            elif isinstance(event, ThinkingDelta):
                if event.text:
                    state.thought(event.text)
                    yield event
            elif isinstance(event, ToolCallRequested):
                state.answering()
                state.calls.append(event)
            elif isinstance(event, ReasoningDone):
                state.blocks.append(event)
            elif isinstance(event, UsageReported):
                state.usage = merge_usage(state.usage, event.usage)
            elif isinstance(event, WebSearched):
                state.web = event.record
            elif isinstance(event, StreamDone):
                state.stop_reason = event.stop_reason
    finally:
        for opened in (events, stream):
            close = getattr(opened, "aclose", None)
            if close is not None:
                await close()
    if state.stop_reason is None:
        state.stop_reason = "tool_use" if state.calls else "end_turn"


def merge_usage(seen: Usage, reported: Usage) -> Usage:
    """Usage reported more than once in a stream (e.g. input at the start, output at the end): keep the largest."""
    return Usage(
        input_tokens=max(seen.input_tokens, reported.input_tokens),
        output_tokens=max(seen.output_tokens, reported.output_tokens),
        cache_read_tokens=max(seen.cache_read_tokens, reported.cache_read_tokens),
        cache_write_tokens=max(seen.cache_write_tokens, reported.cache_write_tokens),
        reasoning_tokens=max(seen.reasoning_tokens, reported.reasoning_tokens),
        web_search_requests=max(seen.web_search_requests, reported.web_search_requests),
    )


def add_usage(a: Usage, b: Usage) -> Usage:
    """The sum of two usages."""
    return Usage(
        a.input_tokens + b.input_tokens,
        a.output_tokens + b.output_tokens,
        a.cache_read_tokens + b.cache_read_tokens,
        a.cache_write_tokens + b.cache_write_tokens,
        a.reasoning_tokens + b.reasoning_tokens,
        a.web_search_requests + b.web_search_requests,
    )
