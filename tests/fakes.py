"""Hand-written in-memory fakes of the ports in domain/ports.py, shared by every test; tests/contracts/ holds the
repositories among them to the same contract as the SQLite ones."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from domain.errors import InvalidInput, NotFound
from domain.models import (
    CompactionRecord,
    Session,
    SessionId,
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
from tests.fakes_messages import FakeMessageRepository
from tests.fakes_models import FakeModelRepository, FakeSummarizer, SummarizerCall

__all__ = [
    "FakeAgentRepository", "FakeApiKeyStorage", "FakeCalibrationStore", "FakeClock", "FakeMemoryRepository",
    "FakeMessageRepository", "FakeModelRepository", "FakeProviderRepository", "FakeSessionRepository",
    "FakeSettingsRepository", "FakeSummarizer", "SummarizerCall", "make_session", "next_id",
]

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

    def add_usage(self, session_id: SessionId, usage: Usage) -> None:
        if min(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) < 0:
            raise InvalidInput("Token usage cannot be negative.")
        s = self._require(session_id)
        self.sessions[session_id] = replace(
            s,
            total_input_tokens=s.total_input_tokens + usage.input_tokens,
            total_output_tokens=s.total_output_tokens + usage.output_tokens,
            total_cache_read_tokens=s.total_cache_read_tokens + usage.cache_read_tokens,
        )

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


_ids = itertools.count(1)


def make_session(session_id: SessionId = "s1", **fields: object) -> Session:
    """A session with sensible defaults for tests."""
    at = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    base = Session(id=session_id, title="Test", current_agent_id=None, created_at=at, updated_at=at)
    return replace(base, **fields)  # type: ignore[arg-type]


def next_id(prefix: str = "m") -> str:
    """A unique id for test objects."""
    return f"{prefix}{next(_ids)}"
