"""Save memory entry: the user adds a memory by hand or corrects the text of an existing one."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace

from domain.errors import InvalidInput, NotFound
from domain.models import AgentId, Memory, MemoryId
from domain.ports import Clock, MemoryRepository

MAX_MEMORY_CHARS = 4_000


class SaveMemoryEntryUseCase:
    """Adds a memory (memory_id None) or replaces the content of an existing one."""

    def __init__(
        self, memories: MemoryRepository, clock: Clock, new_id: Callable[[], str] = lambda: uuid.uuid4().hex
    ) -> None:
        self._memories = memories
        self._clock = clock
        self._new_id = new_id

    def __call__(self, content: str, *, agent_id: AgentId | None = None, memory_id: MemoryId | None = None) -> Memory:
        """The stored memory; InvalidInput for blank or overlong text, NotFound for an unknown id."""
        text = content.strip()
        if not text:
            raise InvalidInput("A memory cannot be empty.")
        if len(text) > MAX_MEMORY_CHARS:
            raise InvalidInput(f"A memory may have at most {MAX_MEMORY_CHARS} characters.")
        if memory_id is None:
            return self._memories.add(Memory(self._new_id(), text, self._clock.now(), agent_id=agent_id))
        existing = self._memories.get(memory_id)
        if existing is None:
            raise NotFound("memory", memory_id)
        return self._memories.update(replace(existing, content=text))
