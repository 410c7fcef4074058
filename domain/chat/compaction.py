"""What the turn needs of compaction and of the memory flush (AutoCompactUseCase and MemoryFlushUseCase satisfy
these), and the result of one compaction attempt, so the chat machinery never imports a use case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from domain.context.builder import BuiltRequest
from domain.context.flush import FLUSH_MAX_OUTPUT_TOKENS
from domain.context.session_context import SessionContext
from domain.events import CompactCompleted
from domain.models import Session


@dataclass(frozen=True)
class CompactResult:
    """What a compaction attempt did; `reason` is a short tag when nothing was compacted or it fell back.

    Reasons: "" (compacted), "loop_guard" (compacted, but freed too little: no automatic retry until new messages),
    "unknown_window", "below_threshold", "nothing_to_compact", "no_gain" (the summary was not smaller), "stale"
    (the session's summary changed meanwhile), and with fallback=True "summarizer_blank",
    "summarizer_failed: <error>" or "summarizer_overflow"."""

    did_compact: bool
    fallback: bool = False
    tokens_before: int = 0
    tokens_after: int = 0
    summary_tokens: int = 0
    reason: str = ""
    session: Session | None = None  # the session as stored after a compaction

    def as_event(self) -> CompactCompleted:
        """The CompactCompleted event the UI and the CLI receive."""
        return CompactCompleted(
            did_compact=self.did_compact, fallback=self.fallback, tokens_before=self.tokens_before,
            tokens_after=self.tokens_after, summary_tokens=self.summary_tokens, reason=self.reason,
        )


class Compactor(Protocol):
    """Summarizes the older part of a session once it nears the model's window."""

    def due(self, ctx: SessionContext, used: int) -> bool:
        """Whether the context, `used` tokens large, passes the compaction threshold."""
        ...

    async def __call__(
        self, ctx: SessionContext, *, force: bool = False, instructions: str | None = None, trigger: str = "auto"
    ) -> CompactResult: ...


class MemoryFlusher(Protocol):
    """The silent turn before compaction that may save durable facts; returns how many it saved."""

    async def __call__(
        self, ctx: SessionContext, request: BuiltRequest, *, max_output_tokens: int = FLUSH_MAX_OUTPUT_TOKENS
    ) -> int: ...
