"""Branches of a conversation: list them, check one out, delete one."""

from __future__ import annotations

from contextlib import nullcontext

from domain.chat.paths import BranchSwitcher
from domain.chat.tree import Branch, Tree
from domain.chat.turn_gate import TurnGate
from domain.errors import InvalidInput, NotFound
from domain.lookup import require_session
from domain.models import MessageId, Session, SessionId
from domain.ports import MessageRepository, SessionRepository, UnitOfWork


class ListBranchesQuery:
    """The branches of a session: one per leaf, with its leaf and fork message ids."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._sessions, self._messages = sessions, messages

    def __call__(self, session_id: SessionId) -> tuple[Branch, ...]:
        """Oldest leaf first; NotFound for an unknown session."""
        session = require_session(self._sessions, session_id)
        return tuple(Tree(self._messages.tree(session.id)).branches())


class CheckoutBranchUseCase:
    """Switches a session to the branch through a message: the newest leaf at or below it."""

    def __init__(self, switcher: BranchSwitcher, sessions: SessionRepository, messages: MessageRepository, *,
                 gate: TurnGate | None = None) -> None:
        """`gate`: a checkout while a turn runs in the conversation is refused (ConversationBusy): the turn's
        reply must land on the path its question was asked on."""
        self._switcher, self._sessions, self._messages, self._gate = switcher, sessions, messages, gate

    def __call__(self, session_id: SessionId, message_id: MessageId) -> Session:
        """The session on its new path; NotFound for a message that is not in the session, ConversationBusy while
        a turn runs in it."""
        session = require_session(self._sessions, session_id)
        with self._gate.exclusive(session.id, "Switch branches") if self._gate is not None else nullcontext():
            return self._switcher.switch(session.id, self._messages.newest_leaf(session.id, message_id.strip()))


class DeleteBranchUseCase:
    """Deletes the part of a branch no other branch shares (from its fork message to its leaf); the conversation
    moves to the newest remaining branch when it was on the deleted one."""

    def __init__(self, store: UnitOfWork, switcher: BranchSwitcher, sessions: SessionRepository,
                 messages: MessageRepository, *, gate: TurnGate | None = None) -> None:
        """`gate`: refused while a turn runs in the conversation (it may be writing on that branch)."""
        self._store, self._switcher, self._sessions, self._messages = store, switcher, sessions, messages
        self._gate = gate

    def __call__(self, session_id: SessionId, message_id: MessageId) -> tuple[MessageId, ...]:
        """The ids deleted; `message_id` is any message of the branch's own part (its leaf, say). InvalidInput when
        the session has one branch only (delete the session instead) or the message is shared by other branches."""
        session = require_session(self._sessions, session_id)
        with self._gate.exclusive(session.id, "Delete the branch") if self._gate is not None else nullcontext():
            return self._delete(session, message_id)

    def _delete(self, session: Session, message_id: MessageId) -> tuple[MessageId, ...]:
        with self._store.atomic():
            tree = Tree(self._messages.tree(session.id))
            mid = message_id.strip()
            if mid not in tree.nodes:
                raise NotFound("message", message_id)
            leaf = tree.newest_leaf_under(mid)
            path = tree.path(leaf)
            fork = tree.fork_of(path)
            if fork is None:
                raise InvalidInput("This conversation has only one branch; delete the session instead.")
            if tree.nodes[mid].seq < fork.seq:
                raise InvalidInput(f"Message {mid} is shared with other branches; name a message of the branch's "
                                   f"own part (from {fork.id} on).")
            was_active = tree.nodes[leaf].active
            gone = tuple(self._messages.delete_subtree(session.id, fork.id))
            if was_active:
                remaining = Tree(self._messages.tree(session.id)).leaves()
                self._switcher.switch(session.id, remaining[-1].id if remaining else None)
        return gone
