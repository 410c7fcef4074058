"""Drives the settings dialog: keys (keychain only), base URLs, endpoints, models, compaction, agents, memories,
tools."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from domain.errors import InvalidInput
from domain.mcp import McpServer
from domain.models import Agent, AgentId, AiModel, Memory, MemoryId, ModelId, ProviderId
from domain.settings import ContextSettings, ToolSettings
from ui.backend import ConnectionResult, ProviderInfo, SettingsBackend
from ui.error_text import describe
from ui.signals import emit
from ui.viewmodels.settings_mcp import SettingsMcpOps
from ui.worker import AsyncWorker

T = TypeVar("T")


@dataclass(frozen=True)
class SettingsState:
    """Everything the settings dialog shows; keys themselves never enter the state."""

    providers: tuple[ProviderInfo, ...] = ()
    models: tuple[AiModel, ...] = ()
    agents: tuple[Agent, ...] = ()
    memories: tuple[Memory, ...] = ()
    context: ContextSettings | None = None
    tools: ToolSettings | None = None
    tool_names: tuple[str, ...] = ()
    mcp_servers: tuple[McpServer, ...] = ()
    mcp_logs: Mapping[str, str] = field(default_factory=dict)
    mcp_sign_in: tuple[str, str | None] | None = None  # a remote server that needs a sign-in: name, URL if unsaved
    keychain_problem: str | None = None
    busy: frozenset[str] = frozenset()
    provider_status: Mapping[ProviderId, str] = field(default_factory=dict)
    message: str | None = None
    error: str | None = None


class SettingsViewModel(SettingsMcpOps, QObject):
    """The settings verbs; each runs on the worker and updates SettingsState."""

    state_changed = Signal(object)  # SettingsState
    catalog_changed = Signal()  # providers, keys, models or agents changed: the header reloads its pickers

    def __init__(self, backend: SettingsBackend, worker: AsyncWorker) -> None:
        super().__init__()
        self._backend = backend
        self._worker = worker
        self._state = SettingsState()

    @property
    def state(self) -> SettingsState:
        """The current state."""
        return self._state

    @property
    def backend(self) -> SettingsBackend:
        """The backend the verbs run against (the Knowledge page uses it too)."""
        return self._backend

    @property
    def worker(self) -> AsyncWorker:
        """The worker the verbs run on."""
        return self._worker

    def _set(self, **changes: Any) -> None:
        self._state = replace(self._state, **changes)
        emit(self.state_changed, self._state)

    def _run(self, tag: str, make: Callable[[], Any], then: Callable[[Any], None], *, catalog: bool = False) -> None:
        self._set(busy=self._state.busy | {tag}, error=None)

        def ok(result: Any) -> None:
            self._set(busy=self._state.busy - {tag})
            then(result)
            if catalog:
                emit(self.catalog_changed)

        def failed(error: Exception) -> None:
            self._set(busy=self._state.busy - {tag}, error=describe(error), message=None)

        self._worker.call(make, ok, failed)

    def _reject(self, message: str) -> None:
        self._set(error=InvalidInput(message).message, message=None)

    # --- loading ---------------------------------------------------------------------------------
    def clear_status(self) -> None:
        """Forgets the last action's message and error (the dialog opens again: they belong to the last visit)."""
        if self._state.message is not None or self._state.error is not None:
            self._set(message=None, error=None)

    def load(self) -> None:
        """Loads every section."""

        async def everything() -> dict[str, Any]:
            b = self._backend
            return {
                "providers": tuple(await b.list_providers()), "models": tuple(await b.list_models()),
                "agents": tuple(await b.list_agents()), "memories": tuple(await b.list_memories()),
                "context": await b.context_settings(), "tools": await b.tool_settings(),
                "tool_names": tuple(await b.tool_names()),
                **await self._mcp_values(),
                "keychain_problem": await b.keychain_problem(),
            }

        self._run("load", everything, lambda values: self._set(**values))

    def _reload_providers(self, message: str) -> None:
        self._run("providers", self._backend.list_providers,
                  lambda p: self._set(providers=tuple(p), message=message), catalog=True)

    # --- providers and keys ------------------------------------------------------------------------
    def set_key(self, provider_id: ProviderId, key: str) -> None:
        """Stores a key in the OS keychain (never in the database); the text is not kept anywhere else."""
        key = key.strip()
        if not key:
            self._reject("Paste a key first; an empty key is not stored.")
            return
        if any(c.isspace() for c in key):
            self._reject("That key contains spaces or line breaks; paste only the key itself.")
            return
        self._run(f"key:{provider_id}", lambda: self._backend.set_key(provider_id, key),
                  lambda _: self._reload_providers("Key saved to the system keychain."))

    def delete_key(self, provider_id: ProviderId) -> None:
        """Removes a provider's key from the keychain."""
        self._run(f"key:{provider_id}", lambda: self._backend.delete_key(provider_id),
                  lambda _: self._reload_providers("Key removed from the keychain."))

    def test_connection(self, provider_id: ProviderId) -> None:
        """Checks key and URL by listing the provider's models."""

        def tested(result: ConnectionResult) -> None:
            status = dict(self._state.provider_status)
            status[provider_id] = ("✓ " if result.ok else "✗ ") + result.message
            self._set(provider_status=status, message=result.message)

        self._run(f"test:{provider_id}", lambda: self._backend.test_connection(provider_id), tested)

    def set_base_url(self, provider_id: ProviderId, base_url: str) -> None:
        """Changes a provider's base URL (blank: the vendor's default)."""
        url = base_url.strip() or None
        if url is not None and not url.startswith(("http://", "https://")):
            self._reject("A base URL starts with http:// or https://, e.g. http://localhost:11434/v1.")
            return
        self._run(f"url:{provider_id}", lambda: self._backend.set_base_url(provider_id, url),
                  lambda _: self._reload_providers("Base URL saved."))

    def set_api(self, provider_id: ProviderId, api: str) -> None:
        """Chooses the API an OpenAI-type provider speaks (responses, chat-completions or auto)."""
        self._run(f"api:{provider_id}", lambda: self._backend.set_api(provider_id, api),
                  lambda _: self._reload_providers("API saved."))

    def add_endpoint(self, name: str, base_url: str) -> None:
        """Adds an OpenAI-compatible endpoint such as Ollama or LM Studio."""
        name, url = name.strip(), base_url.strip()
        if not name:
            self._reject("Give the endpoint a name, e.g. Ollama.")
            return
        if not url.startswith(("http://", "https://")):
            self._reject("A base URL starts with http:// or https://, e.g. http://localhost:11434/v1.")
            return
        self._run("add-endpoint", lambda: self._backend.add_compatible_provider(name, url),
                  self._endpoint_added)

    def _endpoint_added(self, provider: Any) -> None:
        self._reload_providers(f"Added {provider.name}; listing its models…")
        self.refresh_models(provider.id)  # a local server lists what it has installed

    # --- models ------------------------------------------------------------------------------------
    def refresh_models(self, provider_id: ProviderId) -> None:
        """Fetches the provider's current model list."""

        def refreshed(models: Sequence[AiModel]) -> None:
            others = tuple(m for m in self._state.models if m.provider_id != provider_id)
            noun = "model" if len(models) == 1 else "models"
            self._set(models=others + tuple(models), message=f"{len(models)} {noun} listed.")

        self._run(f"refresh:{provider_id}", lambda: self._backend.refresh_models(provider_id), refreshed,
                  catalog=True)

    def set_window(self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None) -> None:
        """Sets a model's context window by hand (it then always wins)."""
        if window < 1024:
            self._reject("A context window below 1,024 tokens cannot hold a conversation.")
            return
        if max_output is not None and max_output >= window:
            self._reject("The maximum output must be smaller than the context window.")
            return

        if not model_id.strip() or any(c.isspace() for c in model_id.strip()):
            self._reject("Give the model id exactly as the provider names it, e.g. llama3.1:8b.")
            return

        def saved(model: AiModel) -> None:
            known = any((m.provider_id, m.id) == (model.provider_id, model.id) for m in self._state.models)
            models = tuple(
                model if (m.provider_id, m.id) == (model.provider_id, model.id) else m for m in self._state.models
            ) + (() if known else (model,))
            self._set(models=models, message=f"Context window of {model.id} set to {window:,} tokens.")

        self._run(f"window:{model_id}",
                  lambda: self._backend.set_model_window(provider_id, model_id, window, max_output), saved,
                  catalog=True)

    # --- compaction --------------------------------------------------------------------------------
    def save_context_settings(self, settings: ContextSettings) -> None:
        """Stores the context settings (the domain validates them; a bad value comes back as the error)."""
        self._run("context", lambda: self._backend.save_context_settings(settings),
                  lambda s: self._set(context=s, message="Compaction settings saved."))

    # --- tools ------------------------------------------------------------------------------------------
    def save_allowed_hosts(self, text: str) -> None:
        """Stores the allowed hosts, one per line (blank lines ignored); a bad entry comes back as the error."""
        settings = replace(self._state.tools or ToolSettings(), allowed_hosts=tuple(text.splitlines()))

        def saved(stored: ToolSettings) -> None:
            count = len(stored.allowed_hosts)
            noun = "host" if count == 1 else "hosts"
            self._set(tools=stored, message=f"Allowed hosts saved ({count} {noun})." if count
                      else "Allowed hosts saved: none; local and private addresses are refused.")

        self._run("tools", lambda: self._backend.save_tool_settings(settings), saved)

    # --- agents and memories -------------------------------------------------------------------------
    def save_agent(self, agent: Agent, mcp_off: Sequence[str] | None = None) -> None:
        """Adds or updates an agent; `mcp_off` (when given) names the MCP servers turned off for it."""
        if not agent.name.strip():
            self._reject("An agent needs a name.")
            return

        def saved(stored: Agent) -> None:
            others = tuple(a for a in self._state.agents if a.id != stored.id)
            self._set(agents=(*others, stored), message=f"Agent {stored.name} saved.")
            if mcp_off is not None:
                self.set_agent_mcp_servers(stored.id, tuple(mcp_off))

        self._run("agent", lambda: self._backend.save_agent(agent), saved, catalog=True)

    def delete_agent(self, agent_id: AgentId) -> None:
        """Deletes an agent."""
        self._run("agent", lambda: self._backend.delete_agent(agent_id),
                  lambda _: self._set(agents=tuple(a for a in self._state.agents if a.id != agent_id),
                                      message="Agent deleted."), catalog=True)

    def update_memory(self, memory_id: MemoryId, content: str) -> None:
        """Edits a long-term memory."""
        if not content.strip():
            self._reject("A memory cannot be empty; delete it instead.")
            return

        def saved(memory: Memory) -> None:
            self._set(memories=tuple(memory if m.id == memory.id else m for m in self._state.memories),
                      message="Memory saved.")

        self._run("memory", lambda: self._backend.update_memory(memory_id, content.strip()), saved)

    def delete_memory(self, memory_id: MemoryId) -> None:
        """Deletes a long-term memory."""
        self._run("memory", lambda: self._backend.delete_memory(memory_id),
                  lambda _: self._set(memories=tuple(m for m in self._state.memories if m.id != memory_id),
                                      message="Memory deleted."))
