"""Edit summary: the user corrects the compacted summary that is injected into the system prompt."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

from domain.errors import InvalidInput, NotFound
from domain.models import Session, SessionId
from domain.ports import Clock, SessionRepository, UnitOfWork

MAX_SUMMARY_CHARS = 50_000  # about 12K tokens: the summary rides in every request's system prompt


class EditSummaryUseCase:
    """Replaces a compacted session's summary with the user's text."""

    def __init__(self, sessions: SessionRepository, clock: Clock, *, store: UnitOfWork | None = None) -> None:
        """`store`: the summary and its compaction record change in one transaction (a compaction landing between
        them would leave the two disagreeing)."""
        self._sessions = sessions
        self._clock = clock
        self._store = store

    def _atomic(self) -> AbstractContextManager[None]:
        return self._store.atomic() if self._store is not None else nullcontext()

    def __call__(self, session_id: SessionId, summary: str) -> Session:
        """Returns the updated session; InvalidInput for a blank or huge summary or an uncompacted session."""
        text = summary.strip()
        if not text:
            raise InvalidInput("The summary cannot be empty; use Reset context to drop it instead.")
        if len(text) > MAX_SUMMARY_CHARS:
            raise InvalidInput(f"The summary is too long ({len(text)} characters; at most {MAX_SUMMARY_CHARS}).")
        with self._atomic():  # only the summary is written: the boundary and counters stay as stored
            session = self._sessions.get(session_id)
            if session is None:
                raise NotFound("session", session_id)
            if session.compact_boundary is None:
                raise InvalidInput("This conversation has not been compacted yet, so it has no summary to edit.")
            updated = self._sessions.update_fields(session_id, compacted_summary=text, updated_at=self._clock.now())
            self._sessions.revise_checkpoint(session_id, text)  # the branch keeps the edit when switched back to
        return updated
