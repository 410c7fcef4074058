"""The UI's ChatBackend over the Container's use cases; every method runs on the worker thread's loop."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

from app.container import Container
from app.gui.pricing import session_cost
from data.tools.executor import TOOL_NAMES
from domain.context.memory_section import with_memory
from domain.errors import NotFound, ProviderError
from domain.events import ChatEvent, CompactCompleted, ContextStatus
from domain.models import (
    Agent,
    AgentId,
    AiModel,
    Memory,
    MemoryId,
    Message,
    MessageId,
    ModelId,
    Provider,
    ProviderId,
    ProviderType,
    Session,
    SessionId,
    ToolDefinition,
)
from domain.ports import SessionSearchHit
from domain.settings import ContextSettings
from ui.backend import (
    ChatBackend,
    ConnectionResult,
    ConversationPage,
    ProviderInfo,
    Selection,
    StartupInfo,
    UsageSummary,
)


class ContainerBackend(ChatBackend):
    """Implements the UI protocol with the same use cases the CLI uses."""

    def __init__(self, container: Container) -> None:
        self._c = container

    # --- start-up ------------------------------------------------------------------------------
    async def startup(self) -> StartupInfo:
        providers = tuple(await self.list_providers())
        return StartupInfo(
            providers=providers,
            keychain_problem=self._c.keys.keychain_problem(),
            default_selection=self._default_selection(providers),
            agents=tuple(self._c.list_agents()),
            has_sessions=bool(self._c.list_sessions()),
        )

    def _default_selection(self, providers: Sequence[ProviderInfo]) -> Selection | None:
        usable = [p for p in providers if p.has_key or p.provider.type is ProviderType.OPENAI_COMPATIBLE]
        for info in usable or providers:
            models = self._c.models.list(info.provider.id)
            if models:
                chosen = next((m for m in models if m.is_default), models[0])
                return Selection(info.provider.id, chosen.id)
        return None

    # --- sessions ------------------------------------------------------------------------------
    async def list_sessions(self) -> Sequence[Session]:
        return self._c.list_sessions()

    async def search_sessions(self, query: str) -> Sequence[SessionSearchHit]:
        return self._c.search_sessions(query)

    async def create_session(self, agent_id: AgentId | None, selection: Selection | None) -> Session:
        return self._c.create_session(
            agent=agent_id,
            provider_id=selection.provider_id if selection else None,
            model_id=selection.model_id if selection else None,
        )

    async def rename_session(self, session_id: SessionId, title: str) -> Session:
        return self._c.rename_session(session_id, title)

    async def delete_session(self, session_id: SessionId) -> None:
        self._c.delete_session(session_id)

    async def restore_session(self, session_id: SessionId) -> None:
        self._c.delete_session.undo(session_id)

    # --- a conversation ------------------------------------------------------------------------
    def _session(self, session_id: SessionId) -> Session:
        session = self._c.sessions.get(session_id)
        if session is None or session.deleted_at is not None:
            raise NotFound("session", session_id)
        return session

    async def load_conversation(self, session_id: SessionId, tail: int) -> ConversationPage:
        session = self._session(session_id)
        total = self._c.messages.count(session_id)
        # seq numbers of a session are 1..n without gaps (each add takes max + 1; messages are never deleted)
        messages = tuple(self._c.messages.since(session_id, max(1, total - tail + 1)))
        boundary = session.compact_boundary if session.compacted_summary else None
        behind = max(0, min(total, boundary - 1)) if boundary is not None else 0
        return ConversationPage(
            session=session, messages=messages, total_count=total,
            compactions=tuple(self._c.sessions.compactions(session_id)), boundary_seq=boundary,
            summarized_count=behind,
        )

    async def load_older(self, session_id: SessionId, before_seq: int, limit: int) -> Sequence[Message]:
        start = max(1, before_seq - limit)
        return [m for m in self._c.messages.since(session_id, start) if m.seq < before_seq]

    async def send(self, session_id: SessionId, text: str, selection: Selection) -> AsyncIterator[ChatEvent]:
        async for event in self._c.send_message(
            session_id, text, provider_id=selection.provider_id, model_id=selection.model_id
        ):
            yield event

    async def retry(self, session_id: SessionId, selection: Selection) -> AsyncIterator[ChatEvent]:
        async for event in self._c.send_message(
            session_id, "", provider_id=selection.provider_id, model_id=selection.model_id, retry=True
        ):
            yield event

    def _agent_context(self, session: Session) -> tuple[str | None, list[ToolDefinition]]:
        agent = (self._c.agents.get(session.current_agent_id) if session.current_agent_id else None) \
            or self._c.agents.default()
        settings = self._c.settings_provider(session)
        system = with_memory(agent.system_prompt, self._c.memories.list(agent.id), settings.memory_section_max_chars)
        tools = list(self._c.tools.definitions(list(agent.enabled_tools) or None))
        return system, tools

    async def compact_now(
        self, session_id: SessionId, selection: Selection, instructions: str | None
    ) -> CompactCompleted:
        system, tools = self._agent_context(self._session(session_id))
        result = await self._c.compact_now(
            session_id, instructions=instructions, provider_id=selection.provider_id, model_id=selection.model_id,
            system_prompt=system, tools=tools,
        )
        return CompactCompleted(
            did_compact=result.did_compact, fallback=result.fallback, tokens_before=result.tokens_before,
            tokens_after=result.tokens_after, summary_tokens=result.summary_tokens, reason=result.reason,
        )

    async def reset_context(self, session_id: SessionId) -> Session:
        return self._c.reset_context(session_id)

    async def edit_summary(self, session_id: SessionId, summary: str) -> Session:
        return self._c.edit_summary(session_id, summary)

    async def set_pinned(self, message_id: MessageId, pinned: bool) -> Message:
        return self._c.pin_message(message_id, pinned)

    async def select(self, session_id: SessionId, selection: Selection, agent_id: AgentId | None) -> Session:
        session = self._session(session_id)
        if self._c.providers.get(selection.provider_id) is None:
            raise NotFound("provider", selection.provider_id)
        if agent_id is not None and self._c.agents.get(agent_id) is None:
            raise NotFound("agent", agent_id)
        return self._c.sessions.update(replace(
            session, current_provider_id=selection.provider_id, current_model_id=selection.model_id,
            current_agent_id=agent_id or session.current_agent_id,
        ))

    async def context_status(self, session_id: SessionId, selection: Selection) -> ContextStatus:
        system, tools = self._agent_context(self._session(session_id))
        return self._c.context_status(
            session_id, provider_id=selection.provider_id, model_id=selection.model_id, system_prompt=system,
            tools=tools,
        )

    async def usage_summary(self, session_id: SessionId) -> UsageSummary:
        s = self._session(session_id)
        ratio = s.total_cache_read_tokens / s.total_input_tokens if s.total_input_tokens else 0.0
        cost = session_cost(self._c.messages.snapshot(session_id), min(1.0, ratio))
        return UsageSummary(s.total_input_tokens, s.total_output_tokens, s.total_cache_read_tokens, cost)

    async def full_tool_output(self, message_id: MessageId) -> str | None:
        return self._c.messages.full_output(message_id)

    # --- providers, keys, models -----------------------------------------------------------------
    async def list_providers(self) -> Sequence[ProviderInfo]:
        env_names = getattr(self._c.keys, "env_var_names", None)
        infos = []
        for listing in self._c.list_providers():
            names: tuple[str, ...] = env_names(listing.provider.id) if env_names else ()
            infos.append(ProviderInfo(listing.provider, listing.key_source, names[0] if names else None))
        return infos

    async def add_compatible_provider(self, name: str, base_url: str) -> Provider:
        return self._c.add_provider(name, base_url)

    async def set_base_url(self, provider_id: ProviderId, base_url: str | None) -> Provider:
        return self._c.set_provider_base_url(provider_id, base_url)

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

    async def list_models(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        return self._c.list_models(provider_id)

    async def refresh_models(self, provider_id: ProviderId) -> Sequence[AiModel]:
        return await self._c.refresh_models(provider_id)

    async def set_model_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None
    ) -> AiModel:
        return self._c.add_model(provider_id, model_id, window, max_output)

    # --- agents, memories, settings --------------------------------------------------------------
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
        return self._c.settings.context_settings()

    async def save_context_settings(self, settings: ContextSettings) -> ContextSettings:
        self._c.settings.save_context_settings(settings)
        return self._c.settings.context_settings()
