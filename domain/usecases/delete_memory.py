"""Delete memory: forget one long-term memory."""

from __future__ import annotations

from domain.errors import NotFound
from domain.models import Memory, MemoryId
from domain.ports import MemoryRepository


class DeleteMemoryUseCase:
    """Deletes a memory and returns it (so the UI can offer undo by saving it again)."""

    def __init__(self, memories: MemoryRepository) -> None:
        self._memories = memories

    def __call__(self, memory_id: MemoryId) -> Memory:
        """The deleted memory; NotFound for an unknown id."""
        memory = self._memories.get(memory_id)
        if memory is None:
            raise NotFound("memory", memory_id)
        self._memories.delete(memory_id)
        return memory
