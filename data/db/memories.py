"""MemoryRepository over SQLite with FTS5 search."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import or_, select, text

from data.db.engine import Database
from data.db.fts import fts_query
from data.db.mappers import memory_to_domain
from data.db.rows import AgentRow, MemoryRow, SessionRow
from domain.errors import InvalidInput, NotFound
from domain.models import AgentId, Memory, MemoryId

_SEARCH = text(
    "SELECT m.id FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
    " WHERE memories_fts MATCH :q AND (:all_agents OR m.agent_id IS NULL OR m.agent_id = :agent)"
    " ORDER BY rank LIMIT :n"
)


class SqlMemoryRepository:
    """Long-term memories of agents (agent_id None = global)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, memory: Memory) -> Memory:
        if not memory.content.strip():
            raise InvalidInput("A memory cannot be empty.")
        with self._db.write() as s:
            if s.get(MemoryRow, memory.id) is not None:
                raise InvalidInput(f"A memory with id {memory.id!r} already exists.")
            if memory.agent_id is not None and s.get(AgentRow, memory.agent_id) is None:
                raise NotFound("agent", memory.agent_id)
            source = memory.source_session_id
            if source is not None and s.get(SessionRow, source) is None:
                source = None
            s.add(MemoryRow(id=memory.id, agent_id=memory.agent_id, content=memory.content,
                            created_at=memory.created_at, source_session_id=source))
        return memory if source == memory.source_session_id else Memory(
            memory.id, memory.content, memory.created_at, memory.agent_id, None)

    def get(self, memory_id: MemoryId) -> Memory | None:
        with self._db.read() as s:
            row = s.get(MemoryRow, memory_id)
            return memory_to_domain(row) if row else None

    def list(self, agent_id: AgentId | None = None) -> Sequence[Memory]:
        return list(self._db.cached(("memories", agent_id), lambda: self._list(agent_id)))

    def _list(self, agent_id: AgentId | None) -> tuple[Memory, ...]:
        query = select(MemoryRow).order_by(MemoryRow.created_at.desc(), MemoryRow.id)
        if agent_id is not None:
            query = query.where(or_(MemoryRow.agent_id.is_(None), MemoryRow.agent_id == agent_id))
        with self._db.read() as s:
            return tuple(memory_to_domain(r) for r in s.scalars(query))

    def search(self, query: str, agent_id: AgentId | None = None, limit: int = 10) -> Sequence[Memory]:
        match = fts_query(query)
        if match is None or limit <= 0:
            return []
        with self._db.read() as s:
            ids = [r[0] for r in s.execute(_SEARCH, {"q": match, "all_agents": agent_id is None,
                                                     "agent": agent_id, "n": limit})]
            rows = {r.id: r for r in s.scalars(select(MemoryRow).where(MemoryRow.id.in_(ids)))}
            return [memory_to_domain(rows[i]) for i in ids if i in rows]

    def update(self, memory: Memory) -> Memory:
        if not memory.content.strip():
            raise InvalidInput("A memory cannot be empty.")
        with self._db.write() as s:
            row = s.get(MemoryRow, memory.id)
            if row is None:
                raise NotFound("memory", memory.id)
            if memory.agent_id is not None and s.get(AgentRow, memory.agent_id) is None:
                raise NotFound("agent", memory.agent_id)
            row.content, row.agent_id = memory.content, memory.agent_id
            s.flush()
            return memory_to_domain(row)

    def delete(self, memory_id: MemoryId) -> None:
        with self._db.write() as s:
            row = s.get(MemoryRow, memory_id)
            if row is None:
                raise NotFound("memory", memory_id)
            s.delete(row)
