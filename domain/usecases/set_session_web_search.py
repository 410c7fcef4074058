"""Turn a conversation's web search on or off, or go back to the agent's (or the app's) setting."""

from __future__ import annotations

from domain.lookup import require_session
from domain.models import Session, SessionId
from domain.ports import Clock, SessionRepository


class SetSessionWebSearchUseCase:
    """Stores whether the session's next requests offer the provider's web search; None: the agent's setting."""

    def __init__(self, sessions: SessionRepository, clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock

    def __call__(self, session_id: SessionId, on: bool | None) -> Session:
        """The updated session (NotFound for an unknown one)."""
        session = require_session(self._sessions, session_id)
        if session.web_search is on:
            return session
        return self._sessions.update_fields(session.id, web_search=on, updated_at=self._clock.now())
