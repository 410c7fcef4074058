"""Set a conversation's own system prompt (over its agent's), or go back to the agent's."""

from __future__ import annotations

from domain.errors import InvalidInput
from domain.lookup import require_session
from domain.models import Session, SessionId
from domain.ports import Clock, SessionRepository
from domain.settings import MAX_SYSTEM_PROMPT_CHARS


class SetSessionPromptUseCase:
    """Stores the system prompt the session's next requests send; None or blank: the agent's prompt applies."""

    def __init__(self, sessions: SessionRepository, clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock

    def __call__(self, session_id: SessionId, prompt: str | None) -> Session:
        """The updated session; InvalidInput for a prompt over MAX_SYSTEM_PROMPT_CHARS, NotFound for no session."""
        text = prompt.strip() if prompt is not None else ""
        if len(text) > MAX_SYSTEM_PROMPT_CHARS:
            raise InvalidInput(
                f"A system prompt may have at most {MAX_SYSTEM_PROMPT_CHARS:,} characters (this one has {len(text):,})."
            )
        session = require_session(self._sessions, session_id)
        value = text or None
        if session.system_prompt == value:
            return session
        return self._sessions.update_fields(session.id, system_prompt=value, updated_at=self._clock.now())
