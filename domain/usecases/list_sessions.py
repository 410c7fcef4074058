"""List sessions: the conversations, newest first."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import Session
from domain.ports import SessionRepository


class ListSessionsUseCase:
    """Lists sessions, newest (by last update) first; deleted ones only when asked."""

    def __init__(self, sessions: SessionRepository) -> None:
        self._sessions = sessions

    def __call__(self, *, include_deleted: bool = False) -> Sequence[Session]:
        """The sessions, newest first."""
        return self._sessions.list(include_deleted=include_deleted)
