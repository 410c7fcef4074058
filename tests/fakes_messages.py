"""The in-memory fake of MessageRepository (re-exported by tests.fakes, which every test imports its fakes from)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from domain.errors import InvalidInput, NotFound
from domain.models import Message, MessageId, MessageType, ModelId, Session, SessionId, TreeNode

if TYPE_CHECKING:
    from tests.fakes import FakeSessionRepository

PREVIEW_CHARS = 120  # the store's preview length (data/db/message_writes.py)


class FakeMessageRepository:
    """Messages per session in seq order (seq starts at 1); full outputs kept in a dict.

    Linked to `sessions` (as the store is), adding to an unknown session is NotFound and every add keeps the
    session's message_count, last_message_preview and updated_at, like the store's own transaction. Unlinked,
    it stores messages of any session id and touches no session."""

    def __init__(self, *, sessions: FakeSessionRepository | None = None) -> None:
        self.messages: dict[SessionId, list[Message]] = {}
        self.full_outputs: dict[MessageId, str] = {}
        self._ids: set[MessageId] = set()
        self.sessions = sessions
        if sessions is not None:
            sessions.linked_messages = self

    def add(self, message: Message, *, full_output: str | None = None) -> Message:
        session = self.sessions.get(message.session_id) if self.sessions is not None else None
        if self.sessions is not None and session is None:
            raise NotFound("session", message.session_id)
        if message.id in self._ids:
            raise InvalidInput(f"A message with id {message.id!r} already exists.")
        rows = self.messages.setdefault(message.session_id, [])
        parent = message.parent_id
        if parent is not None and all(m.id != parent for m in rows):
            raise NotFound("message", parent)
        if parent is None:
            parent = next((m.id for m in reversed(rows) if m.active), None)
        self._ids.add(message.id)
        created = message.created_at or datetime.now(UTC)
        stored = replace(message, seq=(rows[-1].seq + 1) if rows else 1, created_at=created, parent_id=parent)
        rows.append(stored)
        if full_output is not None:
            self.full_outputs[stored.id] = full_output
        if self.sessions is not None and session is not None:
            self._touch(self.sessions, session, stored, created)
        return stored

    def add_many(self, messages: Sequence[Message]) -> int:
        for message in messages:
            self.add(message)
        return len(messages)

    def get(self, message_id: MessageId) -> Message | None:
        return next((m for rows in self.messages.values() for m in rows if m.id == message_id), None)

    def snapshot(self, session_id: SessionId, *, include_inactive: bool = False) -> Sequence[Message]:
        return [m for m in self.messages.get(session_id, []) if include_inactive or m.active]

    def since(self, session_id: SessionId, seq: int) -> Sequence[Message]:
        return [m for m in self.messages.get(session_id, []) if m.seq >= seq and m.active]

    def pinned(self, session_id: SessionId) -> Sequence[Message]:
        return [m for m in self.messages.get(session_id, []) if m.pinned and m.active]

    def path_lengths(self, session_id: SessionId, seq: int) -> Sequence[tuple[int, int, int, int, int]]:
        return [(m.seq, len(m.content), len(m.tool_input or ""), len(m.tool_name or ""), len(m.tool_output or ""))
                for m in self.since(session_id, seq)]

    def update(self, message: Message) -> Message:
        """Changes what a caller may set; id, session, seq and created_at stay as stored."""
        for rows in self.messages.values():
            for i, m in enumerate(rows):
                if m.id == message.id:
                    rows[i] = replace(message, session_id=m.session_id, seq=m.seq, created_at=m.created_at,
                                      parent_id=m.parent_id)
                    self._preview_on_update(rows[i], newest=i == len(rows) - 1)
                    return rows[i]
        raise NotFound("message", message.id)

    def _preview_on_update(self, message: Message, *, newest: bool) -> None:
        """Like the store: the newest message's text is the session's preview (a streamed reply grows)."""
        sessions = self.sessions
        if sessions is None or not newest or message.type not in (MessageType.USER, MessageType.AI_RESPONSE):
            return
        stored = sessions.sessions.get(message.session_id)
        if stored is not None and message.content.strip():
            sessions.sessions[message.session_id] = replace(
                stored, last_message_preview=" ".join(message.content.split())[:PREVIEW_CHARS]
            )

    def full_output(self, message_id: MessageId) -> str | None:
        return self.full_outputs.get(message_id)

    def count(self, session_id: SessionId) -> int:
        return len(self.messages.get(session_id, []))

    def tree(self, session_id: SessionId) -> Sequence[TreeNode]:
        return [TreeNode(m.id, m.parent_id, m.seq, m.type, m.active, m.content[:100])
                for m in self.messages.get(session_id, [])]

    def set_path(self, session_id: SessionId, leaf_id: MessageId | None) -> Sequence[MessageId]:
        rows = self.messages.get(session_id, [])
        by_id = {m.id: m for m in rows}
        if leaf_id is not None and leaf_id not in by_id:
            raise NotFound("message", leaf_id)
        path: list[MessageId] = []
        node = leaf_id
        while node is not None:
            path.append(node)
            node = by_id[node].parent_id
        on = set(path)
        self.messages[session_id] = [replace(m, active=m.id in on) if m.active != (m.id in on) else m for m in rows]
        return path[::-1]

    def path_tail(self, session_id: SessionId, count: int, before_seq: int | None = None) -> Sequence[Message]:
        path = [m for m in self.snapshot(session_id) if before_seq is None or m.seq < before_seq]
        return list(path[-count:]) if count > 0 else []

    def path_head(self, session_id: SessionId, count: int, after_seq: int) -> Sequence[Message]:
        return [m for m in self.snapshot(session_id) if m.seq > after_seq][:max(count, 0)]

    def path_count(self, session_id: SessionId, before_seq: int | None = None) -> int:
        return sum(1 for m in self.snapshot(session_id) if before_seq is None or m.seq < before_seq)

    def reply_searches(self, session_id: SessionId) -> Sequence[tuple[ModelId | None, int]]:
        counts: dict[ModelId | None, int] = {}
        for m in self.snapshot(session_id, include_inactive=True):
            if m.type is MessageType.AI_RESPONSE and m.web is not None:
                counts[m.model_id] = counts.get(m.model_id, 0) + m.web.billed_searches
        return list(counts.items())

    def reply_tokens(self, session_id: SessionId) -> Sequence[tuple[ModelId | None, int, int]]:
        sums: dict[ModelId | None, tuple[int, int]] = {}
        for m in self.snapshot(session_id, include_inactive=True):
            if m.type is MessageType.AI_RESPONSE and (m.input_tokens or m.output_tokens):
                i, o = sums.get(m.model_id, (0, 0))
                sums[m.model_id] = (i + (m.input_tokens or 0), o + (m.output_tokens or 0))
        return [(model, i, o) for model, (i, o) in sums.items()]

    def children(self, session_id: SessionId, parent_ids: Sequence[MessageId | None]
                 ) -> Mapping[MessageId | None, tuple[MessageId, ...]]:
        rows = self.messages.get(session_id, [])
        return {p: tuple(m.id for m in rows if m.parent_id == p) for p in parent_ids}

    def newest_leaf(self, session_id: SessionId, message_id: MessageId) -> MessageId:
        rows = self.messages.get(session_id, [])
        if all(m.id != message_id for m in rows):
            raise NotFound("message", message_id)
        below, parents = {message_id}, {m.parent_id for m in rows}
        for m in rows:
            if m.parent_id in below:
                below.add(m.id)
        return max((m for m in rows if m.id in below and m.id not in parents), key=lambda m: m.seq).id

    def delete_subtree(self, session_id: SessionId, message_id: MessageId) -> Sequence[MessageId]:
        rows = self.messages.get(session_id, [])
        if all(m.id != message_id for m in rows):
            raise NotFound("message", message_id)
        gone = {message_id}
        for m in rows:  # seq order: a parent comes before its children
            if m.parent_id in gone:
                gone.add(m.id)
        self.messages[session_id] = [m for m in rows if m.id not in gone]
        for i in gone:
            self._ids.discard(i)
            self.full_outputs.pop(i, None)
        if self.sessions is not None and session_id in self.sessions.sessions:
            stored = self.sessions.sessions[session_id]
            self.sessions.sessions[session_id] = replace(stored, message_count=stored.message_count - len(gone))
        return [m for m in (m.id for m in rows) if m in gone]

    def forget_session(self, session_id: SessionId) -> None:
        """Drops a purged session's messages and their archived outputs."""
        for m in self.messages.pop(session_id, []):
            self._ids.discard(m.id)
            self.full_outputs.pop(m.id, None)

    @staticmethod
    def _touch(sessions: FakeSessionRepository, session: Session, message: Message, created: datetime) -> None:
        """What the store does to the session in the same transaction as the insert."""
        stored = sessions.sessions[session.id]
        preview = stored.last_message_preview
        if message.type in (MessageType.USER, MessageType.AI_RESPONSE) and message.content.strip():
            preview = " ".join(message.content.split())[:PREVIEW_CHARS]
        sessions.sessions[session.id] = replace(
            stored, message_count=stored.message_count + 1, last_message_preview=preview,
            updated_at=max(stored.updated_at, created),
        )
