"""Create session: a new, empty conversation with an agent and optionally a provider and model."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from domain.errors import NotFound
from domain.models import AgentId, ModelId, ProviderId, Session
from domain.ports import AgentRepository, Clock, SessionRepository

DEFAULT_TITLE = "New conversation"


class CreateSessionUseCase:
    """Creates an empty session for an agent (the default agent when none is given)."""

    def __init__(
        self,
        sessions: SessionRepository,
        agents: AgentRepository,
        clock: Clock,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
    ) -> None:
        self._sessions = sessions
        self._agents = agents
        self._clock = clock
        self._new_id = new_id

    def __call__(
        self,
        *,
        agent: AgentId | str | None = None,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        title: str = DEFAULT_TITLE,
    ) -> Session:
        """The stored session; `agent` is an agent id or name (NotFound when unknown).

        The agent's preferred model is taken only with its preferred provider: another provider gets its default.
        """
        if agent is None:
            chosen = self._agents.default()
        else:
            found = self._agents.find(agent)
            if found is None:
                raise NotFound("agent", agent)
            chosen = found
        provider = provider_id or chosen.preferred_provider_id
        preferred_model = chosen.preferred_model_id if provider == chosen.preferred_provider_id else None
        now = self._clock.now()
        session = Session(
            id=self._new_id(),
            title=title,
            current_agent_id=chosen.id,
            created_at=now,
            updated_at=now,
            current_provider_id=provider,
            current_model_id=model_id or preferred_model,
        )
        return self._sessions.create(session)
