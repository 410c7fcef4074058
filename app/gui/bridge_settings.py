"""The settings dialog's backend over the Container's use cases."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace

from app.container import Container
from app.gui.bridge_chat import provider_infos
from data.tools.executor import TOOL_NAMES
from domain.errors import ProviderError
from domain.mcp import McpServer
from domain.models import Agent, AgentId, AiModel, Memory, MemoryId, ModelId, Provider, ProviderId
from domain.settings import ContextSettings, ToolSettings
from domain.usecases.mcp_servers import (
    AddMcpServerUseCase,
    RefreshMcpToolsUseCase,
    RemoveMcpServerUseCase,
    SetMcpRootsUseCase,
    SetMcpSamplingUseCase,
    SetMcpServerEnabledUseCase,
    SetMcpToolPermissionUseCase,
)
from domain.usecases.save_tool_settings import SaveToolSettingsUseCase
from ui.backend import ConnectionResult, ProviderInfo


class SettingsBridge:
    """Providers, keys, models, agents, memories, context and tool settings."""

    _c: Container

    async def keychain_problem(self) -> str | None:
        return self._c.keys.keychain_problem()

    async def list_providers(self) -> Sequence[ProviderInfo]:
        return provider_infos(self._c)

    async def add_compatible_provider(self, name: str, base_url: str) -> Provider:
        return self._c.add_provider(name, base_url)

    async def set_base_url(self, provider_id: ProviderId, base_url: str | None) -> Provider:
        return self._c.set_provider_base_url(provider_id, base_url)

    async def set_api(self, provider_id: ProviderId, api: str) -> Provider:
        return self._c.set_provider_api(provider_id, api)

    async def set_key(self, provider_id: ProviderId, key: str) -> None:
        self._c.set_api_key(provider_id, key)

    async def delete_key(self, provider_id: ProviderId) -> None:
        self._c.delete_api_key(provider_id)

    async def test_connection(self, provider_id: ProviderId) -> ConnectionResult:
        try:
            models = await self._c.refresh_models(provider_id)
        except ProviderError as error:
            return ConnectionResult(False, error.message)
        return ConnectionResult(True, f"Connected — {len(models)} models available.", len(models))

    async def refresh_models(self, provider_id: ProviderId) -> Sequence[AiModel]:
        return await self._c.refresh_models(provider_id)

    async def set_model_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None
    ) -> AiModel:
        return self._c.add_model(provider_id, model_id, window, max_output)

    async def list_agents(self) -> Sequence[Agent]:
        return self._c.list_agents()

    async def save_agent(self, agent: Agent) -> Agent:
        return self._c.save_agent(agent if agent.id else replace(agent, id=uuid.uuid4().hex))

    async def delete_agent(self, agent_id: AgentId) -> None:
        self._c.delete_agent(agent_id)

    async def tool_names(self) -> Sequence[str]:
        return TOOL_NAMES

    async def list_memories(self) -> Sequence[Memory]:
        return self._c.list_memories()

    async def update_memory(self, memory_id: MemoryId, content: str) -> Memory:
        return self._c.save_memory_entry(content, memory_id=memory_id)

    async def delete_memory(self, memory_id: MemoryId) -> None:
        self._c.delete_memory(memory_id)

    async def context_settings(self) -> ContextSettings:
        return self._c.save_context_settings.current()

    async def save_context_settings(self, settings: ContextSettings) -> ContextSettings:
        return self._c.save_context_settings(settings)

    async def tool_settings(self) -> ToolSettings:
        return SaveToolSettingsUseCase(self._c.settings).current()

    async def save_tool_settings(self, settings: ToolSettings) -> ToolSettings:
        return SaveToolSettingsUseCase(self._c.settings)(settings)

    async def list_mcp_servers(self) -> Sequence[McpServer]:
        return self._c.mcp_servers.list()

    async def add_mcp_server(
        self, name: str, command: Sequence[str], url: str | None, values: Mapping[str, str] | None = None
    ) -> McpServer:
        values = dict(values or {})
        return await AddMcpServerUseCase(self._c.mcp_servers, self._c.mcp_secrets, self._c.mcp)(
            name, command=command, url=url, env=values if not url else None, headers=values if url else None)

    async def refresh_mcp_tools(self, name: str) -> McpServer:
        return await RefreshMcpToolsUseCase(self._c.mcp_servers, self._c.mcp)(name)

    async def set_mcp_tool_permission(self, name: str, tool: str, rule: str) -> McpServer:
        return SetMcpToolPermissionUseCase(self._c.mcp_servers)(name, tool, rule)

    async def set_mcp_sampling(self, name: str, rule: str) -> McpServer:
        return SetMcpSamplingUseCase(self._c.mcp_servers)(name, rule)

    async def set_mcp_roots(self, name: str, add: Sequence[str] = (), remove: Sequence[str] = ()) -> McpServer:
        server = SetMcpRootsUseCase(self._c.mcp_servers)(name, add=add, remove=remove)
        await self._c.mcp.roots_changed(server)
        return server

    async def remove_mcp_server(self, name: str) -> None:
        RemoveMcpServerUseCase(self._c.mcp_servers, self._c.mcp_secrets)(name)

    async def set_agent_mcp_servers(self, agent_id: AgentId, off: Sequence[str]) -> Sequence[McpServer]:
        toggle = SetMcpServerEnabledUseCase(self._c.mcp_servers)
        for server in self._c.mcp_servers.list():
            if (server.name in off) != (agent_id in server.disabled_agents):
                toggle(server.name, server.name not in off, agent_id=agent_id)
        return self._c.mcp_servers.list()

    async def mcp_log_path(self, name: str) -> str:
        return self._c.mcp.log_path(name)
