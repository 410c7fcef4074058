"""Rename session: the user gives a conversation a title of their own."""

from __future__ import annotations

from domain.errors import InvalidInput
from domain.lookup import require_session
from domain.models import Session, SessionId
from domain.ports import Clock, SessionRepository

MAX_TITLE_CHARS = 200


class RenameSessionUseCase:
    """Sets a session's title; InvalidInput for a blank or overlong one."""

    def __init__(self, sessions: SessionRepository, clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock

    def __call__(self, session_id: SessionId, title: str) -> Session:
        """The updated session."""
        text = " ".join(title.split())
        if not text:
            raise InvalidInput("A title cannot be empty.")
        if len(text) > MAX_TITLE_CHARS:
            raise InvalidInput(f"A title may have at most {MAX_TITLE_CHARS} characters.")
        session = require_session(self._sessions, session_id)
        return self._sessions.update_fields(session.id, title=text, updated_at=self._clock.now())
