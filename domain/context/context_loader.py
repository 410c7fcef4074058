"""The one loader of a SessionContext: session, agent, settings, prompt with memory, tools, target model, messages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from domain.attachment import missing
from domain.context.estimator import CALIBRATION_MIN, message_floor
from domain.context.memory_section import with_memory
from domain.context.session_context import SessionContext
from domain.context.target import resolve_target
from domain.documents import DOCUMENT_TOOLS, DocumentIndex, is_document
from domain.errors import InvalidInput, NotFound
from domain.lookup import require_agent, require_session
from domain.mcp import ExtraToolSource
from domain.models import Agent, AgentId, AiModel, Message, ModelId, Provider, ProviderId, Session, SessionId
from domain.ports import (
    AgentRepository,
    MemoryRepository,
    MessageRepository,
    ModelRepository,
    ProviderRepository,
    SessionRepository,
    SettingsRepository,
    UnitOfWork,
)
from domain.provider_ports import ToolExecutor
from domain.provider_rules import AttachmentCounts, AttachmentPresence
from domain.settings import ContextSettings
from domain.web_support import searches_natively


def effective_settings(
    base: ContextSettings, agent: Agent, session: Session | None = None, command: Mapping[str, Any] | None = None
) -> ContextSettings:
    """The app's context settings with, in this order, the agent's overrides, the session's own reasoning level and
    web search choice, and a command's flags applied: the more specific choice wins (InvalidInput for an unknown
    key)."""
    settings = base.with_overrides(agent.context_overrides) if agent.context_overrides else base
    if session is not None and session.reasoning is not None:
        settings = replace(settings, reasoning=session.reasoning)
    if session is not None and session.web_search is not None:
        settings = replace(settings, web_search=session.web_search)
    return settings.with_overrides(command) if command else settings


class SessionContextLoader:
    """Reads everything a session's next request is made of; every path that sends or measures starts here."""

    def __init__(
        self,
        *,
        store: UnitOfWork,
        sessions: SessionRepository,
        messages: MessageRepository,
        agents: AgentRepository,
        providers: ProviderRepository,
        models: ModelRepository,
        memories: MemoryRepository,
        settings: SettingsRepository,
        tools: ToolExecutor,
        command_overrides: Mapping[str, Any] | None = None,
        extra_tools: ExtraToolSource | None = None,
        attachment_counts: AttachmentCounts | None = None,
        documents: DocumentIndex | None = None,
        attachment_files: AttachmentPresence | None = None,
    ) -> None:
        """`command_overrides`: context settings one command sets for itself (`palimpsest chat --reasoning high`);
        they win over the agent's and the session's own choice. `extra_tools`: the MCP servers' tools, offered
        beside the built-in ones unless the agent or the session turned the server off. `attachment_counts`: the
        providers' own counts of the attachments loaded. `documents`: the document index; search_documents and
        read_document are offered where a large document is attached or the agent has knowledge.
        `attachment_files`: an attachment whose file is gone is loaded as its placeholder (what is sent, and
        what is priced)."""
        self._command = dict(command_overrides or {})
        self._sessions, self._messages, self._agents = sessions, messages, agents
        self._providers, self._models, self._memories = providers, models, memories
        self._settings, self._tools, self._store = settings, tools, store
        self._extra = extra_tools
        self._counts = attachment_counts
        self._documents = documents
        self._files = attachment_files

    def load(
        self,
        session_id: SessionId,
        *,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        agent_id: AgentId | None = None,
        strict: bool = True,
    ) -> SessionContext:
        """The context for the explicit choice, else the session's, the agent's, the provider's default.

        With `strict=False` a session whose model cannot be resolved (no provider, no model known) still loads,
        with provider and model None; with `strict=True` that is an InvalidInput or NotFound."""
        with self._store.snapshot():  # one consistent read of everything below
            return self._load(session_id, provider_id, model_id, agent_id, strict)

    def load_to_measure(
        self, session_id: SessionId, *, provider_id: ProviderId | None = None, model_id: ModelId | None = None
    ) -> SessionContext:
        """The context as `load(strict=False)` reads it, for a status read only (never a send): a session whose
        newest messages alone are past the model's window is read from there on, the older messages counted by
        their length (`unloaded_tokens`)."""
        with self._store.snapshot():
            return self._load(session_id, provider_id, model_id, None, False, measure_only=True)

    def _load(
        self,
        session_id: SessionId,
        provider_id: ProviderId | None,
        model_id: ModelId | None,
        agent_id: AgentId | None,
        strict: bool,
        measure_only: bool = False,
    ) -> SessionContext:
        session = require_session(self._sessions, session_id)
        agent, provider, model = self._target(session, provider_id, model_id, agent_id, strict)
        settings = effective_settings(self._settings.context_settings(), agent, session, self._command)
        prompt = session.system_prompt if session.system_prompt is not None else agent.system_prompt
        system = with_memory(prompt, self._memories.list(agent.id), settings.memory_section_max_chars)
        tools = tuple(self._tools.definitions(list(agent.enabled_tools) or None))
        if self._extra is not None:
            tools += tuple(self._extra.mcp_definitions(agent.id, session.id))
            if settings.web_search and provider is not None and not searches_natively(provider, model):
                tools += tuple(t for t in self._extra.mcp_search_definitions(agent.id)  # the globe: MCP search
                               if t.name not in {d.name for d in tools})
        boundary = session.boundary
        start, unloaded = (boundary or 0), 0
        if measure_only and model is not None and boundary is None:
            start, unloaded = self._tail_start(session.id, model)
        messages = tuple(self._messages.since(session.id, start))
        pinned = tuple(self._messages.pinned(session.id)) if boundary is not None else ()
        digests = {a.sha256 for m in messages + pinned for a in m.attachments}
        gone = {d for d in digests if not self._files.exists(d)} if digests and self._files is not None else set()
        if gone:
            messages, pinned = _placeholders(messages, gone), _placeholders(pinned, gone)
        counts = self._counts.for_attachments(digests) if digests and self._counts is not None else {}
        ctx = SessionContext(session, agent, settings, system, tools, provider, model, messages, pinned, counts,
                             unloaded)
        return self.with_document_tools(ctx)

    def with_document_tools(self, ctx: SessionContext) -> SessionContext:
        """The context with the document tools offered when it has a large document or its agent has knowledge
        (called again once the new message, perhaps with the first such document, is in the context)."""
        if self._documents is None or any(t.name in DOCUMENT_TOOLS for t in ctx.tools):
            return ctx
        attached = any(is_document(a) for m in (*ctx.messages, *ctx.pinned) for a in m.attachments)
        if not attached and not self._documents.has_knowledge(ctx.agent.id):
            return ctx
        return replace(ctx, tools=ctx.tools + tuple(self._tools.definitions(DOCUMENT_TOOLS)))

    def _tail_start(self, session_id: SessionId, model: AiModel) -> tuple[int, int]:
        """Where a status read starts (seq) and the tokens of the messages before it, by length: the newest messages
        whose length alone passes the window (calibrated at its lowest) are read; the rest only measured."""
        window = model.context_window_size
        if not window:
            return 0, 0
        capacity = min(window, model.input_limit) if model.input_limit else window
        cutoff = int(capacity / CALIBRATION_MIN) + 1
        lengths = self._messages.path_lengths(session_id, 0)
        floors = [message_floor(c, i, n, o) for _, c, i, n, o in lengths]
        newest = 0
        for index in range(len(floors) - 1, 0, -1):
            newest += floors[index]
            if newest > cutoff:
                return lengths[index][0], sum(floors[:index])
        return 0, 0

    def model(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        """A model as the registry and the store know it now (after a limit was learned)."""
        return self._models.resolve(provider_id, model_id)

    def _target(
        self,
        session: Session,
        provider_id: ProviderId | None,
        model_id: ModelId | None,
        agent_id: AgentId | None,
        strict: bool,
    ) -> tuple[Agent, Provider | None, AiModel | None]:
        if agent_id:  # a named agent that does not exist is an error in every mode (naming the known ones)
            require_agent(self._agents, agent_id)
        try:
            target = resolve_target(
                session, agents=self._agents, providers=self._providers, models=self._models,
                provider_id=provider_id, model_id=model_id, agent_id=agent_id,
            )
        except (InvalidInput, NotFound):
            if strict:
                raise
            return self._fallback_agent(session), None, None
        return target.agent, target.provider, target.model

    def _fallback_agent(self, session: Session) -> Agent:
        current = self._agents.get(session.current_agent_id) if session.current_agent_id else None
        return current or self._agents.default()


def _placeholders(messages: tuple[Message, ...], gone: set[str]) -> tuple[Message, ...]:
    """The messages with each attachment whose file is `gone` as its placeholder."""
    return tuple(replace(m, attachments=tuple(missing(a) if a.sha256 in gone else a for a in m.attachments))
                 if any(a.sha256 in gone for a in m.attachments) else m for m in messages)
