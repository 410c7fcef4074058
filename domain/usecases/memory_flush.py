"""The pre-compaction memory flush: one silent agent turn that may save durable facts with save_memory."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from domain.chat.records import new_uuid
from domain.context.builder import BuiltRequest
from domain.context.flush import FLUSH_PROMPT
from domain.errors import NotFound, ProviderError
from domain.events import ToolCallRequested
from domain.models import AgentId, Message, MessageType, ModelId, ProviderId, SessionId, ToolDefinition
from domain.ports import (
    ApiKeyStorage,
    Clock,
    ModelApiAdapterFactory,
    ProviderRepository,
    SessionRepository,
    ToolContext,
    ToolExecutor,
)

log = logging.getLogger(__name__)

SAVE_MEMORY = "save_memory"
FLUSH_MAX_OUTPUT_TOKENS = 1_024


class MemoryFlushUseCase:
    """Runs the flush turn at most once per compaction cycle; nothing of it is stored in the session or shown."""

    def __init__(
        self,
        sessions: SessionRepository,
        providers: ProviderRepository,
        keys: ApiKeyStorage,
        adapters: ModelApiAdapterFactory,
        tools: ToolExecutor,
        clock: Clock,
    ) -> None:
        self._sessions = sessions
        self._providers = providers
        self._keys = keys
        self._adapters = adapters
        self._tools = tools
        self._clock = clock

    async def __call__(
        self,
        session_id: SessionId,
        *,
        provider_id: ProviderId,
        model_id: ModelId,
        agent_id: AgentId | None,
        request: BuiltRequest,
        max_output_tokens: int = FLUSH_MAX_OUTPUT_TOKENS,
        tools: Sequence[ToolDefinition] = (),
    ) -> int:
        """Sends `request` plus the flush instruction, runs the model's save_memory calls (and no other tool) and
        returns how many memories were saved (0 when already flushed this cycle or on failure).

        `tools` are the chat's own tool definitions: offering the same list as the chat keeps the request's prefix
        identical, so the flush reads the provider's prompt cache instead of paying for the whole context again.
        Without them (or when they lack save_memory), only save_memory is offered."""
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        if session.flushed_in_compaction_cycle:
            return 0
        provider = self._providers.get(provider_id)
        if provider is None:
            raise NotFound("provider", provider_id)
        self._mark_flushed(session_id)  # before the call: a failing flush is not retried within the cycle
        offered = list(tools) if any(t.name == SAVE_MEMORY for t in tools) else []
        offered = offered or list(self._tools.definitions([SAVE_MEMORY]))
        if not offered:
            return 0
        instruction = Message(
            id=f"flush-{new_uuid()}", session_id=session_id, type=MessageType.USER, content=FLUSH_PROMPT,
            created_at=self._clock.now(),
        )
        adapter = self._adapters.create(provider, self._keys.get(provider.id))
        calls: list[ToolCallRequested] = []
        try:
            stream = adapter.send_message_stream(
                model_id=model_id,
                system_prompt=request.system_prompt,
                messages=[*request.messages, instruction],
                tools=offered,
                max_output_tokens=max_output_tokens,
            )
            async for event in stream:
                if isinstance(event, ToolCallRequested) and event.name == SAVE_MEMORY:
                    calls.append(event)
        except ProviderError as err:
            log.warning("memory flush for session %s failed: %s", session_id, err.message)
        return await self._save(calls, ToolContext(session_id, agent_id))

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

    def _mark_flushed(self, session_id: SessionId) -> None:
        current = self._sessions.get(session_id)
        if current is not None and not current.flushed_in_compaction_cycle:
            self._sessions.update(replace(current, flushed_in_compaction_cycle=True))
