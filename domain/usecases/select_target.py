"""Select target: switch a session's provider, model and agent (they apply from the next message)."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import NotFound
from domain.lookup import require_session
from domain.models import AgentId, ModelId, ProviderId, Session, SessionId
from domain.ports import AgentRepository, ProviderRepository, SessionRepository, UnitOfWork


class SelectTargetUseCase:
    """Stores the session's choice of provider, model and agent, after checking they exist."""

    def __init__(
        self, store: UnitOfWork, sessions: SessionRepository, providers: ProviderRepository, agents: AgentRepository
    ) -> None:
        self._store = store
        self._sessions = sessions
        self._providers = providers
        self._agents = agents

    def __call__(
        self, session_id: SessionId, provider_id: ProviderId, model_id: ModelId, agent_id: AgentId | None = None
    ) -> Session:
        """The updated session; NotFound for an unknown session, provider or agent."""
        if self._providers.get(provider_id) is None:
            raise NotFound("provider", provider_id)
        if agent_id is not None and self._agents.get(agent_id) is None:
            raise NotFound("agent", agent_id)
        with self._store.atomic():
            session = require_session(self._sessions, session_id)
            return self._sessions.update(replace(
                session, current_provider_id=provider_id, current_model_id=model_id.strip(),
                current_agent_id=agent_id or session.current_agent_id,
            ))
