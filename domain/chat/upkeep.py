"""After a turn's answer: the context status, the search index's batch when due, the memory flush when due, then
auto-compaction when due."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from domain.chat.compaction import Compactor, MemoryFlusher
from domain.chat.request import RequestPlanner, input_capacity
from domain.chat.round_sender import RoundAttempt, max_tokens_signal
from domain.context.flush import FLUSH_MAX_OUTPUT_TOKENS, FLUSH_PROMPT, should_flush
from domain.context.session_context import SessionContext
from domain.events import ChatEvent, CompactStarted, ContextStatusChanged, MemoryFlushed
from domain.ports import SearchBacklog

FLUSH_TOOL_RESERVE = 256


class ContextUpkeep:
    """Keeps a session's context healthy after each answer; compaction events are announced only when it runs."""

    def __init__(
        self, planner: RequestPlanner, auto_compact: Compactor, memory_flush: MemoryFlusher,
        search: SearchBacklog | None = None,
    ) -> None:
        self.planner = planner
        self.auto_compact = auto_compact
        self._flush = memory_flush
        self._search = search

    async def after_turn(
        self, ctx: SessionContext, attempt: RoundAttempt, reload: Callable[[], SessionContext]
    ) -> AsyncIterator[ChatEvent]:
        """Reports the status of the next request, flushes memories shortly before the threshold (then `reload`s:
        the memory section changed), and compacts past the threshold or after a reply cut by a full window."""
        status = self.planner.status(ctx)
        yield ContextStatusChanged(status)
        if self._search is not None:
            self._search.catch_up()  # the messages stored since the last batch, once a batch of them waits
        if should_flush(status.used, input_capacity(ctx.model), ctx.settings, ctx.session):
            reserve = FLUSH_MAX_OUTPUT_TOKENS + self.planner.estimator.estimate_text(FLUSH_PROMPT) + FLUSH_TOOL_RESERVE
            saved = await self._flush(ctx, self.planner.preview(ctx, reserve, attachments=False))  # never resent
            yield MemoryFlushed(saved)
            ctx = reload()
            status = self.planner.status(ctx)
        forced = max_tokens_signal(attempt, ctx.settings)
        if not forced and not self.auto_compact.due(ctx, status.used):
            return
        trigger = "overflow" if forced else "auto"
        yield CompactStarted(trigger)
        result = await self.auto_compact(ctx, force=forced, trigger=trigger)
        yield result.as_event()
        if result.session is not None:
            yield ContextStatusChanged(self.planner.status(ctx.with_session(result.session)))
