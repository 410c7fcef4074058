"""Set a conversation's own reasoning level (off / auto / low / medium / high / max), or go back to the default."""

from __future__ import annotations

from domain.errors import InvalidInput
from domain.lookup import require_session
from domain.models import Session, SessionId
from domain.ports import Clock, SessionRepository
from domain.settings import REASONING_LEVELS


class SetSessionReasoningUseCase:
    """Stores the level the session's next requests ask for; None: the agent's (or the app's) setting applies."""

    def __init__(self, sessions: SessionRepository, clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock

    def __call__(self, session_id: SessionId, level: str | None) -> Session:
        """The updated session; InvalidInput for a level that is not one of REASONING_LEVELS."""
        if level is not None and level not in REASONING_LEVELS:
            raise InvalidInput(f"Reasoning must be one of {', '.join(REASONING_LEVELS)} (or default), not {level!r}.")
        session = require_session(self._sessions, session_id)
        if session.reasoning == level:
            return session
        return self._sessions.update_fields(session.id, reasoning=level, updated_at=self._clock.now())
