"""The chat screen's and the main window's backend over the Container's use cases (run on the worker's loop)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from app.container import Container
from app.gui.pricing import session_cost
from app.mcp_resource_watch import changed_resources, watch_resource, with_notices
from domain.attachment import Attachment
from domain.errors import PalimpsestError
from domain.events import ChatEvent, CompactCompleted, ContextStatus
from domain.mcp import tool_definitions
from domain.models import (
    AgentId,
    AiModel,
    Message,
    MessageId,
    ModelId,
    ProviderId,
    ProviderType,
    Session,
    SessionId,
)
from domain.usecases.load_conversation import ConversationPage
from domain.usecases.mcp_servers import SetMcpServerEnabledUseCase
from domain.usecases.open_at_message import HitPage
from domain.web_support import mcp_search_tools
from ui.backend import ProviderInfo, Selection, SessionMcpServer, SessionPrompt, StartupInfo, UsageSummary


def provider_infos(container: Container) -> list[ProviderInfo]:
    """Providers with where their key comes from and the environment variable that can hold it."""
    return [
        ProviderInfo(p.provider, p.key_source, p.env_vars[0] if p.env_vars else None)
        for p in container.list_providers()
    ]


class AppBridge:
    """Start-up information and the models for the pickers."""

    _c: Container

    async def startup(self) -> StartupInfo:
        try:  # deleted conversations over 30 days old and unsent attachment files go for good
            self._c.housekeeping()
        except PalimpsestError:  # a cleaning that fails is tried again at the next start; nothing is lost
            pass
        providers = tuple(provider_infos(self._c))
        return StartupInfo(
            providers=providers,
            keychain_problem=self._c.keys.keychain_problem(),
            default_selection=self._default_selection(providers),
            agents=tuple(self._c.list_agents()),
            has_sessions=any(s.message_count > 0 for s in self._c.list_sessions()),  # an empty one is not listed
            mcp_search_tools=tuple(t.name for t in mcp_search_tools(self._c.mcp_servers.list(), None)),
        )

    def _default_selection(self, providers: Sequence[ProviderInfo]) -> Selection | None:
        usable = [p for p in providers if p.has_key or p.provider.type is ProviderType.OPENAI_COMPATIBLE]
        for info in usable or providers:
            models = self._c.list_models(info.provider.id)
            if models:
                chosen = next((m for m in models if m.is_default), models[0])
                return Selection(info.provider.id, chosen.id)
        return None

    async def list_models(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        return self._c.list_models(provider_id)


class ConversationBridge:
    """One conversation: its pages, sending, and the context verbs."""

    _c: Container

    async def create_session(self, agent_id: AgentId | None, selection: Selection | None) -> Session:
        return self._c.create_session(
            agent=agent_id,
            provider_id=selection.provider_id if selection else None,
            model_id=selection.model_id if selection else None,
        )

    async def load_conversation(self, session_id: SessionId, tail: int) -> ConversationPage:
        return self._c.conversation.page(session_id, tail)

    async def load_older(self, session_id: SessionId, before_seq: int, limit: int) -> ConversationPage:
        return self._c.conversation.older_page(session_id, before_seq, limit)

    async def load_newer(self, session_id: SessionId, after_seq: int, limit: int) -> ConversationPage:
        return self._c.conversation.newer(session_id, after_seq, limit)

    async def open_at(self, session_id: SessionId, message_id: MessageId, tail: int) -> HitPage:
        hit = self._c.open_at_message(session_id, message_id, tail)
        if hit.switched_branch:
            self._c.planner.forget(session_id)
        return hit

    async def send(self, session_id: SessionId, text: str, selection: Selection,
                   attachments: Sequence[Attachment] = ()) -> AsyncIterator[ChatEvent]:
        self._c.mcp_sampler.use(selection.provider_id, selection.model_id)  # an allowed MCP sampling request's model
        changed, notices = await changed_resources(self._c, session_id)  # attached MCP resources changed since
        for server, uri in self._c.mcp_watch.take_unsent([a.sha256 for a in attachments]):  # read for a new chat
            try:
                await watch_resource(self._c, session_id, server, uri)
            except PalimpsestError:  # its server removed meanwhile: the message goes, the resource unwatched
                pass
        async for event in self._c.send_message(
            session_id, with_notices(text, notices), provider_id=selection.provider_id, model_id=selection.model_id,
            attachments=(*attachments, *changed), wait=True,
        ):
            yield event

    async def retry(self, session_id: SessionId, selection: Selection) -> AsyncIterator[ChatEvent]:
        async for event in self._c.send_message(
            session_id, "", provider_id=selection.provider_id, model_id=selection.model_id, retry=True, wait=True
        ):
            yield event

    async def edit(self, session_id: SessionId, message_id: MessageId, text: str, selection: Selection
                   ) -> AsyncIterator[ChatEvent]:
        async for event in self._c.send_message(
            session_id, text, provider_id=selection.provider_id, model_id=selection.model_id, edit=message_id, wait=True
        ):
            yield event

    async def regenerate(self, session_id: SessionId, message_id: MessageId, selection: Selection
                         ) -> AsyncIterator[ChatEvent]:
        async for event in self._c.send_message(
            session_id, "", provider_id=selection.provider_id, model_id=selection.model_id, regenerate=message_id,
            wait=True,
        ):
            yield event

    async def fork_session(self, session_id: SessionId, message_id: MessageId) -> Session:
        return self._c.fork_session(session_id, message_id)

    async def delete_branch(self, session_id: SessionId, message_id: MessageId) -> None:
        self._c.delete_branch(session_id, message_id)
        self._c.planner.forget(session_id)

    async def checkout(self, session_id: SessionId, message_id: MessageId) -> Session:
        session = self._c.checkout_branch(session_id, message_id)
        self._c.planner.forget(session_id)
        return session

    async def compact_now(
        self, session_id: SessionId, selection: Selection, instructions: str | None
    ) -> CompactCompleted:
        result = await self._c.compact_now(
            session_id, instructions=instructions, provider_id=selection.provider_id, model_id=selection.model_id
        )
        return result.as_event()

    async def reset_context(self, session_id: SessionId) -> Session:
        return self._c.reset_context(session_id)

    async def edit_summary(self, session_id: SessionId, summary: str) -> Session:
        return self._c.edit_summary(session_id, summary)

    async def set_pinned(self, message_id: MessageId, pinned: bool) -> Message:
        return self._c.pin_message(message_id, pinned)

    async def select(self, session_id: SessionId, selection: Selection, agent_id: AgentId | None) -> Session:
        return self._c.select_target(session_id, selection.provider_id, selection.model_id, agent_id)

    async def set_reasoning(self, session_id: SessionId, level: str | None) -> Session:
        return self._c.set_session_reasoning(session_id, level)

    async def set_web_search(self, session_id: SessionId, on: bool | None) -> Session:
        return self._c.set_session_web_search(session_id, on)

    async def session_prompt(self, session_id: SessionId) -> SessionPrompt:
        ctx = self._c.contexts.load(session_id, strict=False)
        return SessionPrompt(ctx.session.system_prompt, ctx.agent.name, ctx.agent.system_prompt)

    async def set_session_prompt(self, session_id: SessionId, prompt: str | None) -> Session:
        return self._c.set_session_prompt(session_id, prompt)

    async def context_status(self, session_id: SessionId, selection: Selection) -> ContextStatus:
        return self._c.context_status(session_id, provider_id=selection.provider_id, model_id=selection.model_id)

    async def usage_summary(self, session_id: SessionId) -> UsageSummary:
        usage = self._c.session_usage(session_id)
        return UsageSummary(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, session_cost(usage))

    async def full_tool_output(self, message_id: MessageId) -> str | None:
        return self._c.conversation.original_output(message_id)

    async def session_mcp_servers(self, session_id: SessionId | None) -> Sequence[SessionMcpServer]:
        return [SessionMcpServer(s.name, session_id not in s.disabled_sessions, len(tool_definitions(s)))
                for s in self._c.mcp_servers.list()]

    async def set_session_mcp_server(self, session_id: SessionId, name: str, enabled: bool) -> None:
        SetMcpServerEnabledUseCase(self._c.mcp_servers)(name, enabled, session_id=session_id)

    async def use_automatic_window(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        return self._c.use_automatic_window(provider_id, model_id)
