"""Reset context: forget the summary and boundary; every original message is still stored and sent again."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import NotFound
from domain.models import Session, SessionId
from domain.ports import Clock, SessionRepository


class ResetContextUseCase:
    """Clears a session's compacted summary and boundary (and the flush marker of the cycle)."""

    def __init__(self, sessions: SessionRepository, clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock

    def __call__(self, session_id: SessionId) -> Session:
        """Returns the updated session; NotFound for an unknown id."""
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        updated = replace(
            session,
            compacted_summary=None,
            compact_boundary=None,
            flushed_in_compaction_cycle=False,
            updated_at=self._clock.now(),
        )
        return self._sessions.update(updated)
