"""The pre-compaction memory flush: one silent agent turn that may save durable facts with save_memory."""

from __future__ import annotations

import logging
from dataclasses import replace

from domain.chat.records import new_uuid
from domain.context.builder import BuiltRequest
from domain.context.flush import FLUSH_MAX_OUTPUT_TOKENS, FLUSH_PROMPT
from domain.context.session_context import SessionContext
from domain.errors import ProviderError
from domain.events import ToolCallRequested
from domain.models import Message, MessageType, SessionId
from domain.ports import Clock, SessionRepository, UnitOfWork
from domain.provider_ports import ToolContext, ToolExecutor
from domain.services.adapters import ProviderAdapters

log = logging.getLogger(__name__)

SAVE_MEMORY = "save_memory"


class MemoryFlushUseCase:
    """Runs the flush turn at most once per compaction cycle; nothing of it is stored in the session or shown."""

    def __init__(
        self,
        store: UnitOfWork,
        sessions: SessionRepository,
        adapters: ProviderAdapters,
        tools: ToolExecutor,
        clock: Clock,
    ) -> None:
        self._store = store
        self._sessions = sessions
        self._adapters = adapters
        self._tools = tools
        self._clock = clock

    async def __call__(
        self, ctx: SessionContext, request: BuiltRequest, *, max_output_tokens: int = FLUSH_MAX_OUTPUT_TOKENS
    ) -> int:
        """Sends `request` plus the flush instruction to the context's model, runs the model's save_memory calls
        (and no other tool) and returns how many memories were saved (0 when already flushed this cycle or on
        failure).

        The chat's own tool definitions (`ctx.tools`) are offered: the same list as the chat keeps the request's
        prefix identical, so the flush reads the provider's prompt cache instead of paying for the whole context
        again. When they lack save_memory, only save_memory is offered."""
        session_id, model = ctx.session.id, ctx.model
        if model is None or ctx.provider is None or not self._mark_flushed(session_id):
            return 0
        tools = ctx.tools
        offered = list(tools) if any(t.name == SAVE_MEMORY for t in tools) else []
        offered = offered or list(self._tools.definitions([SAVE_MEMORY]))
        if not offered:
            return 0
        instruction = Message(
            id=f"flush-{new_uuid()}", session_id=session_id, type=MessageType.USER, content=FLUSH_PROMPT,
            created_at=self._clock.now(),
        )
        adapter = self._adapters.for_provider(ctx.provider)
        calls: list[ToolCallRequested] = []
        try:
            stream = adapter.send_message_stream(
                model_id=model.id,
                system_prompt=request.system_prompt,
                messages=[*request.messages, instruction],
                tools=offered,
                max_output_tokens=max_output_tokens,
                cache_key=session_id,
            )
            async for event in stream:
                if isinstance(event, ToolCallRequested) and event.name == SAVE_MEMORY:
                    calls.append(event)
        except ProviderError as err:
            log.warning("memory flush for session %s failed: %s", session_id, err.message)
        return await self._save(calls, ToolContext(session_id, ctx.agent.id))

    async def _save(self, calls: list[ToolCallRequested], context: ToolContext) -> int:
        saved = 0
        for call in calls:
            try:
                outcome = await self._tools.execute(SAVE_MEMORY, call.input, context)
            except Exception:  # one bad call must not lose the others
                log.exception("save_memory raised during the memory flush")
                continue
            if not outcome.is_error:
                saved += 1
        return saved

    def _mark_flushed(self, session_id: SessionId) -> bool:
        """Marks the cycle flushed before the call (a failing flush is not retried within the cycle); False when
        it already was."""
        with self._store.atomic():
            current = self._sessions.get(session_id)
            if current is None or current.flushed_in_compaction_cycle:
                return False
            self._sessions.update(replace(current, flushed_in_compaction_cycle=True))
            return True
