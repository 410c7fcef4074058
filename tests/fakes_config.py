"""In-memory fakes of the configuration ports (memories, agents, providers, settings, API keys), held to the
same contract as the SQLite repositories by tests/contracts/."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from domain.errors import InvalidInput, KeychainUnavailable, NotFound
from domain.models import Agent, AgentId, Memory, MemoryId, Provider, ProviderId, ProviderType
from domain.ports import KeySource
from domain.settings import ContextSettings, ToolSettings

if TYPE_CHECKING:
    from tests.fakes import FakeSessionRepository

DEFAULT_AGENT_ID = "general-assistant"  # the built-in agent the SQL store seeds (data/db/agents.py)
BUILT_IN_ORDER = {"anthropic": 0, "openai": 1, "gemini": 2}  # the SQL store lists these first, in this order
ENV_VARS = {"anthropic": ("ANTHROPIC_API_KEY",), "openai": ("OPENAI_API_KEY",),  # as data/keys.py
            "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY")}
_TOKEN = re.compile(r"[^\W_]+")


def _tokens(text: str) -> list[str]:
    """Words as SQLite's unicode61 tokenizer (remove_diacritics 2) sees them: letters and digits, case-folded."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))
    return _TOKEN.findall(plain)


def full_text_match(query: str, texts: Iterable[str | None]) -> bool | None:
    """Like the store's FTS5 query: every word of `query` must match (as a prefix; a word with punctuation
    as a phrase) in one of the texts of a row. None when the query has no searchable word."""
    terms = [_tokens(term) for term in query.split() if re.search(r"\w", term)][:32]
    terms = [t for t in terms if t]
    if not terms:
        return None
    rows = [_tokens(text or "") for text in texts]

    def phrase_in(words: list[str], phrase: list[str]) -> bool:
        *whole, prefix = phrase
        for i in range(len(words) - len(whole)):
            if words[i:i + len(whole)] == whole and words[i + len(whole)].startswith(prefix):
                return True
        return False

    return all(any(phrase_in(words, term) for words in rows) for term in terms)


class FakeMemoryRepository:
    """Memories in a dict; search matches every query word as a prefix, like the store's FTS5 index.

    Linked to `agents`, a memory of an unknown agent is NotFound and a deleted agent's memories go with it;
    linked to `sessions`, a source session that does not exist (or was purged) reads as None."""

    def __init__(
        self, *, agents: FakeAgentRepository | None = None, sessions: FakeSessionRepository | None = None
    ) -> None:
        self.memories: dict[MemoryId, Memory] = {}
        self.agents = agents
        self.sessions = sessions

    def add(self, memory: Memory) -> Memory:
        if not memory.content.strip():
            raise InvalidInput("A memory cannot be empty.")
        self._forget_orphans()
        if memory.id in self.memories:
            raise InvalidInput(f"A memory with id {memory.id!r} already exists.")
        self._require_agent(memory.agent_id)
        self.memories[memory.id] = stored = self._view(memory)  # an unknown source session is stored as None
        return stored

    def get(self, memory_id: MemoryId) -> Memory | None:
        self._forget_orphans()
        found = self.memories.get(memory_id)
        return self._view(found) if found else None

    def list(self, agent_id: AgentId | None = None) -> Sequence[Memory]:
        self._forget_orphans()
        found = [m for m in self.memories.values() if agent_id is None or m.agent_id in (agent_id, None)]
        found.sort(key=lambda m: m.id)
        found.sort(key=lambda m: m.created_at, reverse=True)
        return [self._view(m) for m in found]

    def search(self, query: str, agent_id: AgentId | None = None, limit: int = 10) -> Sequence[Memory]:
        if limit <= 0:
            return []
        return [m for m in self.list(agent_id) if full_text_match(query, [m.content])][:limit]

    def update(self, memory: Memory) -> Memory:
        if not memory.content.strip():
            raise InvalidInput("A memory cannot be empty.")
        self._forget_orphans()
        old = self.memories.get(memory.id)
        if old is None:
            raise NotFound("memory", memory.id)
        self._require_agent(memory.agent_id)
        self.memories[memory.id] = replace(old, content=memory.content, agent_id=memory.agent_id)
        return self._view(self.memories[memory.id])

    def delete(self, memory_id: MemoryId) -> None:
        self._forget_orphans()
        if memory_id not in self.memories:
            raise NotFound("memory", memory_id)
        del self.memories[memory_id]

    def _require_agent(self, agent_id: AgentId | None) -> None:
        if agent_id is not None and self.agents is not None and self.agents.get(agent_id) is None:
            raise NotFound("agent", agent_id)

    def _forget_orphans(self) -> None:
        """A deleted agent's memories are deleted with it (the store's ON DELETE CASCADE)."""
        if self.agents is not None:
            known = self.agents.agents
            self.memories = {k: m for k, m in self.memories.items() if m.agent_id is None or m.agent_id in known}

    def _view(self, memory: Memory) -> Memory:
        source = memory.source_session_id
        if source is not None and self.sessions is not None and self.sessions.get(source) is None:
            return replace(memory, source_session_id=None)
        return memory


class FakeAgentRepository:
    """Agents in a dict, listed built-in first then by name; "general-assistant" (or else the first agent added)
    is the default, and the built-in one cannot be deleted."""

    def __init__(self, agents: Sequence[Agent] = ()) -> None:
        self.agents: dict[AgentId, Agent] = {a.id: a for a in agents}

    def list(self) -> Sequence[Agent]:
        return sorted(self.agents.values(), key=lambda a: (a.id != DEFAULT_AGENT_ID, a.name.lower()))

    def get(self, agent_id: AgentId) -> Agent | None:
        return self.agents.get(agent_id)

    def find(self, id_or_name: str) -> Agent | None:
        name = id_or_name.strip().lower()
        return self.agents.get(id_or_name) or next((a for a in self.agents.values() if a.name.lower() == name), None)

    def default(self) -> Agent:
        if not self.agents:
            raise NotFound("agent", DEFAULT_AGENT_ID)
        return self.agents.get(DEFAULT_AGENT_ID) or next(iter(self.agents.values()))

    def add(self, agent: Agent) -> Agent:
        _validate_agent(agent)
        if agent.id in self.agents:
            raise InvalidInput(f"An agent with id {agent.id!r} already exists.")
        self._check_name_free(agent)
        self.agents[agent.id] = agent
        return agent

    def update(self, agent: Agent) -> Agent:
        _validate_agent(agent)
        if agent.id not in self.agents:
            raise NotFound("agent", agent.id)
        self._check_name_free(agent)
        self.agents[agent.id] = agent
        return agent

    def delete(self, agent_id: AgentId) -> None:
        agent = self.agents.get(agent_id)
        if agent is None:
            raise NotFound("agent", agent_id)
        if agent_id == DEFAULT_AGENT_ID:
            raise InvalidInput(f"The built-in agent {agent.name!r} cannot be deleted.")
        del self.agents[agent_id]

    def _check_name_free(self, agent: Agent) -> None:
        name = agent.name.strip().lower()
        clash = next((a for a in self.agents.values() if a.name.strip().lower() == name and a.id != agent.id), None)
        if clash is not None:
            raise InvalidInput(f"Another agent is already named {clash.name!r}.")


def _validate_agent(agent: Agent) -> None:
    if not agent.id.strip() or not agent.name.strip():
        raise InvalidInput("An agent needs a non-empty id and name.")
    ContextSettings().with_overrides(agent.context_overrides)  # raises InvalidInput on an unknown key


class FakeProviderRepository:
    """Providers in a dict, listed built-in first (anthropic, openai, gemini) then by name."""

    def __init__(self, providers: Sequence[Provider] = ()) -> None:
        self.providers: dict[ProviderId, Provider] = {p.id: p for p in providers}

    def list(self) -> Sequence[Provider]:
        return sorted(self.providers.values(), key=lambda p: (BUILT_IN_ORDER.get(p.id, 9), p.name.lower()))

    def get(self, provider_id: ProviderId) -> Provider | None:
        return self.providers.get(provider_id)

    def find(self, id_or_name: str) -> Provider | None:
        name = id_or_name.strip().lower()
        return self.providers.get(id_or_name) or next(
            (p for p in self.providers.values() if p.name.lower() == name), None
        )

    def add(self, provider: Provider) -> Provider:
        _validate_provider(provider)
        if provider.id in self.providers:
            raise InvalidInput(f"A provider with id {provider.id!r} already exists.")
        self.providers[provider.id] = replace(provider, name=provider.name.strip())
        return provider

    def update(self, provider: Provider) -> Provider:
        _validate_provider(provider)
        if provider.id not in self.providers:
            raise NotFound("provider", provider.id)
        self.providers[provider.id] = replace(provider, name=provider.name.strip())
        return self.providers[provider.id]

    def delete(self, provider_id: ProviderId) -> None:
        if self.providers.pop(provider_id, None) is None:
            raise NotFound("provider", provider_id)


def _validate_provider(provider: Provider) -> None:
    if not provider.id.strip() or not provider.name.strip():
        raise InvalidInput("A provider needs a non-empty id and name.")
    if provider.base_url is not None:
        parsed = urlparse(provider.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InvalidInput(f"The base URL {provider.base_url!r} is not an http(s) URL.")
    elif provider.type is ProviderType.OPENAI_COMPATIBLE:
        raise InvalidInput("An OpenAI-compatible provider needs a base URL, e.g. http://localhost:11434/v1.")


class FakeSettingsRepository:
    """Holds one ContextSettings and one ToolSettings."""

    def __init__(self, settings: ContextSettings | None = None, tools: ToolSettings | None = None) -> None:
        self.settings = settings or ContextSettings()
        self.tools = tools or ToolSettings()

    def context_settings(self) -> ContextSettings:
        return self.settings

    def save_context_settings(self, settings: ContextSettings) -> None:
        self.settings = settings

    def tool_settings(self) -> ToolSettings:
        return self.tools

    def save_tool_settings(self, settings: ToolSettings) -> None:
        self.tools = ToolSettings(allowed_hosts=tuple(settings.allowed_hosts))  # stored as a list, read as a tuple


class FakeCalibrationStore:
    """Calibration ratios in a dict; a ratio that is not a positive finite number is refused, like the store."""

    def __init__(self) -> None:
        self.ratios: dict[str, float] = {}

    def get(self, key: str) -> float | None:
        return self.ratios.get(key)

    def put(self, key: str, ratio: float) -> None:
        if not math.isfinite(ratio) or ratio <= 0:
            raise InvalidInput(f"A calibration ratio must be a positive number, not {ratio}.")
        self.ratios[key] = ratio


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

    def env_var_names(self, provider_id: ProviderId) -> tuple[str, ...]:
        return ENV_VARS.get(provider_id, ())
