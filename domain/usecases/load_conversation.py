"""Load conversation: the pages of a session's stored messages a chat view shows, with its boundary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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
    siblings: Mapping[MessageId, tuple[MessageId, ...]] = field(default_factory=dict)  # where a branch forks

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
        total = self._messages.path_count(session_id)  # the active path only: other branches are a click away
        messages = tuple(self._messages.path_tail(session_id, tail))
        boundary = session.boundary
        behind = self._messages.path_count(session_id, boundary) if boundary is not None else 0
        kids = self._messages.children(session_id, list({m.parent_id: None for m in messages}))
        siblings = {m.id: kids[m.parent_id] for m in messages if len(kids.get(m.parent_id, ())) > 1}
        return ConversationPage(
            session=session, messages=messages, total_count=total,
            compactions=tuple(self._sessions.compactions(session_id)), boundary_seq=boundary,
            summarized_count=behind, siblings=siblings,
        )

    def older(self, session_id: SessionId, before_seq: int, limit: int) -> Sequence[Message]:
        """Up to `limit` messages of the active path with seq < before_seq, in order (other branches skipped)."""
        return self._messages.path_tail(session_id, limit, before_seq)

    def original_output(self, message_id: MessageId) -> str | None:
        """The untruncated original of a tool result, when one was kept."""
        return self._messages.full_output(message_id)
