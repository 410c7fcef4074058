"""BranchSwitcher: moves a session's active path and puts in force the compaction that belongs to the new path."""

from __future__ import annotations

from dataclasses import replace

from domain.chat.tree import checkpoint_for
from domain.lookup import require_session
from domain.models import MessageId, Session, SessionId
from domain.ports import MessageRepository, SessionRepository, UnitOfWork


class BranchSwitcher:
    """Makes a path the conversation and puts in force the summary that belongs to it: the compaction whose last
    summarized message lies on the new path, else none (the originals are sent). Never a summary of messages that
    are not on the path."""

    def __init__(self, store: UnitOfWork, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._store, self._sessions, self._messages = store, sessions, messages

    def switch(self, session_id: SessionId, leaf_id: MessageId | None) -> Session:
        """One transaction: the path to `leaf_id` (None: empty, before a new first message) and its summary."""
        with self._store.atomic():
            session = require_session(self._sessions, session_id)
            path = self._messages.set_path(session.id, leaf_id)
            record = checkpoint_for(path, self._sessions.compactions(session.id))
            summary, boundary = None, None
            if record is not None and record.through_id is not None:
                through = self._messages.get(record.through_id)
                assert through is not None, "the record's message lies on the path"
                summary, boundary = record.summary, through.seq + 1
            if (session.summary, session.boundary) == (summary, boundary):
                return session
            return self._sessions.update(replace(session, compacted_summary=summary, compact_boundary=boundary,
                                                 flushed_in_compaction_cycle=False))
