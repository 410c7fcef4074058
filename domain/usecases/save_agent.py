"""Save agent: create a persona or update one (prompt, preferred model, tools, context overrides)."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import InvalidInput
from domain.models import Agent
from domain.ports import AgentRepository
from domain.settings import ContextSettings

MAX_NAME_CHARS = 80


class SaveAgentUseCase:
    """Validates and stores an agent; a new id adds it, a known id updates it."""

    def __init__(self, agents: AgentRepository, known_tools: tuple[str, ...] = ()) -> None:
        self._agents = agents
        self._known_tools = known_tools

    def __call__(self, agent: Agent) -> Agent:
        """The stored agent; InvalidInput for a blank or taken name, an unknown tool or context setting."""
        name = " ".join(agent.name.split())
        if not name or len(name) > MAX_NAME_CHARS:
            raise InvalidInput(f"An agent needs a name of 1 to {MAX_NAME_CHARS} characters.")
        same_name = self._agents.find(name)
        if same_name is not None and same_name.id != agent.id:
            raise InvalidInput(f"An agent named {name!r} already exists.")
        unknown = [t for t in agent.enabled_tools if self._known_tools and t not in self._known_tools]
        if unknown:
            raise InvalidInput(f"Unknown tool(s): {', '.join(unknown)}. Known: {', '.join(self._known_tools)}.")
        ContextSettings().with_overrides(agent.context_overrides).validated()  # unknown key or bad value
        clean = replace(
            agent, name=name, enabled_tools=tuple(agent.enabled_tools), context_overrides=dict(agent.context_overrides)
        )
        if self._agents.get(agent.id) is None:
            return self._agents.add(clean)
        return self._agents.update(clean)
