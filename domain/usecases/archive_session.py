"""Archive session: a conversation leaves the sessions list but stays stored, readable and searchable."""

from __future__ import annotations

from domain.lookup import require_session
from domain.models import Session, SessionId
from domain.ports import SessionRepository


class ArchiveSessionUseCase:
    """Archives a session (`is_active` False) and unarchives it; NotFound for an unknown id."""

    def __init__(self, sessions: SessionRepository) -> None:
        self._sessions = sessions

    def __call__(self, session_id: SessionId) -> Session:
        """The archived session (archiving an archived one changes nothing)."""
        return self._set(session_id, active=False)

    def undo(self, session_id: SessionId) -> Session:
        """The session back in the list."""
        return self._set(session_id, active=True)

    def _set(self, session_id: SessionId, *, active: bool) -> Session:
        session = require_session(self._sessions, session_id.strip())
        if session.is_active == active:
            return session
        return self._sessions.update_fields(session.id, is_active=active)
