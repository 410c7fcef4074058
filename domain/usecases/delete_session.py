"""Delete session: a soft delete that can be undone (restore) until the session is purged."""

from __future__ import annotations

from domain.errors import NotFound
from domain.lookup import require_session
from domain.models import Session, SessionId
from domain.ports import Clock, SessionRepository


class DeleteSessionUseCase:
    """Soft-deletes a session; `undo` restores it with every message."""

    def __init__(self, sessions: SessionRepository, clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock

    def __call__(self, session_id: SessionId) -> Session:
        """Marks the session deleted and returns it as it was; NotFound for an unknown or deleted id."""
        session = require_session(self._sessions, session_id)
        self._sessions.delete(session.id, self._clock.now())
        return session

    def permanently(self, session_id: SessionId) -> Session:
        """Deletes a session (deleted or not) with its messages for good; its attachment files go with it unless
        another session refers to them. NotFound for an unknown id."""
        session = require_session(self._sessions, session_id, allow_deleted=True)
        self._sessions.purge(session.id)
        return session

    def undo(self, session_id: SessionId) -> Session:
        """Restores a soft-deleted session."""
        session = require_session(self._sessions, session_id, allow_deleted=True)
        self._sessions.restore(session.id)
        restored = self._sessions.get(session.id)
        if restored is None:
            raise NotFound("session", session_id)
        return restored
