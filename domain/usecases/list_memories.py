"""List memories: an agent's long-term memories (plus the global ones), or all of them."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import AgentId, Memory
from domain.ports import MemoryRepository


class ListMemoriesUseCase:
    """Lists memories newest first."""

    def __init__(self, memories: MemoryRepository) -> None:
        self._memories = memories

    def __call__(self, agent_id: AgentId | None = None) -> Sequence[Memory]:
        """The memories of the agent and the global ones (every memory when agent_id is None)."""
        return self._memories.list(agent_id)
