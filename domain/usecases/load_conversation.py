"""Load conversation: the pages of a session's stored messages a chat view shows, with its boundary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from domain.lookup import require_session
from domain.models import CompactionRecord, Message, MessageId, MessageType, Session, SessionId
from domain.ports import MessageRepository, SessionRepository

NEWEST_REPLY_SCAN = 40  # messages from the newest looked through for the newest reply (tool rounds come between)


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
    newer_count: int = 0  # messages of the active path after the last one here (a window around a search hit)
    newest_reply: str | None = None  # the path's newest reply text when it is not on the page (newer_count > 0)

    @property
    def has_older(self) -> bool:
        """Whether older messages exist than the first one on this page."""
        return self.total_count > len(self.messages) + self.newer_count

    @property
    def has_newer(self) -> bool:
        """Whether the active path goes on after the last message on this page (it does not end at the newest)."""
        return self.newer_count > 0


class LoadConversationQuery:
    """Reads a session for display: its newest page, older pages on demand, and kept tool-output originals."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._sessions = sessions
        self._messages = messages

    def page(self, session_id: SessionId, tail: int) -> ConversationPage:
        """The session and its newest `tail` messages; NotFound for an unknown or deleted session."""
        session = require_session(self._sessions, session_id)
        total = self._messages.path_count(session_id)  # the active path only: other branches are a click away
        return self._page_of(session, self._messages.path_tail(session_id, tail), total, 0)

    def around(self, session_id: SessionId, seq: int, size: int) -> ConversationPage:
        """About `size` messages of the active path around the one with `seq` (half before it, it and the rest after),
        not the newest ones: a search hit far back opens there, and newer pages follow on demand (`newer`)."""
        session = require_session(self._sessions, session_id)
        total = self._messages.path_count(session_id)
        before = list(self._messages.path_tail(session_id, size // 2, seq))
        after = list(self._messages.path_head(session_id, size - len(before), seq - 1))
        newer = total - self._messages.path_count(session_id, after[-1].seq + 1) if after else 0
        return self._page_of(session, [*before, *after], total, newer)

    def newer(self, session_id: SessionId, after_seq: int, limit: int) -> ConversationPage:
        """The next `limit` messages of the active path after after_seq (scrolling down a window), with their
        versions for the ‹ › switcher and how many remain after them."""
        session = require_session(self._sessions, session_id)
        total = self._messages.path_count(session_id)
        messages = list(self._messages.path_head(session_id, limit, after_seq))
        last = messages[-1].seq if messages else after_seq
        return self._page_of(session, messages, total, total - self._messages.path_count(session_id, last + 1))

    def _page_of(self, session: Session, found: Sequence[Message], total: int, newer: int) -> ConversationPage:
        session_id = session.id
        messages = tuple(found)
        boundary = session.boundary
        behind = self._messages.path_count(session_id, boundary) if boundary is not None else 0
        kids = self._messages.children(session_id, list({m.parent_id: None for m in messages}))
        siblings = {m.id: kids[m.parent_id] for m in messages if len(kids.get(m.parent_id, ())) > 1}
        return ConversationPage(
            session=session, messages=messages, total_count=total,
            compactions=tuple(self._sessions.compactions(session_id)), boundary_seq=boundary,
            summarized_count=behind, siblings=siblings, newer_count=newer,
            newest_reply=self._newest_reply(session_id) if newer else None,
        )

    def _newest_reply(self, session_id: SessionId) -> str | None:
        """The text of the newest reply among the path's last few messages (Ctrl+Shift+C from a window)."""
        for message in reversed(self._messages.path_tail(session_id, NEWEST_REPLY_SCAN)):
            if message.type is MessageType.AI_RESPONSE and message.content:
                return message.content
        return None

    def older_page(self, session_id: SessionId, before_seq: int, limit: int) -> ConversationPage:
        """The previous page above the one shown (scrolling up), with its messages' versions for the ‹ › switcher."""
        session = require_session(self._sessions, session_id)
        older = self._messages.path_tail(session_id, limit, before_seq)
        return self._page_of(session, older, self._messages.path_count(session_id), 0)

    def older(self, session_id: SessionId, before_seq: int, limit: int) -> Sequence[Message]:
        """Up to `limit` messages of the active path with seq < before_seq, in order (other branches skipped)."""
        return self._messages.path_tail(session_id, limit, before_seq)

    def original_output(self, message_id: MessageId) -> str | None:
        """The untruncated original of a tool result, when one was kept."""
        return self._messages.full_output(message_id)
