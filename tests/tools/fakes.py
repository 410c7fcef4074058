"""Hand-written in-memory repositories, a fixed clock, an approver and a resolver for the tool tests."""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from domain.models import Memory, MemoryId, Message, MessageId, SessionId
from domain.tool_approval import ApprovalRequest


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


class RecordingApprover:
    """Gives a fixed answer to every approval request and records what it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> bool:
        self.requests.append(request)
        return self.answer


class FakeResolver:
    """Answers host lookups from a table and records each lookup; an unknown name fails as getaddrinfo does.

    `later` answers the second and further lookups of a name (a DNS answer that changed: rebinding); with `strict`,
    any lookup fails the test."""

    def __init__(
        self,
        table: Mapping[str, Sequence[str]] | None = None,
        *,
        later: Mapping[str, Sequence[str]] | None = None,
        strict: bool = False,
    ) -> None:
        self.table = dict(table or {})
        self.later = dict(later or {})
        self.strict = strict
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        assert not self.strict, f"{host} was looked up, but a literal address needs no lookup"
        again = host in self.lookups
        self.lookups.append(host)
        answer = self.later.get(host) if again and host in self.later else self.table.get(host)
        if answer is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return list(answer)
