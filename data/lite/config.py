"""The configuration a chat turn reads, over sqlite3: providers, agents, settings, memories and MCP servers (the
contracts of their data.db repositories; changes to them through the full store)."""

from __future__ import annotations

from collections.abc import Sequence

from data.db.built_in import BUILT_IN_ORDER, DEFAULT_AGENT_ID
from data.db.mappers import agent_to_domain, memory_to_domain, provider_to_domain
from data.db.mcp_server_json import server_to_domain
from data.db.settings_json import context_settings, stored_object, tool_settings
from data.lite.db import LiteDatabase
from data.lite.fallback import Delegating
from domain.errors import NotFound
from domain.mcp import McpServer
from domain.models import Agent, AgentId, Memory, MemoryId, Provider, ProviderId
from domain.settings import ContextSettings, ToolSettings

_PROVIDERS = "SELECT id, name, type, base_url, is_active, api FROM providers"
_AGENTS = ("SELECT id, name, system_prompt, preferred_provider_id, preferred_model_id, tool_names, context_overrides"
           " FROM agents")
_MEMORIES = "SELECT id, agent_id, content, created_at, source_session_id FROM memories"
_SERVERS = "SELECT name, transport, config, tools, permissions FROM mcp_servers"


class LiteProviderRepository(Delegating):
    """Providers: reads (changes through the full store)."""

    def list(self) -> Sequence[Provider]:
        providers = [provider_to_domain(r) for r in self._lite_db.records(_PROVIDERS)]
        return sorted(providers, key=lambda p: (BUILT_IN_ORDER.get(p.id, 9), p.name.lower()))

    def get(self, provider_id: ProviderId) -> Provider | None:
        row = self._lite_db.record(_PROVIDERS + " WHERE id = ?", (provider_id,))
        return provider_to_domain(row) if row else None

    def find(self, id_or_name: str) -> Provider | None:
        found = self.get(id_or_name)
        if found is not None:
            return found
        row = self._lite_db.record(_PROVIDERS + " WHERE lower(name) = ?", (id_or_name.strip().lower(),))
        return provider_to_domain(row) if row else None


class LiteAgentRepository(Delegating):
    """Agents: reads (changes through the full store)."""

    def list(self) -> Sequence[Agent]:
        rows = self._lite_db.records(_AGENTS + " ORDER BY is_built_in DESC, lower(name)")
        return [agent_to_domain(r) for r in rows]

    def get(self, agent_id: AgentId) -> Agent | None:
        row = self._lite_db.record(_AGENTS + " WHERE id = ?", (agent_id,))
        return agent_to_domain(row) if row else None

    def find(self, id_or_name: str) -> Agent | None:
        found = self.get(id_or_name)
        if found is not None:
            return found
        row = self._lite_db.record(_AGENTS + " WHERE lower(name) = ?", (id_or_name.strip().lower(),))
        return agent_to_domain(row) if row else None

    def default(self) -> Agent:
        row = (self._lite_db.record(_AGENTS + " WHERE id = ?", (DEFAULT_AGENT_ID,))
               or self._lite_db.record(_AGENTS + " ORDER BY is_built_in DESC, created_at LIMIT 1"))
        if row is None:
            raise NotFound("agent", DEFAULT_AGENT_ID)
        return agent_to_domain(row)


class LiteSettingsRepository(Delegating):
    """App-wide settings: reads (saved through the full store)."""

    def context_settings(self) -> ContextSettings:
        return context_settings(self._stored("context"))

    def tool_settings(self) -> ToolSettings:
        return tool_settings(self._stored("tools"))

    def _stored(self, key: str) -> dict[str, object]:
        return stored_object(self._lite_db.value("SELECT value FROM settings WHERE key = ?", (key,)))


class LiteMemoryRepository(Delegating):
    """Memories: reads (written, searched and deleted through the full store)."""

    def get(self, memory_id: MemoryId) -> Memory | None:
        row = self._lite_db.record(_MEMORIES + " WHERE id = ?", (memory_id,))
        return memory_to_domain(row) if row else None

    def list(self, agent_id: AgentId | None = None) -> Sequence[Memory]:
        if agent_id is None:
            rows = self._lite_db.records(_MEMORIES + " ORDER BY created_at DESC, id")
        else:
            rows = self._lite_db.records(_MEMORIES + " WHERE agent_id IS NULL OR agent_id = ? ORDER BY created_at"
                                         " DESC, id", (agent_id,))
        return [memory_to_domain(r) for r in rows]


class LiteMcpServerRepository(Delegating):
    """MCP servers: reads (saved and deleted through the full store)."""

    def list(self) -> Sequence[McpServer]:
        return [server_to_domain(r) for r in self._lite_db.records(_SERVERS + " ORDER BY name")]

    def get(self, name: str) -> McpServer | None:
        row = self._lite_db.record(_SERVERS + " WHERE name = ?", (name,))
        return server_to_domain(row) if row else None


def lite_db_of(repo: Delegating) -> LiteDatabase:
    """The lite database a repository reads (for the storage that built it)."""
    return repo._lite_db
