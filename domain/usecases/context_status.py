"""Context status: how full a session's context is for its model, for the gauge and the CLI."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.builder import CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.memory_section import with_memory
from domain.context.meter import measure_context
from domain.context.pruner import ToolResultPruner
from domain.context.settings_source import SettingsProvider
from domain.errors import NotFound
from domain.events import ContextStatus
from domain.models import ModelId, ProviderId, Session, SessionId, ToolDefinition
from domain.ports import (
    AgentRepository,
    MemoryRepository,
    MessageRepository,
    ModelRepository,
    SessionRepository,
    ToolExecutor,
)
from domain.settings import ContextSettings


class GetContextStatusUseCase:
    """Estimates what the next request of a session would cost against its model's window.

    With `agents` (and optionally `memories` and `tools`) it derives the system prompt (with the long-term memory
    section) and tool definitions from the session's agent when the caller passes none."""

    def __init__(
        self,
        sessions: SessionRepository,
        messages: MessageRepository,
        models: ModelRepository,
        estimator: TokenEstimator,
        pruner: ToolResultPruner | None = None,
        settings_provider: SettingsProvider | None = None,
        *,
        agents: AgentRepository | None = None,
        memories: MemoryRepository | None = None,
        tools: ToolExecutor | None = None,
    ) -> None:
        self._sessions = sessions
        self._messages = messages
        self._models = models
        self._estimator = estimator
        self._pruner = pruner
        self._settings_provider = settings_provider
        self._agents, self._memories, self._tools = agents, memories, tools
        self._builder = CompactAwareMessageBuilder()

    def __call__(
        self,
        session_id: SessionId,
        *,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        system_prompt: str | None = None,
        tools: Sequence[ToolDefinition] | None = None,
    ) -> ContextStatus:
        """The estimate (window None when no model is chosen or its window is unknown)."""
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        settings = self._settings_provider(session) if self._settings_provider else ContextSettings()
        provider = provider_id or session.current_provider_id
        model = model_id or session.current_model_id
        window: int | None = None
        guess = False
        key: str | None = None
        if provider and model:
            resolved = self._models.resolve(provider, model)
            window, guess = resolved.context_window_size, resolved.window_is_guess
            key = calibration_key(provider, model)
        if system_prompt is None:
            system_prompt = self._agent_prompt(session, settings)
        if tools is None:
            tools = self._agent_tools(session)
        boundary = session.compact_boundary if session.compacted_summary else None
        stored = self._messages.since(session_id, boundary or 0)
        built = self._builder.build(session, stored, None, self._messages.pinned(session_id))
        sent = self._pruner.preview(session_id, built.messages, settings) if self._pruner else built.messages
        return measure_context(
            self._estimator,
            system_prompt=system_prompt,
            summary=session.compacted_summary,
            messages=sent,
            tools=tools,
            window=window,
            window_is_guess=guess,
            model_key=key,
        )

    def _agent_prompt(self, session: Session, settings: ContextSettings) -> str | None:
        if self._agents is None or session.current_agent_id is None:
            return None
        agent = self._agents.get(session.current_agent_id)
        if agent is None:
            return None
        memories = self._memories.list(agent.id) if self._memories is not None else ()
        return with_memory(agent.system_prompt, memories, settings.memory_section_max_chars)

    def _agent_tools(self, session: Session) -> Sequence[ToolDefinition]:
        if self._tools is None or self._agents is None or session.current_agent_id is None:
            return ()
        agent = self._agents.get(session.current_agent_id)
        if agent is None:
            return ()
        return self._tools.definitions(list(agent.enabled_tools) or None)
