"""The MCP resources attached in each conversation over sqlite3 (the contract of data.db.attached_resources), so that
a chat turn on the lite store reads and records them without the full store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from data.lite.db import LiteDatabase, micros
from data.lite.fallback import Delegating
from domain.attached_resources import AttachedResource

_OF = ("SELECT server, uri, content_hash FROM mcp_attached_resources WHERE session_id = ?"
       " ORDER BY attached_at, server, uri")
_REMEMBER = ("INSERT INTO mcp_attached_resources (session_id, server, uri, content_hash, attached_at)"
             " VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, server, uri) DO UPDATE SET"
             " content_hash = excluded.content_hash")


class LiteAttachedResources(Delegating):
    """One row per (conversation, server, URI); removed with the conversation (ON DELETE CASCADE)."""

    def __init__(self, db: LiteDatabase, full: Callable[[], Any],
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        super().__init__(db, full)
        self._db = db
        self._now = now

    def of(self, session_id: str) -> Sequence[AttachedResource]:
        return [AttachedResource(server, uri, digest) for server, uri, digest in self._db.rows(_OF, (session_id,))]

    def remember(self, session_id: str, resources: Sequence[AttachedResource]) -> None:
        at = micros(self._now())
        with self._db.write():
            self._db.many(_REMEMBER, [(session_id, r.server, r.uri, r.content_hash, at) for r in resources])
