"""What the settings dialog needs from the app: providers, keys, models, agents, memories, context and tools."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from domain.mcp import McpServer
from domain.models import (
    Agent,
    AgentId,
    AiModel,
    Memory,
    MemoryId,
    ModelId,
    Provider,
    ProviderId,
)
from domain.settings import ContextSettings, ToolSettings
from ui.backend_types import (
    ConnectionResult,
    ProviderInfo,
)


class SettingsBackend(Protocol):
    """The settings dialog: providers, keys, models, agents, memories, context and tool settings."""

    async def keychain_problem(self) -> str | None:
        """None when a usable keychain exists, else a plain sentence saying why not."""
        raise NotImplementedError

    async def list_providers(self) -> Sequence[ProviderInfo]:
        """Providers with their key source."""
        raise NotImplementedError

    async def add_compatible_provider(self, name: str, base_url: str) -> Provider:
        """Adds an OpenAI-compatible endpoint (Ollama, LM Studio, ...)."""
        raise NotImplementedError

    async def set_base_url(self, provider_id: ProviderId, base_url: str | None) -> Provider:
        """Changes (or clears) a provider's base URL."""
        raise NotImplementedError

    async def set_api(self, provider_id: ProviderId, api: str) -> Provider:
        """Chooses the API an OpenAI-type provider speaks: responses, chat-completions or auto."""
        raise NotImplementedError

    async def set_key(self, provider_id: ProviderId, key: str) -> None:
        """Stores a key in the OS keychain; raises KeychainUnavailable when there is none."""
        raise NotImplementedError

    async def delete_key(self, provider_id: ProviderId) -> None:
        """Removes a key from the keychain."""
        raise NotImplementedError

    async def test_connection(self, provider_id: ProviderId) -> ConnectionResult:
        """Lists the provider's models to check key and URL."""
        raise NotImplementedError

    async def list_models(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        """Known models, of one provider or all."""
        raise NotImplementedError

    async def refresh_models(self, provider_id: ProviderId) -> Sequence[AiModel]:
        """Fetches the provider's model list and stores it."""
        raise NotImplementedError

    async def set_model_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None
    ) -> AiModel:
        """A user-set context window (always wins over presets and guesses)."""
        raise NotImplementedError

    async def list_agents(self) -> Sequence[Agent]:
        """Every agent."""
        raise NotImplementedError

    async def save_agent(self, agent: Agent) -> Agent:
        """Adds or updates an agent."""
        raise NotImplementedError

    async def delete_agent(self, agent_id: AgentId) -> None:
        """Deletes an agent."""
        raise NotImplementedError

    async def tool_names(self) -> Sequence[str]:
        """Names of the built-in tools an agent can enable."""
        raise NotImplementedError

    async def list_memories(self) -> Sequence[Memory]:
        """Every long-term memory, newest first."""
        raise NotImplementedError

    async def update_memory(self, memory_id: MemoryId, content: str) -> Memory:
        """Edits a memory's text."""
        raise NotImplementedError

    async def delete_memory(self, memory_id: MemoryId) -> None:
        """Deletes a memory."""
        raise NotImplementedError

    async def context_settings(self) -> ContextSettings:
        """App-wide context settings."""
        raise NotImplementedError

    async def save_context_settings(self, settings: ContextSettings) -> ContextSettings:
        """Validates and stores context settings."""
        raise NotImplementedError

    async def tool_settings(self) -> ToolSettings:
        """App-wide tool settings: the local hosts http_request may reach."""
        raise NotImplementedError

    async def save_tool_settings(self, settings: ToolSettings) -> ToolSettings:
        """Validates (InvalidInput naming a bad host) and stores tool settings; returns them as stored."""
        raise NotImplementedError

    async def list_mcp_servers(self) -> Sequence[McpServer]:
        """The configured MCP servers with their tools as last listed."""
        raise NotImplementedError

    async def add_mcp_server(
        self, name: str, command: Sequence[str], url: str | None, values: Mapping[str, str] | None = None
    ) -> McpServer:
        """Adds a server after starting it and listing its tools (InvalidInput / McpServerError /
        KeychainUnavailable say why not); `values` are a command's environment or a URL's headers, kept in the
        keychain only."""
        raise NotImplementedError

    async def refresh_mcp_tools(self, name: str) -> McpServer:
        """Starts the server if needed and lists its tools again."""
        raise NotImplementedError

    async def set_mcp_tool_permission(self, name: str, tool: str, rule: str) -> McpServer:
        """Sets one tool's rule: ask, allow or deny."""
        raise NotImplementedError

    async def set_mcp_sampling(self, name: str, rule: str) -> McpServer:
        """Whether the server's sampling requests are asked each time (ask) or run without asking (allow)."""
        raise NotImplementedError

    async def set_mcp_roots(self, name: str, add: Sequence[str] = (), remove: Sequence[str] = ()) -> McpServer:
        """Adds or removes folders the server may use; a running server is told (roots/list_changed)."""
        raise NotImplementedError

    async def remove_mcp_server(self, name: str) -> None:
        """Removes a server and its secrets."""
        raise NotImplementedError

    async def set_agent_mcp_servers(self, agent_id: AgentId, off: Sequence[str]) -> Sequence[McpServer]:
        """Turns the named MCP servers off for an agent and every other one on; returns every server."""
        raise NotImplementedError

    async def mcp_log_path(self, name: str) -> str:
        """The file a stdio server's error output goes to."""
        raise NotImplementedError
