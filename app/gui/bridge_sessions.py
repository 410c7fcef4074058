"""The sessions list's backend over the Container's use cases."""

from __future__ import annotations

from collections.abc import Sequence

from app.container import Container
from domain.models import Session, SessionId
from domain.ports import SessionSearchHit


class SessionsBridge:
    """List, search, rename, delete and restore sessions."""

    _c: Container

    async def list_sessions(self) -> Sequence[Session]:
        return self._c.list_sessions()

    async def search_sessions(self, query: str) -> Sequence[SessionSearchHit]:
        return self._c.search_sessions(query)

    async def rename_session(self, session_id: SessionId, title: str) -> Session:
        return self._c.rename_session(session_id, title)

    async def delete_session(self, session_id: SessionId) -> None:
        self._c.delete_session(session_id)

    async def restore_session(self, session_id: SessionId) -> None:
        self._c.delete_session.undo(session_id)
