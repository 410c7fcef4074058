"""TurnStore: every write of a chat turn, each one a single transaction (a round is stored whole or not at all)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace

from domain.chat.paths import BranchSwitcher
from domain.errors import NotFound
from domain.models import Agent, AiModel, Message, MessageId, MessageType, Provider, Session, SessionId, Usage
from domain.ports import MessageRepository, SessionRepository, UnitOfWork


@dataclass(frozen=True)
class StoredRound:
    """A round as stored: the reply and its tool-call messages (with their seq)."""

    reply: Message
    calls: tuple[Message, ...]

    @property
    def messages(self) -> tuple[Message, ...]:
        """The reply then its tool calls, in seq order."""
        return (self.reply, *self.calls)


class TurnStore:
    """Writes what a turn produces; the store keeps message_count, the preview and updated_at with each message."""

    def __init__(self, store: UnitOfWork, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._store = store
        self._sessions = sessions
        self.messages = messages
        self._switcher = BranchSwitcher(store, sessions, messages)

    def add(self, message: Message) -> Message:
        """Stores one message (the user's text, a tool result) and returns it with its seq."""
        return self.messages.add(message)

    def transaction(self) -> AbstractContextManager[None]:
        """One transaction around several of these writes (they join it)."""
        return self._store.atomic()

    def begin(
        self,
        session: Session,
        user: Message | None,
        agent: Agent,
        provider: Provider,
        model: AiModel,
    ) -> tuple[Message | None, Session, bool]:
        """The user's message (None on a regenerate) and the turn's choice of agent, provider and model, in one
        transaction; returns the stored message, the session and whether the model changed. A choice the session
        (as just loaded) already has is not written again."""
        chosen = (agent.id, provider.id, model.id)
        with self._store.atomic():
            stored = self.messages.add(user) if user is not None else None
            if (session.current_agent_id, session.current_provider_id, session.current_model_id) == chosen:
                return stored, session, False
            updated, switched = self.choose(session.id, agent, provider, model)
        return stored, updated, switched

    def switch_path(self, session_id: SessionId, leaf_id: MessageId | None) -> Session:
        """Moves the conversation to the path ending at `leaf_id` (an edit, a regenerate), with its summary."""
        return self._switcher.switch(session_id, leaf_id)

    def last_user_on_path(self, session_id: SessionId) -> Message | None:
        """The newest user message on the active path, behind the compaction boundary included."""
        return next((m for m in reversed(self.messages.snapshot(session_id)) if m.type is MessageType.USER), None)

    def asked_before(self, session_id: SessionId, reply_id: MessageId) -> Message | None:
        """The user message a reply answers: its nearest user ancestor (NotFound for a message not in the session)."""
        node = self.messages.get(reply_id)
        if node is None or node.session_id != session_id:
            raise NotFound("message", reply_id)
        while node is not None and node.type is not MessageType.USER:
            node = self.messages.get(node.parent_id) if node.parent_id else None
        return node

    def choose(self, session_id: SessionId, agent: Agent, provider: Provider, model: AiModel) -> tuple[Session, bool]:
        """Stores the turn's agent, provider and model on the session so a switch sticks; True when the session
        was on another model before. Read and write share one transaction (a concurrent compaction is kept)."""
        with self._store.atomic():
            current = self._sessions.get(session_id)
            assert current is not None, "the session was loaded a moment ago"
            before = (current.current_provider_id, current.current_model_id)
            updated = self._sessions.update(
                replace(current, current_agent_id=agent.id, current_provider_id=provider.id,
                        current_model_id=model.id)
            )
        return updated, before[1] is not None and before != (provider.id, model.id)

    def write_draft(self, reply: Message, *, exists: bool) -> Message:
        """The streaming reply so far (marked incomplete), stored or updated in place in its own transaction."""
        return self.messages.update(reply) if exists else self.messages.add(reply)

    def save_round(
        self, reply: Message, calls: Sequence[Message], usage: Usage, *, draft: bool = False
    ) -> StoredRound:
        """The reply (completing its draft when one was written), its tool calls and the usage added to the
        session's totals, in one transaction."""
        with self._store.atomic():
            stored = self.messages.update(reply) if draft else self.messages.add(reply)
            stored_calls = tuple(self.messages.add(call) for call in calls)
            if usage.input_tokens or usage.output_tokens or usage.cache_read_tokens:
                self._sessions.add_usage(reply.session_id, usage)
        return StoredRound(stored, stored_calls)

    def save_partial(
        self, reply: Message | None, interrupted: Sequence[Message], *, draft: bool = False
    ) -> list[Message]:
        """An interrupted turn: the partial reply (marked incomplete; completing its draft when one was written) and
        error results for calls left unanswered, in one transaction."""
        with self._store.atomic():
            out = []
            if reply is not None:
                out.append(self.messages.update(reply) if draft else self.messages.add(reply))
            out.extend(self.messages.add(result) for result in interrupted)
        return out

