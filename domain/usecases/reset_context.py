"""Reset context: forget the summary and boundary; every original message is still stored and sent again."""

from __future__ import annotations

from domain.chat.tree import CONTEXT_RESET
from domain.lookup import require_session
from domain.models import CompactionRecord, Session, SessionId
from domain.ports import Clock, MessageRepository, SessionRepository


class ResetContextUseCase:
    """Clears a session's compacted summary and boundary (and the flush marker of the cycle), and logs the reset
    on the path it was made on, so switching branches and back does not bring the summary back."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository, clock: Clock) -> None:
        self._sessions = sessions
        self._messages = messages
        self._clock = clock

    def __call__(self, session_id: SessionId) -> Session:
        """Returns the updated session; NotFound for an unknown id."""
        session = require_session(self._sessions, session_id)
        newest = self._messages.path_tail(session.id, 1) if session.summary is not None else ()
        record = None
        if newest:  # nothing to log when no summary holds: no checkpoint on this path could come back
            record = CompactionRecord(session.id, self._clock.now(), 0, 0, 0, 0, CONTEXT_RESET,
                                      through_id=newest[-1].id)
        return self._sessions.reset_context(session.id, record)
