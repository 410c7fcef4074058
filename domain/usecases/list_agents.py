"""List agents: the personas a conversation can use."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import Agent
from domain.ports import AgentRepository


class ListAgentsUseCase:
    """Lists agents."""

    def __init__(self, agents: AgentRepository) -> None:
        self._agents = agents

    def __call__(self) -> Sequence[Agent]:
        """Every agent."""
        return self._agents.list()
