"""The settings part of the UI tests' fake backend: providers, keys, models, agents, memories, context and tool
settings, and MCP servers, kept in memory (the fake keychain included)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from domain.errors import InvalidInput, KeychainUnavailable, NotFound
from domain.mcp import McpServer, McpToolSpec, ToolPermission
from domain.models import (
    Agent,
    AiModel,
    Memory,
    ModelCapabilities,
    Provider,
    ProviderApi,
    ProviderType,
    ThinkingForm,
)
from domain.settings import ContextSettings, ToolSettings
from domain.usecases.mcp_servers import AddMcpServerUseCase
from domain.usecases.save_tool_settings import allowed_hosts_from
from ui.backend import ConnectionResult, ProviderInfo

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


class FakeSettings:
    """Implements SettingsBackend for FakeChatBackend; `calls` and `_id` come from it."""

    calls: list[tuple[object, ...]]

    def __init__(self, *, keys: dict[str, str] | None = None, keychain_problem: str | None = None) -> None:
        self.providers = {
            "anthropic": Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC),
            "openai": Provider("openai", "OpenAI", ProviderType.OPENAI),
            "gemini": Provider("gemini", "Google Gemini", ProviderType.GEMINI),
        }
        self.models = [
            AiModel("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "anthropic", True, context_window_size=200_000,
                    capabilities=ModelCapabilities(thinking=ThinkingForm.BUDGET, vision=True, pdf_input=True)),
            AiModel("gpt-4o", "GPT-4o", "openai", True, context_window_size=128_000,
                    capabilities=ModelCapabilities(vision=True)),
            AiModel("gpt-4o-mini", "GPT-4o mini", "openai", context_window_size=128_000),
            AiModel("gemini-2.5-pro", "Gemini 2.5 Pro", "gemini", True, context_window_size=1_048_576),
        ]
        self.keys = dict(keys or {})
        self.keychain_problem_text = keychain_problem
        self.agents = [Agent("general", "General assistant", "You are helpful.", enabled_tools=("http_request",))]
        self.memories = [Memory("m1", "The user prefers metric units.", T0, None)]
        self.settings = ContextSettings()
        self.tools = ToolSettings()
        self.mcp_servers: list[McpServer] = []
        self.mcp_tools_on_add: list[McpToolSpec] = []
        self.mcp_secrets: dict[str, dict[str, str]] = {}  # the fake keychain of MCP servers' values

    def _id(self, prefix: str) -> str:
        raise NotImplementedError

    async def list_providers(self) -> Sequence[ProviderInfo]:
        variables = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}
        return [ProviderInfo(p, "keychain" if p.id in self.keys else None, variables.get(p.id))
                for p in self.providers.values()]

    async def add_compatible_provider(self, name: str, base_url: str) -> Provider:
        provider = Provider(name.lower(), name, ProviderType.OPENAI_COMPATIBLE, base_url)
        self.providers[provider.id] = provider
        return provider

    async def set_base_url(self, provider_id: str, base_url: str | None) -> Provider:
        self.providers[provider_id] = replace(self.providers[provider_id], base_url=base_url)
        return self.providers[provider_id]

    async def set_api(self, provider_id: str, api: str) -> Provider:
        choice = {"responses": ProviderApi.RESPONSES, "chat-completions": ProviderApi.CHAT_COMPLETIONS}
        self.providers[provider_id] = replace(self.providers[provider_id], api=choice.get(api, ProviderApi.AUTO))
        return self.providers[provider_id]

    async def set_key(self, provider_id: str, key: str) -> None:
        if self.keychain_problem_text:
            raise KeychainUnavailable(self.keychain_problem_text)
        self.keys[provider_id] = key

    async def delete_key(self, provider_id: str) -> None:
        self.keys.pop(provider_id, None)

    async def test_connection(self, provider_id: str) -> ConnectionResult:
        if provider_id not in self.keys:
            return ConnectionResult(False, "No key for this provider.")
        return ConnectionResult(True, "Connected: 12 models available.", 12)

    async def list_models(self, provider_id: str | None = None) -> Sequence[AiModel]:
        return [m for m in self.models if provider_id in (None, m.provider_id)]

    async def refresh_models(self, provider_id: str) -> Sequence[AiModel]:
        return await self.list_models(provider_id)

    async def set_model_window(self, provider_id: str, model_id: str, window: int, max_output: int | None) -> AiModel:
        for i, m in enumerate(self.models):
            if (m.provider_id, m.id) == (provider_id, model_id):
                self.models[i] = replace(m, context_window_size=window, user_window=True, window_is_guess=False)
                return self.models[i]
        raise NotFound("model", model_id)

    async def list_agents(self) -> Sequence[Agent]:
        return list(self.agents)

    async def save_agent(self, agent: Agent) -> Agent:
        stored = agent if agent.id else replace(agent, id=self._id("agent"))
        self.agents = [a for a in self.agents if a.id != stored.id] + [stored]
        return stored

    async def delete_agent(self, agent_id: str) -> None:
        self.agents = [a for a in self.agents if a.id != agent_id]

    async def tool_names(self) -> Sequence[str]:
        return ["http_request", "save_memory", "search_memory", "read_tool_result"]

    async def list_memories(self) -> Sequence[Memory]:
        return list(self.memories)

    async def update_memory(self, memory_id: str, content: str) -> Memory:
        self.memories = [replace(m, content=content) if m.id == memory_id else m for m in self.memories]
        return next(m for m in self.memories if m.id == memory_id)

    async def delete_memory(self, memory_id: str) -> None:
        self.memories = [m for m in self.memories if m.id != memory_id]

    async def context_settings(self) -> ContextSettings:
        return self.settings

    async def save_context_settings(self, settings: ContextSettings) -> ContextSettings:
        self.settings = settings.validated()  # like the real backend: the domain validates on every save path
        return settings

    async def tool_settings(self) -> ToolSettings:
        return self.tools

    async def save_tool_settings(self, settings: ToolSettings) -> ToolSettings:
        self.tools = ToolSettings(allowed_hosts_from(settings.allowed_hosts))  # validated as the real backend does
        return self.tools

    async def keychain_problem(self) -> str | None:
        return self.keychain_problem_text

    async def list_mcp_servers(self) -> Sequence[McpServer]:
        return list(self.mcp_servers)

    async def add_mcp_server(
        self, name: str, command: Sequence[str], url: str | None, values: Mapping[str, str] | None = None
    ) -> McpServer:
        values = dict(values or {})
        server = AddMcpServerUseCase.build(name, command=command, url=url, env={} if url else values,
                                           headers=values if url else {}, timeout_s=120.0)
        if any(s.name == server.name for s in self.mcp_servers):
            raise InvalidInput(f"An MCP server named {server.name!r} already exists; remove it first.")
        if values and self.keychain_problem_text:
            raise KeychainUnavailable(message=f"The MCP server {server.name!r} was not added: its environment and "
                                      f"header values are kept only in the system keychain, and none is usable here. "
                                      f"{self.keychain_problem_text}")
        if values:
            self.mcp_secrets[server.name] = values
        server = replace(server, tools=tuple(self.mcp_tools_on_add))
        self.mcp_servers.append(server)
        return server

    async def refresh_mcp_tools(self, name: str) -> McpServer:
        return next(s for s in self.mcp_servers if s.name == name)

    async def set_mcp_tool_permission(self, name: str, tool: str, rule: str) -> McpServer:
        self.calls.append(("mcp_permission", name, tool, rule))
        index = next(i for i, s in enumerate(self.mcp_servers) if s.name == name)
        self.mcp_servers[index] = self.mcp_servers[index].with_permission(tool, ToolPermission(rule))
        return self.mcp_servers[index]

    async def set_mcp_sampling(self, name: str, rule: str) -> McpServer:
        self.calls.append(("mcp_sampling", name, rule))
        index = next(i for i, s in enumerate(self.mcp_servers) if s.name == name)
        self.mcp_servers[index] = replace(self.mcp_servers[index], sampling_always=rule == "allow")
        return self.mcp_servers[index]

    async def set_mcp_roots(self, name: str, add: Sequence[str] = (), remove: Sequence[str] = ()) -> McpServer:
        self.calls.append(("mcp_roots", name, tuple(add), tuple(remove)))
        index = next(i for i, s in enumerate(self.mcp_servers) if s.name == name)
        kept = tuple(r for r in self.mcp_servers[index].roots if r not in remove)
        self.mcp_servers[index] = replace(self.mcp_servers[index], roots=kept + tuple(r for r in add if r not in kept))
        return self.mcp_servers[index]

    async def remove_mcp_server(self, name: str) -> None:
        self.mcp_servers = [s for s in self.mcp_servers if s.name != name]

    async def set_agent_mcp_servers(self, agent_id: str, off: Sequence[str]) -> Sequence[McpServer]:
        self.calls.append(("agent_mcp_servers", agent_id, tuple(off)))
        self.mcp_servers = [replace(s, disabled_agents=tuple(a for a in s.disabled_agents if a != agent_id)
                                    + ((agent_id,) if s.name in off else ())) for s in self.mcp_servers]
        return list(self.mcp_servers)

    async def mcp_log_path(self, name: str) -> str:
        return f"/home/user/.local/share/palimpsest/logs/mcp/{name}.log"
