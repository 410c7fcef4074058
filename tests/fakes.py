"""Hand-written in-memory fakes of the ports in domain/ports.py, shared by every test."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from domain.errors import InvalidInput, KeychainUnavailable, NotFound
from domain.models import (
    Agent,
    AgentId,
    AiModel,
    CompactionRecord,
    Memory,
    MemoryId,
    Message,
    MessageId,
    ModelId,
    ModelSource,
    Provider,
    ProviderId,
    Session,
    SessionId,
    Usage,
)
from domain.ports import KeySource, SessionSearchHit
from domain.settings import ContextSettings


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


class FakeMemoryRepository:
    """Memories in a dict; search is a case-insensitive substring match."""

    def __init__(self) -> None:
        self.memories: dict[MemoryId, Memory] = {}

    def add(self, memory: Memory) -> Memory:
        self.memories[memory.id] = memory
        return memory

    def get(self, memory_id: MemoryId) -> Memory | None:
        return self.memories.get(memory_id)

    def list(self, agent_id: AgentId | None = None) -> Sequence[Memory]:
        found = [m for m in self.memories.values() if agent_id is None or m.agent_id in (agent_id, None)]
        return sorted(found, key=lambda m: m.created_at, reverse=True)

    def search(self, query: str, agent_id: AgentId | None = None, limit: int = 10) -> Sequence[Memory]:
        words = query.lower().split()
        return [m for m in self.list(agent_id) if any(w in m.content.lower() for w in words)][:limit]

    def update(self, memory: Memory) -> Memory:
        if memory.id not in self.memories:
            raise NotFound("memory", memory.id)
        self.memories[memory.id] = memory
        return memory

    def delete(self, memory_id: MemoryId) -> None:
        if memory_id not in self.memories:
            raise NotFound("memory", memory_id)
        del self.memories[memory_id]


class FakeAgentRepository:
    """Agents in a dict; the first one added (or a built-in "default") is the default."""

    def __init__(self, agents: Sequence[Agent] = ()) -> None:
        self.agents: dict[AgentId, Agent] = {a.id: a for a in agents}

    def list(self) -> Sequence[Agent]:
        return list(self.agents.values())

    def get(self, agent_id: AgentId) -> Agent | None:
        return self.agents.get(agent_id)

    def find(self, id_or_name: str) -> Agent | None:
        return self.agents.get(id_or_name) or next(
            (a for a in self.agents.values() if a.name.lower() == id_or_name.lower()), None
        )

    def default(self) -> Agent:
        if not self.agents:
            self.agents["default"] = Agent(id="default", name="Default")
        return next(iter(self.agents.values()))

    def add(self, agent: Agent) -> Agent:
        self.agents[agent.id] = agent
        return agent

    def update(self, agent: Agent) -> Agent:
        if agent.id not in self.agents:
            raise NotFound("agent", agent.id)
        self.agents[agent.id] = agent
        return agent

    def delete(self, agent_id: AgentId) -> None:
        if agent_id not in self.agents:
            raise NotFound("agent", agent_id)
        del self.agents[agent_id]


class FakeProviderRepository:
    """Providers in a dict, in insertion order."""

    def __init__(self, providers: Sequence[Provider] = ()) -> None:
        self.providers: dict[ProviderId, Provider] = {p.id: p for p in providers}

    def list(self) -> Sequence[Provider]:
        return list(self.providers.values())

    def get(self, provider_id: ProviderId) -> Provider | None:
        return self.providers.get(provider_id)

    def find(self, id_or_name: str) -> Provider | None:
        return self.providers.get(id_or_name) or next(
            (p for p in self.providers.values() if p.name.lower() == id_or_name.lower()), None
        )

    def add(self, provider: Provider) -> Provider:
        if provider.id in self.providers:
            raise InvalidInput(f"Provider {provider.id!r} already exists.")
        self.providers[provider.id] = provider
        return provider

    def update(self, provider: Provider) -> Provider:
        if provider.id not in self.providers:
            raise NotFound("provider", provider.id)
        self.providers[provider.id] = provider
        return provider


class FakeSettingsRepository:
    """Holds one ContextSettings."""

    def __init__(self, settings: ContextSettings | None = None) -> None:
        self.settings = settings or ContextSettings()

    def context_settings(self) -> ContextSettings:
        return self.settings

    def save_context_settings(self, settings: ContextSettings) -> None:
        self.settings = settings


class FakeApiKeyStorage:
    """Keys in a dict (the "keychain") with an optional environment dict behind it."""

    def __init__(self, environment: dict[ProviderId, str] | None = None, *, keychain_broken: str | None = None) -> None:
        self.keys: dict[ProviderId, str] = {}
        self.environment = dict(environment or {})
        self.keychain_broken = keychain_broken

    def get(self, provider_id: ProviderId) -> str | None:
        return self.keys.get(provider_id) or self.environment.get(provider_id)

    def source(self, provider_id: ProviderId) -> KeySource | None:
        if provider_id in self.keys:
            return "keychain"
        if provider_id in self.environment:
            return "environment"
        return None

    def set(self, provider_id: ProviderId, key: str) -> None:
        if self.keychain_broken is not None:
            raise KeychainUnavailable(self.keychain_broken)
        self.keys[provider_id] = key

    def delete(self, provider_id: ProviderId) -> None:
        self.keys.pop(provider_id, None)

    def keychain_problem(self) -> str | None:
        return self.keychain_broken


_ids = itertools.count(1)


def make_session(session_id: SessionId = "s1", **fields: object) -> Session:
    """A session with sensible defaults for tests."""
    at = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    base = Session(id=session_id, title="Test", current_agent_id=None, created_at=at, updated_at=at)
    return replace(base, **fields)  # type: ignore[arg-type]


def next_id(prefix: str = "m") -> str:
    """A unique id for test objects."""
    return f"{prefix}{next(_ids)}"
