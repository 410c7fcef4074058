"""Open at a message: a search hit opens its conversation at the hit (a window around it far back), on its branch."""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import NotFound
from domain.lookup import require_session
from domain.models import MessageId, SessionId
from domain.ports import MessageRepository, SessionRepository
from domain.usecases.branches import CheckoutBranchUseCase
from domain.usecases.load_conversation import ConversationPage, LoadConversationQuery

CONTEXT_BEFORE = 2  # messages shown above the hit, so it does not open as the very first row


@dataclass(frozen=True)
class HitPage:
    """A conversation page that contains the message; whether its branch was checked out to show it, and whether it
    is behind the compaction boundary (shown among the originals)."""

    page: ConversationPage
    message_id: MessageId
    switched_branch: bool
    behind_boundary: bool


class OpenAtMessageQuery:
    """Loads a session at a message: checks out the message's branch when it is not on the active path."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository, conversation: LoadConversationQuery,
                 checkout: CheckoutBranchUseCase) -> None:
        self._sessions, self._messages = sessions, messages
        self._conversation, self._checkout = conversation, checkout

    def __call__(self, session_id: SessionId, message_id: MessageId, tail: int) -> HitPage:
        """The newest `tail` messages when the hit is among them (a few above it), else a window of `tail` messages
        around it (half before it) that says how many newer ones follow; NotFound for a message not in the session."""
        session = require_session(self._sessions, session_id)
        message = self._messages.get(message_id.strip())
        if message is None or message.session_id != session.id:
            raise NotFound("message", message_id)
        switched = not message.active
        if switched:
            self._checkout(session.id, message.id)
        from_hit = self._messages.path_count(session.id) - self._messages.path_count(session.id, message.seq)
        if from_hit + CONTEXT_BEFORE <= tail:
            page = self._conversation.page(session.id, tail)
        else:  # far back: not every message from it to the newest (a list of thousands the view must measure)
            page = self._conversation.around(session.id, message.seq, tail)
        boundary = page.boundary_seq
        return HitPage(page, message.id, switched, boundary is not None and message.seq < boundary)
