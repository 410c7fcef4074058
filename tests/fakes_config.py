"""In-memory fakes of the configuration ports: memories, agents, providers, settings and API keys."""

from __future__ import annotations

from collections.abc import Sequence

from domain.errors import InvalidInput, KeychainUnavailable, NotFound
from domain.models import Agent, AgentId, Memory, MemoryId, Provider, ProviderId
from domain.ports import KeySource
from domain.settings import ContextSettings


class FakeMemoryRepository:
    """Memories in a dict; search is a case-insensitive substring match."""

    def __init__(self) -> None:
        self.memories: dict[MemoryId, Memory] = {}

    def add(self, memory: Memory) -> Memory:
        self.memories[memory.id] = memory
        return memory

    def get(self, memory_id: MemoryId) -> Memory | None:
        return self.memories.get(memory_id)

    def list(self, agent_id: AgentId | None = None) -> Sequence[Memory]:
        found = [m for m in self.memories.values() if agent_id is None or m.agent_id in (agent_id, None)]
        return sorted(found, key=lambda m: m.created_at, reverse=True)

    def search(self, query: str, agent_id: AgentId | None = None, limit: int = 10) -> Sequence[Memory]:
        words = query.lower().split()
        return [m for m in self.list(agent_id) if any(w in m.content.lower() for w in words)][:limit]

    def update(self, memory: Memory) -> Memory:
        if memory.id not in self.memories:
            raise NotFound("memory", memory.id)
        self.memories[memory.id] = memory
        return memory

    def delete(self, memory_id: MemoryId) -> None:
        if memory_id not in self.memories:
            raise NotFound("memory", memory_id)
        del self.memories[memory_id]


class FakeAgentRepository:
    """Agents in a dict; the first one added (or a built-in "default") is the default."""

    def __init__(self, agents: Sequence[Agent] = ()) -> None:
        self.agents: dict[AgentId, Agent] = {a.id: a for a in agents}

    def list(self) -> Sequence[Agent]:
        return list(self.agents.values())

    def get(self, agent_id: AgentId) -> Agent | None:
        return self.agents.get(agent_id)

    def find(self, id_or_name: str) -> Agent | None:
        return self.agents.get(id_or_name) or next(
            (a for a in self.agents.values() if a.name.lower() == id_or_name.lower()), None
        )

    def default(self) -> Agent:
        if not self.agents:
            self.agents["default"] = Agent(id="default", name="Default")
        return next(iter(self.agents.values()))

    def add(self, agent: Agent) -> Agent:
        self.agents[agent.id] = agent
        return agent

    def update(self, agent: Agent) -> Agent:
        if agent.id not in self.agents:
            raise NotFound("agent", agent.id)
        self.agents[agent.id] = agent
        return agent

    def delete(self, agent_id: AgentId) -> None:
        if agent_id not in self.agents:
            raise NotFound("agent", agent_id)
        del self.agents[agent_id]


class FakeProviderRepository:
    """Providers in a dict, in insertion order."""

    def __init__(self, providers: Sequence[Provider] = ()) -> None:
        self.providers: dict[ProviderId, Provider] = {p.id: p for p in providers}

    def list(self) -> Sequence[Provider]:
        return list(self.providers.values())

    def get(self, provider_id: ProviderId) -> Provider | None:
        return self.providers.get(provider_id)

    def find(self, id_or_name: str) -> Provider | None:
        return self.providers.get(id_or_name) or next(
            (p for p in self.providers.values() if p.name.lower() == id_or_name.lower()), None
        )

    def add(self, provider: Provider) -> Provider:
        if provider.id in self.providers:
            raise InvalidInput(f"Provider {provider.id!r} already exists.")
        self.providers[provider.id] = provider
        return provider

    def update(self, provider: Provider) -> Provider:
        if provider.id not in self.providers:
            raise NotFound("provider", provider.id)
        self.providers[provider.id] = provider
        return provider


class FakeSettingsRepository:
    """Holds one ContextSettings."""

    def __init__(self, settings: ContextSettings | None = None) -> None:
        self.settings = settings or ContextSettings()

    def context_settings(self) -> ContextSettings:
        return self.settings

    def save_context_settings(self, settings: ContextSettings) -> None:
        self.settings = settings


class FakeApiKeyStorage:
    """Keys in a dict (the "keychain") with an optional environment dict behind it."""

    def __init__(self, environment: dict[ProviderId, str] | None = None, *, keychain_broken: str | None = None) -> None:
        self.keys: dict[ProviderId, str] = {}
        self.environment = dict(environment or {})
        self.keychain_broken = keychain_broken

    def get(self, provider_id: ProviderId) -> str | None:
        return self.keys.get(provider_id) or self.environment.get(provider_id)

    def source(self, provider_id: ProviderId) -> KeySource | None:
        if provider_id in self.keys:
            return "keychain"
        if provider_id in self.environment:
            return "environment"
        return None

    def set(self, provider_id: ProviderId, key: str) -> None:
        if self.keychain_broken is not None:
            raise KeychainUnavailable(self.keychain_broken)
        self.keys[provider_id] = key

    def delete(self, provider_id: ProviderId) -> None:
        self.keys.pop(provider_id, None)

    def keychain_problem(self) -> str | None:
        return self.keychain_broken
