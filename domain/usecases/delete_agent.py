"""Delete agent: remove a persona (never the default one)."""

from __future__ import annotations

from domain.errors import InvalidInput, NotFound
from domain.models import Agent, AgentId
from domain.ports import AgentRepository


class DeleteAgentUseCase:
    """Deletes an agent; the default agent stays."""

    def __init__(self, agents: AgentRepository) -> None:
        self._agents = agents

    def __call__(self, agent_id: AgentId) -> Agent:
        """The deleted agent; NotFound for an unknown id, InvalidInput for the default agent."""
        agent = self._agents.get(agent_id)
        if agent is None:
            raise NotFound("agent", agent_id)
        if agent.id == self._agents.default().id:
            raise InvalidInput("The default agent cannot be deleted.")
        self._agents.delete(agent.id)
        return agent
