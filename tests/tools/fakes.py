"""Hand-written in-memory repositories and a fixed clock for the tool tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from domain.models import Memory, MemoryId, Message, MessageId, SessionId


class FixedClock:
    """Always the same instant."""

    def __init__(self, at: datetime | None = None) -> None:
        self.at = at or datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

    def now(self) -> datetime:
        return self.at


class FakeMemories:
    """Memories in a list; search matches every query word case-insensitively."""

    def __init__(self) -> None:
        self.items: list[Memory] = []

    def add(self, memory: Memory) -> Memory:
        self.items.append(memory)
        return memory

    def get(self, memory_id: MemoryId) -> Memory | None:
        return next((m for m in self.items if m.id == memory_id), None)

    def list(self, agent_id: str | None = None) -> Sequence[Memory]:
        return [m for m in reversed(self.items) if agent_id is None or m.agent_id in (agent_id, None)]

    def search(self, query: str, agent_id: str | None = None, limit: int = 10) -> Sequence[Memory]:
        words = query.lower().split()
        hits = [m for m in self.list(agent_id) if all(w in m.content.lower() for w in words)]
        return hits[:limit]

    def update(self, memory: Memory) -> Memory:
        self.items = [memory if m.id == memory.id else m for m in self.items]
        return memory

    def delete(self, memory_id: MemoryId) -> None:
        self.items = [m for m in self.items if m.id != memory_id]


class FakeMessages:
    """Messages in a list with a side table of full outputs."""

    def __init__(self) -> None:
        self.items: list[Message] = []
        self.full: dict[str, str] = {}

    def add(self, message: Message, *, full_output: str | None = None) -> Message:
        stored = replace(message, seq=sum(1 for m in self.items if m.session_id == message.session_id) + 1)
        self.items.append(stored)
        if full_output is not None:
            self.full[stored.id] = full_output
        return stored

    def get(self, message_id: MessageId) -> Message | None:
        return next((m for m in self.items if m.id == message_id), None)

    def snapshot(self, session_id: SessionId) -> Sequence[Message]:
        return [m for m in self.items if m.session_id == session_id]

    def since(self, session_id: SessionId, seq: int) -> Sequence[Message]:
        return [m for m in self.snapshot(session_id) if m.seq >= seq]

    def pinned(self, session_id: SessionId) -> Sequence[Message]:
        return [m for m in self.snapshot(session_id) if m.pinned]

    def update(self, message: Message) -> Message:
        self.items = [message if m.id == message.id else m for m in self.items]
        return message

    def full_output(self, message_id: MessageId) -> str | None:
        return self.full.get(message_id)

    def count(self, session_id: SessionId) -> int:
        return len(self.snapshot(session_id))
