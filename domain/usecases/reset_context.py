"""Reset context: forget the summary and boundary; every original message is still stored and sent again."""

from __future__ import annotations

from contextlib import nullcontext

from domain.chat.tree import CONTEXT_RESET
from domain.chat.turn_gate import TurnGate
from domain.lookup import require_session
from domain.models import CompactionRecord, Session, SessionId
from domain.ports import Clock, MessageRepository, SessionRepository


class ResetContextUseCase:
    """Clears a session's compacted summary and boundary (and the flush marker of the cycle), and logs the reset
    on the path it was made on, so switching branches and back does not bring the summary back."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository, clock: Clock, *,
                 gate: TurnGate | None = None) -> None:
        """`gate`: refused while a turn runs in the conversation (its upkeep may be compacting it)."""
        self._sessions = sessions
        self._messages = messages
        self._clock = clock
        self._gate = gate

    def __call__(self, session_id: SessionId) -> Session:
        """Returns the updated session; NotFound for an unknown id, ConversationBusy while a turn runs in it."""
        session = require_session(self._sessions, session_id)
        with self._gate.exclusive(session.id, "Reset the context when it is done") if self._gate else nullcontext():
            return self._reset(session)

    def _reset(self, session: Session) -> Session:
        newest = self._messages.path_tail(session.id, 1) if session.summary is not None else ()
        record = None
        if newest:  # nothing to log when no summary holds: no checkpoint on this path could come back
            record = CompactionRecord(session.id, self._clock.now(), 0, 0, 0, 0, CONTEXT_RESET,
                                      through_id=newest[-1].id)
        return self._sessions.reset_context(session.id, record)
