"""The save_memory tool: stores a durable fact for the current agent, recording the session it came from."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from data.tools.base import ToolArgumentError, require_str
from domain.models import Memory, ToolDefinition
from domain.ports import Clock, MemoryRepository
from domain.provider_ports import ToolContext, ToolOutcome

MAX_MEMORY_CHARS = 4_000

DEFINITION = ToolDefinition(
    name="save_memory",
    description=(
        "Save a durable fact to long-term memory (user preferences, decisions, names, numbers) so that it is "
        "available in later conversations. One fact per call, in a short self-contained sentence."
    ),
    parameters={
        "type": "object",
        "properties": {"content": {"type": "string", "description": "The fact to remember."}},
        "required": ["content"],
    },
)


class SaveMemoryTool:
    """Runs save_memory against the memory repository."""

    definition = DEFINITION

    def __init__(
        self, memories: MemoryRepository, clock: Clock, new_id: Callable[[], str] = lambda: uuid.uuid4().hex
    ) -> None:
        self._memories = memories
        self._clock = clock
        self._new_id = new_id

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        content = require_str(arguments, "content").strip()
        if len(content) > MAX_MEMORY_CHARS:
            raise ToolArgumentError(
                f"A memory may hold at most {MAX_MEMORY_CHARS} characters (got {len(content)}); save a shorter fact."
            )
        memory = self._memories.add(
            Memory(
                id=self._new_id(),
                content=content,
                created_at=self._clock.now(),
                agent_id=context.agent_id,
                source_session_id=context.session_id,
            )
        )
        return ToolOutcome(f"Saved to long-term memory (id {memory.id}).")
