"""Purge deleted sessions: a conversation deleted (and not restored) for longer than the keep period goes for good,
with the attachment files no other session refers to, so deleting in the desktop app frees its space in the end."""

from __future__ import annotations

from datetime import timedelta

from domain.models import SessionId
from domain.ports import Clock, SessionRepository

KEEP_DELETED = timedelta(days=30)  # how long a deleted conversation can still be restored


class PurgeDeletedSessionsUseCase:
    """Deletes for good the sessions soft-deleted longer ago than `keep`; returns their ids."""

    def __init__(self, sessions: SessionRepository, clock: Clock, keep: timedelta = KEEP_DELETED) -> None:
        self._sessions = sessions
        self._clock = clock
        self._keep = keep

    def __call__(self) -> list[SessionId]:
        """The ids purged now (none deleted long enough ago: an empty list)."""
        cutoff = self._clock.now() - self._keep
        expired = [s.id for s in self._sessions.list(include_deleted=True)
                   if s.deleted_at is not None and s.deleted_at < cutoff]
        for session_id in expired:
            self._sessions.purge(session_id)
        return expired
