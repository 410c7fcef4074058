"""Hand-written in-memory fakes of the ports in domain/ports.py, shared by every test; tests/contracts/ holds the
repositories among them to the same contract as the SQLite ones."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from domain.errors import InvalidInput, NotFound
from domain.models import (
    CompactionRecord,
    Message,
    MessageId,
    MessageType,
    ModelId,
    Session,
    SessionId,
    TreeNode,
    Usage,
)
from domain.ports import SESSION_FIELDS, SessionSearchHit
from tests.fakes_config import (  # re-exported: every test imports its fakes from tests.fakes
    FakeAgentRepository,
    FakeApiKeyStorage,
    FakeCalibrationStore,
    FakeMemoryRepository,
    FakeProviderRepository,
    FakeSettingsRepository,
    full_text_match,
)
from tests.fakes_models import FakeModelRepository, FakeSummarizer, SummarizerCall

__all__ = [
    "FakeAgentRepository", "FakeApiKeyStorage", "FakeCalibrationStore", "FakeClock", "FakeMemoryRepository",
    "FakeMessageRepository", "FakeModelRepository", "FakeProviderRepository", "FakeSessionRepository",
    "FakeSettingsRepository", "FakeSummarizer", "SummarizerCall", "make_session", "next_id",
]

PREVIEW_CHARS = 120  # the store's preview length (data/db/message_writes.py)
CALLER_FIELDS = (  # what SessionRepository.update writes: exactly data/db/mappers.py session_onto_row
    "title", "current_agent_id", "is_active", "deleted_at", "updated_at", "compacted_summary", "compact_boundary",
    "flushed_in_compaction_cycle", "current_provider_id", "current_model_id", "reasoning",
    "system_prompt",
)


class FakeClock:
    """A clock that stands still until told to advance."""

    def __init__(self, start: datetime | None = None) -> None:
        self.current = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.current

    def advance(self, seconds: float = 1.0) -> datetime:
        self.current += timedelta(seconds=seconds)
        return self.current


class FakeSessionRepository:
    """Sessions in a dict. Like the store, `update` writes only the fields callers own (CALLER_FIELDS): message
    count and preview belong to MessageRepository.add, token totals to add_usage, compaction_count to
    apply_compaction. Linked to `agents`, an unknown agent is NotFound and a deleted agent reads as None; a
    FakeMessageRepository linked to it makes purge and search cover its messages."""

    def __init__(self, *, agents: FakeAgentRepository | None = None) -> None:
        self.sessions: dict[SessionId, Session] = {}
        self.records: list[CompactionRecord] = []
        self.apply_calls = 0
        self.agents = agents
        self.linked_messages: FakeMessageRepository | None = None

    def create(self, session: Session) -> Session:
        if session.id in self.sessions:
            raise InvalidInput(f"A session with id {session.id!r} already exists.")
        self._require_agent(session)
        self.sessions[session.id] = replace(
            session, message_count=0, compaction_count=0, total_input_tokens=0, total_output_tokens=0,
            total_cache_read_tokens=0,
        )
        return self._view(self.sessions[session.id])

    def get(self, session_id: SessionId) -> Session | None:
        found = self.sessions.get(session_id)
        return self._view(found) if found else None

    def list(self, *, include_deleted: bool = False) -> Sequence[Session]:
        found = [self._view(s) for s in self.sessions.values() if include_deleted or s.deleted_at is None]
        found.sort(key=lambda s: s.id)
        found.sort(key=lambda s: (s.updated_at, s.created_at), reverse=True)
        return found

    def update(self, session: Session) -> Session:
        old = self._require(session.id)
        self._require_agent(session)
        updated = replace(old, **{name: getattr(session, name) for name in CALLER_FIELDS})
        self.sessions[session.id] = replace(updated, updated_at=max(old.updated_at, session.updated_at))
        return self._view(self.sessions[session.id])

    def update_fields(self, session_id: SessionId, **fields: Any) -> Session:
        unknown = set(fields) - SESSION_FIELDS
        if unknown:
            raise InvalidInput(f"Session fields {sorted(unknown)} cannot be updated one by one.")
        old = self._require(session_id)
        if "updated_at" in fields:
            fields["updated_at"] = max(old.updated_at, fields["updated_at"])
        self.sessions[session_id] = replace(old, **fields)
        return self._view(self.sessions[session_id])

    def add_usage(self, session_id: SessionId, usage: Usage) -> Session:
        if min(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) < 0:
            raise InvalidInput("Token usage cannot be negative.")
        s = self._require(session_id)
        self.sessions[session_id] = replace(
            s,
            total_input_tokens=s.total_input_tokens + usage.input_tokens,
            total_output_tokens=s.total_output_tokens + usage.output_tokens,
            total_cache_read_tokens=s.total_cache_read_tokens + usage.cache_read_tokens,
        )
        return self._view(self.sessions[session_id])

    def apply_compaction(
        self, session_id: SessionId, *, summary: str, boundary: int, record: CompactionRecord
    ) -> Session:
        if not summary.strip():
            raise InvalidInput("A compaction summary cannot be blank.")
        if boundary < 0:
            raise InvalidInput(f"A compaction boundary must be a message seq (>= 0), not {boundary}.")
        s = self._require(session_id)
        self.apply_calls += 1
        self.sessions[session_id] = replace(
            s, compacted_summary=summary, compact_boundary=boundary, compaction_count=s.compaction_count + 1,
            flushed_in_compaction_cycle=False,
        )
        self.records.append(replace(record, session_id=session_id, boundary=boundary, summary=summary))
        return self._view(self.sessions[session_id])

    def reset_context(self, session_id: SessionId, record: CompactionRecord | None) -> Session:
        s = self._require(session_id)
        self.sessions[session_id] = replace(s, compacted_summary=None, compact_boundary=None,
                                            flushed_in_compaction_cycle=False)
        if record is not None:
            self.sessions[session_id] = replace(self.sessions[session_id],
                                                updated_at=max(s.updated_at, record.created_at))
            self.records.append(replace(record, session_id=session_id, summary=None, summary_tokens=0))
        return self._view(self.sessions[session_id])

    def revise_checkpoint(self, session_id: SessionId, summary: str) -> None:
        boundary = self._require(session_id).compact_boundary
        at = [i for i, r in enumerate(self.records) if r.session_id == session_id and r.boundary == boundary]
        if at:
            self.records[at[-1]] = replace(self.records[at[-1]], summary=summary)

    def compactions(self, session_id: SessionId) -> Sequence[CompactionRecord]:
        return [r for r in self.records if r.session_id == session_id]

    def delete(self, session_id: SessionId, at: datetime) -> None:
        self.sessions[session_id] = replace(self._require(session_id), deleted_at=at)

    def restore(self, session_id: SessionId) -> None:
        self.sessions[session_id] = replace(self._require(session_id), deleted_at=None)

    def purge(self, session_id: SessionId) -> None:
        """Removes the session with its compaction log and (when linked) its messages, like the store's cascade."""
        self._require(session_id)
        del self.sessions[session_id]
        self.records = [r for r in self.records if r.session_id != session_id]
        if self.linked_messages is not None:
            self.linked_messages.forget_session(session_id)

    def search(self, query: str, limit: int = 50) -> Sequence[SessionSearchHit]:
        """Sessions (not soft-deleted) whose title and summary, or one of whose messages (when linked), match
        every word of the query as a prefix."""
        if limit <= 0:
            return []
        hits = []
        for s in self.sessions.values():
            rows: list[tuple[list[str | None], str | None]] = [([s.title, s.compacted_summary], None)]
            if self.linked_messages is not None:
                rows += [([m.content, m.tool_output], m.id)
                         for m in self.linked_messages.snapshot(s.id, include_inactive=True)]
            match = next((row for row in rows if full_text_match(query, row[0])), None)
            if match is not None and s.deleted_at is None:
                hits.append(SessionSearchHit(s.id, s.title, " ".join(t for t in match[0] if t), match[1],
                                             not s.is_active))
        return hits[:limit]

    def _require(self, session_id: SessionId) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        return session

    def _require_agent(self, session: Session) -> None:
        agent_id = session.current_agent_id
        if agent_id is not None and self.agents is not None and self.agents.get(agent_id) is None:
            raise NotFound("agent", agent_id)

    def _view(self, session: Session) -> Session:
        """A deleted agent reads as None (the store's ON DELETE SET NULL)."""
        agent_id = session.current_agent_id
        if agent_id is not None and self.agents is not None and self.agents.get(agent_id) is None:
            return replace(session, current_agent_id=None)
        return session


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


_ids = itertools.count(1)


def make_session(session_id: SessionId = "s1", **fields: object) -> Session:
    """A session with sensible defaults for tests."""
    at = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    base = Session(id=session_id, title="Test", current_agent_id=None, created_at=at, updated_at=at)
    return replace(base, **fields)  # type: ignore[arg-type]


def next_id(prefix: str = "m") -> str:
    """A unique id for test objects."""
    return f"{prefix}{next(_ids)}"
