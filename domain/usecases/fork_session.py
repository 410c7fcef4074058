"""Fork: a new session holding a copy of one path of a conversation, up to a chosen message."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace

from domain.chat.tree import Tree, checkpoint_for
from domain.chat.turn_gate import TurnGate
from domain.errors import NotFound
from domain.lookup import require_session
from domain.models import MessageId, Session, SessionId
from domain.ports import Clock, MessageRepository, SessionRepository, UnitOfWork


class ForkSessionUseCase:
    """Copies the path from the first message to `message_id` into a new session (new ids, same contents, the
    kept tool-output originals and the summary that holds on that path), in one transaction."""

    def __init__(
        self,
        store: UnitOfWork,
        sessions: SessionRepository,
        messages: MessageRepository,
        clock: Clock,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        *,
        gate: TurnGate | None = None,
    ) -> None:
        """`gate`: refused while a turn runs in the conversation (the path may hold a question without its reply)."""
        self._store, self._sessions, self._messages = store, sessions, messages
        self._clock, self._new_id, self._gate = clock, new_id, gate

    def __call__(self, session_id: SessionId, message_id: MessageId) -> Session:
        """The new session; NotFound for an unknown session or a message not in it, ConversationBusy while a turn
        runs in it."""
        source = require_session(self._sessions, session_id)
        with self._gate.exclusive(source.id, "Fork it when it is done") if self._gate else nullcontext():
            return self._fork(source, message_id)

    def _fork(self, source: Session, message_id: MessageId) -> Session:
        with self._store.atomic():
            tree = Tree(self._messages.tree(source.id))
            if message_id.strip() not in tree.nodes:
                raise NotFound("message", message_id)
            path = [n.id for n in tree.path(message_id.strip())]
            now = self._clock.now()
            fork = self._sessions.create(Session(
                id=self._new_id(), title=f"{source.title} (fork)", current_agent_id=source.current_agent_id,
                created_at=now, updated_at=now, current_provider_id=source.current_provider_id,
                current_model_id=source.current_model_id, reasoning=source.reasoning,
                system_prompt=source.system_prompt,  # the conversation's own settings go with it
            ))
            new_ids: dict[MessageId, MessageId] = {}
            copies = {}
            for old_id in path:
                old = self._messages.get(old_id)
                assert old is not None, "a node of the tree is a stored message"
                copy = self._messages.add(
                    replace(old, id=self._new_id(), session_id=fork.id, parent_id=None, active=True),
                    full_output=self._messages.full_output(old_id),
                )
                new_ids[old_id], copies[old_id] = copy.id, copy
            record = checkpoint_for(path, self._sessions.compactions(source.id))
            if record is not None and record.summary and record.through_id in new_ids:
                through = copies[record.through_id]
                fork = self._sessions.apply_compaction(
                    fork.id, summary=record.summary, boundary=through.seq + 1,
                    record=replace(record, session_id=fork.id, created_at=now, boundary=through.seq + 1,
                                   through_id=through.id, trigger="fork"),
                )
        return self._sessions.get(fork.id) or fork
