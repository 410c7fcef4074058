"""Hand-written in-memory fakes of the ports in domain/ports.py, shared by every test."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from domain.errors import InvalidInput, NotFound
from domain.models import (
    AiModel,
    CompactionRecord,
    Message,
    MessageId,
    ModelId,
    ModelSource,
    ProviderId,
    Session,
    SessionId,
    Usage,
)
from domain.ports import SessionSearchHit
from tests.fakes_config import (  # re-exported: every test imports its fakes from tests.fakes
    FakeAgentRepository,
    FakeApiKeyStorage,
    FakeMemoryRepository,
    FakeProviderRepository,
    FakeSettingsRepository,
)

__all__ = [
    "FakeAgentRepository", "FakeApiKeyStorage", "FakeCalibrationStore", "FakeClock", "FakeMemoryRepository",
    "FakeMessageRepository", "FakeModelRepository", "FakeProviderRepository", "FakeSessionRepository",
    "FakeSettingsRepository", "FakeSummarizer", "SummarizerCall", "make_session", "next_id",
]


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
    """Sessions in a dict; apply_compaction records every call like the real transaction would."""

    def __init__(self) -> None:
        self.sessions: dict[SessionId, Session] = {}
        self.records: list[CompactionRecord] = []
        self.apply_calls = 0

    def create(self, session: Session) -> Session:
        if session.id in self.sessions:
            raise InvalidInput(f"Session {session.id!r} already exists.")
        self.sessions[session.id] = session
        return session

    def get(self, session_id: SessionId) -> Session | None:
        return self.sessions.get(session_id)

    def _require(self, session_id: SessionId) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        return session

    def list(self, *, include_deleted: bool = False) -> Sequence[Session]:
        found = [s for s in self.sessions.values() if include_deleted or s.deleted_at is None]
        return sorted(found, key=lambda s: s.updated_at, reverse=True)

    def update(self, session: Session) -> Session:
        self._require(session.id)
        self.sessions[session.id] = session
        return session

    def add_usage(self, session_id: SessionId, usage: Usage) -> Session:
        s = self._require(session_id)
        s = replace(
            s,
            total_input_tokens=s.total_input_tokens + usage.input_tokens,
            total_output_tokens=s.total_output_tokens + usage.output_tokens,
            total_cache_read_tokens=s.total_cache_read_tokens + usage.cache_read_tokens,
        )
        self.sessions[session_id] = s
        return s

    def apply_compaction(
        self, session_id: SessionId, *, summary: str, boundary: int, record: CompactionRecord
    ) -> Session:
        s = self._require(session_id)
        self.apply_calls += 1
        s = replace(
            s,
            compacted_summary=summary,
            compact_boundary=boundary,
            compaction_count=s.compaction_count + 1,
            flushed_in_compaction_cycle=False,
        )
        self.sessions[session_id] = s
        self.records.append(record)
        return s

    def compactions(self, session_id: SessionId) -> Sequence[CompactionRecord]:
        return [r for r in self.records if r.session_id == session_id]

    def delete(self, session_id: SessionId, at: datetime) -> None:
        self.sessions[session_id] = replace(self._require(session_id), deleted_at=at)

    def restore(self, session_id: SessionId) -> None:
        self.sessions[session_id] = replace(self._require(session_id), deleted_at=None)

    def purge(self, session_id: SessionId) -> None:
        self._require(session_id)
        del self.sessions[session_id]

    def search(self, query: str, limit: int = 50) -> Sequence[SessionSearchHit]:
        q = query.lower()
        hits = [
            SessionSearchHit(s.id, s.title, s.title)
            for s in self.sessions.values()
            if q in s.title.lower() or q in (s.compacted_summary or "").lower()
        ]
        return hits[:limit]


class FakeMessageRepository:
    """Messages per session in seq order (seq starts at 1); full outputs kept in a dict."""

    def __init__(self) -> None:
        self.messages: dict[SessionId, list[Message]] = {}
        self.full_outputs: dict[MessageId, str] = {}
        self._ids: set[MessageId] = set()

    def add(self, message: Message, *, full_output: str | None = None) -> Message:
        rows = self.messages.setdefault(message.session_id, [])
        if message.id in self._ids:
            raise InvalidInput(f"Message {message.id!r} already exists.")
        self._ids.add(message.id)
        stored = replace(message, seq=(rows[-1].seq + 1) if rows else 1)
        rows.append(stored)
        if full_output is not None:
            self.full_outputs[stored.id] = full_output
        return stored

    def get(self, message_id: MessageId) -> Message | None:
        for rows in self.messages.values():
            for m in rows:
                if m.id == message_id:
                    return m
        return None

    def snapshot(self, session_id: SessionId) -> Sequence[Message]:
        return list(self.messages.get(session_id, []))

    def since(self, session_id: SessionId, seq: int) -> Sequence[Message]:
        return [m for m in self.messages.get(session_id, []) if m.seq >= seq]

    def pinned(self, session_id: SessionId) -> Sequence[Message]:
        return [m for m in self.messages.get(session_id, []) if m.pinned]

    def update(self, message: Message) -> Message:
        rows = self.messages.get(message.session_id, [])
        for i, m in enumerate(rows):
            if m.id == message.id:
                rows[i] = replace(message, seq=m.seq)
                return rows[i]
        raise NotFound("message", message.id)

    def full_output(self, message_id: MessageId) -> str | None:
        return self.full_outputs.get(message_id)

    def count(self, session_id: SessionId) -> int:
        return len(self.messages.get(session_id, []))


class FakeModelRepository:
    """Models keyed by (provider, model); resolve guesses an unknown window as None unless a default is set."""

    def __init__(self, models: Sequence[AiModel] = (), guess_window: int | None = None) -> None:
        self.models: dict[tuple[ProviderId, ModelId], AiModel] = {(m.provider_id, m.id): m for m in models}
        self.guess_window = guess_window
        self.recorded_limits: list[tuple[ProviderId, ModelId, int]] = []

    def list(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        return [m for m in self.models.values() if provider_id is None or m.provider_id == provider_id]

    def get(self, provider_id: ProviderId, model_id: ModelId) -> AiModel | None:
        return self.models.get((provider_id, model_id))

    def resolve(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        found = self.get(provider_id, model_id)
        if found is not None:
            return found
        return AiModel(
            id=model_id, display_name=None, provider_id=provider_id,
            context_window_size=self.guess_window, window_is_guess=True,
        )

    def upsert(self, model: AiModel) -> AiModel:
        self.models[(model.provider_id, model.id)] = model
        return model

    def store_fetched(self, provider_id: ProviderId, models: Sequence[AiModel]) -> None:
        for m in models:
            old = self.get(provider_id, m.id)
            if old is not None and old.user_window:
                m = replace(m, context_window_size=old.context_window_size, user_window=True)
            self.upsert(replace(m, source=ModelSource.FETCHED))

    def set_user_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None = None
    ) -> AiModel:
        m = self.resolve(provider_id, model_id)
        m = replace(m, context_window_size=window, user_window=True, window_is_guess=False,
                    max_output_tokens=max_output or m.max_output_tokens)
        return self.upsert(m)

    def record_limit(self, provider_id: ProviderId, model_id: ModelId, limit: int) -> None:
        self.recorded_limits.append((provider_id, model_id, limit))
        m = self.resolve(provider_id, model_id)
        if not m.user_window:
            self.upsert(replace(m, context_window_size=limit, window_is_guess=False))


class FakeCalibrationStore:
    """Calibration ratios in a dict."""

    def __init__(self) -> None:
        self.ratios: dict[str, float] = {}

    def get(self, key: str) -> float | None:
        return self.ratios.get(key)

    def put(self, key: str, ratio: float) -> None:
        self.ratios[key] = ratio


@dataclass(frozen=True)
class SummarizerCall:
    """One call the FakeSummarizer received."""

    provider_id: ProviderId
    model_id: ModelId
    system: str
    prompt: str
    max_tokens: int


class FakeSummarizer:
    """Returns queued summaries, or raises queued errors, and records every call; with an empty queue it
    answers `default` (None: raise AssertionError, so an unexpected call fails the test loudly)."""

    def __init__(self, *replies: str | Exception, default: str | None = None) -> None:
        self.replies: deque[str | Exception] = deque(replies)
        self.default = default
        self.calls: list[SummarizerCall] = []

    @property
    def prompts(self) -> list[str]:
        return [c.prompt for c in self.calls]

    async def summarize(
        self, *, provider_id: ProviderId, model_id: ModelId, system: str, prompt: str, max_tokens: int
    ) -> str:
        self.calls.append(SummarizerCall(provider_id, model_id, system, prompt, max_tokens))
        if self.replies:
            reply = self.replies.popleft()
        elif self.default is not None:
            reply = self.default
        else:
            raise AssertionError("FakeSummarizer called with no reply queued")
        if isinstance(reply, Exception):
            raise reply
        return reply


_ids = itertools.count(1)


def make_session(session_id: SessionId = "s1", **fields: object) -> Session:
    """A session with sensible defaults for tests."""
    at = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    base = Session(id=session_id, title="Test", current_agent_id=None, created_at=at, updated_at=at)
    return replace(base, **fields)  # type: ignore[arg-type]


def next_id(prefix: str = "m") -> str:
    """A unique id for test objects."""
    return f"{prefix}{next(_ids)}"
