"""Show session: a session with every stored message, including those behind the compaction boundary."""

from __future__ import annotations

from dataclasses import dataclass

from domain.lookup import require_session
from domain.models import CompactionRecord, Message, Session, SessionId
from domain.ports import MessageRepository, SessionRepository


@dataclass(frozen=True)
class MessageView:
    """A stored message and whether it lies behind the compaction boundary (summarized, not sent)."""

    message: Message
    behind_boundary: bool


@dataclass(frozen=True)
class SessionDetail:
    """A session, all its messages in order, and its compaction history."""

    session: Session
    messages: tuple[MessageView, ...]
    compactions: tuple[CompactionRecord, ...]


def is_behind_boundary(message: Message, session: Session) -> bool:
    """True when the message precedes the session's compaction boundary (a message seq)."""
    return session.boundary is not None and message.seq < session.boundary


class ShowSessionUseCase:
    """Loads one session whole; NotFound for an unknown or deleted id."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._sessions = sessions
        self._messages = messages

    def __call__(self, session_id: SessionId, *, include_inactive: bool = False) -> SessionDetail:
        """The session's detail: the conversation's path (with include_inactive, also the messages taken off it)."""
        session = require_session(self._sessions, session_id)
        stored = self._messages.snapshot(session.id, include_inactive=include_inactive)
        boundary = session.boundary  # is_behind_boundary, with the boundary looked up once for the whole session
        views = tuple(MessageView(m, boundary is not None and m.seq < boundary) for m in stored)
        return SessionDetail(session, views, tuple(self._sessions.compactions(session.id)))
