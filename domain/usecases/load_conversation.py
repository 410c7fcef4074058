"""Load conversation: the pages of a session's stored messages a chat view shows, with its boundary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.models import CompactionRecord, Message, MessageId, Session, SessionId
from domain.ports import MessageRepository, SessionRepository
from domain.usecases.lookup import require_session


@dataclass(frozen=True)
class ConversationPage:
    """The newest messages of a session (in seq order) with what a view needs to draw the boundary.

    Messages with seq < boundary_seq are behind the compaction boundary (summarized); summarized_count counts them."""

    session: Session
    messages: tuple[Message, ...]
    total_count: int
    compactions: tuple[CompactionRecord, ...] = ()
    boundary_seq: int | None = None
    summarized_count: int = 0

    @property
    def has_older(self) -> bool:
        """Whether older messages exist than the first one on this page."""
        return self.total_count > len(self.messages)


class LoadConversationQuery:
    """Reads a session for display: its newest page, older pages on demand, and kept tool-output originals."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._sessions = sessions
        self._messages = messages

    def page(self, session_id: SessionId, tail: int) -> ConversationPage:
        """The session and its newest `tail` messages; NotFound for an unknown or deleted session."""
        session = require_session(self._sessions, session_id)
        total = session.message_count
        # seq numbers of a session are 1..n without gaps (each add takes max + 1; messages are never deleted)
        messages = tuple(self._messages.since(session_id, max(1, total - tail + 1)))
        boundary = session.boundary
        behind = max(0, min(total, boundary - 1)) if boundary is not None else 0
        return ConversationPage(
            session=session, messages=messages, total_count=total,
            compactions=tuple(self._sessions.compactions(session_id)), boundary_seq=boundary,
            summarized_count=behind,
        )

    def older(self, session_id: SessionId, before_seq: int, limit: int) -> Sequence[Message]:
        """Up to `limit` messages with seq < before_seq, in order."""
        start = max(1, before_seq - limit)
        return [m for m in self._messages.since(session_id, start) if m.seq < before_seq]

    def original_output(self, message_id: MessageId) -> str | None:
        """The untruncated original of a tool result, when one was kept."""
        return self._messages.full_output(message_id)
