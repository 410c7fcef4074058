"""AttachedResourceStore over SQLite: the MCP resources attached in each conversation with the hash of the contents
last sent, so that each `palimpsest chat` (a process of its own) can tell whether one changed since."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.dialects.sqlite import insert

from data.db.engine import Database
from data.db.rows import McpAttachedResourceRow
from domain.attached_resources import AttachedResource


class SqlAttachedResources:
    """One row per (conversation, server, URI); the conversation's removal removes them (ON DELETE CASCADE)."""

    def __init__(self, db: Database, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._db = db
        self._now = now

    def of(self, session_id: str) -> Sequence[AttachedResource]:
        query = (select(McpAttachedResourceRow).where(McpAttachedResourceRow.session_id == session_id)
                 .order_by(McpAttachedResourceRow.attached_at, McpAttachedResourceRow.server,
                           McpAttachedResourceRow.uri))
        with self._db.read() as s:
            return [AttachedResource(r.server, r.uri, r.content_hash) for r in s.scalars(query)]

    def remember(self, session_id: str, resources: Sequence[AttachedResource]) -> None:
        now = self._now()
        with self._db.write() as s:
            for resource in resources:
                statement = insert(McpAttachedResourceRow).values(
                    session_id=session_id, server=resource.server, uri=resource.uri,
                    content_hash=resource.content_hash, attached_at=now)
                s.execute(statement.on_conflict_do_update(
                    index_elements=["session_id", "server", "uri"],
                    set_={"content_hash": statement.excluded.content_hash}))
