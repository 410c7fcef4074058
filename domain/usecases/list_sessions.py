"""List sessions: the conversations, newest first (archived ones only when asked)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import Session
from domain.ports import SessionRepository


class ListSessionsUseCase:
    """Lists sessions, newest (by last update) first; deleted ones only when asked."""

    def __init__(self, sessions: SessionRepository) -> None:
        self._sessions = sessions

    def __call__(self, *, include_deleted: bool = False, archived: bool | None = None) -> Sequence[Session]:
        """The sessions, newest first; archived=False: only those not archived, True: only archived, None: all."""
        found = self._sessions.list(include_deleted=include_deleted)
        if archived is None:
            return found
        return [s for s in found if s.is_active != archived]
